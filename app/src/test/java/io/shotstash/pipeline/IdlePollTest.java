package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.pipeline.PipelineHarness.Claim;
import io.shotstash.pipeline.PipelineHarness.Worker;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With the LISTEN connection up, a poll with nothing to do never reaches PostgreSQL, and a job that
 * becomes claimable (queued, or its run_after moved) reaches the node through NOTIFY.
 *
 * <p>How "does not reach PostgreSQL" is checked: pg_stat_database counters are flushed by each
 * backend with a delay (PostgreSQL 15 and later: up to 10 s after going idle), and
 * pg_stat_statements is not preloaded here, so counting transactions is unreliable. Instead the test
 * holds an ACCESS EXCLUSIVE lock on pipeline_jobs while it polls: a poll that ran the claim (or any
 * query on the queue) would wait on the lock and time out; polls that stay in memory answer 204 at once.
 */
@Timeout(120)
class IdlePollTest extends WithPipelineHarness {
  static final long POLL_TIMEOUT_MS = 5_000;
  static long listeners() {
    return h.number("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        + "AND query = 'LISTEN pipeline_queued'");
  }

  /**
   * Polls {@code count} times while pipeline_jobs is locked; every answer must be a 204 that did not
   * wait on the lock. With a {@code control} worker (one that never polled, so its node must ask
   * PostgreSQL), first shows that a poll reaching PostgreSQL does wait: the check can fail.
   */
  static void pollWhileTheQueueIsLocked(Worker w, int count, Worker control) throws SQLException {
    try (Connection lock = h.connect(); Statement s = lock.createStatement()) {
      lock.setAutoCommit(false);
      s.execute("LOCK TABLE pipeline_jobs IN ACCESS EXCLUSIVE MODE");
      Future<HttpResponse<Buffer>> blocked = null;
      try {
        if (control != null) {
          blocked =
              control.http.post(PipelineHarness.BASE + "/jobs/next").putHeader("X-Worker-Token", control.token).send();
          h.eventually("the control poll's claim waits on the lock",
              () -> h.number("SELECT count(*) FROM pg_stat_activity "
                  + "WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE OF j SKIP LOCKED%'") == 1);
          assertThat(blocked.isComplete()).isFalse();
        }
        for (int i = 0; i < count; i++) {
          Future<HttpResponse<Buffer>> poll = w.nextWithin(POLL_TIMEOUT_MS);
          Throwable failure = poll.map(r -> (Throwable) null).otherwise(t -> t).await();
          assertThat(failure).as("poll %d waited on PostgreSQL's lock on pipeline_jobs", i).isNull();
          assertThat(poll.result().statusCode()).as("poll %d", i).isEqualTo(204);
        }
      } finally {
        lock.rollback();
      }
      if (blocked != null) {
        assertThat(blocked.await().statusCode()).as("the waiting poll answers once the lock is gone").isEqualTo(204);
      }
    }
  }

  @Test
  void afterOneEmptyPollFurtherPollsDoNotReachPostgres() throws SQLException {
    assertThat(listeners()).as("the app LISTENs on pipeline_queued").isEqualTo(1);
    Worker w = h.register("idle-poller", List.of("acme/idle"));
    Worker control = h.register("idle-control", List.of("acme/idle-control"));
    assertThat(w.next().statusCode()).as("the first poll asks PostgreSQL and learns nothing is queued").isEqualTo(204);
    pollWhileTheQueueIsLocked(w, 200, control);

    // the queue answers again once the lock is gone, and a job queued now is claimed
    String job = h.enqueue(h.upload("idle.txt"), "acme/idle").getString("id");
    Claim claim = h.claimSoon(w);
    assertThat(claim.jobId()).isEqualTo(job);
  }

  @Test
  void aJobQueuedAfterIdlePollingIsClaimedByAPoll() {
    Worker w = h.register("idle-then-busy", List.of("acme/idle-busy"));
    for (int i = 0; i < 20; i++) {
      assertThat(w.next().statusCode()).isEqualTo(204);
    }
    String file = h.upload("busy.txt");
    String job = h.enqueue(file, "acme/idle-busy").getString("id");
    Claim claim = h.claimSoon(w);
    assertThat(claim.jobId()).isEqualTo(job);
    assertThat(w.output(claim, "ok").statusCode()).isEqualTo(200);
    assertThat(w.complete(claim).statusCode()).isEqualTo(200);
    assertThat(w.next().statusCode()).isEqualTo(204);

    // a job inserted in SQL (not through the queue) reaches the node the same way
    h.sql("INSERT INTO pipeline_jobs (id, file_id, kind) VALUES (gen_random_uuid(), '" + file + "', 'acme/idle-busy')");
    Claim inserted = h.claimSoon(w);
    assertThat(inserted.jobId()).isNotEqualTo(job);
  }

  @Test
  void aJobWhoseRunAfterIsInTheFutureIsClaimedOnceRunAfterPasses() throws SQLException {
    Worker w = h.register("idle-later", List.of("acme/idle-later"));
    String job = h.enqueue(h.upload("later.txt"), "acme/idle-later").getString("id");
    h.sql("UPDATE pipeline_jobs SET run_after = now() + interval '1 hour' WHERE id = '" + job + "'");
    // the polls ask PostgreSQL (whatever notices of the two writes are still on their way) and learn
    // that the job waits; a few of them let both notices arrive before the node records the answer
    for (int i = 0; i < 3; i++) {
      assertThat(w.next().statusCode()).as("not claimable before run_after").isEqualTo(204);
    }
    // the node now knows the job waits an hour: polls stay in memory
    pollWhileTheQueueIsLocked(w, 20, null);
    assertThat(h.status(job)).isEqualTo("queued");

    h.runNow(job);
    Claim claim = h.claimSoon(w);
    assertThat(claim.jobId()).isEqualTo(job);
    assertThat(claim.attempt()).isEqualTo(1);
  }
}
