package io.shotstash.bus;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Optional;

/**
 * A refusal: the HTTP status, the documented code, a message for logs and people, and, for
 * validation failures, the offending fields. It travels over the event bus as a
 * {@link ReplyException} whose failure code is the status and whose message is this as JSON, so it
 * crosses cluster nodes unchanged; the HTTP layer writes it out in the surface's error shape.
 */
public record ApiError(int status, String code, String message, JsonObject fields, Integer retryAfterSeconds) {

  public ApiError {
    fields = fields == null ? null : fields.copy();
  }

  public static ApiError of(int status, String code, String message) {
    return new ApiError(status, code, message, null, null);
  }

  public static ApiError validation(Map<String, String> fields) {
    JsonObject f = new JsonObject();
    fields.forEach(f::put);
    return new ApiError(422, "validation_failed", "Some fields are not valid", f, null);
  }

  public static ApiError validation(String field, String reason) {
    return validation(Map.of(field, reason));
  }

  public static ApiError notFound() {
    return of(404, "not_found", "Not found");
  }

  public static ApiError conflict(String code, String message) {
    return of(409, code, message);
  }

  public static ApiError forbidden(String message) {
    return of(403, "forbidden", message);
  }

  public static ApiError unauthenticated() {
    return of(401, "unauthenticated", "Sign in first");
  }

  public static ApiError rateLimited(int retryAfterSeconds) {
    return new ApiError(429, "rate_limited", "Too many requests; try again later", null, retryAfterSeconds);
  }

  /** How long a client should wait after a full disk: an operator has to act, so not seconds. */
  public static final int STORAGE_RETRY_SECONDS = 60;

  /**
   * An upload the data folder has no room for (ENOSPC, see {@code DiskFull}): 507, retryable once
   * an operator frees space; nothing of it was kept.
   */
  public static ApiError insufficientStorage() {
    return new ApiError(507, "insufficient_storage",
        "The server's storage is full; nothing was kept. Try again once space is freed", null, STORAGE_RETRY_SECONDS);
  }

  /**
   * A public-data write the data repository has no room for: 503 (the request was fine, the service
   * cannot take writes for now), nothing changed, retryable once an operator frees space.
   */
  public static ApiError storageFull() {
    return new ApiError(503, "storage_full",
        "The data repository's disk is full; nothing was changed. Try again once space is freed", null,
        STORAGE_RETRY_SECONDS);
  }

  /**
   * No git writer takes commands right now (another node is taking over): 503, retryable after
   * {@code retryAfterSeconds}; nothing changed.
   */
  public static ApiError writerUnavailable(int retryAfterSeconds) {
    return new ApiError(503, "writer_unavailable",
        "No data writer is running at the moment (another node is taking over); try again shortly", null,
        retryAfterSeconds);
  }

  public static ApiError internal() {
    return of(500, "internal_error", "Something went wrong on our side");
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("code", code).put("message", message);
    if (fields != null) {
      json.put("fields", fields.copy());
    }
    if (retryAfterSeconds != null) {
      json.put("retryAfter", retryAfterSeconds);
    }
    return json;
  }

  public static ApiError fromJson(int status, JsonObject json) {
    return new ApiError(status, json.getString("code"), json.getString("message"),
        json.getJsonObject("fields"), json.getInteger("retryAfter"));
  }

  /** The form in which this refusal travels as a failed reply. */
  public ReplyException toException() {
    return new Refused(this);
  }

  /**
   * Reads a failure back: our own refusals (locally or from another node), anything else as null
   * (the caller answers 500 and logs it with a trace id).
   */
  public static ApiError from(Throwable failure) {
    if (failure instanceof Refused r) {
      return r.error;
    }
    if (failure instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
        && re.failureCode() >= 400 && re.failureCode() < 600 && re.getMessage() != null
        && re.getMessage().startsWith("{")) {
      try {
        return fromJson(re.failureCode(), new JsonObject(re.getMessage()));
      } catch (DecodeException e) {
        return null;
      }
    }
    return null;
  }

  /**
   * The trace id a service put in its failed reply when it logged a fault of its own (a 500 from
   * {@code ActionDispatcher} or the git writer), so the answer names the line that was logged.
   */
  public static Optional<String> traceId(Throwable failure) {
    if (failure instanceof ReplyException re && !(failure instanceof Refused) && re.getMessage() != null
        && re.getMessage().startsWith("{")) {
      try {
        return Optional.ofNullable(new JsonObject(re.getMessage()).getString("traceId"));
      } catch (DecodeException | ClassCastException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** A ReplyException that keeps the structured error for local callers. */
  static final class Refused extends ReplyException {
    private static final long serialVersionUID = 1L;
    private final transient ApiError error;

    Refused(ApiError error) {
      super(ReplyFailure.RECIPIENT_FAILURE, error.status(), error.toJson().encode());
      this.error = error;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this; // a refusal is an answer, not a bug: no stack trace to build
    }
  }
}
