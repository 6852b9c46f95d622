package io.shotstash.http.pipeline;

import io.shotstash.auth.Ids;
import io.shotstash.auth.Tokens;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.shotstash.bus.Requests;
import io.shotstash.http.Downloads;
import io.shotstash.http.Uploads;
import io.shotstash.http.HttpServices;
import io.shotstash.http.MalformedRequests;
import io.shotstash.http.StorableText;
import io.shotstash.media.Storage;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.WorkerDirectory.WorkerRef;
import io.shotstash.pipeline.contract.Manifest;
import io.shotstash.pipeline.contract.OutputRules;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.shotstash.ratelimit.SlidingWindow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The worker contract v1 under {@code /api/v1/pipeline} (docs/worker-contract.md). Each handler
 * runs the checks in the contract's order — setup gate, per-IP limit, token, per-worker limit,
 * body and headers, then the job and claim (in {@code pipeline.queue}) — and streams bodies
 * between the socket and {@link Storage}. Every answer carries {@code X-Shotstash-Pipeline: 1};
 * every refusal is {@code {code, message}}.
 */
public final class PipelineRoutes {
  static final String BASE = "/api/v1/pipeline";
  static final int JSON_LIMIT = 64 * 1024;
  private static final Duration MINUTE = Duration.ofMinutes(1);
  private static final String WORKER = "worker";
  private static final Pattern OUTPUT_PATH = Pattern.compile("^" + BASE + "/jobs/[^/]+/output$");

  private final Vertx vertx;
  private final HttpServices services;
  private final Storage storage;
  private final BodyHandler json = BodyHandler.create(false).setBodyLimit(JSON_LIMIT);

  public PipelineRoutes(Vertx vertx, HttpServices services, Storage storage) {
    this.vertx = vertx;
    this.services = services;
    this.storage = storage;
  }

  public void mount(Router router) {
    Router r = Router.router(vertx);
    r.route().handler(this::common);
    r.post("/workers/register").handler(ctx -> ipLimit(ctx).compose(v -> registrationLimit(ctx))
        .compose(v -> bootstrap(ctx)).onSuccess(v -> ctx.next()).onFailure(ctx::fail));
    r.post("/workers/register").handler(json).handler(ctx -> run(ctx, register(ctx)));
    r.route().handler(ctx -> ipLimit(ctx).compose(v -> authenticate(ctx))
        .onSuccess(v -> ctx.next()).onFailure(ctx::fail));
    r.post("/workers/heartbeat").handler(json).handler(ctx -> run(ctx, heartbeat(ctx)));
    r.post("/jobs/next").handler(json).handler(ctx -> run(ctx, next(ctx)));
    r.get("/jobs/:id/input").handler(ctx -> run(ctx, input(ctx)));
    r.post("/jobs/:id/progress").handler(json).handler(ctx -> run(ctx, progress(ctx)));
    r.put("/jobs/:id/output").handler(ctx -> run(ctx, output(ctx)));
    r.post("/jobs/:id/complete").handler(json)
        .handler(ctx -> run(ctx, jobCall(ctx, QueueActions.COMPLETE, new JsonObject())));
    r.post("/jobs/:id/release").handler(json)
        .handler(ctx -> run(ctx, jobCall(ctx, QueueActions.RELEASE, new JsonObject())));
    r.post("/jobs/:id/fail").handler(json).handler(ctx -> run(ctx, fail(ctx)));
    new OutputUploadRoutes(services.uploads(), services.config().pipeline().maxOutputBytes()).mount(r);
    r.route()
        .handler(ctx -> ContractResponses.error(ctx, ApiError.of(404, "NOT_FOUND", "No such route in contract v1")));
    r.route().failureHandler(this::onFailure);
    router.route(BASE + "/*").subRouter(r);
  }

  /** Header on every answer; the setup gate; the body waits until the checks before it are done. */
  private void common(RoutingContext ctx) {
    ctx.response().putHeader(ContractResponses.VERSION_HEADER, "1");
    ctx.request().pause();
    if (!services.publicState().current().setupDone()) {
      ContractResponses.error(ctx, PipelineErrors.setupRequired());
      return;
    }
    ctx.next();
  }

  private static void run(RoutingContext ctx, Future<?> work) {
    work.onFailure(ctx::fail);
  }

