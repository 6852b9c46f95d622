package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a node believes about claimable work, with the clock passed in: the time-based half of "a
 * job with run_after in the future becomes claimable by a poll once run_after passes", which the
 * HTTP tests cannot show without waiting.
 */
class QueueSignalTest {
  static final long NOW = 1_000_000L;
  static final List<String> A = List.of("acme/a");

  @Test
  void withoutListeningEveryPollAsksPostgres() {
    QueueSignal s = new QueueSignal();
    s.learned(s.versions(A), Map.of());
    assertThat(s.mightHaveWork(A, NOW)).isTrue();
  }

  @Test
  void anUnknownKindAsksPostgresUntilAnEmptyAnswerIsLearned() {
    QueueSignal s = new QueueSignal();
    s.listening(true);
    assertThat(s.mightHaveWork(A, NOW)).isTrue();
    s.learned(s.versions(A), Map.of());
    assertThat(s.mightHaveWork(A, NOW)).isFalse();
    assertThat(s.mightHaveWork(A, Long.MAX_VALUE - 1)).isFalse();
  }

  @Test
  void aJobWaitingForRunAfterBecomesClaimableWhenItsTimeComes() {
    QueueSignal s = new QueueSignal();
    s.listening(true);
    s.learned(s.versions(A), Map.of("acme/a", NOW + 30_000));
    assertThat(s.mightHaveWork(A, NOW)).isFalse();
    assertThat(s.mightHaveWork(A, NOW + 29_999)).isFalse();
    assertThat(s.mightHaveWork(A, NOW + 30_000)).isTrue();
    assertThat(s.mightHaveWork(A, NOW + 60_000)).isTrue();
  }

  @Test
  void aNoticeMakesTheKindClaimableFromItsRunAfter() {
    QueueSignal s = new QueueSignal();
    s.listening(true);
    s.learned(s.versions(A), Map.of());
    s.queued("acme/a", NOW);
    assertThat(s.mightHaveWork(A, NOW)).isTrue();
    // a later notice (a requeue with backoff) does not hide an earlier claimable job
    s.queued("acme/a", NOW + 60_000);
    assertThat(s.mightHaveWork(A, NOW)).isTrue();
    // a notice for another kind says nothing about this one
    QueueSignal t = new QueueSignal();
    t.listening(true);
    t.learned(t.versions(A), Map.of());
    t.queued("acme/b", NOW);
    assertThat(t.mightHaveWork(A, NOW)).isFalse();
    assertThat(t.mightHaveWork(List.of("acme/a", "acme/b"), NOW)).isTrue();
  }

  @Test
  void anEmptyAnswerThatRacedWithANoticeIsNotRecorded() {
    QueueSignal s = new QueueSignal();
    s.listening(true);
    Map<String, Long> before = s.versions(A);
    s.queued("acme/a", NOW); // arrives while PostgreSQL is being asked
    s.learned(before, Map.of());
    assertThat(s.mightHaveWork(A, NOW)).as("the notice wins over the older empty answer").isTrue();
  }

  @Test
  void losingTheListenerForgetsEverything() {
    QueueSignal s = new QueueSignal();
    s.listening(true);
    s.learned(s.versions(A), Map.of());
    assertThat(s.mightHaveWork(A, NOW)).isFalse();
    s.listening(false);
    assertThat(s.mightHaveWork(A, NOW)).isTrue();
    s.listening(true);
    assertThat(s.mightHaveWork(A, NOW)).as("notices may have been missed while not listening").isTrue();
  }
}
