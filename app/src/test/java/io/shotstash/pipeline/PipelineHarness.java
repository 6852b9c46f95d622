package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.db.Database;
import io.shotstash.media.LibraryVerticle;
import io.shotstash.testing.Folders;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The pieces the pipeline tests share: the real app with a bootstrap token, a small HTTP client for
 * the worker routes (one {@link Worker} per registered name), uploads, queueing over the event bus,
 * sweeps through {@code pipeline.sweep}, and direct SQL to move time.
 */
final class PipelineHarness implements AutoCloseable {
  static final String BOOTSTRAP = "pipeline-tests-bootstrap-token-0123456789abcdef";
  static final String BASE = "/api/v1/pipeline";

  final TestApp app;
  final String adminToken;
  private final List<WebClient> clients = new ArrayList<>();
  /** The folder uploads go to (an upload needs one), made at the first upload. */
  private String folder;

  private PipelineHarness(TestDatabase db, Map<String, String> settings) {
    Map<String, String> env = new HashMap<>(settings);
    env.put("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP);
    app = TestApp.start(db, env);
    adminToken = app.setupAndLogin();
  }

  static PipelineHarness start() {
    return start(Map.of());
  }

  static PipelineHarness start(Map<String, String> settings) {
    return new PipelineHarness(TestDatabase.create(), settings);
  }

  /** The app on a database of the test's choosing (a {@code PrivatePostgres} one, for the fault tests). */
  static PipelineHarness start(TestDatabase db, Map<String, String> settings) {
    return new PipelineHarness(db, settings);
  }

  @Override
  public void close() {
    clients.forEach(WebClient::close);
    app.close();
  }

  // ---- workers over HTTP ----

  /** Registers a worker over the app's own client (127.0.0.1). */
  Worker register(String name, List<String> kinds) {
    return register(name, kinds, app.client());
  }

  /**
   * Registers a worker whose calls leave from its own loopback address (127.0.0.x), so that many
   * workers do not share the per-IP limit.
   */
  Worker registerFrom(String localAddress, String name, List<String> kinds) {
    WebClient http = WebClient.create(app.vertx(), new WebClientOptions().setDefaultHost("127.0.0.1")
        .setDefaultPort(app.port()).setLocalAddress(localAddress));
    synchronized (clients) {
      clients.add(http);
    }
    return register(name, kinds, http);
  }

  private Worker register(String name, List<String> kinds, WebClient http) {
    HttpResponse<Buffer> r = http.post(BASE + "/workers/register").putHeader("X-Worker-Bootstrap-Token", BOOTSTRAP)
        .sendJsonObject(new JsonObject().put("manifest", manifest(name, kinds))).await();
    assertThat(r.statusCode()).as("register %s: %s", name, r.bodyAsString()).isEqualTo(201);
    JsonObject body = r.bodyAsJsonObject();
    return new Worker(body.getString("workerId"), name, body.getString("token"), List.copyOf(kinds), http);
  }

  static JsonObject manifest(String name, List<String> kinds) {
    return new JsonObject().put("name", name).put("version", "1.0.0").put("kinds", new JsonArray(kinds)).put("contract",
        1);
  }

  /** A claim answered by jobs/next. */
  record Claim(String jobId, String claimToken, int attempt, JsonObject job) {}

  /** One registered worker name and the calls it makes. */
  static final class Worker {
    final String id;
    final String name;
    final String token;
    final List<String> kinds;
    final WebClient http;

    Worker(String id, String name, String token, List<String> kinds, WebClient http) {
      this.id = id;
      this.name = name;
      this.token = token;
      this.kinds = kinds;
      this.http = http;
    }

    private HttpRequest<Buffer> post(String path) {
      return http.post(BASE + path).putHeader("X-Worker-Token", token);
    }

    private HttpRequest<Buffer> job(HttpRequest<Buffer> request, Claim claim) {
      return request.putHeader("X-Claim-Token", claim.claimToken());
    }

    HttpResponse<Buffer> next() {
      return post("/jobs/next").send().await();
    }

    /** jobs/next with a limit on how long the answer may take (to catch a poll that waits on PostgreSQL). */
    Future<HttpResponse<Buffer>> nextWithin(long millis) {
      return post("/jobs/next").idleTimeout(millis).send();
    }

    /** jobs/next that must claim something. */
    Claim claim() {
      HttpResponse<Buffer> r = next();
      assertThat(r.statusCode()).as("jobs/next of %s: %s", name, r.bodyAsString()).isEqualTo(200);
      return claimOf(r);
    }

    static Claim claimOf(HttpResponse<Buffer> r) {
      JsonObject job = r.bodyAsJsonObject().getJsonObject("job");
      return new Claim(job.getString("id"), job.getString("claimToken"), job.getInteger("attempt"), job);
    }

    HttpResponse<Buffer> heartbeat(List<String> activeJobIds) {
      return post("/workers/heartbeat").sendJsonObject(new JsonObject().put("manifest", manifest(name, kinds))
          .put("activeJobIds", new JsonArray(activeJobIds))).await();
    }

    HttpResponse<Buffer> progress(Claim claim, int percent) {
      return job(post("/jobs/" + claim.jobId() + "/progress"), claim)
          .sendJsonObject(new JsonObject().put("progress", percent)).await();
    }

    HttpResponse<Buffer> output(Claim claim, String text) {
      return outputAsync(claim, text).await();
    }

    Future<HttpResponse<Buffer>> outputAsync(Claim claim, String text) {
      return job(http.put(BASE + "/jobs/" + claim.jobId() + "/output").putHeader("X-Worker-Token", token), claim)
          .putHeader("Content-Type", "text/plain").putHeader("X-Output-Ext", "txt")
          .sendBuffer(Buffer.buffer(text, StandardCharsets.UTF_8.name()));
    }

    HttpResponse<Buffer> complete(Claim claim) {
      return job(post("/jobs/" + claim.jobId() + "/complete"), claim).send().await();
    }

    HttpResponse<Buffer> release(Claim claim) {
      return job(post("/jobs/" + claim.jobId() + "/release"), claim).send().await();
    }

    HttpResponse<Buffer> fail(Claim claim, String error, boolean retryable) {
      return job(post("/jobs/" + claim.jobId() + "/fail"), claim)
          .sendJsonObject(new JsonObject().put("error", error).put("retryable", retryable)).await();
    }
  }

  /** The lostJobIds of a heartbeat answer, after checking its status. */
  static List<String> lostJobIds(HttpResponse<Buffer> beat) {
    assertThat(beat.statusCode()).as("heartbeat: %s", beat.bodyAsString()).isEqualTo(200);
    return beat.bodyAsJsonObject().getJsonArray("lostJobIds").stream().map(Object::toString).toList();
  }

  /** The contract's refusal code of an answer, after checking its status. */
  static String refusal(HttpResponse<Buffer> r, int status) {
    assertThat(r.statusCode()).as("answer %s", r.bodyAsString()).isEqualTo(status);
    return r.bodyAsJsonObject().getString("code");
  }

  // ---- people: files, queueing, jobs ----

  /** Uploads a small file over HTTP as the administrator; returns its id. */
  String upload(String name, String contentType, String content) {
    if (folder == null) {
      folder = Folders.create(app.client(), adminToken, "inputs");
    }
    HttpResponse<Buffer> r = app.client().post("/api/v1/files").bearerTokenAuthentication(adminToken)
        .addQueryParam("folderId", folder).putHeader("Content-Type", contentType).putHeader("X-File-Name", name)
        .sendBuffer(Buffer.buffer(content, StandardCharsets.UTF_8.name())).await();
    assertThat(r.statusCode()).as("upload: %s", r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getJsonObject("data").getString("id");
  }

  String upload(String name) {
    return upload(name, "text/plain", "the content of " + name);
  }

  Future<JsonObject> enqueueAsync(String fileId, String kind) {
    return Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.ENQUEUE,
        new JsonObject().put("fileId", fileId).put("kind", kind));
  }

  /** Queues a job; returns the job view. */
  JsonObject enqueue(String fileId, String kind) {
    return enqueueAsync(fileId, kind).await();
  }

  /** The job view people read (status, derived state, seq...). */
  JsonObject job(String jobId) {
    return Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.JOB, new JsonObject().put("jobId", jobId))
        .await();
  }

