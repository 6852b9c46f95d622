package io.shotstash.media.uploads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Whether a PATCH writes, one row per (durable offset, length, Upload-Offset, Content-Length). */
class PatchRuleTest {
  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(0L, 100L, 0L, 100L, "accept 100"),
        Arguments.of(0L, 100L, 0L, -1L, "accept 100"), // chunked: the limit is what is left
        Arguments.of(40L, 100L, 40L, 10L, "accept 60"),
        Arguments.of(40L, 100L, 40L, 0L, "accept 60"),
        Arguments.of(100L, 100L, 100L, 0L, "accept 0"), // nothing left: a finish again
        Arguments.of(0L, 0L, 0L, 0L, "accept 0"), // an empty file
        Arguments.of(40L, 100L, 0L, 10L, "conflict"), // behind: someone else wrote already
        Arguments.of(40L, 100L, 50L, 10L, "conflict"), // ahead: would leave a hole
        Arguments.of(100L, 100L, 0L, 100L, "conflict"),
        Arguments.of(40L, 100L, 40L, 61L, "too large"),
        Arguments.of(100L, 100L, 100L, 1L, "too large"),
        Arguments.of(40L, 100L, 41L, 61L, "conflict")); // the offset is checked first
  }

  @ParameterizedTest(name = "at {0} of {1}, Upload-Offset {2}, Content-Length {3}: {4}")
  @MethodSource("cases")
  void decides(long current, long length, long claimed, long declared, String expected) {
    PatchRule.Decision d = PatchRule.check(current, length, claimed, declared);
    String got = d instanceof PatchRule.Accept a ? "accept " + a.maxBytes()
        : d instanceof PatchRule.Conflict ? "conflict" : "too large";
    assertThat(got).isEqualTo(expected);
  }
}
