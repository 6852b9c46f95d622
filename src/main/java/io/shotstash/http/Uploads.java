package io.shotstash.http;

import io.shotstash.bus.ApiError;
import io.shotstash.media.Storage;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.util.regex.Pattern;

/**
 * What streamed uploads share: answering {@code Expect: 100-continue} only once the upload's
 * checks pass (everything else gets it at once), knowing whether a request carries a body, and
 * turning a failed write into the right refusal.
 */
public final class Uploads {
  /** The raw-body routes: the media upload, the worker's output and avatars. */
  private static final Pattern UPLOAD =
      Pattern.compile("^(/api/v1/files|/api/v1/pipeline/jobs/[^/]+/output|/api/people/[^/]+/avatar)$");

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

  /** Too large → {@code tooLarge}; a storage fault → 503 STORAGE_UNAVAILABLE-style; else as it is. */
  public static Throwable refusalFor(Throwable err, ApiError tooLarge) {
    if (err instanceof Storage.TooLargeException) {
      return tooLarge.toException();
    }
    if (err instanceof FileSystemException || err.getCause() instanceof FileSystemException
        || (err instanceof IOException && err.getMessage() != null && err.getMessage().contains("No space"))) {
      return ApiError.of(503, tooLarge.code().equals("OUTPUT_TOO_LARGE") ? "STORAGE_UNAVAILABLE" : "storage_unavailable",
          "Storage is not available; try again later").toException();
    }
    return err;
  }
}
