package io.shotstash.http;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.shotstash.bus.ApiError;
import io.shotstash.http.pipeline.PipelineRoutes;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests that are the client's mistake at the HTTP level, answered like every other refusal (JSON
 * in the shape of the route's surface) instead of Vert.x's bare default or a 500: those the HTTP
 * decoder could not read (a {@code Content-Length} that is not a number, a NUL byte in a header,
 * a header block or request line over the limit), and HTTP/1.1 requests without {@code Host}.
 */
public final class MalformedRequests {
  private static final Logger log = LoggerFactory.getLogger(MalformedRequests.class);
  public static final String MISSING_HOST = "An HTTP/1.1 request must carry a Host header";

  private MalformedRequests() {}

  /** HTTP/1.1 requires Host (RFC 9112 3.2); vertx-web fails such a request with 400 before routing it. */
  public static boolean missingHost(HttpServerRequest req) {
    return req.version() == HttpVersion.HTTP_1_1 && req.getHeader("Host") == null;
  }

  /** The status for a request the decoder could not read: 414, 431, or 400 (as Vert.x's own default handler). */
  static int status(Throwable decoderFailure) {
    if (decoderFailure instanceof TooLongHttpLineException) {
      return 414;
    }
    return decoderFailure instanceof TooLongHttpHeaderException ? 431 : 400;
  }

  /** The envelope refusal for a status given by the decoder or by vertx-web. */
  public static ApiError envelopeError(int status, HttpServerRequest req) {
    return switch (status) {
      case 414 -> ApiError.of(414, "uri_too_long", "The request line is too long");
      case 431 -> ApiError.of(431, "headers_too_large", "The request headers are too large");
      default -> ApiError.of(400, "bad_request", missingHost(req) ? MISSING_HOST
          : "The request is not valid HTTP (a malformed header or Content-Length)");
    };
  }

  /**
   * The server's invalid-request handler. The decoder's state is lost after such a request, so the
   * connection is closed once the answer is out, as Vert.x's default does.
   */
  static void answer(HttpServerRequest req) {
    Throwable cause = req.decoderResult() == null ? null : req.decoderResult().cause();
    int status = status(cause);
    log.debug("unreadable request: {} {}: {}", req.method(), req.path(), cause == null ? "?" : cause.getMessage());
    req.response().putHeader("Connection", "close");
    var sent = PipelineRoutes.isContractPath(req.path()) ? PipelineRoutes.refuseUnreadable(req, status)
        : Envelope.error(req.response(), envelopeError(status, req));
    sent.onComplete(v -> req.connection().close());
  }
}
