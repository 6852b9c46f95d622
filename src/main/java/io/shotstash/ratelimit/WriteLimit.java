package io.shotstash.ratelimit;

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
}
