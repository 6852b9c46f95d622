package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.media.uploads.LibraryTarget;
import io.shotstash.media.uploads.NewUpload;
import io.shotstash.media.uploads.ResumableUploads;
import io.shotstash.media.uploads.TusHeaders;
import io.shotstash.media.uploads.UploadRow;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resumable uploads into the media library over tus 1.0 (docs/api.md → Resumable uploads):
 * {@code OPTIONS}, {@code POST /api/v1/uploads} (creation, with or without the first bytes), {@code
 * HEAD|PATCH|DELETE /api/v1/uploads/:id}, and {@code POST /api/v1/uploads/:id} with {@code
 * X-HTTP-Method-Override} for clients that cannot send PATCH. Who may: editors and up, as {@code
 * POST /api/v1/files}, and only on their own uploads. Every answer carries {@code Tus-Resumable};
 * refusals are the API's JSON envelope. The rules and the I/O are in {@link ResumableUploads}.
 */
record TusRoutes(ResumableUploads uploads, long maxBytes) {
  private static final Logger log = LoggerFactory.getLogger(TusRoutes.class);
  static final String PATH = "/api/v1/uploads";
  /** The header the last PATCH's answer names the new library file in. */
  static final String FILE_ID = "Shotstash-File-Id";

  /** Whether a path is one of these routes (no request timeout: a PATCH takes as long as its bytes). */
  static boolean isTus(String path) {
    return path != null && (path.equals(PATH) || path.startsWith(PATH + "/"));
  }

  void mount(Router router) {
    router.options(PATH).handler(this::options);
    router.options(PATH + "/:id").handler(this::options);
    router.post(PATH).handler(ctx -> run(ctx, () -> create(ctx)));
    router.head(PATH + "/:id").handler(ctx -> run(ctx, () -> head(ctx)));
    router.patch(PATH + "/:id").handler(ctx -> run(ctx, () -> patch(ctx)));
    router.delete(PATH + "/:id").handler(ctx -> run(ctx, () -> terminate(ctx)));
    router.post(PATH + "/:id").handler(ctx -> run(ctx, () -> overridden(ctx)));
  }

  /** Discovery: what this server speaks. No sign-in needed. */
  private void options(RoutingContext ctx) {
    ctx.request().resume();
    tus(ctx.response()).putHeader("Tus-Version", TusHeaders.VERSION)
        .putHeader("Tus-Extension", TusHeaders.EXTENSIONS).putHeader("Tus-Max-Size", Long.toString(maxBytes))
        .setStatusCode(204).end();
  }

  private static HttpServerResponse tus(HttpServerResponse response) {
    return response.putHeader("Tus-Resumable", TusHeaders.VERSION).putHeader("Cache-Control", "no-store");
  }

  /** The caller (editors and up) and the protocol version, checked before anything else is read. */
  private static Actor.Member caller(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    req.pause();
    Actor.Member member = Callers.atLeast(ctx, AccountLevel.EDITOR);
    if (!TusHeaders.speaksOurVersion(req.getHeader("Tus-Resumable"))) {
      ctx.response().putHeader("Tus-Version", TusHeaders.VERSION);
      throw ApiError.of(412, "tus_version_unsupported", "Send Tus-Resumable: " + TusHeaders.VERSION).toException();
    }
    return member;
  }

  private Future<Void> create(RoutingContext ctx) {
    Actor.Member member = caller(ctx);
    HttpServerRequest req = ctx.request();
    ReadStream<Buffer> body = Uploads.body(req);
    NewUpload request;
    try {
      request = NewUpload.check(req.getHeader("Upload-Length"), req.getHeader("Upload-Metadata"), maxBytes);
    } catch (NewUpload.Refused r) {
      throw new ApiError(r.status(), r.code(), r.getMessage(),
          r.fields() == null ? null : new JsonObject(new java.util.LinkedHashMap<>(r.fields())), null).toException();
    }
    boolean withBytes = Uploads.hasBody(req);
    long declared = withBytes ? declaredLength(req) : 0;
    if (withBytes && !TusHeaders.isOffsetStream(req.getHeader("Content-Type"))) {
      throw ApiError.of(415, "unsupported_media_type",
          "Bytes sent with the creation must be Content-Type: " + TusHeaders.OFFSET_STREAM).toException();
    }
    if (declared > request.length()) {
      throw ApiError.of(413, "body_too_large", "The body runs past the upload's length").toException();
    }
    return uploads.create(member, req::getHeader, LibraryTarget.NAME, request).compose(row -> {
      // an empty file is complete once created: finished now, as the last PATCH would
      Future<ResumableUploads.Patched> first = withBytes || row.length() == 0
          ? uploads.patch(member, req::getHeader, row.id(), 0, declared, body, () -> Uploads.continueIfExpected(req))
          : Future.succeededFuture(new ResumableUploads.Patched(0, row.expiresAt(), null));
      return first.compose(p -> {
        HttpServerResponse res = tus(ctx.response()).putHeader("Location", PATH + "/" + row.id())
            .putHeader("Upload-Expires", TusHeaders.httpDate(p.expiresAt()));
        if (withBytes || row.length() == 0) {
          res.putHeader("Upload-Offset", Long.toString(p.offset()));
        }
        if (p.resultId() != null) {
          res.putHeader(FILE_ID, p.resultId());
        }
        return Envelope.ok(ctx, 201, view(row, p.offset(), p.expiresAt(), p.resultId()));
      });
    });
  }

