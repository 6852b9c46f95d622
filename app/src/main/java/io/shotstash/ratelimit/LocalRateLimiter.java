package io.shotstash.ratelimit;

import io.vertx.core.Future;
import java.time.Duration;

/** {@link RateLimiter} over one in-memory {@link SlidingWindow}: limits hold per node. */
public final class LocalRateLimiter implements RateLimiter {
  private final SlidingWindow window = new SlidingWindow();

  @Override
  public Future<SlidingWindow.Decision> tryAcquire(String key, int limit, Duration length) {
    return Future.succeededFuture(window.tryAcquire(key, limit, length, System.currentTimeMillis()));
  }

  @Override
  public Future<SlidingWindow.Decision> check(String key, int limit, Duration length) {
    return Future.succeededFuture(window.check(key, limit, length, System.currentTimeMillis()));
  }

  @Override
  public Future<Void> record(String key, Duration length) {
    window.record(key, length, System.currentTimeMillis());
    return Future.succeededFuture();
  }

  /** Forgets keys idle for longer than the longest window in use (an hour). */
  public void prune() {
    window.prune(Duration.ofHours(1), System.currentTimeMillis());
  }
}
