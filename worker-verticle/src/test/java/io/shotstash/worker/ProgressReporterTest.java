package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ProgressReporterTest {

  @Test
  void theFirstReportGoesAtOnce() {
    ProgressReporter r = new ProgressReporter();
    assertThat(r.offer(0, 1_000)).hasValue(0);
  }

  @Test
  void reportsOnlyWholePercentChangesAtMostEveryTwoSeconds() {
    ProgressReporter r = new ProgressReporter();
    assertThat(r.offer(0, 0)).hasValue(0);
    assertThat(r.offer(5, 1_999)).isEmpty(); // too soon
    assertThat(r.offer(5, 2_000)).hasValue(5);
    assertThat(r.offer(5, 9_000)).isEmpty(); // the same percent
    assertThat(r.offer(4, 9_000)).isEmpty(); // never backwards
    assertThat(r.offer(6, 9_000)).hasValue(6);
    assertThat(r.offer(40, 10_000)).isEmpty();
    assertThat(r.offer(40, 11_000)).hasValue(40);
  }

  @Test
  void oneHundredIsKeptForTheEndAndSentOnce() {
    ProgressReporter r = new ProgressReporter();
    assertThat(r.offer(100, 0)).hasValue(99);
    assertThat(r.finish()).isEqualTo(OptionalInt.of(100)); // whatever the interval
    assertThat(r.finish()).isEmpty();
    assertThat(r.offer(99, 60_000)).isEmpty();
  }

  @Test
  void percentOfAPosition() {
    assertThat(ProgressReporter.percentOf(1_000_000, 2.0)).isEqualTo(50);
    assertThat(ProgressReporter.percentOf(1_999_999, 2.0)).isEqualTo(99);
    assertThat(ProgressReporter.percentOf(2_500_000, 2.0)).isEqualTo(99);
    assertThat(ProgressReporter.percentOf(19_999, 2.0)).isZero();
    assertThat(ProgressReporter.percentOf(20_000, 2.0)).isEqualTo(1);
    assertThat(ProgressReporter.percentOf(1_000_000, 0)).isZero(); // unknown duration
    assertThat(ProgressReporter.percentOf(-5, 2.0)).isZero();
  }
}
