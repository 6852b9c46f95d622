package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.pipeline.PipelineHarness.Claim;
import io.shotstash.pipeline.PipelineHarness.Worker;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sixteen workers, each on its own thread and its own loopback address, drain 2,048 jobs at once
 * over HTTP: every job is claimed exactly once, completed once, and ends done with one attempt.
 */
@Timeout(300)
class QueueRaceTest {
  static final int WORKERS = 16;
  static final int KINDS = 64;
  static final int KINDS_PER_WORKER = 32;
  static final int FILES = 32;
  static final int JOBS = FILES * KINDS;

  static PipelineHarness h;

  @BeforeAll
  static void start() {
    h = PipelineHarness.start(Map.of("SHOTSTASH_DB_POOL_SIZE", "16"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** Worker i serves 32 of the 64 kinds, a window that starts at 4 i: every kind has 8 workers. */
  static List<String> kindsOf(int worker) {
    List<String> kinds = new ArrayList<>();
    for (int j = 0; j < KINDS_PER_WORKER; j++) {
      kinds.add("acme/k" + ((worker * 4 + j) % KINDS));
    }
    return kinds;
  }

  @Test
  void sixteenWorkersClaimEveryJobExactlyOnce() throws Exception {
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      workers.add(h.registerFrom("127.0.0." + (10 + i), "race-" + i, kindsOf(i)));
    }
    assertThat(h.number("SELECT count(*) FROM pipeline_kinds WHERE name LIKE 'acme/k%'")).isEqualTo(KINDS);
    for (int f = 0; f < FILES; f++) {
      h.upload("race-" + f + ".txt");
    }
    // One job per file and kind, inserted in one statement (the NOTIFY trigger fires for each row).
    h.sql("INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), f.id, k.name "
        + "FROM media_files f CROSS JOIN pipeline_kinds k WHERE k.name LIKE 'acme/k%'");
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs WHERE status = 'queued'")).isEqualTo(JOBS);

    ExecutorService threads = Executors.newFixedThreadPool(WORKERS);
    List<Future<List<String>>> loops = new ArrayList<>();
    try {
      for (Worker w : workers) {
        loops.add(threads.submit(drain(w)));
      }
      List<String> claimed = new ArrayList<>();
      for (Future<List<String>> loop : loops) {
        claimed.addAll(loop.get(3, TimeUnit.MINUTES));
      }
      Set<String> distinct = new HashSet<>(claimed);
      assertThat(distinct).as("no job was claimed twice").hasSameSizeAs(claimed);
      assertThat(claimed).hasSize(JOBS);
    } finally {
      threads.shutdownNow();
    }

    assertThat(h.rows("SELECT status, attempts, count(*) FROM pipeline_jobs GROUP BY status, attempts"))
        .containsExactly(List.of("done", 1, (long) JOBS));
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs WHERE version_id IS NULL OR progress <> 100 "
        + "OR output_storage_key IS NOT NULL")).isZero();
    assertThat(h.number("SELECT count(DISTINCT job_id) FROM processed_versions WHERE attempt = 1")).isEqualTo(JOBS);
    assertThat(h.number("SELECT count(*) FROM processed_versions")).isEqualTo(JOBS);
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs j JOIN processed_versions v ON v.id = j.version_id "
        + "AND v.job_id = j.id AND v.kind = j.kind AND v.file_id = j.file_id")).isEqualTo(JOBS);
    assertThat(h.storedOutputs()).isEqualTo(JOBS);
  }

  /** One worker's loop: claim, upload a tiny output, complete, until jobs/next answers 204. */
  static Callable<List<String>> drain(Worker w) {
    return () -> {
      List<String> mine = new ArrayList<>();
      while (true) {
        HttpResponse<Buffer> next = w.next();
        if (next.statusCode() == 204) {
          return mine;
        }
        assertThat(next.statusCode()).as("jobs/next of %s: %s", w.name, next.bodyAsString()).isEqualTo(200);
        Claim claim = Worker.claimOf(next);
        assertThat(claim.attempt()).isEqualTo(1);
        assertThat(w.kinds).contains(claim.job().getString("kind"));
        mine.add(claim.jobId());
        HttpResponse<Buffer> output = w.output(claim, "done by " + w.name);
        assertThat(output.statusCode()).as("output: %s", output.bodyAsString()).isEqualTo(200);
        HttpResponse<Buffer> complete = w.complete(claim);
        assertThat(complete.statusCode()).as("complete: %s", complete.bodyAsString()).isEqualTo(200);
        assertThat(complete.bodyAsJsonObject().getString("status")).isEqualTo("done");
        assertThat(complete.bodyAsJsonObject().getString("versionId"))
            .isEqualTo(output.bodyAsJsonObject().getString("versionId"));
      }
    };
  }
}
