package io.shotstash.ratelimit;

import io.vertx.core.Future;
import java.time.Duration;

/**
 * Rate limits as the routes use them. Answers are futures so that a cluster-wide store (shared
 * counters) can implement the same interface; {@link LocalRateLimiter} counts on this node.
 */
public interface RateLimiter {
  /** Counts one call under {@code key} if allowed. */
  Future<SlidingWindow.Decision> tryAcquire(String key, int limit, Duration window);

  /** Whether a call would be allowed, without counting it. */
  Future<SlidingWindow.Decision> check(String key, int limit, Duration window);

  /** Counts an event unconditionally (e.g. a failed login). */
  Future<Void> record(String key, Duration window);
}
