package io.shotstash.media;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How many bytes {@link FlushBehind} gathers before its next force, along a body. */
class FlushBehindTest {
  static final long MIB = 1L << 20;

  @ParameterizedTest(name = "{0} MiB of {1} MiB in, every {2} MiB: the next force after {3} MiB")
  @CsvSource({
      // unknown length: always the configured step
      "0, -1, 8, 8",
      "1000, -1, 8, 8",
      // a known length: the configured step until its last stretch
      "0, 64, 8, 8",
      "56, 64, 8, 8",
      "57, 64, 8, 1",
      "63, 64, 8, 1",
      // a body shorter than one step is all last stretch
      "0, 4, 8, 1",
      // a step smaller than the last one stays as it is
      "60, 64, 0.5, 0.5",
  })
  void theLastStretchOfAKnownLengthIsForcedInSmallSteps(double inMib, double expectedMib, double everyMib,
      double stepMib) {
    long expected = expectedMib < 0 ? -1 : (long) (expectedMib * MIB);
    assertThat(FlushBehind.step((long) (inMib * MIB), expected, (long) (everyMib * MIB)))
        .isEqualTo((long) (stepMib * MIB));
  }
}
