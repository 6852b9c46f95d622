package io.shotstash.moderation;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

/**
 * Daily allowances counted from the records themselves (an agent's spam votes by their
 * evaluatedAt, its purges by purgedAt), so they hold across restarts and nodes. Pure.
 */
public final class Allowance {
  private Allowance() {}

  /**
   * Null when another event fits in the rolling window; else the whole seconds until the oldest
   * event in the window leaves it (at least 1).
   */
  public static Integer retryAfter(Collection<Instant> events, int limit, Duration window, Instant now) {
    Instant cutoff = now.minus(window);
    Instant oldest = null;
    int inWindow = 0;
    for (Instant t : events) {
      if (t != null && t.isAfter(cutoff) && !t.isAfter(now)) {
        inWindow++;
        if (oldest == null || t.isBefore(oldest)) {
          oldest = t;
        }
      }
    }
    if (inWindow < limit) {
      return null;
    }
    long seconds = Duration.between(now, oldest.plus(window)).toMillis();
    return (int) Math.max(1, (seconds + 999) / 1000);
  }
}
