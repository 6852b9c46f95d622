package io.shotstash.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.shotstash.auth.Actor;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The numbers an operator watches, on this node's {@code GET /metrics} (docs/operations.md →
 * Metrics, where each is listed with its labels; docs/grafana-dashboard.json draws them). Labels are
 * kinds, statuses, verdicts and kinds of actor only, never ids, so their sets stay small. Each node
 * counts what it did itself: sum a counter over the nodes. The queue's gauges are read from
 * PostgreSQL ({@code pipeline.QueueGauges}), the same on every node: take one node's, or the max.
 */
public final class DomainMetrics {
  private static final MeterRegistry REGISTRY = Metrics.registry();
  /** Queue wait: from milliseconds (a worker waiting) to hours (a backlog). */
  private static final Duration[] WAIT_BUCKETS = {ms(10), ms(100), s(1), s(5), s(30), s(60), s(300), s(900),
      s(3600), s(14_400)};
  /** Run time: from a thumbnail to a long transcode. */
  private static final Duration[] RUN_BUCKETS = {ms(100), s(1), s(5), s(30), s(60), s(300), s(900), s(3600),
      s(14_400)};
  /** One git commit: milliseconds, unless the disk stalls. */
  private static final Duration[] COMMIT_BUCKETS = {ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250),
      ms(1000), s(5)};

  private DomainMetrics() {}

  // ---- the job queue (this node's calls)

  /** A kind's claim and complete meters, made once: a job cycle looks them up, never builds them. */
  private record KindMeters(Counter claims, Timer queueWait, Counter completes, Timer run) {
    static KindMeters of(String kind) {
      return new KindMeters(
          Counter.builder("shotstash.job.claims").description("Jobs claimed by workers through this node")
              .tag("kind", kind).register(REGISTRY),
          Timer.builder("shotstash.job.queue.wait").description("From claimable (queued, or due again) to claimed")
              .tag("kind", kind).serviceLevelObjectives(WAIT_BUCKETS).register(REGISTRY),
          Counter.builder("shotstash.job.completes").description("Jobs completed (done) through this node")
              .tag("kind", kind).register(REGISTRY),
          Timer.builder("shotstash.job.run").description("From claim to complete, jobs that ended done")
              .tag("kind", kind).serviceLevelObjectives(RUN_BUCKETS).register(REGISTRY));
    }
  }

  private static final Map<String, KindMeters> KINDS = new ConcurrentHashMap<>();

  /** A worker claimed a job of {@code kind} that had waited {@code waitSeconds} since it became claimable. */
  public static void claimed(String kind, double waitSeconds) {
    KindMeters m = KINDS.computeIfAbsent(kind, KindMeters::of);
    m.claims().increment();
    m.queueWait().record(seconds(waitSeconds));
  }

  /** A job of {@code kind} was completed {@code runSeconds} after its claim. */
  public static void completed(String kind, double runSeconds) {
    KindMeters m = KINDS.computeIfAbsent(kind, KindMeters::of);
    m.completes().increment();
    m.run().record(seconds(runSeconds));
  }

  /** A worker failed a job of {@code kind}: queued again for a retry, or failed for good. */
  public static void failed(String kind, boolean retried) {
    Counter.builder("shotstash.job.fails").description("Jobs a worker reported failed, by what became of them")
        .tag("kind", kind).tag("outcome", retried ? "retried" : "failed").register(REGISTRY).increment();
  }

  /** The lease sweeper took back an abandoned claim: queued again, or failed for good (no attempts left). */
  public static void sweeperExpired(String kind, boolean requeued) {
    Counter.builder("shotstash.job.sweeper.requeues").description("Abandoned claims the lease sweeper took back")
        .tag("kind", kind).tag("outcome", requeued ? "requeued" : "failed").register(REGISTRY).increment();
  }

  // ---- the git writer (the node that runs it)

  /** The writer's queue length, read when scraped; removed when the writer stops (it moves to another node). */
  public static Gauge writerQueue(Supplier<Number> length) {
    return Gauge.builder("shotstash.git.writer.queue", length).description("Writes waiting for the git writer")
        .strongReference(true).register(REGISTRY);
  }

  public static void remove(Gauge gauge) {
    REGISTRY.remove(gauge);
  }

  /** One commit written (objects, tree and the branch moved). */
  public static void commit(Duration took) {
    Timer.builder("shotstash.git.commit").description("Writing one commit to the data repository")
        .serviceLevelObjectives(COMMIT_BUCKETS).register(REGISTRY).record(took);
  }

  // ---- moderation (counted by the writer once the commit is in: WritePlan.whenCommitted)

  /** human, agent or system (the scheduled purge): never who. */
  public static String actorKind(Actor actor) {
    if (actor instanceof Actor.Agent) {
      return "agent";
    }
    return actor instanceof Actor.Member ? "human" : "system";
  }

  /** A vote was committed. {@code actor}: human, agent. */
  public static void vote(String actor, String verdict) {
    Counter.builder("shotstash.moderation.votes").description("Spam and legit votes committed").tag("actor", actor)
        .tag("verdict", verdict).register(REGISTRY).increment();
  }

  /** A purge was committed. {@code actor}: human (an administrator), agent, system (the scheduled purge). */
  public static void purge(String actor) {
    Counter.builder("shotstash.moderation.purges").description("Accounts purged").tag("actor", actor)
        .register(REGISTRY).increment();
  }

  // ---- resumable uploads

  /**
   * What became of resumable uploads on this node. {@code outcome}: created, completed (became a
   * file; counted once per upload), terminated (DELETE), expired (removed by the sweeper; completed
   * ones included).
   */
  public static void resumableUploads(String outcome, int n) {
    if (n > 0) {
      Counter.builder("shotstash.resumable.uploads").description("Resumable (tus) uploads, by what became of them")
          .tag("outcome", outcome).register(REGISTRY).increment(n);
    }
  }

  private static Duration seconds(double s) {
    return Duration.ofNanos((long) (Math.max(0, s) * 1e9));
  }

  private static Duration ms(long n) {
    return Duration.ofMillis(n);
  }

  private static Duration s(long n) {
    return Duration.ofSeconds(n);
  }
}
