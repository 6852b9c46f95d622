package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a resumable output does after a failed request, and how long it pauses first. */
class ResumeRuleTest {

  @ParameterizedTest(name = "failure {0}: {1} {2} -> {3}")
  @CsvSource(nullValues = "-", value = {
      "1, 0, -, RESUME",
      "5, 0, -, RESUME",
      "6, 0, -, HAND_OVER",
      "1, 503, DATABASE_UNAVAILABLE, RESUME",
      "1, 500, INTERNAL, RESUME",
      "1, 502, -, RESUME",
      "1, 409, OFFSET_MISMATCH, RESUME",
      "1, 409, UPLOAD_BUSY, RESUME",
      "1, 404, UPLOAD_NOT_FOUND, START_OVER",
      "1, 410, UPLOAD_EXPIRED, START_OVER",
      "6, 410, UPLOAD_EXPIRED, HAND_OVER",
      "1, 409, CLAIM_STALE, HAND_OVER",
      "1, 409, JOB_TERMINAL, HAND_OVER",
      "1, 404, JOB_NOT_FOUND, HAND_OVER",
      "1, 401, UNAUTHENTICATED, HAND_OVER",
      "1, 429, RATE_LIMITED, HAND_OVER",
      "1, 507, INSUFFICIENT_STORAGE, HAND_OVER",
      "1, 413, OUTPUT_TOO_LARGE, HAND_OVER",
      "1, 400, INVALID_OUTPUT, HAND_OVER",
  })
  void after(int failures, int status, String code, ResumeRule.Action action) {
    assertThat(ResumeRule.after(failures, status, code)).isEqualTo(action);
  }

  @ParameterizedTest
  @CsvSource({"0, true", "401, true", "429, true", "500, true", "503, true", "507, true", "400, false", "404, false",
      "409, false", "410, false", "413, false"})
  void anUploadHandedOverIsKeptOnlyForWhatWaitingFixes(int status, boolean kept) {
    assertThat(ResumeRule.keepsUpload(status)).isEqualTo(kept);
  }

  @ParameterizedTest
  @CsvSource({"1, 1", "2, 2", "3, 4", "4, 8", "5, 16", "6, 16", "40, 16"})
  void pausesDoubleFromOneSecondToSixteen(int failures, int seconds) {
    assertThat(ResumeRule.pause(failures)).isEqualTo(Duration.ofSeconds(seconds));
  }
}
