package io.shotstash.pipeline;

import io.shotstash.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the jobs dashboard's per-minute history ({@code pipeline_minutes}, migration V10): a couple
 * of seconds after each minute ends, the row of that minute (jobs done and failed in it, open jobs
 * now), and deletes rows older than {@link #KEEP_HOURS}. Runs on every node; the insert is
 * {@code ON CONFLICT (minute) DO NOTHING}, so the first node writes the row and the others change
 * nothing. A minute during which no node ran stays without a row (the dashboard shows a gap).
 * {@code pipeline.minutes.sample} samples now and answers {@code {written}} (tests, operators).
 */
public final class MinuteSampler extends VerticleBase {
  static final int KEEP_HOURS = 24;
  /** After the minute ends, so the jobs that finished in its last moments have committed. */
  static final long DELAY_MILLIS = 2_000;
  private static final Logger log = LoggerFactory.getLogger(MinuteSampler.class);

  private final Pool pool;
  private long timer = -1;
  private boolean failing;

  public MinuteSampler(Pool pool) {
    this.pool = pool;
  }

  @Override
  public Future<?> start() {
    schedule();
    sample().onFailure(err -> log.warn("cannot sample the jobs' last minute: {}", err.getMessage()));
    return vertx.eventBus().<JsonObject>consumer(Addresses.PIPELINE_MINUTES_SAMPLE,
        m -> sample().onSuccess(n -> m.reply(new JsonObject().put("written", n)))
            .onFailure(err -> m.fail(500, String.valueOf(err.getMessage()))))
        .completion();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }

  /** The next run: DELAY_MILLIS into the next minute of this node's clock (the SQL uses the database's). */
  private void schedule() {
    long now = System.currentTimeMillis();
    long next = now - now % 60_000 + 60_000 + DELAY_MILLIS;
    timer = vertx.setTimer(next - now, id -> {
      sample().onComplete(r -> {
        if (r.failed() && !failing) {
          log.warn("cannot sample the jobs' last minute; the next minute tries again: {}", r.cause().getMessage());
        } else if (r.succeeded() && failing) {
          log.info("the jobs' minutes are sampled again");
        }
        failing = r.failed();
      });
      schedule();
    });
  }

  /** Writes the previous minute's row if no node has, and prunes; answers how many rows it wrote (0 or 1). */
  Future<Integer> sample() {
    return pool.query(DashboardSql.SAMPLE_PREVIOUS_MINUTE).execute()
        .compose(written -> pool.preparedQuery(DashboardSql.PRUNE_MINUTES).execute(Tuple.of(KEEP_HOURS))
            .map(pruned -> written.rowCount()));
  }
}
