package io.shotstash.ratelimit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A sliding-window counter per key: at most {@code limit} events in any window of the given
 * length. Refused attempts are not counted. Thread-safe: each key's events change only inside the
 * map's atomic {@code compute}, so pruning an idle key can never drop an event being counted. The
 * clock is passed in, so it is tested without waiting. This is the in-memory store of one node; a
 * cluster-wide store implements {@link RateLimiter} over shared state.
 */
public final class SlidingWindow {
  private final ConcurrentHashMap<String, Deque<Long>> events = new ConcurrentHashMap<>();

  /** The answer: allowed, or refused with the whole seconds until a slot frees (at least 1). */
  public record Decision(boolean allowed, int retryAfterSeconds) {
    static final Decision ALLOWED = new Decision(true, 0);
  }

  /** Counts one event for {@code key} if the window has room. */
  public Decision tryAcquire(String key, int limit, Duration window, long nowMillis) {
    Decision[] out = new Decision[1];
    events.compute(key, (k, times) -> {
      Deque<Long> t = times == null ? new ArrayDeque<>() : times;
      out[0] = decide(t, limit, window, nowMillis);
      if (out[0].allowed()) {
        t.addLast(nowMillis);
      }
      return t.isEmpty() ? null : t;
    });
    return out[0];
  }

  /** Whether an event would be allowed, without counting it. */
  public Decision check(String key, int limit, Duration window, long nowMillis) {
    Decision[] out = {decide(new ArrayDeque<>(), limit, window, nowMillis)};
    events.computeIfPresent(key, (k, times) -> {
      out[0] = decide(times, limit, window, nowMillis);
      return times.isEmpty() ? null : times;
    });
    return out[0];
  }

  /** Counts an event whatever the window holds (failed logins count toward their own limit). */
  public void record(String key, Duration window, long nowMillis) {
    events.compute(key, (k, times) -> {
      Deque<Long> t = times == null ? new ArrayDeque<>() : times;
      expire(t, window, nowMillis);
      t.addLast(nowMillis);
      return t;
    });
  }

  /** Drops keys whose windows are empty; call now and then so idle keys do not pile up. */
  public void prune(Duration longestWindow, long nowMillis) {
    for (String key : events.keySet()) {
      events.computeIfPresent(key, (k, times) -> {
        expire(times, longestWindow, nowMillis);
        return times.isEmpty() ? null : times;
      });
    }
  }

  /** The decision for a log of event times (expired ones are dropped first); shared with the cluster store. */
  static Decision decide(Deque<Long> times, int limit, Duration window, long now) {
    expire(times, window, now);
    if (times.size() < limit) {
      return Decision.ALLOWED;
    }
    if (times.isEmpty()) { // a limit of 0: never allowed
      return new Decision(false, (int) Math.max(1, window.toSeconds()));
    }
    // the slot frees when the oldest event that still counts leaves the window
    long frees = times.peekFirst() + window.toMillis();
    int seconds = (int) Math.max(1, (frees - now + 999) / 1000);
    return new Decision(false, seconds);
  }

  static void expire(Deque<Long> times, Duration window, long now) {
    long cutoff = now - window.toMillis();
    while (!times.isEmpty() && times.peekFirst() <= cutoff) {
      times.pollFirst();
    }
  }
}