  private Future<Void> head(RoutingContext ctx) {
    Actor.Member member = caller(ctx);
    HttpServerRequest req = ctx.request();
    return uploads.status(member, req::getHeader, ctx.pathParam("id")).compose(p -> {
      UploadRow row = p.upload();
      HttpServerResponse res = tus(ctx.response()).putHeader("Upload-Offset", Long.toString(p.offset()))
          .putHeader("Upload-Length", Long.toString(row.length()))
          .putHeader("Upload-Expires", TusHeaders.httpDate(row.expiresAt()))
          .putHeader("Upload-Metadata", metadata(row));
      if (p.resultId() != null) {
        res.putHeader(FILE_ID, p.resultId());
      }
      return res.setStatusCode(200).end();
    });
  }

  private Future<Void> patch(RoutingContext ctx) {
    Actor.Member member = caller(ctx);
    HttpServerRequest req = ctx.request();
    ReadStream<Buffer> body = Uploads.body(req);
    if (!TusHeaders.isOffsetStream(req.getHeader("Content-Type"))) {
      throw ApiError.of(415, "unsupported_media_type", "A PATCH's body must be Content-Type: "
          + TusHeaders.OFFSET_STREAM).toException();
    }
    long offset = TusHeaders.number(req.getHeader("Upload-Offset"));
    if (offset < 0) {
      throw ApiError.of(400, "bad_request", "Upload-Offset must be the offset in bytes the body starts at")
          .toException();
    }
    long declared = declaredLength(req);
    return uploads.patch(member, req::getHeader, ctx.pathParam("id"), offset, declared, body,
        () -> Uploads.continueIfExpected(req)).compose(p -> {
          HttpServerResponse res = tus(ctx.response()).putHeader("Upload-Offset", Long.toString(p.offset()))
              .putHeader("Upload-Expires", TusHeaders.httpDate(p.expiresAt()));
          if (p.resultId() != null) {
            res.putHeader(FILE_ID, p.resultId());
          }
          return res.setStatusCode(204).end();
        });
  }

  private Future<Void> terminate(RoutingContext ctx) {
    Actor.Member member = caller(ctx);
    return uploads.terminate(member, ctx.request()::getHeader, ctx.pathParam("id"))
        .compose(v -> tus(ctx.response()).setStatusCode(204).end());
  }

  /** tus's escape for clients that cannot send PATCH or DELETE (Java's HttpURLConnection). */
  private Future<Void> overridden(RoutingContext ctx) {
    return switch (TusHeaders.overriddenMethod(ctx.request().getHeader(TusHeaders.METHOD_OVERRIDE))) {
      case "PATCH" -> patch(ctx);
      case "DELETE" -> terminate(ctx);
      default -> throw ApiError.of(405, "method_not_allowed",
          "An upload takes HEAD, PATCH and DELETE (or POST with X-HTTP-Method-Override: PATCH or DELETE)")
          .toException();
    };
  }

  /** Content-Length as a number; -1 for a chunked body. 413 when it cannot be an upload's. */
  private long declaredLength(HttpServerRequest req) {
    String length = req.getHeader("Content-Length");
    if (length == null) {
      return -1;
    }
    long n = TusHeaders.number(length);
    if (n < 0 || n > maxBytes) {
      throw ApiError.of(413, "body_too_large", "Uploads are limited to " + (maxBytes >> 20) + " MB").toException();
    }
    return n;
  }

  private static JsonObject view(UploadRow row, long offset, Instant expiresAt, String fileId) {
    return new JsonObject().put("id", row.id()).put("name", row.fileName()).put("mimeType", row.mimeType())
        .put("folderId", row.folderId()).put("length", row.length()).put("offset", offset)
        .put("expiresAt", expiresAt.toString()).put("fileId", fileId);
  }

  /** The metadata the upload was created with, as tus writes it (no folderId for a target without one). */
  private static String metadata(UploadRow row) {
    Base64.Encoder b64 = Base64.getEncoder();
    String meta = "filename " + b64.encodeToString(row.fileName().getBytes(StandardCharsets.UTF_8)) + ",filetype "
        + b64.encodeToString(row.mimeType().getBytes(StandardCharsets.UTF_8));
    return row.folderId() == null ? meta
        : meta + ",folderId " + b64.encodeToString(row.folderId().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Runs a handler; a refusal is answered in the envelope with {@code Tus-Resumable} (and a refused
   * body still coming is dealt with as {@link LingeringClose} says).
   */
  private void run(RoutingContext ctx, Supplier<Future<?>> handler) {
    Future<?> work;
    try {
      work = handler.get();
    } catch (RuntimeException e) {
      work = Future.failedFuture(e);
    }
    work.onFailure(err -> {
      HttpServerRequest req = ctx.request();
      if (ctx.response().closed()) {
        // the client went away (a dropped connection mid-PATCH): what it sent is kept, and nobody is
        // left to answer; it asks HEAD when it is back
        log.info("client went away: {} {} ({})", req.method(), ctx.normalizedPath(), err.toString());
        return;
      }
      tus(ctx.response());
      Envelope.failure(ctx, Uploads.refusalFor(err,
          ApiError.of(413, "body_too_large", "Uploads are limited to " + (maxBytes >> 20) + " MB")));
    });
  }
}
