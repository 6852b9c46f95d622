package io.shotstash.http.pipeline;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.http.Uploads;
import io.shotstash.media.uploads.NewUpload;
import io.shotstash.media.uploads.ResumableUploads;
import io.shotstash.media.uploads.TusHeaders;
import io.shotstash.media.uploads.UploadMetadata;
import io.shotstash.pipeline.JobOutputTarget;
import io.shotstash.pipeline.contract.OutputRules;
import io.shotstash.pipeline.contract.OutputUploadRefusals;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;

/**
 * A worker's output over tus 1.0, the optional resumable path of the worker contract
 * (docs/worker-contract.md → Resumable outputs): {@code POST jobs/:id/output/uploads} creates an
 * upload for the job whose claim the worker holds, {@code HEAD|PATCH|DELETE
 * jobs/:id/output/uploads/:uploadId} reads, extends and ends it ({@code POST} with {@code
 * X-HTTP-Method-Override} for clients that cannot send PATCH). Mounted inside the contract's router,
 * after its setup gate, limits and worker token; the claim token travels in {@code X-Claim-Token} as
 * on every job call. The protocol, the lock and the bytes are {@link ResumableUploads}'; the claim
 * checks are {@link JobOutputTarget}'s. Refusals are the contract's {@code {code, message}}, and
 * carry the code in {@value #ERROR_CODE} too (a HEAD's answer has no body).
 */
final class OutputUploadRoutes {
  static final String PATH = "/jobs/:id/output/uploads";
  /** The refusal's code as a header: the one a HEAD can carry. */
  static final String ERROR_CODE = "X-Shotstash-Error-Code";
  /** The header that names the version the finished output is recorded under. */
  static final String VERSION_ID = "Shotstash-Version-Id";

  private final ResumableUploads uploads;
  private final long maxBytes;

  OutputUploadRoutes(ResumableUploads uploads, long maxOutputBytes) {
    this.uploads = uploads;
    this.maxBytes = maxOutputBytes;
  }

  void mount(Router r) {
    r.post(PATH).handler(ctx -> run(ctx, this::create));
    r.head(PATH + "/:uploadId").handler(ctx -> run(ctx, this::head));
    r.patch(PATH + "/:uploadId").handler(ctx -> run(ctx, this::patch));
    r.delete(PATH + "/:uploadId").handler(ctx -> run(ctx, this::terminate));
    r.post(PATH + "/:uploadId").handler(ctx -> run(ctx, this::overridden));
  }

  /** The location of an upload, relative to the app's address. */
  static String location(String jobId, String uploadId) {
    return PipelineRoutes.BASE + "/jobs/" + jobId + "/output/uploads/" + uploadId;
  }

  /**
   * Runs a handler with {@code Tus-Resumable} on every answer; a refusal is put in the contract's
   * codes and answered by the contract's failure handler (which closes a connection whose body it
   * will not read).
   */
  private void run(RoutingContext ctx, Function<RoutingContext, Future<Void>> handler) {
    ctx.response().putHeader("Tus-Resumable", TusHeaders.VERSION);
    Future<Void> work;
    try {
      work = handler.apply(ctx);
    } catch (RuntimeException e) {
      work = Future.failedFuture(e);
    }
    work.onFailure(err -> {
      Throwable refusal = Uploads.refusalFor(err, PipelineErrors.outputTooLarge(maxBytes),
          PipelineErrors.insufficientStorage(), PipelineErrors.storageUnavailable());
      ApiError e = ApiError.from(refusal);
      if (e != null) {
        e = OutputUploadRefusals.contract(e, maxBytes);
        ctx.response().putHeader(ERROR_CODE, e.code());
        refusal = e.toException();
      }
      ctx.fail(refusal);
    });
  }

  /** The worker and the job (the contract's claim headers and job id), then the protocol version. */
  private static Actor.Worker caller(RoutingContext ctx) {
    JsonObject call = PipelineRoutes.claim(ctx);
    if (!TusHeaders.speaksOurVersion(ctx.request().getHeader("Tus-Resumable"))) {
      ctx.response().putHeader("Tus-Version", TusHeaders.VERSION);
      throw OutputUploadRefusals.tusVersionUnsupported().toException();
    }
    return new Actor.Worker(call.getString("workerId"), call.getString("jobId"));
  }

