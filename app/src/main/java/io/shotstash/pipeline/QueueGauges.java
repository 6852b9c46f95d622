package io.shotstash.pipeline;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue's gauges, read from PostgreSQL every {@link #EVERY_MILLIS} on every node (the same
 * figures everywhere): {@code shotstash_jobs{status,kind}} for open jobs,
 * {@code shotstash_jobs_oldest_claimable_age_seconds{kind}} and {@code shotstash_workers_live}. A
 * kind or status that has no open job any more drops out of the scrape. A read that fails (the
 * database is away) keeps the last figures and is logged once at the next success.
 */
public final class QueueGauges extends VerticleBase {
  static final long EVERY_MILLIS = 15_000;
  private static final Logger log = LoggerFactory.getLogger(QueueGauges.class);

  private final Pool pool;
  private final MeterRegistry registry;
  private final int leaseSeconds;
  private final AtomicLong liveWorkers = new AtomicLong();
  private MultiGauge jobs;
  private MultiGauge oldest;
  private Gauge live;
  private boolean failing;

  public QueueGauges(Pool pool, MeterRegistry registry, int leaseSeconds) {
    this.pool = pool;
    this.registry = registry;
    this.leaseSeconds = leaseSeconds;
  }

  @Override
  public Future<?> start() {
    jobs = MultiGauge.builder("shotstash.jobs").description("Open jobs by status and kind").register(registry);
    oldest = MultiGauge.builder("shotstash.jobs.oldest.claimable.age").baseUnit("seconds")
        .description("How long the oldest claimable job of a kind has waited").register(registry);
    live = Gauge.builder("shotstash.workers.live", liveWorkers, AtomicLong::get)
        .description("Workers seen within the lease and not revoked").register(registry);
    vertx.setPeriodic(EVERY_MILLIS, id -> sample());
    return sample();
  }

  @Override
  public Future<?> stop() {
    jobs.register(List.of(), true);
    oldest.register(List.of(), true);
    registry.remove(live);
    return Future.succeededFuture();
  }

  /** One reading of all three; the start waits for the first so a scrape right after it has them. */
  Future<Void> sample() {
    Future<List<MultiGauge.Row<?>>> counts = pool.query(PipelineSql.OPEN_JOB_COUNTS).execute()
        .map(rows -> rows(rows, r -> Tags.of("status", r.getString("status"), "kind", r.getString("kind")), "jobs"));
    Future<List<MultiGauge.Row<?>>> ages = pool.query(PipelineSql.OLDEST_CLAIMABLE).execute()
        .map(rows -> rows(rows, r -> Tags.of("kind", r.getString("kind")), "age"));
    Future<Long> workers = pool.preparedQuery(PipelineSql.LIVE_WORKERS).execute(Tuple.of(leaseSeconds))
        .map(rows -> rows.iterator().next().getLong(0));
    return Future.all(counts, ages, workers).<Void>map(all -> {
      jobs.register(counts.result(), true);
      oldest.register(ages.result(), true);
      liveWorkers.set(workers.result());
      if (failing) {
        log.info("the queue's gauges are read again");
        failing = false;
      }
      return null;
    }).recover(err -> {
      if (!failing) {
        log.warn("cannot read the queue's gauges; they keep their last figures: {}", err.getMessage());
        failing = true;
      }
      return Future.succeededFuture();
    });
  }

  private static List<MultiGauge.Row<?>> rows(Iterable<Row> rows, Function<Row, Tags> tags, String column) {
    List<MultiGauge.Row<?>> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(MultiGauge.Row.of(tags.apply(r), r.getNumeric(column).doubleValue()));
    }
    return out;
  }
}
