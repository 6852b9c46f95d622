package io.shotstash.pipeline.contract;

import io.shotstash.bus.ApiError;

/**
 * The worker contract's refusals (docs/worker-contract.md → Errors). On the wire they are
 * {@code {"code": "...", "message": "..."}}; internally they are {@link ApiError}s like every other.
 */
public final class PipelineErrors {
  private PipelineErrors() {}

  public static ApiError invalidBody(String message) {
    return ApiError.of(400, "INVALID_BODY", message);
  }

  public static ApiError invalidManifest(String message) {
    return ApiError.of(400, "INVALID_MANIFEST", message);
  }

  public static ApiError claimTokenRequired() {
    return ApiError.of(400, "CLAIM_TOKEN_REQUIRED", "Send the job's claim token in X-Claim-Token");
  }

  public static ApiError invalidOutput(String message) {
    return ApiError.of(400, "INVALID_OUTPUT", message);
  }

  /** A request that is not valid HTTP: an HTTP/1.1 request without Host, a header the decoder cannot read. */
  public static ApiError badRequest(String message) {
    return ApiError.of(400, "BAD_REQUEST", message);
  }

  public static ApiError uriTooLong() {
    return ApiError.of(414, "URI_TOO_LONG", "The request line is too long");
  }

  public static ApiError headersTooLarge() {
    return ApiError.of(431, "HEADERS_TOO_LARGE", "The request headers are too large");
  }

  public static ApiError unauthenticated() {
    return ApiError.of(401, "UNAUTHENTICATED", "The token is missing, unknown, rotated out or revoked");
  }

  public static ApiError workerRevoked() {
    return ApiError.of(403, "WORKER_REVOKED", "This worker name was revoked; register under a new name");
  }

  public static ApiError jobNotFound() {
    return ApiError.of(404, "JOB_NOT_FOUND", "No such job");
  }

  public static ApiError fileNotFound() {
    return ApiError.of(404, "FILE_NOT_FOUND", "The job's file is gone or in the Trash");
  }

  public static ApiError claimStale() {
    return ApiError.of(409, "CLAIM_STALE", "This claim is no longer yours; drop the work");
  }

  public static ApiError jobTerminal() {
    return ApiError.of(409, "JOB_TERMINAL", "The job is finished or cancelled; drop the work");
  }

  /** A retry of a job that did not fail (it is queued, running, done or cancelled). */
  public static ApiError jobNotFailed(String status) {
    return ApiError.of(409, "JOB_NOT_FAILED", "Only a failed job can be retried; this one is " + status);
  }

  public static ApiError outputMissing() {
    return ApiError.of(409, "OUTPUT_MISSING", "Upload the output before completing");
  }

  public static ApiError fileGone() {
    return ApiError.of(409, "FILE_GONE", "The file went to the Trash; the output was deleted");
  }

  public static ApiError bodyTooLarge() {
    return ApiError.of(413, "BODY_TOO_LARGE", "JSON bodies are limited to 64 KiB");
  }

  public static ApiError outputTooLarge(long limitBytes) {
    return ApiError.of(413, "OUTPUT_TOO_LARGE", "The output is larger than " + (limitBytes / (1024 * 1024)) + " MB");
  }

  public static ApiError contractUnsupported() {
    return ApiError.of(422, "CONTRACT_UNSUPPORTED", "This app speaks worker contract 1");
  }

  public static ApiError rateLimited(int retryAfterSeconds) {
    return new ApiError(429, "RATE_LIMITED", "Too many calls; wait Retry-After seconds", null, retryAfterSeconds);
  }

  public static ApiError setupRequired() {
    return ApiError.of(503, "SETUP_REQUIRED", "The app is not set up yet");
  }

  public static ApiError pipelineDisabled() {
    return ApiError.of(503, "PIPELINE_DISABLED", "WORKER_BOOTSTRAP_TOKEN is not set on the app");
  }

  public static ApiError storageUnavailable() {
    return ApiError.of(503, "STORAGE_UNAVAILABLE", "Storage is not available; try again later");
  }

  /**
   * The app's storage ran out of space while it took the output (ENOSPC): nothing was kept, the
   * claim holds, and the same upload may be sent again after Retry-After.
   */
  public static ApiError insufficientStorage() {
    return new ApiError(507, "INSUFFICIENT_STORAGE",
        "The app's storage is full; nothing was kept and your claim holds. Upload again after Retry-After",
        null, ApiError.STORAGE_RETRY_SECONDS);
  }

  // ---- the people side (GraphQL) ----

  public static ApiError kindUnknown(String kind) {
    return ApiError.of(422, "KIND_UNKNOWN", "No such kind: " + kind);
  }

  /** enqueueFolder: no such folder, or it is in the Trash. */
  public static ApiError folderNotFound() {
    return ApiError.of(404, "FOLDER_NOT_FOUND", "No such folder, or it is in the Trash");
  }

  public static ApiError kindNotApplicable(String kind, String mimeType) {
    return ApiError.of(422, "KIND_NOT_APPLICABLE", kind + " does not apply to " + mimeType + " files");
  }

  /**
   * A part of the app is away for a moment (PostgreSQL restarting, a service not answering): 503
   * with Retry-After and the outage's code in upper case ({@code DATABASE_UNAVAILABLE},
   * {@code SERVICE_UNAVAILABLE}). The worker waits and tries again, as for any 503.
   */
  public static ApiError unavailable(ApiError outage) {
    return new ApiError(503, outage.code().toUpperCase(java.util.Locale.ROOT), outage.message(), null,
        outage.retryAfterSeconds());
  }
}
