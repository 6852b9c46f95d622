package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.worker.Backoff.Action;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofSeconds(30));

  @ParameterizedTest
  @CsvSource({"0,", "502,", "503,SETUP_REQUIRED", "503,PIPELINE_DISABLED", "503,STORAGE_UNAVAILABLE", "504,"})
  void noAnswerAndUnavailableWaitTheBackoff(int status, String code) {
    assertThat(backoff.after(status, code, null)).isEqualTo(new Backoff.Step(Action.WAIT, Duration.ofSeconds(30)));
  }

  @Test
  void unauthenticatedRegistersAgainAfterTheBackoff() {
    assertThat(backoff.after(401, "UNAUTHENTICATED", null))
        .isEqualTo(new Backoff.Step(Action.REGISTER_AGAIN, Duration.ofSeconds(30)));
  }

  @Test
  void rateLimitedWaitsRetryAfter() {
    assertThat(backoff.after(429, "RATE_LIMITED", 7)).isEqualTo(new Backoff.Step(Action.WAIT, Duration.ofSeconds(7)));
    assertThat(backoff.after(429, "RATE_LIMITED", 0).delay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.after(429, "RATE_LIMITED", null).delay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(backoff.after(429, "RATE_LIMITED", 999_999).delay()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aFullDiskOnTheAppWaitsRetryAfterInsteadOfFailingTheJob() {
    assertThat(backoff.after(507, "INSUFFICIENT_STORAGE", 60))
        .isEqualTo(new Backoff.Step(Action.WAIT, Duration.ofSeconds(60)));
    assertThat(backoff.after(507, "INSUFFICIENT_STORAGE", null).delay()).isEqualTo(Duration.ofSeconds(30));
  }

  @ParameterizedTest
  @CsvSource({"409,CLAIM_STALE", "409,JOB_TERMINAL", "409,FILE_GONE", "404,JOB_NOT_FOUND"})
  void aJobThatIsNoLongerOursIsDropped(int status, String code) {
    assertThat(backoff.after(status, code, null).action()).isEqualTo(Action.DROP);
  }

  @ParameterizedTest
  @CsvSource({"409,OUTPUT_MISSING", "400,INVALID_OUTPUT", "413,OUTPUT_TOO_LARGE", "404,FILE_NOT_FOUND",
      "403,WORKER_REVOKED",
      "422,CONTRACT_UNSUPPORTED", "500,INTERNAL", "409,"})
  void everythingElseGivesUpOnTheCall(int status, String code) {
    assertThat(backoff.after(status, code, null).action()).isEqualTo(Action.GIVE_UP);
  }

  @Test
  void theWaitMustBePositive() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }
}
