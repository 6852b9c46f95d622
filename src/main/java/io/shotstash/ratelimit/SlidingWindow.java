package io.shotstash.ratelimit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A sliding-window counter per key: at most {@code limit} events in any window of the given
 * length. Refused attempts are not counted. Thread-safe; the clock is passed in, so it is tested
 * without waiting. This is the in-memory store of one node; a cluster-wide store implements
 * {@link RateLimiter} over shared state.
 */
public final class SlidingWindow {
  private final Map<String, Deque<Long>> events = new ConcurrentHashMap<>();

  /** The answer: allowed, or refused with the whole seconds until a slot frees (at least 1). */
  public record Decision(boolean allowed, int retryAfterSeconds) {
    static final Decision ALLOWED = new Decision(true, 0);
  }

  /** Counts one event for {@code key} if the window has room. */
  public Decision tryAcquire(String key, int limit, Duration window, long nowMillis) {
    Deque<Long> times = events.computeIfAbsent(key, k -> new ArrayDeque<>());
    synchronized (times) {
      Decision d = decide(times, limit, window, nowMillis);
      if (d.allowed()) {
        times.addLast(nowMillis);
      }
      return d;
    }
  }

  /** Whether an event would be allowed, without counting it. */
  public Decision check(String key, int limit, Duration window, long nowMillis) {
    Deque<Long> times = events.get(key);
    if (times == null) {
      return Decision.ALLOWED;
    }
    synchronized (times) {
      return decide(times, limit, window, nowMillis);
    }
  }

  /** Counts an event whatever the window holds (failed logins count toward their own limit). */
  public void record(String key, Duration window, long nowMillis) {
    Deque<Long> times = events.computeIfAbsent(key, k -> new ArrayDeque<>());
    synchronized (times) {
      expire(times, window, nowMillis);
      times.addLast(nowMillis);
    }
  }

  /** Drops keys whose windows are empty; call now and then so idle keys do not pile up. */
  public void prune(Duration longestWindow, long nowMillis) {
    Iterator<Map.Entry<String, Deque<Long>>> it = events.entrySet().iterator();
    while (it.hasNext()) {
      Deque<Long> times = it.next().getValue();
      synchronized (times) {
        expire(times, longestWindow, nowMillis);
        if (times.isEmpty()) {
          it.remove();
        }
      }
    }
  }

  private static Decision decide(Deque<Long> times, int limit, Duration window, long now) {
    expire(times, window, now);
    if (times.size() < limit) {
      return Decision.ALLOWED;
    }
    // the slot frees when the oldest event that still counts leaves the window
    long frees = times.peekFirst() + window.toMillis();
    int seconds = (int) Math.max(1, (frees - now + 999) / 1000);
    return new Decision(false, seconds);
  }

  private static void expire(Deque<Long> times, Duration window, long now) {
    long cutoff = now - window.toMillis();
    while (!times.isEmpty() && times.peekFirst() <= cutoff) {
      times.pollFirst();
    }
  }
}
