package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.List;
import java.util.Map;

/**
 * A small test-side client for the nine routes of the worker contract v1 ({@code /api/v1/pipeline}),
 * over real HTTP. It keeps the worker token answered by {@link #register()} and sends it on every
 * other call; every call answers an {@link Answer} (status, body, headers) and asserts nothing, so
 * tests can check refusals as well as successes. Calls block ({@code await}): use it from the test
 * thread, never from an event loop. {@link Claimed#fresh} is the one helper that asserts: it sets a
 * claim up for tests about what comes after it.
 */
public final class ContractWorker {
  public static final String BASE = "/api/v1/pipeline";

  private final Vertx vertx;
  private final WebClient client;
  private final int port;
  private final String bootstrapToken;
  private JsonObject manifest;
  private String token;
  private String workerId;

  /** What the app answered. */
  /** A worker of a kind of its own, the upload queued for that kind and the claim the worker holds on it. */
  public record Claimed(ContractWorker worker, String fileId, String id, String claim) {
    /**
     * Registers a worker for the kind {@code test/<name>}, uploads a file into {@code folderId} as
     * {@code adminToken}, queues a job of that kind on it and claims it; asserts every step succeeds.
     */
    public static Claimed fresh(TestApp app, String bootstrapToken, String adminToken, String folderId, String name) {
      String kind = "test/" + name;
      ContractWorker w = new ContractWorker(app, bootstrapToken, manifest(name, kind));
      assertThat(w.register().status()).isEqualTo(201);
      String fileId = app.uploadVideo(adminToken, folderId, "clip.mp4");
      Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.ENQUEUE,
          new JsonObject().put("fileId", fileId).put("kind", kind)).await();
      Answer next = w.next();
      assertThat(next.status()).as(next.toString()).isEqualTo(200);
      return new Claimed(w, fileId, next.job().getString("id"), next.job().getString("claimToken"));
    }
  }

  public record Answer(int status, Buffer body, MultiMap headers) {
    public String header(String name) {
      return headers.get(name);
    }

    public String text() {
      return body == null ? "" : body.toString();
    }

    public byte[] bytes() {
      return body == null ? new byte[0] : body.getBytes();
    }

    /** The body as a JSON object (fails when it is not one). */
    public JsonObject json() {
      if (body == null || body.length() == 0) {
        throw new IllegalStateException("no body (status " + status + ")");
      }
      return body.toJsonObject();
    }

    /** The refusal code of a {@code {code, message}} body. */
    public String code() {
      return json().getString("code");
    }

    /** The {@code job} of a 200 answer to {@code jobs/next}. */
    public JsonObject job() {
      return json().getJsonObject("job");
    }

    @Override
    public String toString() {
      return status + " " + text();
    }
  }

  /** A worker for this app with this manifest; {@code bootstrapToken} may be null (sent without the header). */
  public ContractWorker(TestApp app, String bootstrapToken, JsonObject manifest) {
    this(app.vertx(), app.client(), app.port(), bootstrapToken, manifest);
  }

  public ContractWorker(Vertx vertx, WebClient client, int port, String bootstrapToken, JsonObject manifest) {
    this.vertx = vertx;
    this.client = client;
    this.port = port;
    this.bootstrapToken = bootstrapToken;
    this.manifest = manifest == null ? null : manifest.copy();
  }

  /** A contract-1 manifest {@code {name, version: "1.0.0", kinds, contract: 1}}. */
  public static JsonObject manifest(String name, String... kinds) {
    return new JsonObject().put("name", name).put("version", "1.0.0").put("kinds", new JsonArray(List.of(kinds)))
        .put("contract", 1);
  }

  public JsonObject manifest() {
    return manifest == null ? null : manifest.copy();
  }

  /** Changes the manifest sent by later registrations and heartbeats. */
  public ContractWorker manifest(JsonObject changed) {
    this.manifest = changed == null ? null : changed.copy();
    return this;
  }

  /** The worker token in use (null before a successful registration). */
  public String token() {
    return token;
  }

  /** Sends this worker token from now on (for example an old one, or none with null). */
  public ContractWorker token(String worker) {
    this.token = worker;
    return this;
  }

  public String workerId() {
    return workerId;
  }

  // ---- the nine routes ----

  /** {@code POST workers/register} with {@code {manifest}}; on 201 keeps the token and the worker id. */
  public Answer register() {
    return register(new JsonObject().put("manifest", manifest));
  }

  /** {@code POST workers/register} with this JSON body; on 201 keeps the token and the worker id. */
  public Answer register(JsonObject body) {
    return register(body.toBuffer(), "application/json");
  }

  /** {@code POST workers/register} with a raw body. */
  public Answer register(Buffer body, String contentType) {
    HttpRequest<Buffer> req = client.post(BASE + "/workers/register");
    if (bootstrapToken != null) {
      req.putHeader("X-Worker-Bootstrap-Token", bootstrapToken);
    }
    Answer a = send(req, body, contentType);
    if (a.status() == 201) {
      token = a.json().getString("token");
      workerId = a.json().getString("workerId");
    }
    return a;
  }

  /** {@code POST workers/heartbeat} with the manifest and these job ids. */
  public Answer heartbeat(String... activeJobIds) {
    return heartbeat(
        new JsonObject().put("manifest", manifest).put("activeJobIds", new JsonArray(List.of(activeJobIds))));
  }

  /** {@code POST workers/heartbeat} with this body. */
  public Answer heartbeat(JsonObject body) {
    return post("/workers/heartbeat", null, body.toBuffer());
  }

  /** {@code POST jobs/next}. */
  public Answer next() {
    return post("/jobs/next", null, null);
  }

  /** {@code GET jobs/:id/input}, whole ({@code range} null) or with this Range header. */
  public Answer input(String jobId, String claimToken, String range) {
    HttpRequest<Buffer> req = withTokens(client.get(BASE + "/jobs/" + jobId + "/input"), claimToken);
    if (range != null) {
      req.putHeader("Range", range);
    }
    return send(req, null, null);
  }

  /** {@code POST jobs/:id/progress} with {@code {progress}} (any JSON value). */
  public Answer progress(String jobId, String claimToken, Object progress) {
    return progress(jobId, claimToken, new JsonObject().put("progress", progress));
  }

  /** {@code POST jobs/:id/progress} with this body. */
  public Answer progress(String jobId, String claimToken, JsonObject body) {
    return post("/jobs/" + jobId + "/progress", claimToken, body.toBuffer());
  }

  /** {@code PUT jobs/:id/output} with these bytes (Content-Length known); null headers are not sent. */
  public Answer output(String jobId, String claimToken, String contentType, String ext, Buffer bytes) {
    return answer(outputRequest(jobId, claimToken, contentType, ext).sendBuffer(bytes).await());
  }

  /**
   * {@code PUT jobs/:id/output} with a streamed (chunked) body, no Content-Length. Fails (rather
   * than answering) when the app closes the connection before its answer arrives.
   */
  public Answer outputStream(String jobId, String claimToken, String contentType, String ext, ReadStream<Buffer> body) {
    return answer(outputRequest(jobId, claimToken, contentType, ext).sendStream(body).await());
  }

  /** {@code PUT jobs/:id/output} with its headers, before the body; null headers are not sent. */
  private HttpRequest<Buffer> outputRequest(String jobId, String claimToken, String contentType, String ext) {
    HttpRequest<Buffer> req = withTokens(client.put(BASE + "/jobs/" + jobId + "/output"), claimToken);
    if (ext != null) {
      req.putHeader("X-Output-Ext", ext);
    }
    if (contentType != null) {
      req.putHeader("Content-Type", contentType);
    }
    return req;
  }

  /**
   * {@code PUT jobs/:id/output} that declares {@code Content-Length: declaredLength} and sends only
   * the headers, then reads the answer (for refusals decided from the headers, such as the size limit).
   */
  public Answer outputHeadOnly(String jobId, String claimToken, String contentType, String ext, long declaredLength) {
    HttpClientAgent http = vertx.createHttpClient();
    try {
      HttpClientRequest req =
          http.request(HttpMethod.PUT, port, "127.0.0.1", BASE + "/jobs/" + jobId + "/output").await();
      if (token != null) {
        req.putHeader("X-Worker-Token", token);
      }
      if (claimToken != null) {
        req.putHeader("X-Claim-Token", claimToken);
      }
      if (contentType != null) {
        req.putHeader("Content-Type", contentType);
      }
      if (ext != null) {
        req.putHeader("X-Output-Ext", ext);
      }
      req.putHeader("Content-Length", Long.toString(declaredLength));
      // the app closes the connection after answering: the unsent body is expected to fail
      req.exceptionHandler(err -> {});
      // read the body on the event loop as soon as the answer arrives, before its bytes are delivered
      Future<Answer> answer = req.response().compose(res -> res.body()
          .map(body -> new Answer(res.statusCode(), body, MultiMap.caseInsensitiveMultiMap().addAll(res.headers()))));
      req.sendHead().await();
      Answer a = answer.await();
      req.reset();
      return a;
    } finally {
      http.close().await();
    }
  }

  /** {@code POST jobs/:id/complete}. */
  public Answer complete(String jobId, String claimToken) {
    return post("/jobs/" + jobId + "/complete", claimToken, null);
  }

  /** {@code POST jobs/:id/release}. */
  public Answer release(String jobId, String claimToken) {
    return post("/jobs/" + jobId + "/release", claimToken, null);
  }

  /** {@code POST jobs/:id/fail} with {@code {error, retryable}}. */
  public Answer fail(String jobId, String claimToken, String error, boolean retryable) {
    return fail(jobId, claimToken, new JsonObject().put("error", error).put("retryable", retryable));
  }

  /** {@code POST jobs/:id/fail} with this body. */
  public Answer fail(String jobId, String claimToken, JsonObject body) {
    return post("/jobs/" + jobId + "/fail", claimToken, body.toBuffer());
  }

  // ---- seeding: a job taken to its end ----

  /**
   * Claims the next job, which must be {@code jobId}, sends a small MP4 output and completes it;
   * asserts each step.
   */
  public void runToDone(String jobId) {
    Answer claim = next();
    assertThat(claim.status()).as(claim.toString()).isEqualTo(200);
    assertThat(claim.job().getString("id")).isEqualTo(jobId);
    String claimToken = claim.job().getString("claimToken");
    assertThat(output(jobId, claimToken, "video/mp4", "mp4", Buffer.buffer("proxy")).status()).isIn(200, 201, 204);
    assertThat(complete(jobId, claimToken).status()).isEqualTo(200);
  }

  /** Claims the next job, which must be {@code jobId}, and fails it for good with {@code error}; asserts each step. */
  public void failNext(String jobId, String error) {
    Answer claim = next();
    assertThat(claim.job().getString("id")).isEqualTo(jobId);
    assertThat(fail(jobId, claim.job().getString("claimToken"), error, false).status()).isEqualTo(200);
  }

  // ---- anything else ----

  /**
   * Any call under {@code /api/v1/pipeline}, with the worker token (when set), these extra headers
   * (a null value removes a header) and a raw body (null: none).
   */
  public Answer call(HttpMethod method, String path, Map<String, String> headers, Buffer body) {
    HttpRequest<Buffer> req = withTokens(client.request(method, BASE + path), null);
    headers.forEach((name, value) -> {
      if (value == null) {
        req.headers().remove(name);
      } else {
        req.putHeader(name, value);
      }
    });
    return send(req, body, null);
  }

  private Answer post(String path, String claimToken, Buffer json) {
    return send(withTokens(client.post(BASE + path), claimToken), json, "application/json");
  }

  private HttpRequest<Buffer> withTokens(HttpRequest<Buffer> req, String claimToken) {
    if (token != null) {
      req.putHeader("X-Worker-Token", token);
    }
    if (claimToken != null) {
      req.putHeader("X-Claim-Token", claimToken);
    }
    return req;
  }

  private static Answer send(HttpRequest<Buffer> req, Buffer body, String contentType) {
    if (body == null) {
      return answer(req.send().await());
    }
    if (contentType != null && req.headers().get("Content-Type") == null) {
      req.putHeader("Content-Type", contentType);
    }
    return answer(req.sendBuffer(body).await());
  }

  private static Answer answer(HttpResponse<Buffer> r) {
    return new Answer(r.statusCode(), r.body(), MultiMap.caseInsensitiveMultiMap().addAll(r.headers()));
  }
}
