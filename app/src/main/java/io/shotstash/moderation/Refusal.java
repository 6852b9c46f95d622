package io.shotstash.moderation;

import io.shotstash.bus.ApiError;
import io.vertx.core.json.JsonObject;

/**
 * Why a moderation rule says no, in the shapes docs/moderation-api.md documents: the status, the
 * code, a message, and for a 422 the field it is about; for a 429 the seconds until a slot frees.
 * Rules return one; handlers answer {@link #error()}.
 */
public record Refusal(int status, String code, String message, String field, Integer retryAfterSeconds) {

  /** 404: nothing to act on (or nothing the caller may see). */
  public static Refusal notFound() {
    return new Refusal(404, "not_found", "Not found", null, null);
  }

  /** 422 validation_failed on one field. */
  public static Refusal invalid(String field, String reason) {
    return new Refusal(422, "validation_failed", reason, field, null);
  }

  /** 422 evidence_invalid naming the item ({@code evidence[<index>]}) and why. */
  public static Refusal evidenceInvalid(int index, String reason) {
    return new Refusal(422, "evidence_invalid", reason, "evidence[" + index + "]", null);
  }

  /** 409 with the rule's own code. */
  public static Refusal conflict(String code, String message) {
    return new Refusal(409, code, message, null, null);
  }

  /** 429 rate_limited: a daily allowance is used up. */
  public static Refusal rateLimited(String message, int retryAfterSeconds) {
    return new Refusal(429, "rate_limited", message, null, retryAfterSeconds);
  }

  /** The refusal as the caller gets it. */
  public ApiError error() {
    if (field == null) {
      return new ApiError(status, code, message, null, retryAfterSeconds);
    }
    if ("validation_failed".equals(code)) {
      return ApiError.validation(field, message);
    }
    return new ApiError(status, code, field + ": " + message, new JsonObject().put(field, message), null);
  }
}
