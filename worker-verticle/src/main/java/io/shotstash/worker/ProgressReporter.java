package io.shotstash.worker;

import java.util.OptionalInt;

/**
 * When to report progress: when the whole percent changes, at most once every interval (2 s), and
 * 100 once at the end. The first report (usually 0) goes at once: it moves the job from claimed to
 * running. Pure: the caller passes the time.
 */
public final class ProgressReporter {
  public static final long DEFAULT_INTERVAL_MILLIS = 2_000;

  private final long intervalMillis;
  private int lastSent = -1;
  private long lastSentAt;

  public ProgressReporter() {
    this(DEFAULT_INTERVAL_MILLIS);
  }

  public ProgressReporter(long intervalMillis) {
    this.intervalMillis = intervalMillis;
  }

  /**
   * Offers the current percent (clamped to 0..99: 100 is kept for {@link #finish()}); answers the
   * value to report now, or empty. A value that does not move forward is never reported.
   */
  public OptionalInt offer(int percent, long nowMillis) {
    int p = Math.max(0, Math.min(99, percent));
    if (p <= lastSent) {
      return OptionalInt.empty();
    }
    if (lastSent >= 0 && nowMillis - lastSentAt < intervalMillis) {
      return OptionalInt.empty();
    }
    lastSent = p;
    lastSentAt = nowMillis;
    return OptionalInt.of(p);
  }

  /** The final 100, once, whatever the interval. */
  public OptionalInt finish() {
    if (lastSent == 100) {
      return OptionalInt.empty();
    }
    lastSent = 100;
    return OptionalInt.of(100);
  }

  /** The whole percent of {@code outMicros} into a run of {@code durationSeconds} (0 when unknown), 0..99. */
  public static int percentOf(long outMicros, double durationSeconds) {
    if (!(durationSeconds > 0) || outMicros <= 0) {
      return 0;
    }
    double percent = outMicros / (durationSeconds * 1_000_000d) * 100d;
    return (int) Math.max(0, Math.min(99, Math.floor(percent)));
  }
}
