package io.shotstash.ratelimit;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RateLimiter} whose windows count on every node of the cluster together. Each key's window
 * is a log of event times in one Hazelcast map entry ({@value #MAP}, OBJECT format, see
 * {@code conf/cluster.xml}); every call is one entry processor run on the key's owner, where calls
 * on the same key are serialised on its partition thread, so check-and-count is atomic without a
 * lock. The decision is the same as {@link SlidingWindow}'s. The time comes from the calling node
 * (the backup replays the same processor and must reach the same log).
 *
 * <p>If Hazelcast cannot answer (a partition migrating while a node leaves, a split brain being
 * merged) the call is decided by this node's own window instead of failing the request: a limit
 * then holds per node for those moments.
 */
public final class ClusterRateLimiter implements RateLimiter {
  public static final String MAP = "shotstash.rate-limits";
  private static final Logger log = LoggerFactory.getLogger(ClusterRateLimiter.class);
  private static final long WARN_EVERY_MS = 60_000;

  private final Vertx vertx;
  private final IMap<String, WindowLog> windows;
  private final LocalRateLimiter fallback = new LocalRateLimiter();
  private final AtomicLong lastWarning = new AtomicLong();

  public ClusterRateLimiter(Vertx vertx, HazelcastInstance hazelcast) {
    this.vertx = vertx;
    this.windows = hazelcast.getMap(MAP);
    vertx.setPeriodic(60_000, id -> fallback.prune());
  }

  @Override
  public Future<SlidingWindow.Decision> tryAcquire(String key, int limit, Duration window) {
    return run(key, new Acquire(limit, window.toMillis(), System.currentTimeMillis()))
        .recover(err -> fellBack(err, fallback.tryAcquire(key, limit, window)));
  }

  @Override
  public Future<SlidingWindow.Decision> check(String key, int limit, Duration window) {
    return run(key, new Check(limit, window.toMillis(), System.currentTimeMillis()))
        .recover(err -> fellBack(err, fallback.check(key, limit, window)));
  }

  @Override
  public Future<Void> record(String key, Duration window) {
    return run(key, new Record(window.toMillis(), System.currentTimeMillis())).<Void>mapEmpty()
        .recover(err -> fellBack(err, fallback.record(key, window)));
  }

  private Future<SlidingWindow.Decision> run(String key, EntryProcessor<String, WindowLog, Integer> processor) {
    return Future.fromCompletionStage(windows.submitToKey(key, processor), vertx.getOrCreateContext())
        .map(ClusterRateLimiter::decision);
  }

  /** 0 = allowed; otherwise the whole seconds until a slot frees. */
  private static SlidingWindow.Decision decision(Integer retryAfter) {
    return retryAfter == null || retryAfter == 0 ? new SlidingWindow.Decision(true, 0)
        : new SlidingWindow.Decision(false, retryAfter);
  }

  private <T> Future<T> fellBack(Throwable err, Future<T> local) {
    long now = System.currentTimeMillis();
    long last = lastWarning.get();
    if (now - last > WARN_EVERY_MS && lastWarning.compareAndSet(last, now)) {
      log.warn("the cluster-wide rate limits did not answer; counting on this node meanwhile ({})", err.toString());
    }
    return local;
  }

  private static int encode(SlidingWindow.Decision d) {
    return d.allowed() ? 0 : Math.max(1, d.retryAfterSeconds());
  }

  /** The event times of one key, oldest first. Lives in the map (and its backup), never on the wire per call. */
  static final class WindowLog implements Serializable {
    private static final long serialVersionUID = 1L;
    final ArrayDeque<Long> times = new ArrayDeque<>();
  }

  /** Counts one event if the window has room. */
  record Acquire(int limit, long windowMillis, long now) implements EntryProcessor<String, WindowLog, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer process(Map.Entry<String, WindowLog> entry) {
      WindowLog w = entry.getValue() == null ? new WindowLog() : entry.getValue();
      SlidingWindow.Decision d = SlidingWindow.decide(w.times, limit, Duration.ofMillis(windowMillis), now);
      if (d.allowed()) {
        w.times.addLast(now);
      }
      entry.setValue(w.times.isEmpty() ? null : w);
      return encode(d);
    }
  }

  /** Whether an event would be allowed; changes nothing, so it needs no backup. */
  record Check(int limit, long windowMillis, long now) implements EntryProcessor<String, WindowLog, Integer>, ReadOnly {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer process(Map.Entry<String, WindowLog> entry) {
      WindowLog w = entry.getValue();
      ArrayDeque<Long> times = w == null ? new ArrayDeque<>() : new ArrayDeque<>(w.times);
      return encode(SlidingWindow.decide(times, limit, Duration.ofMillis(windowMillis), now));
    }

    @Override
    public EntryProcessor<String, WindowLog, Integer> getBackupProcessor() {
      return null;
    }
  }

  /** Counts an event whatever the window holds (failed logins). */
  record Record(long windowMillis, long now) implements EntryProcessor<String, WindowLog, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer process(Map.Entry<String, WindowLog> entry) {
      WindowLog w = entry.getValue() == null ? new WindowLog() : entry.getValue();
      SlidingWindow.expire(w.times, Duration.ofMillis(windowMillis), now);
      w.times.addLast(now);
      entry.setValue(w);
      return 0;
    }
  }
}
