package io.shotstash.media.uploads;

import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The per-upload lock ({@link UploadSql#TRY_LOCK}, a PostgreSQL session advisory lock) and the
 * sessions it is taken on. Opening a session costs a few milliseconds, a large part of a small
 * PATCH, so sessions are kept between requests: each event loop keeps up to {@link #KEPT_PER_LOOP}
 * idle ones, opened on that loop, so a request's statements and its body stream answer on one thread.
 * A session goes back only after {@link UploadSql#UNLOCK_ALL} succeeded on it, so a kept session
 * never holds a lock; one that fails in any way is closed, and PostgreSQL frees whatever it held.
 * A kept session found dead (PostgreSQL restarted meanwhile) is replaced once by a new one.
 */
final class UploadLocks {
  /** Idle sessions each event loop keeps: a few uploads at once per loop; beyond that they are opened and closed. */
  static final int KEPT_PER_LOOP = 4;
  /** The sessions' {@code application_name} (in {@code pg_stat_activity}). */
  static final String SESSION_NAME = "shotstash upload locks";

  /** The upload's lock is held by another request (of this node or another). */
  static final class Busy extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Busy() {
      super("upload lock held elsewhere", null, false, false);
    }
  }

  private final Vertx vertx;
  private final PgConnectOptions options;
  /** Idle sessions by event-loop thread; each queue is touched only by its thread. */
  private final Map<Thread, ArrayDeque<PgConnection>> kept = new ConcurrentHashMap<>();

  UploadLocks(Vertx vertx, Config.DatabaseUrl database) {
    this.vertx = vertx;
    this.options = Database.connectOptions(database).addProperty("application_name", SESSION_NAME);
  }

  /**
   * Runs {@code work} holding upload {@code id}'s lock, on the session that holds it; fails with
   * {@link Busy} at once when another request holds it. The lock is released (and the session kept
   * or closed) before the returned future completes.
   */
  <T> Future<T> holding(String id, Function<SqlConnection, Future<T>> work) {
    // kept by event-loop thread, not by context: each HTTP request runs on a context of its own
    // (a duplicate of its verticle's); a session opened for one request answers the next on the same
    // thread. Off an event loop (a worker thread), a session is opened and closed each time.
    ArrayDeque<PgConnection> idle = Context.isOnEventLoopThread()
        ? kept.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()) : null;
    PgConnection reused = idle == null ? null : idle.pollFirst();
    Future<PgConnection> locked = reused == null
        ? open().compose(conn -> lock(conn, id, idle))
        // a kept session may have died since (PostgreSQL restarted): once more, on a new one
        : lock(reused, id, idle).recover(err -> err instanceof Busy
            ? Future.failedFuture(err) : open().compose(conn -> lock(conn, id, idle)));
    return locked.compose(conn -> work.apply(conn).eventually(() -> release(conn, idle)));
  }

  private Future<PgConnection> open() {
    return PgConnection.connect(vertx, options);
  }

  /**
   * {@code conn}, holding upload {@code id}'s lock; {@link Busy} when another request holds it (the
   * session, which holds nothing, goes back at once); the statement's error, the session closed, when it fails.
   */
  private Future<PgConnection> lock(PgConnection conn, String id, ArrayDeque<PgConnection> idle) {
    return conn.preparedQuery(UploadSql.TRY_LOCK).execute(Tuple.of(id)).transform(ar -> {
      if (ar.failed()) {
        return conn.close().transform(x -> Future.failedFuture(ar.cause()));
      }
      if (ar.result().iterator().next().getBoolean(0)) {
        return Future.succeededFuture(conn);
      }
      keepOrClose(conn, idle);
      return Future.failedFuture(new Busy());
    });
  }

  /** Frees every lock {@code conn} holds, then keeps it in {@code idle} (if room) or closes it. */
  private Future<Void> release(PgConnection conn, ArrayDeque<PgConnection> idle) {
    return conn.query(UploadSql.UNLOCK_ALL).execute()
        .transform(ar -> ar.succeeded() ? keepOrClose(conn, idle) : conn.close().otherwiseEmpty());
  }

  /**
   * {@code conn}, which holds no lock, back to {@code idle} if there is room, else closed. Only on
   * the queue's own thread (work that completed elsewhere closes its session rather than share the queue).
   */
  private Future<Void> keepOrClose(PgConnection conn, ArrayDeque<PgConnection> idle) {
    if (idle != null && kept.get(Thread.currentThread()) == idle && idle.size() < KEPT_PER_LOOP) {
      idle.addFirst(conn);
      // a session that closes while kept (PostgreSQL restarted, the node stops) leaves the queue
      conn.closeHandler(v -> idle.remove(conn));
      return Future.succeededFuture();
    }
    return conn.close().otherwiseEmpty();
  }
}