  private void onFailure(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    int status = ctx.statusCode();
    // vertx-web fails some requests itself with a 4xx and a cause (an HTTP/1.1 request without
    // Host): the client's mistake, answered by its status below, not a fault of ours
    boolean webRefusal = failure != null && ApiError.from(failure) == null && status >= 400 && status < 500;
    if (failure != null && !webRefusal) {
      ApiError error = ApiError.from(failure);
      if (error == null) {
        error = Unavailable.of(failure).orElse(null);
      }
      if (error != null && Unavailable.isOutage(error)) {
        error = PipelineErrors.unavailable(error); // the contract's codes are upper case
      }
      if (error == null || error.status() >= 500 && "internal_error".equals(error.code())) {
        ContractResponses.internal(ctx, failure);
      } else {
        ContractResponses.error(ctx, error);
      }
      return;
    }
    ApiError error = status == 413 ? PipelineErrors.bodyTooLarge()
        : MalformedRequests.missingHost(ctx.request()) ? PipelineErrors.badRequest(MalformedRequests.MISSING_HOST)
            : ApiError.of(status, "INVALID_BODY", "The request is not valid");
    ContractResponses.error(ctx, error);
  }

  /** Whether a path belongs to the worker contract (whose refusals have their own shape). */
  public static boolean isContractPath(String path) {
    return path != null && (path.equals(BASE) || path.startsWith(BASE + "/"));
  }

  /**
   * Answers a contract request that HTTP itself could not read, before any of the contract's
   * checks: an output upload hears its documented INVALID_OUTPUT (its Content-Length is the usual
   * culprit), any other route BAD_REQUEST; over-long lines and headers their own codes.
   */
  public static Future<Void> refuseUnreadable(HttpServerRequest req, int status) {
    ApiError error = switch (status) {
      case 414 -> PipelineErrors.uriTooLong();
      case 431 -> PipelineErrors.headersTooLarge();
      default -> OUTPUT_PATH.matcher(req.path()).matches()
          ? PipelineErrors
              .invalidOutput("The request could not be read: Content-Length is not a number, or a header is malformed")
          : PipelineErrors.badRequest("The request is not valid HTTP (a malformed header or Content-Length)");
    };
    return ContractResponses.error(req.response(), error);
  }

  // ---- the checks before the body ----

  private static String clientIp(RoutingContext ctx) {
    return ctx.request().remoteAddress() == null ? "unknown" : ctx.request().remoteAddress().hostAddress();
  }

  private Future<Void> limit(String key, int count, Duration window) {
    return services.limiter().tryAcquire(key, count, window).compose(PipelineRoutes::allowed);
  }

  private static Future<Void> allowed(SlidingWindow.Decision d) {
    return d.allowed() ? Future.succeededFuture()
        : Future.failedFuture(PipelineErrors.rateLimited(d.retryAfterSeconds()).toException());
  }

  private Future<Void> ipLimit(RoutingContext ctx) {
    if (ctx.get("ipCounted") != null) {
      return Future.succeededFuture();
    }
    ctx.put("ipCounted", true);
    return limit("pipeline-ip:" + clientIp(ctx), 6000, MINUTE);
  }

  private Future<Void> registrationLimit(RoutingContext ctx) {
    return limit("pipeline-register:" + clientIp(ctx), 60, Duration.ofHours(1));
  }

  private Future<Void> bootstrap(RoutingContext ctx) {
    String configured = services.config().pipeline().bootstrapToken();
    if (configured == null) {
      return Future.failedFuture(PipelineErrors.pipelineDisabled().toException());
    }
    if (!Tokens.sameSecret(ctx.request().getHeader("X-Worker-Bootstrap-Token"), configured)) {
      return Future.failedFuture(PipelineErrors.unauthenticated().toException());
    }
    return Future.succeededFuture();
  }

  /** X-Worker-Token → the worker (401), then its own limit (429). */
  private Future<Void> authenticate(RoutingContext ctx) {
    String token = ctx.request().getHeader("X-Worker-Token");
    if (token == null || token.isEmpty() || token.length() > 200) {
      return Future.failedFuture(PipelineErrors.unauthenticated().toException());
    }
    String hash = HexFormat.of().formatHex(Tokens.sha256(token));
    WorkerRef known = services.workers().get(hash); // this node's cache: no round trip to the queue
    Future<WorkerRef> worker = known != null ? Future.succeededFuture(known)
        : queue(QueueActions.AUTHENTICATE, new JsonObject().put("tokenHash", hash)).map(w -> new WorkerRef(
            w.getString("workerId"), w.getString("name"),
            w.getJsonArray("kinds").stream().map(Object::toString).toList()));
    return worker.compose(w -> {
      ctx.put(WORKER, w);
      return limit("pipeline-worker:" + w.id(), 600, MINUTE);
    });
  }