  private Future<Void> create(RoutingContext ctx) {
    Actor.Worker worker = caller(ctx);
    HttpServerRequest req = ctx.request();
    if (Uploads.hasBody(req)) {
      throw PipelineErrors.invalidOutput("Create the upload without a body, then send the bytes with PATCH")
          .toException();
    }
    req.resume();
    long length = TusHeaders.number(req.getHeader("Upload-Length"));
    if (length < 0) {
      throw PipelineErrors.invalidOutput("Upload-Length must be the output's size in bytes").toException();
    }
    if (length > maxBytes) {
      throw PipelineErrors.outputTooLarge(maxBytes).toException();
    }
    if (length == 0) {
      throw PipelineErrors.invalidOutput("The output is empty").toException();
    }
    UploadMetadata metadata;
    try {
      metadata = UploadMetadata.parse(req.getHeader("Upload-Metadata"));
    } catch (UploadMetadata.Invalid e) {
      throw PipelineErrors.invalidOutput("Upload-Metadata " + e.getMessage()).toException();
    }
    String mediaType = OutputRules.mediaType(metadata.first("filetype", "type"));
    if (mediaType == null) {
      throw PipelineErrors.invalidOutput("Upload-Metadata filetype must be one of the output media types")
          .toException();
    }
    String ext = OutputRules.extension(metadata.get("ext"));
    if (ext == null) {
      throw PipelineErrors.invalidOutput("Upload-Metadata ext must be 1 to 10 letters or digits").toException();
    }
    NewUpload request = new NewUpload(JobOutputTarget.fileName(ext), mediaType, null, length);
    return uploads.create(worker, worker.workerId(), req::getHeader, JobOutputTarget.NAME, request).compose(row -> {
      String location = location(worker.jobId(), row.id());
      ctx.response().putHeader("Location", location)
          .putHeader("Upload-Expires", TusHeaders.httpDate(row.expiresAt()));
      return ContractResponses.json(ctx, 201, new JsonObject().put("uploadId", row.id()).put("url", location)
          .put("length", row.length()).put("offset", 0).put("mimeType", mediaType).put("ext", ext)
          .put("expiresAt", row.expiresAt().toString()));
    });
  }

  private Future<Void> head(RoutingContext ctx) {
    Actor.Worker worker = caller(ctx);
    HttpServerRequest req = ctx.request();
    return uploads.status(worker, req::getHeader, ctx.pathParam("uploadId")).compose(p -> {
      HttpServerResponse res = ctx.response().putHeader("Upload-Offset", Long.toString(p.offset()))
          .putHeader("Upload-Length", Long.toString(p.upload().length()))
          .putHeader("Upload-Expires", TusHeaders.httpDate(p.upload().expiresAt()));
      if (p.resultId() != null) {
        res.putHeader(VERSION_ID, p.resultId()); // only once the output is recorded
      }
      return ContractResponses.empty(ctx, 200);
    });
  }

  private Future<Void> patch(RoutingContext ctx) {
    Actor.Worker worker = caller(ctx);
    HttpServerRequest req = ctx.request();
    ReadStream<Buffer> body = Uploads.body(req);
    if (!TusHeaders.isOffsetStream(req.getHeader("Content-Type"))) {
      throw OutputUploadRefusals.unsupportedMediaType().toException();
    }
    long offset = TusHeaders.number(req.getHeader("Upload-Offset"));
    if (offset < 0) {
      throw PipelineErrors.invalidOutput("Upload-Offset must be the offset in bytes the body starts at")
          .toException();
    }
    long declared = -1;
    String length = req.getHeader("Content-Length");
    if (length != null) {
      declared = TusHeaders.number(length);
      if (declared < 0) {
        throw PipelineErrors.invalidOutput("Content-Length is not a number").toException();
      }
      if (declared > maxBytes) {
        throw PipelineErrors.outputTooLarge(maxBytes).toException();
      }
    }
    return uploads.patch(worker, req::getHeader, ctx.pathParam("uploadId"), offset, declared, body,
        () -> Uploads.continueIfExpected(req)).compose(p -> {
          HttpServerResponse res = ctx.response().putHeader("Upload-Offset", Long.toString(p.offset()))
              .putHeader("Upload-Expires", TusHeaders.httpDate(p.expiresAt()));
          if (p.resultId() != null) {
            res.putHeader(VERSION_ID, p.resultId());
          }
          return ContractResponses.empty(ctx, 204);
        });
  }

  private Future<Void> terminate(RoutingContext ctx) {
    Actor.Worker worker = caller(ctx);
    ctx.request().resume();
    return uploads.terminate(worker, ctx.request()::getHeader, ctx.pathParam("uploadId"))
        .compose(v -> ContractResponses.empty(ctx, 204));
  }

  /** tus's escape for clients that cannot send PATCH or DELETE. */
  private Future<Void> overridden(RoutingContext ctx) {
    return switch (TusHeaders.overriddenMethod(ctx.request().getHeader(TusHeaders.METHOD_OVERRIDE))) {
      case "PATCH" -> patch(ctx);
      case "DELETE" -> terminate(ctx);
      default -> throw ApiError.of(404, "NOT_FOUND", "No such route in contract v1").toException();
    };
  }
}
