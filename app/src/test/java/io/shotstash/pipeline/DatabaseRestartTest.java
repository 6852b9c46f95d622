package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shotstash.pipeline.PipelineHarness.Claim;
import io.shotstash.pipeline.PipelineHarness.Worker;
import io.shotstash.testing.PrivatePostgres;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL restarts under the app (a server of the test's own, {@link PrivatePostgres}): calls
 * during the outage answer 503 with Retry-After in their surface's shape, never a 500 or a hang;
 * /ready reports it; the pools recover by themselves. Then a soak: 10,000 jobs, 16 racing workers,
 * claims expired under them for the sweeper (time moved in the database), and one restart in the
 * middle: no job is claimed twice in one attempt, none completed twice, each ends done or failed.
 */
@Timeout(600)
class DatabaseRestartTest {
  static PrivatePostgres pg;
  static PipelineHarness h;

  @BeforeAll
  static void start() {
    pg = PrivatePostgres.start();
    h = PipelineHarness.start(TestDatabase.createOn(pg.url()),
        Map.of("SHOTSTASH_DB_POOL_SIZE", "8", "SHOTSTASH_PIPELINE_SWEEP_SECONDS", "1"));
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void anOutageAnswers503WithRetryAfterAndThePoolsRecover() {
    Worker worker = h.register("outage-worker", List.of("acme/outage"));
    assertThat(worker.next().statusCode()).isEqualTo(204);
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    pg.stopServer();
    try {
      // the REST API: the session lookup needs the database
      HttpResponse<Buffer> me = h.app.client().get("/api/auth/me").bearerTokenAuthentication(h.adminToken)
          .timeout(20_000).send().await();
      assertThat(me.statusCode()).as(me.bodyAsString()).isEqualTo(503);
      assertThat(me.getHeader("Retry-After")).isEqualTo("5");
      assertThat(me.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("database_unavailable");

      // the worker contract, in its own shape
      HttpResponse<Buffer> next = worker.nextWithin(20_000).await();
      assertThat(next.statusCode()).as(next.bodyAsString()).isEqualTo(503);
      assertThat(next.getHeader("Retry-After")).isEqualTo("5");
      assertThat(next.getHeader("X-Shotstash-Pipeline")).isEqualTo("1");
      assertThat(next.bodyAsJsonObject().getString("code")).isEqualTo("DATABASE_UNAVAILABLE");

      // GraphQL
      HttpResponse<Buffer> gql = h.app.client().post("/graphql").bearerTokenAuthentication(h.adminToken)
          .timeout(20_000).sendJsonObject(new JsonObject().put("query", "{ folders { id } }")).await();
      assertThat(gql.statusCode()).as(gql.bodyAsString()).isEqualTo(503);
      assertThat(gql.getHeader("Retry-After")).isEqualTo("5");
      assertThat(gql.bodyAsJsonObject().getJsonArray("errors").getJsonObject(0).getJsonObject("extensions")
          .getString("code")).isEqualTo("DATABASE_UNAVAILABLE");

      // readiness says why; the process itself is healthy
      HttpResponse<Buffer> ready = h.app.client().get("/ready").timeout(20_000).send().await();
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.bodyAsJsonObject().getJsonObject("checks").getBoolean("database")).isFalse();
      assertThat(h.app.client().get("/health").send().await().statusCode()).isEqualTo(200);
    } finally {
      pg.startServer();
      root.detachAppender(logs);
    }
    assertThat(logs.list).as("an outage is not a bug: no ERROR lines")
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)).isEmpty();

    // the pools reconnect by themselves
    h.eventually("ready again", () -> h.app.client().get("/ready").send().await().statusCode() == 200);
    h.eventually("the REST API answers",
        () -> h.app.client().get("/api/auth/me").bearerTokenAuthentication(h.adminToken)
            .send().await().statusCode() == 200);
    h.eventually("the contract answers", () -> worker.next().statusCode() == 204);
  }

  // ---- the soak ----

  static final int WORKERS = 16;
  static final int KINDS = 64;
  static final int KINDS_PER_WORKER = 32;
  static final int FILES = 157;
  static final int JOBS = FILES * KINDS; // 10,048

  /** Worker i serves 32 of the 64 kinds, a window that starts at 4 i: every kind has 8 workers. */
  static List<String> kindsOf(int worker) {
    List<String> kinds = new ArrayList<>();
    for (int j = 0; j < KINDS_PER_WORKER; j++) {
      kinds.add("soak/k" + ((worker * 4 + j) % KINDS));
    }
    return kinds;
  }

  /** What the workers saw, shared by all of them. */
  static final class Ledger {
    /** jobId/attempt of every claim: a second entry is a job handed out twice in one attempt. */
    final Set<String> claims = ConcurrentHashMap.newKeySet();
    final AtomicInteger duplicateClaims = new AtomicInteger();
    /** jobId -> the claim token that was told "done". */
    final Map<String, String> toldDone = new ConcurrentHashMap<>();
    final AtomicInteger duplicateCompletions = new AtomicInteger();
    final AtomicInteger outageAnswers = new AtomicInteger();
    final AtomicInteger staleClaims = new AtomicInteger();
    final AtomicInteger abandoned = new AtomicInteger();
    final List<String> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
  }

  @Test
  void tenThousandJobsSixteenWorkersTheSweeperAndARestart() throws Exception {
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      slots.add(new Slot(i));
    }
    for (int f = 0; f < FILES; f++) {
      h.upload("soak-" + f + ".txt");
    }
    h.sql("INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), f.id, k.name "
        + "FROM media_files f CROSS JOIN pipeline_kinds k WHERE k.name LIKE 'soak/k%' AND f.name LIKE 'soak-%'");
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs WHERE kind LIKE 'soak/%'")).isEqualTo(JOBS);

    Ledger ledger = new Ledger();
    AtomicBoolean finished = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(WORKERS);
    List<Future<?>> loops = new ArrayList<>();
    boolean restarted = false;
    try {
      for (Slot slot : slots) {
        loops.add(threads.submit(() -> work(slot, ledger, finished)));
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(8);
      while (true) {
        assertThat(System.nanoTime()).as("the soak ends within 8 minutes").isLessThan(deadline);
        long open = openJobs();
        if (open == 0) {
          break;
        }
        if (!restarted && ledger.toldDone.size() >= JOBS / 2) {
          pg.restartServer(); // in the middle, with every worker busy
          restarted = true;
        }
        expireOldClaims();
        h.pause(250);
      }
    } finally {
      finished.set(true);
      threads.shutdown();
      assertThat(threads.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
    }
    for (Future<?> loop : loops) {
      loop.get(); // a worker's assertion failure surfaces here
    }
    assertThat(restarted).as("the restart happened while jobs were open").isTrue();
    assertThat(ledger.unexpected).isEmpty();
    assertThat(ledger.duplicateClaims).as("a job handed out twice in one attempt").hasValue(0);
    assertThat(ledger.duplicateCompletions).as("a job told done under two claims").hasValue(0);

    // every job ended by the rules: done with exactly one version, or failed after its attempts
    long done = h.number("SELECT count(*) FROM pipeline_jobs WHERE kind LIKE 'soak/%' AND status = 'done'");
    long failed = h.number("SELECT count(*) FROM pipeline_jobs WHERE kind LIKE 'soak/%' AND status = 'failed' "
        + "AND attempts >= max_attempts");
    assertThat(done + failed).isEqualTo(JOBS);
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs j WHERE j.kind LIKE 'soak/%' AND j.status = 'done' "
        + "AND (j.version_id IS NULL OR (SELECT count(*) FROM processed_versions v WHERE v.job_id = j.id) <> 1)"))
        .isZero();
    assertThat(h.number("SELECT count(*) FROM processed_versions v JOIN pipeline_jobs j ON j.id = v.job_id "
        + "WHERE j.kind LIKE 'soak/%'")).isEqualTo(done);
    // no worker was told "done" for a job that is not done
    assertThat(ledger.toldDone).hasSize((int) done);
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs WHERE kind LIKE 'soak/%' AND status = 'done' AND id IN ("
        + String.join(",", ledger.toldDone.keySet().stream().map(id -> "'" + id + "'").toList()) + ")"))
        .isEqualTo(done);
    // the faults really happened
    assertThat(ledger.outageAnswers.get() + ledger.staleClaims.get() + ledger.abandoned.get()).isPositive();
    System.out.printf("soak: %d done, %d failed; %d answers during the outage, %d stale claims, %d abandoned%n",
        done, failed, ledger.outageAnswers.get(), ledger.staleClaims.get(), ledger.abandoned.get());
  }

  private static long openJobs() {
    try {
      return h
          .number("SELECT count(*) FROM pipeline_jobs WHERE kind LIKE 'soak/%' AND status NOT IN ('done', 'failed')");
    } catch (IllegalStateException e) {
      return -1; // the server is restarting
    }
  }

  /** Moves time for claims held over a second: the sweeper takes them back under the workers. */
  private static void expireOldClaims() {
    try {
      h.sql("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '10 minutes' WHERE kind LIKE 'soak/%' "
          + "AND status IN ('claimed', 'running') AND claimed_at < now() - interval '1 second'");
    } catch (IllegalStateException e) {
      // the server is restarting
    }
  }

  /**
   * One of the 16 racing workers. The contract allows a worker 600 calls a minute, so, as in the
   * job-cycle benchmark, the slot registers a fresh worker (a new name, the same kinds and address)
   * every {@value #CALLS_PER_WORKER} calls: the rate stays within the contract and the soak within
   * the suite's time.
   */
  static final class Slot {
    static final int CALLS_PER_WORKER = 400;
    final int index;
    int generation;
    int calls;
    Worker worker;

    Slot(int index) {
      this.index = index;
      rotate();
    }

    void rotate() {
      worker = h.registerFrom("127.0.1." + (10 + index), "soak-" + index + "-" + generation++, kindsOf(index));
      calls = 0;
    }

    Worker next() {
      if (++calls > CALLS_PER_WORKER) {
        rotate();
        calls = 1;
      }
      return worker;
    }
  }

  /**
   * One worker: claim, upload, complete, as the contract tells a worker to, with the back-off shortened
   * for the test: on 503 or a dropped connection wait and try again; on 409 drop the job (its claim
   * is gone). Every 97th first attempt is abandoned, as by a worker that died.
   */
  private static void work(Slot slot, Ledger ledger, AtomicBoolean finished) {
    while (!finished.get()) {
      Worker w = slot.next();
      HttpResponse<Buffer> next = call(() -> w.nextWithin(30_000).await(), ledger);
      if (next == null || next.statusCode() == 204 || next.statusCode() == 503) {
        pauseBriefly();
        continue;
      }
      if (next.statusCode() != 200) {
        ledger.unexpected.add("jobs/next: " + next.statusCode() + " " + next.bodyAsString());
        continue;
      }
      Claim claim = Worker.claimOf(next);
      if (!w.kinds.contains(claim.job().getString("kind"))) {
        ledger.unexpected.add("a job of a kind " + w.name + " does not run");
      }
      if (!ledger.claims.add(claim.jobId() + "/" + claim.attempt())) {
        ledger.duplicateClaims.incrementAndGet();
      }
      if (claim.attempt() == 1 && Math.floorMod(claim.jobId().hashCode(), 97) == 0) {
        ledger.abandoned.incrementAndGet();
        continue;
      }
      HttpResponse<Buffer> output = deliver(slot, () -> w.outputAsync(claim, "soak " + claim.jobId()).await(), ledger);
      if (output == null || output.statusCode() != 200) {
        continue;
      }
      HttpResponse<Buffer> complete = deliver(slot, () -> w.complete(claim), ledger);
      if (complete != null && complete.statusCode() == 200) {
        String earlier = ledger.toldDone.putIfAbsent(claim.jobId(), claim.claimToken());
        if (earlier != null && !earlier.equals(claim.claimToken())) {
          ledger.duplicateCompletions.incrementAndGet();
        }
      }
    }
  }

  /** Retries a delivery (output, complete) on 503 and dropped connections; null or the final answer. */
  private static HttpResponse<Buffer> deliver(Slot slot, java.util.function.Supplier<HttpResponse<Buffer>> request,
      Ledger ledger) {
    for (int i = 0; i < 600; i++) {
      slot.calls++; // the same worker must deliver: its claim is its own
      HttpResponse<Buffer> r = call(request, ledger);
      if (r == null || r.statusCode() == 503) {
        pauseBriefly();
        continue;
      }
      if (r.statusCode() == 429) { // the contract: wait Retry-After, then deliver again
        sleepSeconds(Integer.parseInt(r.getHeader("Retry-After")));
        continue;
      }
      if (r.statusCode() == 409) {
        ledger.staleClaims.incrementAndGet();
      } else if (r.statusCode() != 200) {
        ledger.unexpected.add("delivery: " + r.statusCode() + " " + r.bodyAsString());
      }
      return r;
    }
    ledger.unexpected.add("a delivery never got through");
    return null;
  }

  /** One call; null when the connection failed (the app is fine, its answer did not arrive). */
  private static HttpResponse<Buffer> call(java.util.function.Supplier<HttpResponse<Buffer>> request, Ledger ledger) {
    try {
      HttpResponse<Buffer> r = request.get();
      if (r.statusCode() == 503) {
        ledger.outageAnswers.incrementAndGet();
        if (r.getHeader("Retry-After") == null) {
          ledger.unexpected.add("a 503 without Retry-After: " + r.bodyAsString());
        }
      } else if (r.statusCode() >= 500 || r.statusCode() == 400 || r.statusCode() == 401) {
        ledger.unexpected.add(r.statusCode() + " " + r.bodyAsString());
      }
      return r;
    } catch (RuntimeException e) {
      ledger.unexpected.add("a call failed: " + e);
      return null;
    }
  }

  private static void pauseBriefly() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleepSeconds(int seconds) {
    try {
      Thread.sleep(seconds * 1000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
