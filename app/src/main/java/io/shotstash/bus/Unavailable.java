package io.shotstash.bus;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.DatabaseException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.Optional;

/**
 * Failures that mean "a part of the app is away for a moment", not "a bug": PostgreSQL refusing
 * connections, restarting or dropping them, and an event-bus request nobody answered in time or no
 * service took. Each becomes a {@code 503} refusal with {@code Retry-After} (never a 500 with a
 * stack trace), so a client knows to try again; the pools reconnect by themselves. Pure: it reads
 * the failure and its causes, nothing else.
 */
public final class Unavailable {
  /** Seconds a client is asked to wait before trying again. */
  public static final int RETRY_AFTER_SECONDS = 5;
  public static final String DATABASE = "database_unavailable";
  public static final String SERVICE = "service_unavailable";

  private Unavailable() {}

  /** The 503 refusal for an outage, or empty for any other failure. */
  public static Optional<ApiError> of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (databaseAway(t)) {
        return Optional.of(database());
      }
      if (t instanceof ReplyException re
          && (re.failureType() == ReplyFailure.TIMEOUT || re.failureType() == ReplyFailure.NO_HANDLERS)) {
        return Optional.of(new ApiError(503, SERVICE, "A part of the app did not answer in time; try again shortly",
            null, RETRY_AFTER_SECONDS));
      }
    }
    return Optional.empty();
  }

  /** The refusal while PostgreSQL is away. */
  public static ApiError database() {
    return new ApiError(503, DATABASE, "The database is not answering; try again shortly", null, RETRY_AFTER_SECONDS);
  }

  /** Whether a refusal is one of these (so each surface can answer it in its own shape). */
  public static boolean isOutage(ApiError error) {
    return error.status() == 503 && (DATABASE.equals(error.code()) || SERVICE.equals(error.code()));
  }

  /**
   * PostgreSQL is away: no connection (refused, closed, reset, dropped), or the server says it is shutting
   * down or starting ({@code 57P01} admin shutdown, {@code 57P02} crash shutdown, {@code 57P03}
   * cannot connect now) or names a connection failure (class {@code 08}).
   */
  static boolean databaseAway(Throwable t) {
    if (t instanceof ClosedConnectionException || t instanceof ConnectException || t instanceof SocketException) {
      return true;
    }
    // a socket reset by the server, as the native (epoll) transport reports it; files never raise it
    if ("io.netty.channel.unix.Errors$NativeIoException".equals(t.getClass().getName())) {
      return true;
    }
    if (t instanceof DatabaseException db && db.getSqlState() != null) {
      String state = db.getSqlState();
      return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }
    return false;
  }
}