  long seq(String jobId) {
    return job(jobId).getLong("seq");
  }

  JsonObject cancel(String jobId) {
    return Requests
        .ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.CANCEL, new JsonObject().put("jobId", jobId)).await();
  }

  JsonObject trash(String fileId) {
    return Requests.ask(app.vertx(), Addresses.MEDIA_LIBRARY, LibraryVerticle.Actions.TRASH_FILE,
        new JsonObject().put("id", fileId)).await();
  }

  /** The refusal a failed event-bus request carries (fails the test when it succeeded). */
  static ApiError refused(Future<?> request) {
    Throwable failure = request.map(v -> (Throwable) null).otherwise(t -> t).await();
    assertThat(failure).as("the request should have been refused").isNotNull();
    ApiError error = ApiError.from(failure);
    assertThat(error).as("a structured refusal, got %s", failure).isNotNull();
    return error;
  }

  /**
   * One sweep through {@code pipeline.sweep}. When the periodic sweep holds the lock at that moment
   * the answer is {@code skipped}; ask again once it is done, so the caller sees a sweep that ran.
   */
  JsonObject sweep() {
    for (int i = 0; i < 200; i++) {
      JsonObject report =
          app.vertx().eventBus().<JsonObject>request(Addresses.PIPELINE_SWEEP, new JsonObject()).await().body();
      if (!report.getBoolean("skipped", false)) {
        return report;
      }
      pause(10);
    }
    throw new AssertionError("the sweep lock stayed taken");
  }

  // ---- time and waiting ----

  /** Yields to the app for a moment on a Vert.x timer (used only between retries of a check, never to move time). */
  void pause(long millis) {
    app.vertx().timer(millis, TimeUnit.MILLISECONDS).await();
  }

  /**
   * Checks a condition that another connection or thread makes true soon (a NOTIFY reaching the
   * app's listener, a file deleted after the reply): retried a bounded number of times.
   */
  void eventually(String what, BooleanSupplier condition) {
    for (int i = 0; i < 250; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      pause(20);
    }
    throw new AssertionError("never happened: " + what);
  }

  /**
   * Polls jobs/next until it claims something: a job made claimable by a direct UPDATE reaches this
   * node's signal through NOTIFY, which arrives on the listener's own connection a moment later.
   */
  Claim claimSoon(Worker w) {
    for (int i = 0; i < 100; i++) {
      HttpResponse<Buffer> r = w.next();
      if (r.statusCode() == 200) {
        return Worker.claimOf(r);
      }
      assertThat(r.statusCode()).as("jobs/next: %s", r.bodyAsString()).isEqualTo(204);
      pause(20);
    }
    throw new AssertionError(w.name + " never claimed a job");
  }

  // ---- storage ----

  Path versionsFolder() {
    return app.dataDir().resolve("media").resolve("versions");
  }

  /** Where the output with this version id and extension is stored. */
  Path versionFile(String versionId, String ext) {
    return versionsFolder().resolve(versionId + "." + ext);
  }

  long storedOutputs() {
    try (var files = Files.list(versionsFolder())) {
      return files.count();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- SQL ----

  void sql(String statement) {
    app.db().execute(statement);
  }

  /** The first column of the first row (null when no row). */
  Object value(String query) {
    List<List<Object>> rows = rows(query);
    return rows.isEmpty() ? null : rows.get(0).get(0);
  }

  long number(String query) {
    return ((Number) value(query)).longValue();
  }

  double decimal(String query) {
    return ((Number) value(query)).doubleValue();
  }

  String text(String query) {
    Object v = value(query);
    return v == null ? null : v.toString();
  }

  List<List<Object>> rows(String query) {
    return app.db().rows(query, ResultSet::getObject);
  }

  /**
   * SQL that makes {@code files} file rows named {@code <ns>-<n>.txt} (a file has at most one open
   * job per kind), each pointing at one of the four uploaded {@code source-*} files, and one queued
   * job per file and kind {@code <ns>/k0} to {@code <ns>/k<kinds - 1>}, in one statement.
   */
  static String queueJobsSql(String ns, int files, int kinds) {
    return "WITH src AS (SELECT array_agg(storage_key ORDER BY name) AS keys, array_agg(size ORDER BY name) AS sizes "
        + "  FROM media_files WHERE name LIKE 'source-%'), "
        + "f AS (INSERT INTO media_files (id, name, mime_type, size, storage_key) "
        + "  SELECT gen_random_uuid(), '" + ns
        + "-' || g || '.txt', 'text/plain', src.sizes[1 + g % 4], src.keys[1 + g % 4] "
        + "  FROM src, generate_series(1, " + files + ") g RETURNING id) "
        + "INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), f.id, '" + ns + "/k' || k "
        + "FROM f CROSS JOIN generate_series(0, " + (kinds - 1) + ") k";
  }

  /** A plain JDBC connection to the test database (the caller closes it). */
  Connection connect() {
    try {
      return Database.connect(app.db().url());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Moves a job's lease back so that the next sweep sees it expired. */
  void expireLease(String jobId) {
    sql("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '10 minutes' WHERE id = '" + jobId + "'");
  }

  /** Makes a requeued job claimable now (the UPDATE of run_after fires the NOTIFY trigger). */
  void runNow(String jobId) {
    sql("UPDATE pipeline_jobs SET run_after = now() - interval '1 second' WHERE id = '" + jobId + "'");
  }

  String status(String jobId) {
    return text("SELECT status FROM pipeline_jobs WHERE id = '" + jobId + "'");
  }
}
