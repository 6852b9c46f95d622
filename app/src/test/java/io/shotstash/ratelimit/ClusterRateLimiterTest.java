package io.shotstash.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.ratelimit.ClusterRateLimiter.Acquire;
import io.shotstash.ratelimit.ClusterRateLimiter.Check;
import io.shotstash.ratelimit.ClusterRateLimiter.Record;
import io.shotstash.ratelimit.ClusterRateLimiter.WindowLog;
import java.util.AbstractMap.SimpleEntry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The entry processors of the cluster-wide limiter, run as Hazelcast runs them on a key's owner (and
 * replays them on its backup): the same decisions as {@link SlidingWindow}, the window kept in the
 * entry, an emptied window removed.
 */
class ClusterRateLimiterTest {
  private static final long MINUTE = 60_000;

  private final Map.Entry<String, WindowLog> entry = new SimpleEntry<>("pipeline-worker:w1", null);

  @Test
  void acquireCountsUpToTheLimitThenAnswersTheSecondsUntilASlotFrees() {
    long t0 = 1_000_000;
    assertThat(new Acquire(3, MINUTE, t0).process(entry)).isZero();
    assertThat(new Acquire(3, MINUTE, t0 + 10_000).process(entry)).isZero();
    assertThat(new Acquire(3, MINUTE, t0 + 20_000).process(entry)).isZero();
    // the oldest event leaves the window at t0 + 60 s: 30 s from t0 + 30 s
    assertThat(new Acquire(3, MINUTE, t0 + 30_000).process(entry)).isEqualTo(30);
    assertThat(entry.getValue().times).hasSize(3); // a refused call is not counted
    assertThat(new Acquire(3, MINUTE, t0 + 60_001).process(entry)).isZero();
  }

  @Test
  void checkDecidesWithoutCountingAndRecordCountsRegardless() {
    long t0 = 5_000_000;
    assertThat(new Check(1, MINUTE, t0).process(entry)).isZero();
    assertThat(entry.getValue()).isNull();
    assertThat(new Check(1, MINUTE, t0).getBackupProcessor()).isNull();
    new Record(MINUTE, t0).process(entry);
    new Record(MINUTE, t0 + 1).process(entry);
    assertThat(entry.getValue().times).hasSize(2);
    assertThat(new Check(1, MINUTE, t0 + 2).process(entry)).isEqualTo(60);
    assertThat(new Check(3, MINUTE, t0 + 2).process(entry)).isZero();
  }

  @Test
  void aReplayOnTheBackupReachesTheSameWindow() {
    Map.Entry<String, WindowLog> backup = new SimpleEntry<>("k", null);
    for (long t = 0; t < 10; t++) {
      Acquire call = new Acquire(5, MINUTE, 1_000 + t);
      assertThat(call.process(backup)).isEqualTo(call.process(entry));
    }
    assertThat(backup.getValue().times).containsExactlyElementsOf(entry.getValue().times);
  }

  @Test
  void aLimitOfZeroNeverAllows() {
    assertThat(new Acquire(0, MINUTE, 0).process(entry)).isEqualTo(60);
    assertThat(entry.getValue()).isNull(); // nothing kept for an empty window
  }
}
