package io.shotstash.worker;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The worker contract over HTTP, as any outside worker speaks it: JSON calls with {@link WebClient};
 * the input and the output streamed between disk and socket with the core HTTP client (never held in
 * memory). Tokens travel only in headers and never appear in a message.
 */
public final class HttpWorkerClient implements WorkerClient {
  static final String PIPELINE = "/api/v1/pipeline";
  /** A call that sends or receives nothing for this long has failed (no answer). */
  private static final long IDLE_TIMEOUT_MS = 60_000;
  /** How long an upload waits for {@code 100 Continue} before it sends the body anyway. */
  static final long CONTINUE_WAIT_MS = 3_000;
  private static final String USER_AGENT = "shotstash-worker/" + WorkerLoop.VERSION;

  private final Vertx vertx;
  private final String base;
  private final String bootstrapToken;
  private final HttpClientAgent http;
  private final WebClient web;
  private final Map<String, HttpClientRequest> transfers = new ConcurrentHashMap<>();
  private final long resumableOutputBytes;
  private final ResumableOutput resumable;
  private volatile String token;

  /**
   * {@code baseUrl}: the app's URL, e.g. {@code http://app:3005}; outputs from
   * {@link WorkerSettings#DEFAULT_RESUMABLE_OUTPUT_MB} on go up resumably.
   */
  public HttpWorkerClient(Vertx vertx, String baseUrl, String bootstrapToken) {
    this(vertx, baseUrl, bootstrapToken, WorkerSettings.DEFAULT_RESUMABLE_OUTPUT_MB * (1L << 20));
  }