  /** Asks the job queue instance on this verticle's event loop (QueueLoops). */
  private Future<JsonObject> queue(String action, JsonObject body) {
    return Requests.ask(vertx, services.queueLoops().address(), action, body);
  }

  // ---- bodies ----

  /**
   * The JSON object body ({} when empty); INVALID_BODY when it is not an object, or when a string in
   * it (a manifest name, an error text, anything) holds text the stores cannot keep as sent.
   */
  private static JsonObject body(RoutingContext ctx, boolean required) {
    JsonObject body = parse(ctx, required);
    StorableText.Problem unstorable = StorableText.find("", body);
    if (unstorable != null) {
      throw PipelineErrors.invalidBody(unstorable.path() + " " + unstorable.reason()).toException();
    }
    return body;
  }

  private static JsonObject parse(RoutingContext ctx, boolean required) {
    Buffer b = ctx.body() == null ? null : ctx.body().buffer();
    if (b == null || b.length() == 0) {
      if (required) {
        throw PipelineErrors.invalidBody("The body must be a JSON object").toException();
      }
      return new JsonObject();
    }
    try {
      Object v = b.toJsonValue();
      if (v instanceof JsonObject o) {
        return o;
      }
    } catch (DecodeException e) {
      // fall through
    }
    throw PipelineErrors.invalidBody("The body must be a JSON object").toException();
  }

  // ---- routes ----

  private Future<Void> register(RoutingContext ctx) {
    JsonObject body = body(ctx, true);
    Manifest manifest = Manifest.parse(body.getValue("manifest"));
    return queue(QueueActions.REGISTER, new JsonObject().put("manifest", manifest.toJson()))
        .compose(reply -> ContractResponses.json(ctx, 201, reply));
  }

  private Future<Void> heartbeat(RoutingContext ctx) {
    WorkerRef worker = ctx.get(WORKER);
    JsonObject body = body(ctx, true);
    Manifest manifest = Manifest.parse(body.getValue("manifest"));
    Object raw = body.getValue("activeJobIds");
    JsonArray ids = new JsonArray();
    if (raw != null) {
      if (!(raw instanceof JsonArray list) || list.size() > 100) {
        throw PipelineErrors.invalidBody("activeJobIds must be a list of at most 100 job ids").toException();
      }
      for (Object id : list) {
        if (!(id instanceof String s) || !Ids.isUuid(s)) {
          throw PipelineErrors.invalidBody("activeJobIds must hold job ids").toException();
        }
        if (!ids.contains(s)) {
          ids.add(s);
        }
      }
    }
    return queue(QueueActions.HEARTBEAT,
        new JsonObject().put("workerId", worker.id()).put("manifest", manifest.toJson())
            .put("activeJobIds", ids).put("previousKinds", new JsonArray(worker.kinds())))
        .compose(reply -> ContractResponses.json(ctx, 200, reply));
  }

  private Future<Void> next(RoutingContext ctx) {
    WorkerRef worker = ctx.get(WORKER);
    return queue(QueueActions.NEXT,
        new JsonObject().put("workerId", worker.id()).put("kinds", new JsonArray(worker.kinds())))
        .compose(reply -> reply.containsKey("job") ? ContractResponses.json(ctx, 200, reply)
            : ContractResponses.empty(ctx, 204));
  }

  /** The claim headers and the job id of a job call, checked before anything else is read. */
  static JsonObject claim(RoutingContext ctx) {
    WorkerRef worker = ctx.get(WORKER);
    String claimToken = ctx.request().getHeader("X-Claim-Token");
    if (claimToken == null || claimToken.isBlank() || claimToken.length() > 100) {
      throw PipelineErrors.claimTokenRequired().toException();
    }
    String jobId = ctx.pathParam("id");
    if (!Ids.isUuid(jobId)) {
      throw PipelineErrors.jobNotFound().toException();
    }
    return new JsonObject().put("workerId", worker.id()).put("jobId", jobId).put("claimToken", claimToken);
  }

  private Future<Void> jobCall(RoutingContext ctx, String action, JsonObject extra) {
    JsonObject call = claim(ctx).mergeIn(extra);
    return queue(action, call).compose(reply -> ContractResponses.json(ctx, 200, reply));
  }

  private Future<Void> progress(RoutingContext ctx) {
    JsonObject body = body(ctx, true);
    if (!(body.getValue("progress") instanceof Number n) || Double.isNaN(n.doubleValue()) || n.doubleValue() < 0
        || n.doubleValue() > 100) {
      throw PipelineErrors.invalidBody("progress must be a number from 0 to 100").toException();
    }
    return jobCall(ctx, QueueActions.PROGRESS, new JsonObject().put("progress", (int) Math.floor(n.doubleValue())));
  }

