package io.shotstash.publicdata.write;

import io.shotstash.app.DiskFull;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.vertx.core.eventbus.Message;
import io.vertx.sqlclient.DatabaseException;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the caller of a failed write hears, and the one log line about it: a rule's refusal as it
 * is; the known outages as retryable 503s (nothing was committed in any of them); anything else as a
 * 500 whose trace id is the one logged with the failure.
 */
final class WriteFailures {
  private static final Logger log = LoggerFactory.getLogger(GitWriterVerticle.class);

  private WriteFailures() {}

  /** Fails {@code message} with the refusal for {@code cause}. */
  static void answer(Message<?> message, Throwable cause) {
    ApiError error = known(cause);
    if (error != null) {
      message.fail(error.status(), error.toJson().encode());
      return;
    }
    String traceId = UUID.randomUUID().toString();
    log.error("write failed [traceId={}]", traceId, cause);
    message.fail(500, ApiError.internal().toJson().put("traceId", traceId).encode());
  }

  /** The refusal for a failure we know, or null for a bug. */
  private static ApiError known(Throwable cause) {
    ApiError error = ApiError.from(cause);
    if (error != null) {
      return error;
    }
    if (DiskFull.is(cause)) {
      // Nothing changed: the git step failed before anything was recorded (objects are written
      // first, each through a temporary file) and the PostgreSQL transaction was rolled back, so the
      // next command starts from the same head and state. One line, no stack: it repeats for every
      // write until an operator frees space (operations.md -> When the disk is full).
      Throwable root = cause;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      log.warn("a write was refused: the data repository's disk is full ({})", root.toString());
      return ApiError.storageFull();
    }
    if (cause instanceof DatabaseException db && "55P03".equals(db.getSqlState())) {
      // lock_timeout on the branch fence's row: another writer holds it and has not been ended yet
      log.warn("a write waited too long for the branch fence's row lock");
      return ApiError.writerUnavailable(Unavailable.RETRY_AFTER_SECONDS);
    }
    error = Unavailable.of(cause).orElse(null);
    if (error != null) {
      log.warn("write refused while {}: {}", error.code(), String.valueOf(cause.getMessage()));
    }
    return error;
  }
}
