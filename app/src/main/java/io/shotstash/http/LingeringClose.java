package io.shotstash.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Supplier;

/**
 * Closes the connection of a request whose body was refused, without losing the refusal.
 *
 * <p>A refusal can come while the client is still sending its body (an upload to a folder that
 * does not exist, a PATCH over the limit). We do not read gigabytes we will not use just to keep
 * the connection: the answer says {@code Connection: close}. Left paused, the unread body would
 * stall the connection: a client that writes its whole body before it reads would wait forever.
 * Closing at once is no better: closing a socket while the client's bytes still wait unread in it
 * makes the kernel answer with a reset, and a reset makes the client's kernel drop what it had
 * received and not yet read, which is the refusal we just sent. The client would see "connection
 * closed" instead of {@code 404 UPLOAD_NOT_FOUND}. So, like nginx's {@code lingering_close}, the
 * rest of the body is read and thrown away, and the connection is closed when the body ends, when
 * nothing has come for {@link #IDLE_MILLIS}, or after {@link #MAX_MILLIS} at most: a client sending
 * gigabytes is not read to the end.
 */
public final class LingeringClose {
  /**
   * Nothing more came for this long: the client is reading the answer, or gone. Not shorter: a
   * client still sending when we close gets a reset, which can cost it the answer, and a busy
   * machine can stall a sender for a second.
   */
  static final long IDLE_MILLIS = 2_000;
  /** The longest a refused body is read. */
  static final long MAX_MILLIS = 5_000;

  private final Vertx vertx;
  private final HttpConnection connection;
  private final long started = System.nanoTime();
  private long lastBytes = started;
  private long timer = -1;
  private boolean closed;

  private LingeringClose(Vertx vertx, HttpConnection connection) {
    this.vertx = vertx;
    this.connection = connection;
  }

  /**
   * Sends a refusal with {@code send}; when the request's body is still coming, the answer says
   * {@code Connection: close} and the connection closes as this class describes.
   */
  public static Future<Void> answer(RoutingContext ctx, Supplier<Future<Void>> send) {
    HttpServerRequest req = ctx.request();
    HttpServerResponse response = ctx.response();
    boolean unread = !req.isEnded() && Uploads.hasBody(req) && !response.closed() && !response.ended();
    if (unread && !response.headWritten()) {
      response.putHeader("Connection", "close");
    }
    Future<Void> sent = send.get();
    if (unread) {
      sent.onComplete(v -> after(ctx.vertx(), req));
    }
    return sent;
  }

  /** Reads and drops the rest of {@code req}'s body, then closes its connection. */
  private static void after(Vertx vertx, HttpServerRequest req) {
    LingeringClose linger = new LingeringClose(vertx, req.connection());
    if (req.isEnded()) {
      linger.close();
      return;
    }
    req.exceptionHandler(e -> linger.close());
    req.endHandler(v -> linger.close());
    req.handler(bytes -> linger.lastBytes = System.nanoTime());
    linger.timer = vertx.setPeriodic(IDLE_MILLIS / 4, id -> linger.check());
    req.resume();
  }

  private void check() {
    long now = System.nanoTime();
    if (now - lastBytes >= IDLE_MILLIS * 1_000_000 || now - started >= MAX_MILLIS * 1_000_000) {
      close();
    }
  }

  private void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    connection.close();
  }
}