  /**
   * As above; outputs of at least {@code resumableOutputBytes} go up as a resumable upload
   * ({@link ResumableOutput}), smaller ones with one plain PUT; 0: always the plain PUT.
   */
  public HttpWorkerClient(Vertx vertx, String baseUrl, String bootstrapToken, long resumableOutputBytes) {
    this.vertx = vertx;
    this.resumableOutputBytes = resumableOutputBytes;
    this.base = baseUrl.replaceAll("/+$", "");
    this.bootstrapToken = bootstrapToken;
    this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(10_000).setKeepAlive(true)
        .setKeepAliveTimeout(30));
    this.web = WebClient.wrap(http, new WebClientOptions().setUserAgent(USER_AGENT).setFollowRedirects(false));
    this.resumable = new ResumableOutput(vertx, http, base, this);
  }

  // ---- JSON calls ----

  @Override
  public Future<Registration> register(WorkerManifest manifest) {
    HttpRequest<Buffer> req = web.requestAbs(HttpMethod.POST, base + PIPELINE + "/workers/register")
        .putHeader("X-Worker-Bootstrap-Token", bootstrapToken == null ? "" : bootstrapToken);
    return json("register", req, new JsonObject().put("manifest", WireFormat.manifest(manifest)), 201, 200)
        .map(reply -> {
          Registration r = WireFormat.registration(reply);
          String t = reply.getString("token");
          if (t == null || t.isEmpty()) {
            throw new IllegalArgumentException("the registration answer has no token");
          }
          token = t;
          return r;
        });
  }

  @Override
  public Future<List<String>> heartbeat(WorkerManifest manifest, List<String> activeJobIds) {
    JsonObject body = new JsonObject().put("manifest", WireFormat.manifest(manifest))
        .put("activeJobIds", new JsonArray(activeJobIds));
    return authed("heartbeat", HttpMethod.POST, "/workers/heartbeat", null)
        .compose(req -> json("heartbeat", req, body, 200)).map(WireFormat::lostJobIds);
  }

  @Override
  public Future<Job> next() {
    return authed("jobs/next", HttpMethod.POST, "/jobs/next", null)
        .compose(req -> json("jobs/next", req, null, 200, 204))
        .map(reply -> reply == null ? null : WireFormat.job(reply));
  }

  @Override
  public Future<Void> progress(Job job, int percent) {
    return authed("progress", HttpMethod.POST, "/jobs/" + job.id() + "/progress", job)
        .compose(req -> json("progress", req, new JsonObject().put("progress", percent), 200)).mapEmpty();
  }

  @Override
  public Future<String> complete(Job job) {
    return authed("complete", HttpMethod.POST, "/jobs/" + job.id() + "/complete", job)
        .compose(req -> json("complete", req, null, 200)).map(WireFormat::versionId);
  }

  @Override
  public Future<Void> release(Job job) {
    return authed("release", HttpMethod.POST, "/jobs/" + job.id() + "/release", job)
        .compose(req -> json("release", req, null, 200)).mapEmpty();
  }

  @Override
  public Future<Void> fail(Job job, String error, boolean retryable) {
    JsonObject body = new JsonObject().put("error", error.length() > 2000 ? error.substring(0, 2000) : error)
        .put("retryable", retryable);
    return authed("fail", HttpMethod.POST, "/jobs/" + job.id() + "/fail", job)
        .compose(req -> json("fail", req, body, 200)).mapEmpty();
  }

  /** A request with the worker token (and the claim token for a job call); 401 at once when not registered. */
  private Future<HttpRequest<Buffer>> authed(String call, HttpMethod method, String path, Job job) {
    String t = token;
    if (t == null) {
      return Future.failedFuture(WorkerCallException.refused(call, 401, "UNAUTHENTICATED", "not registered yet", null));
    }
    HttpRequest<Buffer> req = web.requestAbs(method, base + PIPELINE + path).putHeader("X-Worker-Token", t);
    if (job != null) {
      req.putHeader("X-Claim-Token", job.claimToken());
    }
    return Future.succeededFuture(req);
  }

  /** Sends a JSON call; answers the JSON body (null for an empty one) when the status is expected. */
  private Future<JsonObject> json(String call, HttpRequest<Buffer> req, JsonObject body, int... expected) {
    req.idleTimeout(IDLE_TIMEOUT_MS);
    Future<HttpResponse<Buffer>> sent = body == null ? req.send() : req.sendJsonObject(body);
    return sent.recover(err -> Future.failedFuture(WorkerCallException.noAnswer(call, err))).compose(res -> {
      for (int status : expected) {
        if (res.statusCode() == status) {
          Buffer b = res.body();
          if (b == null || b.length() == 0) {
            return Future.succeededFuture(null);
          }
          try {
            return Future.succeededFuture(b.toJsonObject());
          } catch (DecodeException | ClassCastException e) {
            return Future
                .failedFuture(WorkerCallException.noAnswer(call, new IllegalStateException("the answer is not JSON")));
          }
        }
      }
      return Future.failedFuture(refusal(call, res.statusCode(), res.headers(), res.body()));
    });
  }

  static WorkerCallException refusal(String call, int status, MultiMap headers, Buffer body) {
    String code = null;
    String message = null;
    if (body != null && body.length() > 0) {
      try {
        JsonObject json = body.toJsonObject();
        code = json.getValue("code") instanceof String c ? c : null;
        message = json.getValue("message") instanceof String m ? m : null;
      } catch (DecodeException | ClassCastException e) {
        // not the contract's JSON (a proxy's page, say): status only
      }
    }
    if (code == null) {
      code = headers.get("X-Shotstash-Error-Code"); // the answer to a HEAD has no body
    }
    return WorkerCallException.refused(call, status, code, message, retryAfter(headers.get("Retry-After")));
  }

  static Integer retryAfter(String header) {
    if (header == null) {
      return null;
    }
    try {
      return Integer.parseInt(header.strip());
    } catch (NumberFormatException e) {
      return null; // an HTTP date: the default backoff will do
    }
  }

  // ---- streams ----

  /** The requests that stream a job's bytes now, by job id (so a dropped job's transfer can be cut). */
  Map<String, HttpClientRequest> transfers() {
    return transfers;
  }

  RequestOptions streamOptions(HttpMethod method, String url, Job job) {
    return new RequestOptions().setMethod(method).setAbsoluteURI(url).setIdleTimeout(IDLE_TIMEOUT_MS)
        .putHeader("User-Agent", USER_AGENT).putHeader("X-Worker-Token", token)
        .putHeader("X-Claim-Token", job.claimToken());
  }

  private String inputUrl(Job job) {
    String url = job.input().url();
    if (url.startsWith("http://") || url.startsWith("https://")) {
      return url;
    }
    return base + (url.startsWith("/") ? url : "/" + url);
  }

  @Override
  public Future<Path> downloadInput(Job job, Path target) {
    if (token == null) {
      return Future
          .failedFuture(WorkerCallException.refused("input", 401, "UNAUTHENTICATED", "not registered yet", null));
    }
    RequestOptions options = streamOptions(HttpMethod.GET, inputUrl(job), job);
    return vertx.fileSystem()
        .open(target.toString(), new OpenOptions().setWrite(true).setCreate(true).setTruncateExisting(true))
        .compose(file -> http.request(options)
            .compose(req -> {
              transfers.put(job.id(), req);
              return req.send();
            })
            .compose(res -> res.statusCode() == 200 ? res.pipeTo(file)
                : res.body().transform(b -> file.close().otherwiseEmpty()
                    .compose(v -> Future.<Void>failedFuture(refusal("input", res.statusCode(), res.headers(),
                        b.succeeded() ? b.result() : null)))))
            .recover(err -> file.close().otherwiseEmpty().compose(v -> Future.failedFuture(
                err instanceof WorkerCallException ? err : WorkerCallException.noAnswer("input", err)))))
        .compose(v -> vertx.fileSystem().props(target.toString()))
        .compose(props -> job.input().size() >= 0 && props.size() != job.input().size()
            ? Future.failedFuture(WorkerCallException.noAnswer("input",
                new IllegalStateException("got " + props.size() + " of " + job.input().size() + " bytes")))
            : Future.succeededFuture(target))
        .onComplete(ar -> transfers.remove(job.id()));
  }

  /**
   * The output with {@code Expect: 100-continue}: the app checks the claim first and only then asks
   * for the body, so a refused upload (409, 429) costs no bytes. If no answer comes in
   * {@link #CONTINUE_WAIT_MS}, the body goes anyway (as curl does).
   */
  @Override
  public Future<String> uploadOutput(Job job, Path file, String mimeType, String ext) {
    if (token == null) {
      return Future
          .failedFuture(WorkerCallException.refused("output", 401, "UNAUTHENTICATED", "not registered yet", null));
    }
    String url = base + PIPELINE + "/jobs/" + job.id() + "/output";
    return vertx.fileSystem().props(file.toString()).compose(props -> resumableOutputBytes > 0
        && props.size() >= resumableOutputBytes ? resumable.send(job, file, props.size(), mimeType, ext)
            : vertx.fileSystem()
                .open(file.toString(), new OpenOptions().setRead(true).setWrite(false))
                .compose(in -> {
                  in.pause();
                  RequestOptions options = streamOptions(HttpMethod.PUT, url, job).putHeader("Content-Type", mimeType)
                      .putHeader("X-Output-Ext", ext).putHeader("Content-Length", Long.toString(props.size()))
                      .putHeader("Expect", "100-continue");
                  return http.request(options)
                      .compose(req -> {
                        transfers.put(job.id(), req);
                        ContinuedUpload upload = new ContinuedUpload(req, in);
                        return upload.send()
                            .recover(err -> Future.failedFuture(WorkerCallException.noAnswer("output", err)))
                            .compose(res -> readReply("output", res))
                            .eventually(upload::releaseUnsent);
                      }, err -> Future.failedFuture(WorkerCallException.noAnswer("output", err)))
                      .eventually(() -> closeQuietly(in));
                }).map(WireFormat::versionId))
        .onComplete(ar -> transfers.remove(job.id()));
  }

  /** One upload that waits for {@code 100 Continue} (or {@link #CONTINUE_WAIT_MS}) before its body. */
  private final class ContinuedUpload {
    private final HttpClientRequest req;
    private final AsyncFile body;
    private boolean bodyStarted;
    private boolean bodySent;
    private boolean answered;

    ContinuedUpload(HttpClientRequest req, AsyncFile body) {
      this.req = req;
      this.body = body;
    }

    Future<HttpClientResponse> send() {
      req.continueHandler(v -> startBody());
      long fallback = vertx.setTimer(CONTINUE_WAIT_MS, t -> startBody());
      return req.sendHead().compose(v -> req.response()).onComplete(ar -> {
        vertx.cancelTimer(fallback);
        answered = true;
      });
    }

    private void startBody() {
      if (bodyStarted || answered) {
        return;
      }
      bodyStarted = true;
      body.pipeTo(req).onComplete(ar -> {
        if (ar.succeeded()) {
          bodySent = true;
        } else {
          dropConnection();
        }
      });
    }

    /**
     * Answered before the whole body went (a refusal): this request cannot be finished, so its
     * connection is closed (the app closes it too, after reading what still comes). Not {@code
     * reset()}: once the answer has ended, Vert.x 5.0.7 hands a reset request's connection back to
     * the pool, and the next call would go out on a connection the app reads as the rest of this body.
     */
    Future<Void> releaseUnsent() {
      return bodySent ? Future.succeededFuture() : dropConnection();
    }

    private Future<Void> dropConnection() {
      return req.connection().close().otherwiseEmpty();
    }
  }

  private static Future<Void> closeQuietly(AsyncFile file) {
    return file.close().otherwiseEmpty().mapEmpty();
  }

  private static Future<JsonObject> readReply(String call, HttpClientResponse res) {
    return res.body().recover(err -> Future.failedFuture(WorkerCallException.noAnswer(call, err))).compose(b -> {
      if (res.statusCode() != 200) {
        return Future.failedFuture(refusal(call, res.statusCode(), res.headers(), b));
      }
      try {
        return Future.succeededFuture(b.toJsonObject());
      } catch (DecodeException | ClassCastException e) {
        return Future
            .failedFuture(WorkerCallException.noAnswer(call, new IllegalStateException("the answer is not JSON")));
      }
    });
  }

  @Override
  public void abortTransfers(Job job) {
    resumable.forget(job);
    HttpClientRequest req = transfers.remove(job.id());
    if (req != null) {
      req.reset();
    }
  }

  @Override
  public Future<Void> close() {
    web.close();
    return http.close();
  }
}
