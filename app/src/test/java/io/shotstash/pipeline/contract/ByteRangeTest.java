package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** The Range rule for inputs and downloads (PIPELINE.md → Validation details). */
class ByteRangeTest {
  static final long SIZE = 100;

  @ParameterizedTest(name = "{0} of 100 -> {1}..{2}")
  @CsvSource(delimiter = '|', value = {
      "bytes=0-9|0|9",
      "bytes=0-0|0|0",
      "bytes=10-19|10|19",
      "bytes=99-99|99|99",
      "bytes=0-99|0|99",
      "bytes=90-1000|90|99",
      "bytes=0-18446744073|0|99",
      "bytes=10-|10|99",
      "bytes=0-|0|99",
      "bytes=99-|99|99",
      "bytes=-5|95|99",
      "bytes=-1|99|99",
      "bytes=-100|0|99",
      "bytes=-1000|0|99",
      "' bytes=0-9 '|0|9"})
  void oneRangeIsServedPartially(String header, long start, long end) {
    ByteRange r = ByteRange.parse(header, SIZE);
    assertThat(r).isEqualTo(new ByteRange.Partial(start, end));
  }

  @Test
  void aPartialKnowsItsLengthAndContentRange() {
    ByteRange.Partial p = (ByteRange.Partial) ByteRange.parse("bytes=0-9", SIZE);
    assertThat(p.length()).isEqualTo(10);
    assertThat(p.contentRange(SIZE)).isEqualTo("bytes 0-9/100");
    ByteRange.Partial suffix = (ByteRange.Partial) ByteRange.parse("bytes=-5", SIZE);
    assertThat(suffix.length()).isEqualTo(5);
    assertThat(suffix.contentRange(SIZE)).isEqualTo("bytes 95-99/100");
  }

  @ParameterizedTest(name = "{0} of 100 is unsatisfiable")
  @ValueSource(strings = {"bytes=-0", "bytes=100-", "bytes=100-200", "bytes=150-160", "bytes=1000-"})
  void unsatisfiableRangesAnswer416(String header) {
    assertThat(ByteRange.parse(header, SIZE)).isInstanceOf(ByteRange.Unsatisfiable.class);
  }

  @ParameterizedTest(name = "''{0}'' -> the whole body")
  @NullAndEmptySource
  @ValueSource(strings = {"bytes=0-9,20-29", "bytes=0-9, 20-29", "bytes=-5,0-1", "items=0-9", "0-9", "bytes=",
      "bytes=-", "bytes=a-b", "bytes=1-x", "bytes=9-0", "bytes=5-4", "bytes= 0-9", "bytes=0 -9", "bytes=+1-2",
      "bytes=-+5", "bytes=0x10-", "bytes 0-9", "bytes==0-9"})
  void malformedSeveralOrOtherUnitsAnswerTheWholeBody(String header) {
    assertThat(ByteRange.parse(header, SIZE)).isInstanceOf(ByteRange.Whole.class);
  }

  @Test
  void anEmptyFileHasNoSatisfiableRange() {
    assertThat(ByteRange.parse(null, 0)).isInstanceOf(ByteRange.Whole.class);
    assertThat(ByteRange.parse("bytes=0-", 0)).isInstanceOf(ByteRange.Unsatisfiable.class);
    assertThat(ByteRange.parse("bytes=0-0", 0)).isInstanceOf(ByteRange.Unsatisfiable.class);
    assertThat(ByteRange.parse("bytes=-5", 0)).isInstanceOf(ByteRange.Unsatisfiable.class);
    assertThat(ByteRange.parse("bytes=0-9,20-29", 0)).isInstanceOf(ByteRange.Whole.class);
  }

  @Test
  void aOneByteFile() {
    assertThat(ByteRange.parse("bytes=0-0", 1)).isEqualTo(new ByteRange.Partial(0, 0));
    assertThat(ByteRange.parse("bytes=0-5", 1)).isEqualTo(new ByteRange.Partial(0, 0));
    assertThat(ByteRange.parse("bytes=-5", 1)).isEqualTo(new ByteRange.Partial(0, 0));
    assertThat(ByteRange.parse("bytes=1-", 1)).isInstanceOf(ByteRange.Unsatisfiable.class);
  }
}