  private Future<Void> fail(RoutingContext ctx) {
    JsonObject body = body(ctx, true);
    if (!(body.getValue("error") instanceof String error) || error.isBlank()) {
      throw PipelineErrors.invalidBody("error must be a non-empty string").toException();
    }
    Object retryable = body.getValue("retryable");
    if (retryable != null && !(retryable instanceof Boolean)) {
      throw PipelineErrors.invalidBody("retryable must be true or false").toException();
    }
    // cut to 2000 characters, never between the two halves of a surrogate pair
    int end = Math.min(error.length(), 2000);
    if (end < error.length() && Character.isHighSurrogate(error.charAt(end - 1))) {
      end--;
    }
    String cut = error.substring(0, end);
    return jobCall(ctx, QueueActions.FAIL,
        new JsonObject().put("error", cut).put("retryable", Boolean.TRUE.equals(retryable)));
  }

  /** The original file, whole or one range; only the holder of the claim may read it. */
  private Future<Void> input(RoutingContext ctx) {
    JsonObject call = claim(ctx);
    ctx.request().resume();
    return queue(QueueActions.INPUT, call).compose(file -> {
      ctx.response().putHeader("Cache-Control", "no-store");
      return Downloads.send(ctx, storage.path(file.getString("storageKey")), file.getLong("size"),
          file.getString("mimeType"), null, ctx.request().getHeader("Range"));
    });
  }

  /** The raw output streamed to its storage key, then recorded as the claim's pending output. */
  private Future<Void> output(RoutingContext ctx) {
    JsonObject call = claim(ctx);
    HttpServerRequest req = ctx.request();
    ReadStream<Buffer> body = Uploads.body(req);
    String mediaType = OutputRules.mediaType(req.getHeader("Content-Type"));
    if (mediaType == null) {
      throw PipelineErrors.invalidOutput("Content-Type must be one of " + String.join(", ",
          List.copyOf(new java.util.TreeSet<>(OutputRules.MEDIA_TYPES)))).toException();
    }
    String ext = OutputRules.extension(req.getHeader("X-Output-Ext"));
    if (ext == null) {
      throw PipelineErrors.invalidOutput("X-Output-Ext must be 1 to 10 letters or digits").toException();
    }
    long limit = services.config().pipeline().maxOutputBytes();
    String lengthHeader = req.getHeader("Content-Length");
    long declared = -1;
    if (lengthHeader != null) {
      try {
        declared = Long.parseLong(lengthHeader.strip());
      } catch (NumberFormatException e) {
        throw PipelineErrors.invalidOutput("Content-Length is not a number").toException();
      }
      if (declared > limit) {
        throw PipelineErrors.outputTooLarge(limit).toException();
      }
      if (declared == 0) {
        throw PipelineErrors.invalidOutput("The output is empty").toException();
      }
    }
    long expected = declared;
    String versionId = Ids.uuid7();
    String key = Storage.versionKey(versionId, ext);
    // Ask whether the claim holds (and move the lease) before taking possibly many GB of bytes;
    // only then tell a client that waits for it to send the body. A small declared body is taken
    // first: RECORD_OUTPUT checks the claim when it is in (OutputRules.claimCheckedFirst).
    Future<?> ready = OutputRules.claimCheckedFirst(declared, Uploads.expectsContinue(req))
        ? queue(QueueActions.BEGIN_OUTPUT, call) : Future.succeededFuture();
    return ready
        .compose(ok -> {
          Uploads.continueIfExpected(req);
          return storage.write(key, body, limit, expected);
        })
        .recover(err -> Future.failedFuture(Uploads.refusalFor(err, PipelineErrors.outputTooLarge(limit),
            PipelineErrors.insufficientStorage(), PipelineErrors.storageUnavailable())))
        .compose(written -> {
          if (written.size() == 0 || (expected >= 0 && written.size() != expected)) {
            return storage.delete(key).compose(v -> Future.failedFuture(PipelineErrors.invalidOutput(
                written.size() == 0 ? "The output is empty" : "The body is shorter than Content-Length")
                .toException()));
          }
          return queue(QueueActions.RECORD_OUTPUT, call.copy().put("versionId", versionId).put("storageKey", key)
              .put("mimeType", mediaType).put("ext", ext).put("size", written.size()));
        })
        .compose(reply -> ContractResponses.json(ctx, 200, reply));
  }
}
