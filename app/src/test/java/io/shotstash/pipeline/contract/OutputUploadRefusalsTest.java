package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.ApiError;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The shared tus refusals in the worker contract's codes; the contract's own pass unchanged. */
class OutputUploadRefusalsTest {
  static final long LIMIT = 16L << 20;

  @ParameterizedTest
  @CsvSource({
      "404, not_found, 404, UPLOAD_NOT_FOUND",
      "410, upload_expired, 410, UPLOAD_EXPIRED",
      "409, offset_mismatch, 409, OFFSET_MISMATCH",
      "409, upload_busy, 409, UPLOAD_BUSY",
      "413, body_too_large, 413, OUTPUT_TOO_LARGE",
      "507, insufficient_storage, 507, INSUFFICIENT_STORAGE",
      "503, storage_unavailable, 503, STORAGE_UNAVAILABLE",
      "409, CLAIM_STALE, 409, CLAIM_STALE",
      "409, JOB_TERMINAL, 409, JOB_TERMINAL",
      "404, JOB_NOT_FOUND, 404, JOB_NOT_FOUND",
      "400, INVALID_OUTPUT, 400, INVALID_OUTPUT",
  })
  void eachRefusalInTheContractsCode(int status, String code, int contractStatus, String contractCode) {
    ApiError out = OutputUploadRefusals.contract(ApiError.of(status, code, "why"), LIMIT);
    assertThat(out.status()).isEqualTo(contractStatus);
    assertThat(out.code()).isEqualTo(contractCode);
  }

  @ParameterizedTest
  @CsvSource({"offset_mismatch", "upload_expired"})
  void theSharedMessageIsKeptWhereItSaysWhatToDo(String code) {
    assertThat(OutputUploadRefusals.contract(ApiError.of(409, code, "ask HEAD"), LIMIT).message())
        .isEqualTo("ask HEAD");
  }

  @ParameterizedTest
  @CsvSource({"insufficient_storage"})
  void aFullDiskKeepsItsRetryAfter(String code) {
    assertThat(OutputUploadRefusals.contract(ApiError.of(507, code, "full"), LIMIT).retryAfterSeconds()).isNotNull();
  }
}
