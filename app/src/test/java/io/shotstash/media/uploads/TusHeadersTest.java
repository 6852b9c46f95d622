package io.shotstash.media.uploads;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The numbers, version and body type of tus's headers, one row per case. */
class TusHeadersTest {

  static Stream<Arguments> numbers() {
    return Stream.of(Arguments.of("0", 0L), Arguments.of("5", 5L), Arguments.of(" 42 ", 42L),
        Arguments.of("000123", 123L), Arguments.of("999999999999999999", 999_999_999_999_999_999L),
        Arguments.of(null, -1L), Arguments.of("", -1L), Arguments.of(" ", -1L), Arguments.of("-1", -1L),
        Arguments.of("+1", -1L), Arguments.of("1e3", -1L), Arguments.of("1.0", -1L), Arguments.of("1 2", -1L),
        Arguments.of("0x10", -1L), Arguments.of("1000000000000000000", -1L), Arguments.of("١٢", -1L));
  }

  @ParameterizedTest(name = "Upload-Offset ''{0}'' reads as {1}")
  @MethodSource("numbers")
  void numbersAreDigitsOnly(String header, long expected) {
    assertThat(TusHeaders.number(header)).isEqualTo(expected);
  }

  static Stream<Arguments> versions() {
    return Stream.of(Arguments.of("1.0.0", true), Arguments.of(" 1.0.0", true), Arguments.of("1.0", false),
        Arguments.of("0.2.2", false), Arguments.of("", false), Arguments.of(null, false));
  }

  @ParameterizedTest(name = "Tus-Resumable ''{0}'' spoken: {1}")
  @MethodSource("versions")
  void onlyVersionOneIsSpoken(String header, boolean spoken) {
    assertThat(TusHeaders.speaksOurVersion(header)).isEqualTo(spoken);
  }

  static Stream<Arguments> types() {
    return Stream.of(Arguments.of("application/offset+octet-stream", true),
        Arguments.of("Application/Offset+Octet-Stream", true),
        Arguments.of("application/offset+octet-stream; x=1", true),
        Arguments.of("application/octet-stream", false), Arguments.of("application/json", false),
        Arguments.of(null, false));
  }

  @ParameterizedTest(name = "Content-Type ''{0}'' is tus''s: {1}")
  @MethodSource("types")
  void patchBodiesHaveTusType(String header, boolean ok) {
    assertThat(TusHeaders.isOffsetStream(header)).isEqualTo(ok);
  }

  @Test
  void expiryIsAnHttpDate() {
    assertThat(TusHeaders.httpDate(Instant.parse("2026-12-07T21:05:09Z"))).isEqualTo("Mon, 7 Dec 2026 21:05:09 GMT");
  }
}
