package io.shotstash.http;

import io.shotstash.app.DiskFull;
import io.shotstash.bus.ApiError;
import io.shotstash.media.Storage;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.RoutingContext;
import java.nio.channels.ClosedChannelException;
import java.nio.file.FileSystemException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What streamed uploads share: answering {@code Expect: 100-continue} only once the upload's
 * checks pass (everything else gets it at once), knowing whether a request carries a body, and
 * turning a failed write into the right refusal.
 */
public final class Uploads {
  /**
   * The raw-body routes: the media upload, resumable uploads (tus), the worker's output (plain and
   * resumable) and avatars.
   */
  private static final Pattern UPLOAD = Pattern.compile(
      "^(/api/v1/files|/api/v1/uploads(/[^/]+)?|/api/v1/pipeline/jobs/[^/]+/output(/uploads(/[^/]+)?)?"
          + "|/api/people/[^/]+/avatar)$");

  private static final Logger log = LoggerFactory.getLogger(Uploads.class);

  private Uploads() {}

  /** Whether the request is one of the raw-body upload routes. */
  static boolean isUpload(RoutingContext ctx) {
    return UPLOAD.matcher(ctx.normalizedPath()).matches();
  }

  /** Every route but the uploads takes its body as soon as asked. */
  static void continueUnlessUpload(RoutingContext ctx) {
    if (!UPLOAD.matcher(ctx.normalizedPath()).matches()) {
      continueIfExpected(ctx.request());
    }
  }

  public static void continueIfExpected(HttpServerRequest req) {
    if (expectsContinue(req) && !req.response().headWritten()) {
      req.response().writeContinue();
    }
  }

  /** Whether the client waits for {@code 100 Continue} before it sends the body. */
  public static boolean expectsContinue(HttpServerRequest req) {
    String expect = req.getHeader("Expect");
    return expect != null && expect.equalsIgnoreCase("100-continue");
  }

  /** Whether the client will send a body (so refusing without reading it means closing the connection). */
  public static boolean hasBody(HttpServerRequest req) {
    if (req.method() == HttpMethod.GET || req.method() == HttpMethod.HEAD) {
      return false;
    }
    String length = req.getHeader("Content-Length");
    if (length != null) {
      return !"0".equals(length.strip());
    }
    return req.getHeader("Transfer-Encoding") != null;
  }

  /**
   * The request body for storage. A client may go away while the upload's checks run (a session or
   * claim lookup, opening the file): Vert.x reports that once, to the exception handler set at that
   * moment, and a body stream whose handlers are set later then never ends nor fails, holding its
   * temporary file forever. This stream remembers such a failure and hands it to the handler that
   * storage sets, and knows a connection that closed before it was made. Call it before any
   * asynchronous step of the upload.
   */
  public static ReadStream<Buffer> body(HttpServerRequest req) {
    return new ClientBody(req);
  }

  /** Whether a failure means the client went away (dropped the connection) rather than a fault of ours. */
  public static boolean clientWentAway(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpClosedException || t instanceof ClosedChannelException) {
        return true;
      }
    }
    return false;
  }

  private static final class ClientBody implements ReadStream<Buffer> {
    private final HttpServerRequest req;
    private Handler<Throwable> exceptionHandler;
    private Throwable missed;

    ClientBody(HttpServerRequest req) {
      this.req = req;
      req.exceptionHandler(this::failed);
      if (req.response().closed()) {
        missed = new HttpClosedException("Connection was closed");
      }
    }

    private void failed(Throwable err) {
      if (exceptionHandler != null) {
        exceptionHandler.handle(err);
      } else if (missed == null) {
        missed = err;
      }
    }

    @Override
    public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
      exceptionHandler = handler;
      if (handler != null && missed != null) {
        Throwable err = missed;
        missed = null;
        handler.handle(err);
      }
      return this;
    }

    @Override
    public ReadStream<Buffer> handler(Handler<Buffer> handler) {
      req.handler(handler);
      return this;
    }

    @Override
    public ReadStream<Buffer> pause() {
      req.pause();
      return this;
    }

    @Override
    public ReadStream<Buffer> resume() {
      req.resume();
      return this;
    }

    @Override
    public ReadStream<Buffer> fetch(long amount) {
      req.fetch(amount);
      return this;
    }

    @Override
    public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
      req.endHandler(endHandler);
      return this;
    }
  }

  /**
   * A failed write of an upload in the API's shape: too large → {@code tooLarge}, a full disk → 507
   * {@code insufficient_storage}, another storage fault → 503 {@code storage_unavailable}, else as
   * it is (a 500 with a trace id when it is not a refusal).
   */
  public static Throwable refusalFor(Throwable err, ApiError tooLarge) {
    return refusalFor(err, tooLarge, ApiError.insufficientStorage(),
        ApiError.of(503, "storage_unavailable", "Storage is not available; try again later"));
  }

  /**
   * As {@link #refusalFor(Throwable, ApiError)}, with the surface's own refusals for a full disk and
   * for another storage fault (the worker contract has its own codes). The full disk is checked
   * first: it is also a file-system fault, and the one a client can wait out.
   */
  public static Throwable refusalFor(Throwable err, ApiError tooLarge, ApiError diskFull, ApiError unavailable) {
    if (err instanceof Storage.TooLargeException) {
      return tooLarge.toException();
    }
    if (DiskFull.is(err)) {
      // the operator's cue (operations.md -> When the disk is full): one line, no stack, as the
      // git writer logs its own refusals
      log.warn("an upload was refused: the media storage's disk is full ({})", err.toString());
      return diskFull.toException();
    }
    if (err instanceof FileSystemException || err.getCause() instanceof FileSystemException) {
      return unavailable.toException();
    }
    return err;
  }
}
