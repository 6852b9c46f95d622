package io.shotstash.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SlidingWindowTest {
  private static final Duration MINUTE = Duration.ofMinutes(1);
  private static final long T0 = 1_700_000_000_000L;

  private final SlidingWindow window = new SlidingWindow();

  private static SlidingWindow.Decision refused(int seconds) {
    return new SlidingWindow.Decision(false, seconds);
  }

  private static final SlidingWindow.Decision ALLOWED = new SlidingWindow.Decision(true, 0);

  @Test
  void allowsUpToTheLimitThenRefuses() {
    for (int i = 0; i < 3; i++) {
      assertThat(window.tryAcquire("k", 3, MINUTE, T0 + i)).as("attempt %d", i + 1).isEqualTo(ALLOWED);
    }
    SlidingWindow.Decision d = window.tryAcquire("k", 3, MINUTE, T0 + 3);
    assertThat(d.allowed()).isFalse();
  }

  /** Three events at T0, T0+10s, T0+20s with a limit of 3 per minute; the 4th attempt at {@code askedAt}. */
  @ParameterizedTest(name = "asked at +{0} ms → retry after {1} s")
  @CsvSource({
      "20000, 40", // oldest leaves at +60000: 40 s exactly
      "20001, 40", // 39.999 s rounds up
      "30500, 30", // 29.5 s rounds up
      "59000, 1", // 1 s exactly
      "59001, 1", // 0.999 s is still at least 1
      "59999, 1"}) // 1 ms is still at least 1
  void retryAfterIsTheWholeSecondsUntilTheOldestCountedEventLeaves(long askedAt, int seconds) {
    window.tryAcquire("k", 3, MINUTE, T0);
    window.tryAcquire("k", 3, MINUTE, T0 + 10_000);
    window.tryAcquire("k", 3, MINUTE, T0 + 20_000);
    assertThat(window.tryAcquire("k", 3, MINUTE, T0 + askedAt)).isEqualTo(refused(seconds));
  }

  @Test
  void retryAfterFollowsTheOldestEventThatStillCounts() {
    window.tryAcquire("k", 2, MINUTE, T0);
    window.tryAcquire("k", 2, MINUTE, T0 + 30_000);
    // at +60 s the first event has left: room for one
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 60_000)).isEqualTo(ALLOWED);
    // now +30 s and +60 s count: the slot frees at +90 s
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 61_000)).isEqualTo(refused(29));
  }

  @Test
  void refusedAttemptsAreNotCounted() {
    window.tryAcquire("k", 1, MINUTE, T0);
    for (int i = 1; i <= 50; i++) {
      assertThat(window.tryAcquire("k", 1, MINUTE, T0 + i * 1000L).allowed()).isFalse();
    }
    // had the refusals counted, the window would still be full at +60 s
    assertThat(window.tryAcquire("k", 1, MINUTE, T0 + 60_000)).isEqualTo(ALLOWED);
  }

  @Test
  void theWindowSlides() {
    window.tryAcquire("k", 2, MINUTE, T0);
    window.tryAcquire("k", 2, MINUTE, T0 + 40_000);
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 59_999).allowed()).isFalse();
    // an event counts for exactly the window's length
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 60_000)).isEqualTo(ALLOWED);
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 60_001).allowed()).isFalse();
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 100_000)).isEqualTo(ALLOWED);
  }

  @Test
  void checkNeverCounts() {
    for (int i = 0; i < 10; i++) {
      assertThat(window.check("k", 2, MINUTE, T0 + i)).isEqualTo(ALLOWED);
    }
    window.tryAcquire("k", 2, MINUTE, T0 + 10);
    assertThat(window.check("k", 2, MINUTE, T0 + 11)).isEqualTo(ALLOWED);
    assertThat(window.check("k", 2, MINUTE, T0 + 12)).isEqualTo(ALLOWED);
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 13)).isEqualTo(ALLOWED);
    assertThat(window.check("k", 2, MINUTE, T0 + 14)).isEqualTo(refused(60));
    assertThat(window.check("k", 2, MINUTE, T0 + 60_010)).isEqualTo(ALLOWED);
  }

  @Test
  void checkOfAnUnknownKeyIsAllowed() {
    assertThat(window.check("never-seen", 1, MINUTE, T0)).isEqualTo(ALLOWED);
  }

  @Test
  void recordAlwaysCountsEvenPastTheLimit() {
    for (int i = 0; i < 5; i++) {
      window.record("failed-login", MINUTE, T0 + i * 1000L);
    }
    assertThat(window.check("failed-login", 5, MINUTE, T0 + 5_000).allowed()).isFalse();
    // all five count: a limit of 6 still has room, and only the last event leaving frees a limit of 1
    assertThat(window.check("failed-login", 6, MINUTE, T0 + 5_000)).isEqualTo(ALLOWED);
    window.record("failed-login", MINUTE, T0 + 6_000);
    window.record("failed-login", MINUTE, T0 + 7_000);
    assertThat(window.check("failed-login", 6, MINUTE, T0 + 8_000)).isEqualTo(refused(52));
    // the oldest leaves at +60 s, and with it one event
    assertThat(window.check("failed-login", 7, MINUTE, T0 + 60_000)).isEqualTo(ALLOWED);
    assertThat(window.check("failed-login", 6, MINUTE, T0 + 60_000)).isEqualTo(refused(1));
  }

  @Test
  void recordedEventsCountTowardTryAcquire() {
    window.record("k", MINUTE, T0);
    window.record("k", MINUTE, T0 + 1);
    assertThat(window.tryAcquire("k", 2, MINUTE, T0 + 2)).isEqualTo(refused(60));
  }

  @Test
  void separateKeysAreIndependent() {
    assertThat(window.tryAcquire("login:ada", 1, MINUTE, T0)).isEqualTo(ALLOWED);
    assertThat(window.tryAcquire("login:ada", 1, MINUTE, T0 + 1).allowed()).isFalse();
    assertThat(window.tryAcquire("login:bob", 1, MINUTE, T0 + 1)).isEqualTo(ALLOWED);
    window.record("login:cy", MINUTE, T0 + 2);
    assertThat(window.check("login:dee", 1, MINUTE, T0 + 3)).isEqualTo(ALLOWED);
    assertThat(window.check("login:cy", 1, MINUTE, T0 + 3).allowed()).isFalse();
  }

  @Test
  void pruneKeepsKeysWithEventsInsideTheLongestWindow() {
    Duration hour = Duration.ofHours(1);
    window.tryAcquire("active", 1, hour, T0);
    window.prune(hour, T0 + 30 * 60_000L);
    assertThat(window.tryAcquire("active", 1, hour, T0 + 30 * 60_000L)).isEqualTo(refused(30 * 60));
  }

  @Test
  void pruneDropsKeysIdleForLongerThanTheLongestWindow() {
    // an hour-long window would still count the event at T0 two minutes later; prune told that the
    // longest window is one minute forgets the key, which shows that it was dropped
    Duration hour = Duration.ofHours(1);
    window.tryAcquire("idle", 1, hour, T0);
    window.tryAcquire("active", 1, hour, T0 + 100_000);
    window.prune(MINUTE, T0 + 120_000);
    assertThat(window.tryAcquire("idle", 1, hour, T0 + 120_000)).isEqualTo(ALLOWED);
    assertThat(window.tryAcquire("active", 1, hour, T0 + 120_000).allowed()).isFalse();
  }

  @Test
  void pruneNeverChangesADecisionWithinTheLongestWindow() {
    window.tryAcquire("a", 2, MINUTE, T0);
    window.tryAcquire("a", 2, MINUTE, T0 + 30_000);
    window.tryAcquire("b", 2, MINUTE, T0);
    SlidingWindow.Decision before = window.check("a", 2, MINUTE, T0 + 45_000);
    window.prune(MINUTE, T0 + 45_000);
    assertThat(window.check("a", 2, MINUTE, T0 + 45_000)).isEqualTo(before).isEqualTo(refused(15));
    window.prune(MINUTE, T0 + 61_000);
    assertThat(window.check("a", 2, MINUTE, T0 + 61_000)).isEqualTo(ALLOWED);
    assertThat(window.tryAcquire("a", 2, MINUTE, T0 + 61_000)).isEqualTo(ALLOWED);
    assertThat(window.tryAcquire("a", 2, MINUTE, T0 + 61_001)).isEqualTo(refused(29));
  }

  @Test
  void manyThreadsOnOneKeyAtOneInstantGetExactlyTheLimit() throws Exception {
    int limit = 25;
    int threads = 16;
    int attemptsEach = 200;
    AtomicInteger allowed = new AtomicInteger();
    runConcurrently(threads, t -> {
      for (int i = 0; i < attemptsEach; i++) {
        if (window.tryAcquire("shared", limit, MINUTE, T0).allowed()) {
          allowed.incrementAndGet();
        }
      }
    });
    assertThat(allowed.get()).isEqualTo(limit);
  }

  @Test
  void manyThreadsOnOneKeyGetExactlyTheLimitInEachSuccessiveWindow() throws Exception {
    int limit = 10;
    int threads = 12;
    int attemptsEach = 100;
    long w = 1_000;
    Duration length = Duration.ofMillis(w);
    for (int phase = 0; phase < 5; phase++) {
      // phases start 1.5 windows apart and each lasts half a window: every event of a phase still
      // counts at its end, and none of the previous phase does at its start
      long start = T0 + phase * (w + w / 2);
      AtomicInteger allowed = new AtomicInteger();
      runConcurrently(threads, t -> {
        for (int i = 0; i < attemptsEach; i++) {
          long now = start + (t * 37L + i) % (w / 2);
          if (window.tryAcquire("shared", limit, length, now).allowed()) {
            allowed.incrementAndGet();
          }
        }
      });
      assertThat(allowed.get()).as("allowed in phase %d", phase).isEqualTo(limit);
    }
  }

  @Test
  void concurrentRecordsAreAllCounted() throws Exception {
    int threads = 8;
    int each = 500;
    runConcurrently(threads, t -> {
      for (int i = 0; i < each; i++) {
        window.record("shared", MINUTE, T0);
      }
    });
    assertThat(window.check("shared", threads * each, MINUTE, T0).allowed()).isFalse();
    assertThat(window.check("shared", threads * each + 1, MINUTE, T0)).isEqualTo(ALLOWED);
  }

  /** Runs {@code body(threadIndex)} on {@code threads} threads released together; rethrows failures. */
  private static void runConcurrently(int threads, ThreadBody body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int index = t;
        futures.add(pool.submit(() -> {
          ready.countDown();
          go.await();
          body.run(index);
          return null;
        }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @FunctionalInterface
  private interface ThreadBody {
    void run(int threadIndex);
  }
}
