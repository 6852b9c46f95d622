package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rolling daily allowances (20 spam votes, 5 purges per agent in any 24 hours), counted from
 * the records' own timestamps: null while another event fits, else the whole seconds until the
 * oldest event in the window leaves it.
 */
class AllowanceTest {
  private static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");
  private static final Duration DAY = Duration.ofDays(1);

  private static List<Instant> minutesAgo(long... minutes) {
    List<Instant> out = new ArrayList<>();
    for (long m : minutes) {
      out.add(NOW.minus(Duration.ofMinutes(m)));
    }
    return out;
  }

  private static List<Instant> evenly(int count, Duration apart, Instant newest) {
    List<Instant> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(newest.minus(apart.multipliedBy(i)));
    }
    return out;
  }

  @Test
  void noEventsFit() {
    assertThat(Allowance.retryAfter(List.of(), 5, DAY, NOW)).isNull();
  }

  @Test
  void oneUnderTheLimitStillFits() {
    assertThat(Allowance.retryAfter(minutesAgo(1, 2, 3, 4), 5, DAY, NOW)).isNull();
    assertThat(Allowance.retryAfter(evenly(19, Duration.ofMinutes(1), NOW), 20, DAY, NOW)).isNull();
  }

  @Test
  void atTheLimitTheWaitIsUntilTheOldestLeavesTheWindow() {
    // five purges, the oldest 10 hours ago: it leaves the window in 14 hours
    List<Instant> events = minutesAgo(600, 60, 30, 20, 10);
    assertThat(Allowance.retryAfter(events, 5, DAY, NOW)).isEqualTo((int) Duration.ofHours(14).toSeconds());
  }

  @Test
  void twentySpamVotesJustNowMeanADaysWait() {
    List<Instant> events = evenly(20, Duration.ofMillis(1), NOW);
    Integer wait = Allowance.retryAfter(events, 20, DAY, NOW);
    assertThat(wait).isBetween((int) DAY.toSeconds() - 1, (int) DAY.toSeconds());
  }

  @Test
  void eventsOlderThanTheWindowDoNotCount() {
    List<Instant> events = new ArrayList<>(minutesAgo(10, 20, 30, 40));
    events.add(NOW.minus(DAY).minusSeconds(1));
    events.add(NOW.minus(Duration.ofDays(3)));
    assertThat(Allowance.retryAfter(events, 5, DAY, NOW)).isNull();
  }

  @Test
  void anEventExactlyOneWindowOldHasLeftIt() {
    List<Instant> events = new ArrayList<>(minutesAgo(10, 20, 30, 40));
    events.add(NOW.minus(DAY));
    assertThat(Allowance.retryAfter(events, 5, DAY, NOW)).isNull();
  }

  @Test
  void eventsInTheFutureDoNotCount() {
    List<Instant> events = new ArrayList<>(minutesAgo(10, 20, 30, 40));
    events.add(NOW.plusSeconds(5));
    assertThat(Allowance.retryAfter(events, 5, DAY, NOW)).isNull();
  }

  @Test
  void nullTimestampsAreIgnored() {
    List<Instant> events = new ArrayList<>(Arrays.asList(null, null));
    events.addAll(minutesAgo(1, 2));
    assertThat(Allowance.retryAfter(events, 3, DAY, NOW)).isNull();
    events.addAll(minutesAgo(3));
    assertThat(Allowance.retryAfter(events, 3, DAY, NOW)).isNotNull();
  }

  @Test
  void theWaitIsRoundedUpAndNeverZero() {
    // the oldest leaves the window in 1.5 s: wait 2 s
    List<Instant> events = List.of(NOW.minus(DAY).plusMillis(1500));
    assertThat(Allowance.retryAfter(events, 1, DAY, NOW)).isEqualTo(2);
    // the oldest leaves in 1 ms: still at least 1 s
    assertThat(Allowance.retryAfter(List.of(NOW.minus(DAY).plusMillis(1)), 1, DAY, NOW)).isEqualTo(1);
  }

  @Test
  void overTheLimitTheOldestInTheWindowStillSetsTheWait() {
    List<Instant> events = minutesAgo(120, 100, 90, 80, 70, 60, 50);
    assertThat(Allowance.retryAfter(events, 5, DAY, NOW))
        .isEqualTo((int) DAY.minus(Duration.ofMinutes(120)).toSeconds());
  }

  @Test
  void theOrderOfEventsDoesNotMatter() {
    List<Instant> events = minutesAgo(10, 300, 20, 5, 40);
    assertThat(Allowance.retryAfter(events, 5, DAY, NOW))
        .isEqualTo((int) DAY.minus(Duration.ofMinutes(300)).toSeconds());
  }

  @ParameterizedTest(name = "{0} events, limit {1}: allowed = {2}")
  @CsvSource({"0, 5, true", "4, 5, true", "5, 5, false", "6, 5, false", "19, 20, true", "20, 20, false",
      "21, 20, false"})
  void theLimitIsInclusiveOfTheEventsAlreadyInTheWindow(int count, int limit, boolean allowed) {
    List<Instant> events = evenly(count, Duration.ofMinutes(1), NOW);
    assertThat(Allowance.retryAfter(events, limit, DAY, NOW) == null).isEqualTo(allowed);
  }
}
