package io.shotstash.ratelimit;

import io.shotstash.bus.ApiError;
import io.vertx.core.Future;
import java.time.Duration;

/**
 * The limit on writes: 30 a minute per person, counted together for the REST API and GraphQL
 * mutations (one counter per person, cluster-wide where the limiter is).
 */
public final class WriteLimit {
  public static final int PER_MINUTE = 30;
  public static final Duration WINDOW = Duration.ofMinutes(1);

  private WriteLimit() {}

  /** The counter of one person's (or agent's) writes. */
  public static String key(String personId) {
    return "writes:" + personId;
  }

  /**
   * The write gate: counts one write of {@code personId} and fails with {@code 429 rate_limited}
   * (with the seconds to wait) when it is over the limit. Every REST write and GraphQL mutation
   * passes here before its command is sent.
   */
  public static Future<Void> admit(RateLimiter limiter, String personId) {
    return limiter.tryAcquire(key(personId), PER_MINUTE, WINDOW).compose(d -> d.allowed() ? Future.succeededFuture()
        : Future.failedFuture(ApiError.rateLimited(d.retryAfterSeconds()).toException()));
  }
}
