package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** What an output upload must carry: one of the 13 media types and a plain extension. */
class OutputRulesTest {
  static final String[] THIRTEEN = {"video/mp4", "video/webm", "video/quicktime", "image/jpeg", "image/png",
      "image/webp", "audio/mpeg", "audio/mp4", "audio/wav", "application/pdf", "application/json", "text/plain",
      "text/vtt"};

  @Test
  void theAllowListIsExactlyTheThirteenTypesOfTheContract() {
    assertThat(OutputRules.MEDIA_TYPES).containsExactlyInAnyOrder(THIRTEEN);
  }

  @ParameterizedTest(name = "{0} is allowed")
  @ValueSource(strings = {"video/mp4", "video/webm", "video/quicktime", "image/jpeg", "image/png", "image/webp",
      "audio/mpeg", "audio/mp4", "audio/wav", "application/pdf", "application/json", "text/plain", "text/vtt"})
  void everyAllowedTypeIsAccepted(String type) {
    assertThat(OutputRules.mediaType(type)).isEqualTo(type);
  }

  @ParameterizedTest(name = "''{0}'' -> {1}")
  @CsvSource(delimiter = '|', value = {
      "text/vtt; charset=utf-8|text/vtt",
      "application/json;charset=UTF-8|application/json",
      "TEXT/PLAIN|text/plain",
      "Video/MP4|video/mp4",
      "  image/png  |image/png",
      "audio/wav ; codecs=1|audio/wav",
      "text/plain;|text/plain"})
  void parametersAreIgnoredAndTheTypeIsLowercased(String header, String expected) {
    assertThat(OutputRules.mediaType(header)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "''{0}'' is refused")
  @NullAndEmptySource
  @ValueSource(strings = {"image/gif", "text/html", "application/octet-stream", "video/x-matroska", "audio/ogg",
      "image/heic", "video/mp4x", "video", "mp4", ";video/mp4", "video /mp4", "video/ mp4", "*/*", "video/*",
      "application/json+x", "text/vtt, text/plain"})
  void otherTypesAreRefused(String header) {
    assertThat(OutputRules.mediaType(header)).isNull();
  }

  @ParameterizedTest(name = "''{0}'' -> {1}")
  @CsvSource(delimiter = '|', value = {
      "mp4|mp4",
      ".mp4|mp4",
      "MP4|mp4",
      ".JSON|json",
      "  vtt  |vtt",
      " .jpg |jpg",
      "a|a",
      "7|7",
      "1234567890|1234567890",
      ".abcdefghij|abcdefghij",
      "Mp3|mp3"})
  void extensionsAreTrimmedDotlessAndLowercased(String header, String expected) {
    assertThat(OutputRules.extension(header)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "''{0}'' is refused")
  @NullAndEmptySource
  @ValueSource(strings = {".", "..mp4", "12345678901", ".12345678901", "mp-4", "m p4", "mp4.", "tar.gz", "mp_4",
      "/mp4", "../x", "é", "mp4\u0000", " . mp4", "   "})
  void otherExtensionsAreRefused(String header) {
    assertThat(OutputRules.extension(header)).isNull();
  }

  @Test
  void aSmallDeclaredBodyIsTakenBeforeItsClaimIsChecked() {
    assertThat(OutputRules.claimCheckedFirst(1, false)).isFalse();
    assertThat(OutputRules.claimCheckedFirst(OutputRules.CLAIM_CHECKED_AFTER_MAX_BYTES, false)).isFalse();
  }

  @Test
  void aLongUndeclaredOrAwaitedBodyHasItsClaimCheckedFirst() {
    assertThat(OutputRules.claimCheckedFirst(OutputRules.CLAIM_CHECKED_AFTER_MAX_BYTES + 1, false)).isTrue();
    assertThat(OutputRules.claimCheckedFirst(20L << 30, false)).isTrue();
    assertThat(OutputRules.claimCheckedFirst(-1, false)).as("chunked: no length").isTrue();
    assertThat(OutputRules.claimCheckedFirst(5, true)).as("Expect: 100-continue").isTrue();
  }
}
