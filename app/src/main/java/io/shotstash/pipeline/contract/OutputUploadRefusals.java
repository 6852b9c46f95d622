package io.shotstash.pipeline.contract;

import io.shotstash.bus.ApiError;

/**
 * The worker contract's words for the refusals resumable uploads share with the media library
 * (media/uploads answers in the API's lower-case codes): a worker's output upload hears them in the
 * contract's upper-case codes (docs/worker-contract.md → Resumable outputs). Refusals that are the
 * contract's already (the claim codes) pass unchanged. Pure.
 */
public final class OutputUploadRefusals {
  private OutputUploadRefusals() {}

  public static ApiError tusVersionUnsupported() {
    return ApiError.of(412, "TUS_VERSION_UNSUPPORTED", "Send Tus-Resumable: 1.0.0");
  }

  public static ApiError unsupportedMediaType() {
    return ApiError.of(415, "UNSUPPORTED_MEDIA_TYPE",
        "A PATCH's body must be Content-Type: application/offset+octet-stream");
  }

  public static ApiError uploadNotFound() {
    return ApiError.of(404, "UPLOAD_NOT_FOUND", "No such output upload for this job and worker");
  }

  /** {@code refusal} in the contract's codes; {@code maxOutputBytes} words the size limit. */
  public static ApiError contract(ApiError refusal, long maxOutputBytes) {
    return switch (refusal.code()) {
      case "not_found" -> uploadNotFound();
      case "upload_expired" -> ApiError.of(410, "UPLOAD_EXPIRED", refusal.message());
      case "offset_mismatch" -> ApiError.of(409, "OFFSET_MISMATCH", refusal.message());
      case "upload_busy" -> ApiError.of(409, "UPLOAD_BUSY", refusal.message());
      case "body_too_large" -> ApiError.of(413, "OUTPUT_TOO_LARGE",
          PipelineErrors.outputTooLarge(maxOutputBytes).message() + ", or runs past the upload's length");
      case "insufficient_storage" -> PipelineErrors.insufficientStorage();
      case "storage_unavailable" -> PipelineErrors.storageUnavailable();
      default -> refusal;
    };
  }
}
