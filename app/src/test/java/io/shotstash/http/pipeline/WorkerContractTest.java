package io.shotstash.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.media.LibraryVerticle;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.contract.Kinds;
import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.ContractWorker.Answer;
import io.shotstash.testing.Folders;
import io.shotstash.testing.LogCapture;
import io.shotstash.testing.RawHttp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker contract v1 over real HTTP against the whole app: each route's success and every
 * refusal of PIPELINE.md → Errors that HTTP can reach. Every answer carries
 * {@code X-Shotstash-Pipeline: 1}; every refusal is {@code {code, message}} with
 * {@code Cache-Control: no-store}. Each test that claims registers its own worker and kind; tests
 * that only need a token share {@link #plain()} (registrations are limited to 60 an hour per IP:
 * this class stays well below).
 */
class WorkerContractTest extends WithSignedInApp {
  static final String BOOT = "worker-contract-bootstrap-token-0123456789";
  static final String UUID_RE = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  static final AtomicInteger COUNTER = new AtomicInteger();

  /** The folder every upload goes to (an upload needs one). */
  static String folder;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOT));
    folder = Folders.create(app.client(), admin, "inputs");
  }

  @AfterAll
  static void stop() {
    CLIENTS.stream().skip(1).forEach(WebClient::close);
  }

  // ---- helpers ----

  static String unique(String base) {
    return base + "-" + COUNTER.incrementAndGet();
  }

  static ContractWorker unregistered(String name, String... kinds) {
    return new ContractWorker(app.vertx(), client(), app.port(), BOOT, ContractWorker.manifest(name, kinds));
  }

  /**
   * Registrations are limited to 60 an hour per IP, and this class registers more workers than that:
   * they call from four loopback addresses in turn (127.0.0.1 and 127.0.5.1-3).
   */
  private static final List<WebClient> CLIENTS = new ArrayList<>();

  private static synchronized WebClient client() {
    if (CLIENTS.isEmpty()) {
      CLIENTS.add(app.client());
      for (int i = 1; i <= 3; i++) {
        CLIENTS.add(WebClient.create(app.vertx(), new WebClientOptions().setDefaultHost("127.0.0.1")
            .setDefaultPort(app.port()).setLocalAddress("127.0.5." + i)));
      }
    }
    return CLIENTS.get(COUNTER.get() % CLIENTS.size());
  }

  /** A registered worker with a unique name. */
  static ContractWorker worker(String base, String... kinds) {
    ContractWorker w = unregistered(unique(base), kinds);
    Answer a = w.register();
    assertThat(a.status()).as(a.toString()).isEqualTo(201);
    return w;
  }

  private static ContractWorker plain;

  /**
   * One registered worker shared by the tests that only need a valid worker token: its kind never
   * gets a job, and it holds no claim. It saves registrations (60 an hour per IP).
   */
  static synchronized ContractWorker plain() {
    if (plain == null) {
      plain = worker("plain", "test/plain-never-queued");
    }
    return plain;
  }

  static byte[] bytes(int size, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (i * 7 + seed);
    }
    return b;
  }

  static String upload(byte[] content, String mimeType, String name) {
    HttpResponse<Buffer> r = app.client().post("/api/v1/files").bearerTokenAuthentication(admin)
        .addQueryParam("folderId", folder).putHeader("Content-Type", mimeType).putHeader("X-File-Name", name)
        .sendBuffer(Buffer.buffer(content)).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getJsonObject("data").getString("id");
  }

  static JsonObject enqueue(String fileId, String kind) {
    return Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.ENQUEUE,
        new JsonObject().put("fileId", fileId).put("kind", kind)).await();
  }

  static JsonObject jobView(String jobId) {
    return Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.JOB, new JsonObject().put("jobId", jobId))
        .await();
  }

  /** A job claimed by a fresh worker of a fresh kind, on a freshly uploaded file. */
  record Claimed(ContractWorker worker, String kind, String fileId, JsonObject job, byte[] input) {
    String id() {
      return job.getString("id");
    }

    String claim() {
      return job.getString("claimToken");
    }
  }

  static Claimed claimed(String base, byte[] input, String mimeType, String fileName) {
    String kind = "test/" + unique(base);
    ContractWorker w = worker(base, kind);
    String fileId = upload(input, mimeType, fileName);
    String jobId = enqueue(fileId, kind).getString("id");
    Answer next = w.next();
    assertThat(next.status()).as(next.toString()).isEqualTo(200);
    JsonObject job = next.job();
    assertThat(job.getString("id")).isEqualTo(jobId);
    return new Claimed(w, kind, fileId, job, input);
  }

  static Claimed claimed(String base) {
    return claimed(base, bytes(100, 3), "video/mp4", "clip.mp4");
  }

  static Path versions() {
    return app.dataDir().resolve("media").resolve("versions");
  }

  static Path stored(String versionId, String ext) {
    return versions().resolve(versionId + "." + ext);
  }

  /** Waits (bounded) for an output the app deletes after answering; then asserts it is gone. */
  static void assertEventuallyGone(Path file) {
    for (int i = 0; i < 400 && Files.exists(file); i++) {
      app.vertx().timer(25).await();
    }
    assertThat(file).doesNotExist();
  }

  /** Uploads an output for the claimed job, asserts it was taken (200) and returns where the app stored it. */
  static Path storedOutput(Claimed c, String contentType, String ext, Buffer body) {
    Answer output = c.worker().output(c.id(), c.claim(), contentType, ext, body);
    assertOk(output, 200);
    return stored(output.json().getString("versionId"), ext);
  }

  /** The job's status and progress, as the queue reports them. */
  static void assertStatusAndProgress(String jobId, String status, int progress) {
    JsonObject view = jobView(jobId);
    assertThat(view.getString("status")).isEqualTo(status);
    assertThat(view.getInteger("progress")).isEqualTo(progress);
  }

  /** A ranged read of the claimed job's input: 206 with this Content-Range and exactly these bytes. */
  static Answer assertPartial(Claimed c, String range, String contentRange, byte[] expected) {
    Answer a = c.worker().input(c.id(), c.claim(), range);
    assertOk(a, 206);
    assertThat(a.header("Content-Range")).isEqualTo(contentRange);
    assertThat(a.bytes()).isEqualTo(expected);
    return a;
  }

  static void assertContract(Answer a) {
    assertThat(a.header("X-Shotstash-Pipeline")).as("X-Shotstash-Pipeline of %s", a).isEqualTo("1");
  }

  static void assertOk(Answer a, int status) {
    assertThat(a.status()).as(a.toString()).isEqualTo(status);
    assertContract(a);
  }

  /** Queues a job of {@code kind} on {@code fileId} and asserts {@code w}'s next call claims that very job. */
  static void assertNextServes(ContractWorker w, String fileId, String kind) {
    String jobId = enqueue(fileId, kind).getString("id");
    Answer next = w.next();
    assertOk(next, 200);
    assertThat(next.job().getString("id")).isEqualTo(jobId);
    assertThat(next.job().getString("kind")).isEqualTo(kind);
  }

  static void assertRefusal(Answer a, int status, String code) {
    assertThat(a.status()).as(a.toString()).isEqualTo(status);
    assertContract(a);
    assertThat(a.header("Cache-Control")).as("Cache-Control of %s", a).isEqualTo("no-store");
    assertThat(a.header("Content-Type")).startsWith("application/json");
    JsonObject body = a.json();
    assertThat(body.fieldNames()).containsExactlyInAnyOrder("code", "message");
    assertThat(body.getString("code")).isEqualTo(code);
    assertThat(body.getString("message")).isNotBlank();
  }

  /** Every job route (input, progress, output, complete, release, fail) with this job id and claim token. */
  static Map<String, Answer> everyJobCall(ContractWorker w, String jobId, String claimToken) {
    Map<String, Answer> answers = new LinkedHashMap<>();
    answers.put("input", w.input(jobId, claimToken, null));
    answers.put("progress", w.progress(jobId, claimToken, 10));
    answers.put("output", w.output(jobId, claimToken, "text/plain", "txt", Buffer.buffer("output")));
    answers.put("complete", w.complete(jobId, claimToken));
    answers.put("release", w.release(jobId, claimToken));
    answers.put("fail", w.fail(jobId, claimToken, "broken", true));
    return answers;
  }

  static void assertEveryRefusal(Map<String, Answer> answers, int status, String code) {
    assertThat(answers).hasSize(6);
    answers.forEach((route, a) -> {
      assertThat(a.status()).as("%s answered %s", route, a).isEqualTo(status);
      assertRefusal(a, status, code);
    });
  }

  // ---- register ----

  @Test
  void registerAnswersTheWorkerIdAndANewToken() {
    ContractWorker w = unregistered(unique("register"), "acme/transcript");
    Answer a = w.register();
    assertOk(a, 201);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    JsonObject body = a.json();
    assertThat(body.fieldNames()).contains("workerId", "token", "contract", "heartbeatSeconds", "leaseSeconds");
    assertThat(body.getString("workerId")).matches(UUID_RE);
    assertThat(body.getString("token")).startsWith("ssw_").hasSizeGreaterThan(30);
    assertThat(body.getValue("contract")).isEqualTo(1);
    assertThat(body.getValue("heartbeatSeconds")).isEqualTo(30);
    assertThat(body.getValue("leaseSeconds")).isEqualTo(90);
    // the token works at once
    assertOk(w.next(), 204);
  }

  @Test
  void registeringTheSameNameAgainKeepsTheWorkerAndRetiresTheOldTokenAtOnce() {
    String name = unique("again");
    ContractWorker w = unregistered(name, "acme/again");
    assertOk(w.register(), 201);
    String firstId = w.workerId();
    String firstToken = w.token();
    assertOk(w.next(), 204); // the old token is known (and cached) before it is rotated out

    Answer again = w.register();
    assertOk(again, 201);
    assertThat(w.workerId()).isEqualTo(firstId);
    assertThat(w.token()).startsWith("ssw_").isNotEqualTo(firstToken);
    String secondToken = w.token();

    assertRefusal(w.token(firstToken).next(), 401, "UNAUTHENTICATED");
    assertRefusal(w.token(firstToken).heartbeat(), 401, "UNAUTHENTICATED");
    assertOk(w.token(secondToken).next(), 204);

    // the name is trimmed: the same worker
    ContractWorker padded = unregistered("  " + name + " ", "acme/again");
    assertOk(padded.register(), 201);
    assertThat(padded.workerId()).isEqualTo(firstId);
    assertRefusal(w.token(secondToken).next(), 401, "UNAUTHENTICATED");
  }

  @Test
  void aMissingOrWrongBootstrapTokenIsUnauthenticated() {
    JsonObject manifest = ContractWorker.manifest(unique("boot"), "acme/boot");
    assertRefusal(new ContractWorker(app, null, manifest).register(), 401, "UNAUTHENTICATED");
    assertRefusal(new ContractWorker(app, BOOT + "x", manifest).register(), 401, "UNAUTHENTICATED");
    assertRefusal(new ContractWorker(app, "", manifest).register(), 401, "UNAUTHENTICATED");
    // a worker token is not a bootstrap token
    ContractWorker w = plain();
    assertRefusal(new ContractWorker(app, w.token(), manifest).register(), 401, "UNAUTHENTICATED");
  }

  @Test
  void manifestErrorsAreInvalidManifest() {
    String name = unique("manifest");
    ContractWorker w = unregistered(name, "acme/x");
    assertRefusal(w.register(new JsonObject()), 400, "INVALID_MANIFEST");
    assertRefusal(w.register(new JsonObject().put("manifest", "acme")), 400, "INVALID_MANIFEST");
    assertRefusal(w.register(new JsonObject().put("manifest", ContractWorker.manifest("n".repeat(101), "acme/x"))),
        400, "INVALID_MANIFEST");
    assertRefusal(w.register(new JsonObject().put("manifest", ContractWorker.manifest(name))), 400, "INVALID_MANIFEST");
    assertRefusal(w.register(new JsonObject().put("manifest", ContractWorker.manifest(name, "Acme/X"))),
        400, "INVALID_MANIFEST");
    assertRefusal(
        w.register(new JsonObject().put("manifest", ContractWorker.manifest(name, "acme/x").put("version", ""))),
        400, "INVALID_MANIFEST");
    assertThat(w.token()).isNull();
  }

  /**
   * The shotstash/ namespace holds only the built-in kinds: a worker may serve them, never add to
   * them, on registration or in a heartbeat; a refused manifest creates no kind.
   */
  @Test
  void aKindInTheReservedNamespaceIsAnInvalidManifestUnlessBuiltIn() {
    String name = unique("reserved");
    Answer refused = unregistered(name, "acme/fine", "shotstash/my-own").register();
    assertRefusal(refused, 400, "INVALID_MANIFEST");
    assertThat(refused.json().getString("message")).contains("shotstash/my-own");
    assertRefusal(plain().heartbeat(new JsonObject().put("manifest",
        ContractWorker.manifest("plain", "test/plain-never-queued", "shotstash/my-own"))), 400, "INVALID_MANIFEST");
    assertThat(kindsInTheDatabase()).doesNotContain("shotstash/my-own", "acme/fine");

    ContractWorker builtIn = unregistered(name, "shotstash/proxy-720p", "shotstash/heic-to-jpeg");
    assertOk(builtIn.register(), 201);
    // the rule's list of built-in kinds is the one the migrations made
    assertThat(app.db().texts("SELECT name FROM pipeline_kinds WHERE builtin ORDER BY name"))
        .containsExactlyInAnyOrderElementsOf(Kinds.BUILT_IN);
    assertThat(kindsInTheDatabase().stream().filter(k -> k.startsWith("shotstash/")))
        .containsExactlyInAnyOrderElementsOf(Kinds.BUILT_IN);
  }

  static List<String> kindsInTheDatabase() {
    return app.db().texts("SELECT name FROM pipeline_kinds");
  }

  @Test
  void anotherContractMajorIsUnsupportedEvenWhenOtherFieldsAreBad() {
    ContractWorker w = unregistered(unique("contract"), "acme/x");
    assertRefusal(w.register(new JsonObject().put("manifest", new JsonObject().put("contract", 2))),
        422, "CONTRACT_UNSUPPORTED");
    assertRefusal(w.register(new JsonObject().put("manifest", new JsonObject().put("contract", "2.0").put("name", "")
        .put("kinds", new JsonArray().add("NOT A KIND")))), 422, "CONTRACT_UNSUPPORTED");
    assertRefusal(w.register(new JsonObject().put("manifest", ContractWorker.manifest(unique("contract"), "acme/x")
        .put("contract", "x"))), 422, "CONTRACT_UNSUPPORTED");
  }

  @Test
  void aBodyThatIsNotAJsonObjectIsInvalidBody() {
    ContractWorker w = unregistered(unique("body"), "acme/x");
    assertRefusal(w.register(Buffer.buffer("manifest=please"), "text/plain"), 400, "INVALID_BODY");
    assertRefusal(w.register(Buffer.buffer("[{\"manifest\":{}}]"), "application/json"), 400, "INVALID_BODY");
    assertRefusal(w.register(Buffer.buffer("{\"manifest\":"), "application/json"), 400, "INVALID_BODY");
  }

  @Test
  void aJsonBodyOverSixtyFourKibIsTooLarge() {
    JsonObject manifest = ContractWorker.manifest(unique("large"), "acme/x");
    JsonObject big = new JsonObject().put("manifest", manifest).put("padding", "p".repeat(64 * 1024));
    ContractWorker w = unregistered(manifest.getString("name"), "acme/x");
    assertRefusal(w.register(big), 413, "BODY_TOO_LARGE");

    ContractWorker registered = plain();
    assertRefusal(registered.heartbeat(new JsonObject().put("manifest", registered.manifest())
        .put("padding", "p".repeat(64 * 1024))), 413, "BODY_TOO_LARGE");
    assertOk(registered.next(), 204);
    // the body is checked before the job: an unknown job with a big body is still too large
    assertRefusal(registered.progress(UUID.randomUUID().toString(), "claim",
        new JsonObject().put("progress", 1).put("padding", "p".repeat(64 * 1024))), 413, "BODY_TOO_LARGE");
    assertRefusal(registered.fail(UUID.randomUUID().toString(), "claim",
        new JsonObject().put("error", "e".repeat(70 * 1024))), 413, "BODY_TOO_LARGE");
  }

  @Test
  void workerRoutesNeedAWorkerTokenNotASession() {
    ContractWorker none = unregistered(unique("nobody"), "acme/x");
    assertRefusal(none.next(), 401, "UNAUTHENTICATED");
    assertRefusal(none.token("ssw_" + "A".repeat(43)).next(), 401, "UNAUTHENTICATED");
    assertRefusal(none.token("").next(), 401, "UNAUTHENTICATED");
    assertRefusal(none.token("ssw_" + "A".repeat(300)).next(), 401, "UNAUTHENTICATED");
    assertRefusal(
        none.token(null).call(HttpMethod.POST, "/jobs/next", Map.of("Authorization", "Bearer " + admin), null),
        401, "UNAUTHENTICATED");
    assertRefusal(none.token(null).heartbeat(), 401, "UNAUTHENTICATED");
    String job = UUID.randomUUID().toString();
    assertEveryRefusal(everyJobCall(none.token(null), job, "claim"), 401, "UNAUTHENTICATED");
    // the worker token is checked before the claim token and the job id
    assertEveryRefusal(everyJobCall(none.token(null), "not-a-job", null), 401, "UNAUTHENTICATED");
  }

  // ---- revoking ----

  @Test
  void aRevokedWorkerIsRefusedAtOnceAndItsNameCannotRegisterAgain() {
    String name = unique("revoked");
    ContractWorker w = unregistered(name, "acme/revoked");
    assertOk(w.register(), 201);
    assertOk(w.next(), 204);
    JsonObject revoked = Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.REVOKE,
        new JsonObject().put("workerId", w.workerId())).await();
    assertThat(revoked.getBoolean("revoked")).isTrue();

    assertRefusal(w.next(), 401, "UNAUTHENTICATED");
    assertRefusal(w.heartbeat(), 401, "UNAUTHENTICATED");
    Answer again = w.register();
    assertRefusal(again, 403, "WORKER_REVOKED");
    assertRefusal(unregistered(" " + name, "acme/other").register(), 403, "WORKER_REVOKED");
  }

  @Test
  void aQueuedJobWhoseKindNoLiveWorkerServesIsWaitingForWorker() {
    String kind = "test/" + unique("waiting");
    ContractWorker w = worker("waiting", kind);
    String fileId = upload(bytes(10, 4), "text/plain", "a.txt");
    JsonObject job = enqueue(fileId, kind);
    assertThat(job.getString("status")).isEqualTo("queued");
    assertThat(job.getString("state")).isEqualTo("queued");
    Requests
        .ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.REVOKE, new JsonObject().put("workerId", w.workerId()))
        .await();
    JsonObject view = jobView(job.getString("id"));
    assertThat(view.getString("status")).isEqualTo("queued");
    assertThat(view.getString("state")).isEqualTo("waiting_for_worker");
    // queueing the same kind on the same file again answers the open job
    assertThat(enqueue(fileId, kind).getString("id")).isEqualTo(job.getString("id"));
  }

  @Test
  void registeringAgainKeepsTheClaimsAndTakesTheNewKinds() {
    Claimed c = claimed("rekind");
    String newKind = "test/" + unique("rekind-new");
    ContractWorker w = c.worker();
    String oldToken = w.token();
    JsonObject changed = ContractWorker.manifest(w.manifest().getString("name"), c.kind(), newKind);
    assertOk(w.manifest(changed).register(), 201);
    assertThat(w.token()).isNotEqualTo(oldToken);
    // the claim survived the new token
    Answer progress = w.progress(c.id(), c.claim(), 30);
    assertOk(progress, 200);
    assertThat(progress.json().getString("status")).isEqualTo("running");
    // and the new kind is served
    assertNextServes(w, upload(bytes(5, 5), "text/plain", "b.txt"), newKind);
  }

  // ---- heartbeat ----

  @Test
  void heartbeatListsTheJobsTheWorkerDoesNotHold() {
    Claimed c = claimed("heartbeat");
    long seq = jobView(c.id()).getLong("seq");
    String stranger = UUID.randomUUID().toString();
    Answer a = c.worker().heartbeat(c.id(), stranger, stranger);
    assertOk(a, 200);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.json().getValue("contract")).isEqualTo(1);
    assertThat(a.json().getJsonArray("lostJobIds")).containsExactly(stranger);
    // heartbeats do not move seq
    assertThat(jobView(c.id()).getLong("seq")).isEqualTo(seq);

    assertOk(c.worker().heartbeat(), 200);
    assertThat(c.worker().heartbeat().json().getJsonArray("lostJobIds")).isEmpty();

    // another worker does not hold it either
    ContractWorker other = plain();
    assertThat(other.heartbeat(c.id()).json().getJsonArray("lostJobIds")).containsExactly(c.id());

    // once finished, the holder hears it is lost
    assertOk(c.worker().output(c.id(), c.claim(), "application/json", "json", Buffer.buffer("{}")), 200);
    assertOk(c.worker().complete(c.id(), c.claim()), 200);
    assertThat(c.worker().heartbeat(c.id()).json().getJsonArray("lostJobIds")).containsExactly(c.id());

    // a job given back after a retryable failure is lost too
    Claimed retried = claimed("heartbeat-retry");
    assertOk(retried.worker().fail(retried.id(), retried.claim(), "try again", true), 200);
    assertThat(retried.worker().heartbeat(retried.id()).json().getJsonArray("lostJobIds"))
        .containsExactly(retried.id());

    // at most 100 ids, and activeJobIds may be left out
    JsonArray hundred = new JsonArray();
    for (int i = 0; i < 100; i++) {
      hundred.add(UUID.randomUUID().toString());
    }
    Answer many = other.heartbeat(new JsonObject().put("manifest", other.manifest()).put("activeJobIds", hundred));
    assertOk(many, 200);
    assertThat(many.json().getJsonArray("lostJobIds")).hasSize(100);
    assertOk(other.heartbeat(new JsonObject().put("manifest", other.manifest())), 200);
  }

  @Test
  void badActiveJobIdsAreInvalidBody() {
    ContractWorker w = plain();
    JsonObject manifest = w.manifest();
    JsonArray hundred = new JsonArray();
    for (int i = 0; i < 100; i++) {
      hundred.add(UUID.randomUUID().toString());
    }
    JsonArray tooMany = hundred.copy().add(UUID.randomUUID().toString());
    List<Object> bad = List.of("0192-not-a-list", new JsonObject().put("id", UUID.randomUUID().toString()), 5, tooMany,
        new JsonArray().add("not-a-job-id"), new JsonArray().add(42), new JsonArray().addNull(),
        new JsonArray().add(UUID.randomUUID().toString().toUpperCase()), new JsonArray().add(new JsonArray()));
    for (Object ids : bad) {
      Answer a = w.heartbeat(new JsonObject().put("manifest", manifest).put("activeJobIds", ids));
      assertThat(a.status()).as("activeJobIds %s answered %s", ids, a).isEqualTo(400);
      assertRefusal(a, 400, "INVALID_BODY");
    }

    assertRefusal(w.heartbeat(new JsonObject().put("activeJobIds", new JsonArray())), 400, "INVALID_MANIFEST");
    assertRefusal(w.heartbeat(new JsonObject().put("manifest", manifest.copy().put("contract", 2))), 422,
        "CONTRACT_UNSUPPORTED");
    assertRefusal(w.call(HttpMethod.POST, "/workers/heartbeat", Map.of("Content-Type", "application/json"),
        Buffer.buffer("not json")), 400, "INVALID_BODY");
    assertRefusal(w.call(HttpMethod.POST, "/workers/heartbeat", Map.of(), null), 400, "INVALID_BODY");
  }

  @Test
  void aHeartbeatMayChangeTheKindsAndNextServesTheNewOnes() {
    String oldKind = "test/" + unique("kinds-old");
    String newKind = "test/" + unique("kinds-new");
    ContractWorker w = worker("kinds", oldKind);
    JsonObject changed =
        ContractWorker.manifest(w.manifest().getString("name"), oldKind, newKind).put("version", "2.0.0");
    assertOk(w.manifest(changed).heartbeat(), 200);
    // the new kind exists now, so a job of it can be queued, and the worker serves it
    assertNextServes(w, upload(bytes(10, 1), "text/plain", "notes.txt"), newKind);
  }

  // ---- next ----

  @Test
  void nextAnswers204WhenThereIsNothingToDo() {
    ContractWorker w = plain();
    Answer a = w.next();
    assertOk(a, 204);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.bytes()).isEmpty();
  }

  @Test
  void nextClaimsTheOldestQueuedJobOfTheWorkersKinds() {
    String kind = "test/" + unique("next");
    ContractWorker w = worker("next", kind);
    byte[] content = bytes(1234, 5);
    String first = upload(content, "video/quicktime", "interview.mov");
    String second = upload(bytes(10, 1), "video/mp4", "later.mp4");
    String firstJob = enqueue(first, kind).getString("id");
    String secondJob = enqueue(second, kind).getString("id");

    Answer a = w.next();
    assertOk(a, 200);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    JsonObject job = a.job();
    assertThat(job.getString("id")).isEqualTo(firstJob);
    assertThat(job.getString("kind")).isEqualTo(kind);
    assertThat(job.getJsonObject("params")).isEqualTo(new JsonObject());
    assertThat(job.getValue("attempt")).isEqualTo(1);
    assertThat(job.getValue("maxAttempts")).isEqualTo(3);
    assertThat(job.getString("claimToken")).isNotBlank().hasSizeLessThanOrEqualTo(100);
    JsonObject input = job.getJsonObject("input");
    assertThat(input.getString("url")).isEqualTo("/api/v1/pipeline/jobs/" + firstJob + "/input");
    assertThat(input.getString("name")).isEqualTo("interview.mov");
    assertThat(input.getString("mimeType")).isEqualTo("video/quicktime");
    assertThat(input.getValue("size")).isIn(1234, 1234L);

    JsonObject view = jobView(firstJob);
    assertThat(view.getString("status")).isEqualTo("claimed");
    assertThat(view.getInteger("attempts")).isEqualTo(1);

    // the next call gets the other one, with its own claim token; a worker of another kind gets nothing
    Answer b = w.next();
    assertOk(b, 200);
    assertThat(b.job().getString("id")).isEqualTo(secondJob);
    assertThat(b.job().getString("claimToken")).isNotEqualTo(job.getString("claimToken"));
    assertOk(plain().next(), 204);
  }

  @Test
  void concurrentClaimsNeverGetTheSameJob() {
    String kind = "test/" + unique("race");
    ContractWorker w = worker("race", kind);
    String first = enqueue(upload(bytes(10, 1), "text/plain", "1.txt"), kind).getString("id");
    String second = enqueue(upload(bytes(10, 2), "text/plain", "2.txt"), kind).getString("id");
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<CompletableFuture<Answer>> calls = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        calls.add(CompletableFuture.supplyAsync(w::next, pool));
      }
      List<Answer> answers = calls.stream().map(CompletableFuture::join).toList();
      List<String> claimedIds =
          answers.stream().filter(a -> a.status() == 200).map(a -> a.job().getString("id")).toList();
      assertThat(claimedIds).containsExactlyInAnyOrder(first, second);
      assertThat(answers).filteredOn(a -> a.status() != 200).allSatisfy(a -> assertOk(a, 204));
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- job calls: the claim ----

  @Test
  void aMissingEmptyOrOverLongClaimTokenIsRequired() {
    Claimed c = claimed("claim-token");
    ContractWorker w = c.worker();
    assertEveryRefusal(everyJobCall(w, c.id(), null), 400, "CLAIM_TOKEN_REQUIRED");
    assertEveryRefusal(everyJobCall(w, c.id(), ""), 400, "CLAIM_TOKEN_REQUIRED");
    assertEveryRefusal(everyJobCall(w, c.id(), "   "), 400, "CLAIM_TOKEN_REQUIRED");
    assertEveryRefusal(everyJobCall(w, c.id(), "c".repeat(101)), 400, "CLAIM_TOKEN_REQUIRED");
    // 100 characters is a usable (here: wrong) claim token
    assertRefusal(w.progress(c.id(), "c".repeat(100), 10), 409, "CLAIM_STALE");
    // nothing of the above touched the job
    assertOk(w.progress(c.id(), c.claim(), 5), 200);
  }

  @Test
  void aMalformedJobIdIsNotFound() {
    ContractWorker w = plain();
    for (String id : List.of("not-a-job", "0192", UUID.randomUUID().toString().toUpperCase(), "%20",
        UUID.randomUUID() + "x")) {
      assertEveryRefusal(everyJobCall(w, id, "some-claim"), 404, "JOB_NOT_FOUND");
    }
  }

  @Test
  void anUnknownJobIdIsNotFound() {
    ContractWorker w = plain();
    assertEveryRefusal(everyJobCall(w, UUID.randomUUID().toString(), "some-claim"), 404, "JOB_NOT_FOUND");
  }

  @Test
  void anotherWorkersClaimIsStale() throws IOException {
    Claimed c = claimed("stale");
    ContractWorker other = plain();
    List<Path> before = listVersions();
    assertEveryRefusal(everyJobCall(other, c.id(), c.claim()), 409, "CLAIM_STALE");
    assertThat(listVersions()).isSubsetOf(before);
    // the holder with a wrong claim token is stale too
    assertEveryRefusal(everyJobCall(c.worker(), c.id(), "not-the-claim-token"), 409, "CLAIM_STALE");
    // and the real holder still holds it
    Answer progress = c.worker().progress(c.id(), c.claim(), 7);
    assertOk(progress, 200);
    assertThat(progress.json().getString("status")).isEqualTo("running");
    assertThat(jobView(c.id()).getString("status")).isEqualTo("running");
  }

  @Test
  void afterCompleteEveryJobCallIsTerminal() {
    Claimed c = claimed("terminal");
    ContractWorker w = c.worker();
    assertOk(w.output(c.id(), c.claim(), "text/plain", "txt", Buffer.buffer("done")), 200);
    assertOk(w.complete(c.id(), c.claim()), 200);
    assertRefusal(w.progress(c.id(), c.claim(), 50), 409, "JOB_TERMINAL");
    assertRefusal(w.complete(c.id(), c.claim()), 409, "JOB_TERMINAL");
    assertEveryRefusal(everyJobCall(w, c.id(), c.claim()), 409, "JOB_TERMINAL");
    // a caller that never held it hears CLAIM_STALE, not JOB_TERMINAL
    assertRefusal(plain().complete(c.id(), c.claim()), 409, "CLAIM_STALE");
    assertThat(jobView(c.id()).getString("status")).isEqualTo("done");
  }

  // ---- cancelled jobs and trashed files ----

  @Test
  void aJobCancelledByAPersonIsTerminalForItsHolder() {
    Claimed c = claimed("cancel");
    ContractWorker w = c.worker();
    Path file = storedOutput(c, "text/plain", "txt", Buffer.buffer("almost"));
    JsonObject cancelled = Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.CANCEL,
        new JsonObject().put("jobId", c.id())).await();
    assertThat(cancelled.getString("status")).isEqualTo("cancelled");
    assertEventuallyGone(file);

    assertRefusal(w.progress(c.id(), c.claim(), 60), 409, "JOB_TERMINAL");
    assertRefusal(w.complete(c.id(), c.claim()), 409, "JOB_TERMINAL");
    assertEveryRefusal(everyJobCall(w, c.id(), c.claim()), 409, "JOB_TERMINAL");
    assertThat(w.heartbeat(c.id()).json().getJsonArray("lostJobIds")).containsExactly(c.id());
  }

  @Test
  void completingAJobWhoseFileWentToTheTrashIsFileGone() {
    Claimed c = claimed("trashed");
    ContractWorker w = c.worker();
    Path file = storedOutput(c, "image/jpeg", "jpg", Buffer.buffer(bytes(20, 6)));
    Requests.ask(app.vertx(), Addresses.MEDIA_LIBRARY, LibraryVerticle.Actions.TRASH_FILE,
        new JsonObject().put("id", c.fileId())).await();
    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("cancelled");
    assertThat(view.getString("error")).isEqualTo("file trashed");

    assertRefusal(w.complete(c.id(), c.claim()), 409, "FILE_GONE");
    assertEventuallyGone(file);
    assertRefusal(w.progress(c.id(), c.claim(), 60), 409, "JOB_TERMINAL");
    assertRefusal(w.input(c.id(), c.claim(), null), 409, "JOB_TERMINAL");
  }

  @Test
  void aFileTrashedBehindTheJobsBackIsNotFoundForInputAndGoneForComplete() {
    // the file row is trashed without its jobs being cancelled yet (the sweeper's safety net case)
    Claimed c = claimed("trashed-race");
    ContractWorker w = c.worker();
    Path file = storedOutput(c, "audio/wav", "wav", Buffer.buffer(bytes(20, 7)));
    app.db().execute("UPDATE media_files SET trashed_at = now() WHERE id = '" + c.fileId() + "'");

    assertRefusal(w.input(c.id(), c.claim(), null), 404, "FILE_NOT_FOUND");
    assertRefusal(w.complete(c.id(), c.claim()), 409, "FILE_GONE");
    assertEventuallyGone(file);
    assertRefusal(w.complete(c.id(), c.claim()), 409, "FILE_GONE");
  }

  // ---- input ----

  @Test
  void inputServesTheOriginalWholeOrOneRange() {
    byte[] content = bytes(100, 11);
    Claimed c = claimed("input", content, "audio/mpeg", "talk.mp3");
    ContractWorker w = c.worker();
    long seq = jobView(c.id()).getLong("seq");

    Answer whole = w.input(c.id(), c.claim(), null);
    assertOk(whole, 200);
    assertThat(whole.header("Cache-Control")).isEqualTo("no-store");
    assertThat(whole.header("Content-Type")).startsWith("audio/mpeg");
    assertThat(whole.bytes()).isEqualTo(content);

    Answer first = assertPartial(c, "bytes=0-9", "bytes 0-9/100", slice(content, 0, 10));
    assertThat(first.header("Cache-Control")).isEqualTo("no-store");
    assertPartial(c, "bytes=-5", "bytes 95-99/100", slice(content, 95, 100)); // a suffix
    assertPartial(c, "bytes=10-", "bytes 10-99/100", slice(content, 10, 100)); // open-ended
    assertPartial(c, "bytes=90-1000", "bytes 90-99/100", slice(content, 90, 100)); // clamped to the end

    for (String unsatisfiable : List.of("bytes=100-", "bytes=200-300", "bytes=-0")) {
      Answer a = w.input(c.id(), c.claim(), unsatisfiable);
      assertOk(a, 416);
      assertThat(a.header("Content-Range")).as(unsatisfiable).isEqualTo("bytes */100");
      assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    }

    for (String ignored : List.of("bytes=0-9,20-29", "items=0-9", "bytes=9-0", "nonsense")) {
      Answer a = w.input(c.id(), c.claim(), ignored);
      assertOk(a, 200);
      assertThat(a.header("Content-Range")).as(ignored).isNull();
      assertThat(a.bytes()).isEqualTo(content);
    }

    // reading the input changes nothing on the job
    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("claimed");
    assertThat(view.getLong("seq")).isEqualTo(seq);
  }

  private static byte[] slice(byte[] b, int from, int to) {
    return Arrays.copyOfRange(b, from, to);
  }

  // ---- progress ----

  @Test
  void progressIsFlooredMovesTheJobToRunningAndGrowsSeq() {
    Claimed c = claimed("progress");
    ContractWorker w = c.worker();
    long claimedSeq = jobView(c.id()).getLong("seq");

    Answer first = w.progress(c.id(), c.claim(), 42.7);
    assertOk(first, 200);
    assertThat(first.header("Cache-Control")).isEqualTo("no-store");
    assertThat(first.json().getString("status")).isEqualTo("running");
    assertThat(first.json().getValue("progress")).isEqualTo(42);
    long seq1 = first.json().getLong("seq");
    assertThat(seq1).isGreaterThan(claimedSeq);

    Answer second = w.progress(c.id(), c.claim(), 43);
    assertOk(second, 200);
    assertThat(second.json().getLong("seq")).isGreaterThan(seq1);
    assertThat(second.json().getValue("progress")).isEqualTo(43);

    assertThat(w.progress(c.id(), c.claim(), 0).json().getValue("progress")).isEqualTo(0);
    assertThat(w.progress(c.id(), c.claim(), 100).json().getValue("progress")).isEqualTo(100);
    assertThat(w.progress(c.id(), c.claim(), 99.999).json().getValue("progress")).isEqualTo(99);

    assertStatusAndProgress(c.id(), "running", 99);
  }

  @Test
  void progressThatIsNotANumberFromZeroToHundredIsInvalidBody() {
    Claimed c = claimed("progress-bad");
    ContractWorker w = c.worker();
    List<Object> bad = new ArrayList<>(List.of("42", 100.5, 101, -1, -0.01, true, new JsonObject(), new JsonArray()));
    for (Object value : bad) {
      Answer a = w.progress(c.id(), c.claim(), value);
      assertThat(a.status()).as("progress %s answered %s", value, a).isEqualTo(400);
      assertRefusal(a, 400, "INVALID_BODY");
    }
    assertRefusal(w.progress(c.id(), c.claim(), new JsonObject().putNull("progress")), 400, "INVALID_BODY");
    assertRefusal(w.progress(c.id(), c.claim(), new JsonObject()), 400, "INVALID_BODY");
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/progress",
        Map.of("X-Claim-Token", c.claim(), "Content-Type", "application/json"), Buffer.buffer("42")), 400,
        "INVALID_BODY");
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/progress",
        Map.of("X-Claim-Token", c.claim(), "Content-Type", "application/json"), Buffer.buffer("{progress: 4")), 400,
        "INVALID_BODY");
    // none of them moved the job
    assertStatusAndProgress(c.id(), "claimed", 0);
  }

  // ---- output ----

  @Test
  void outputIsStoredUnderANewVersionId() {
    Claimed c = claimed("output");
    long seqBefore = jobView(c.id()).getLong("seq");
    byte[] vtt = "WEBVTT\n\n00:00.000 --> 00:01.000\nhello\n".getBytes(StandardCharsets.UTF_8);
    Answer a = c.worker().output(c.id(), c.claim(), "Text/VTT; charset=utf-8", " .VTT ", Buffer.buffer(vtt));
    assertOk(a, 200);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    JsonObject body = a.json();
    assertThat(body.getString("versionId")).matches(UUID_RE);
    assertThat(body.getValue("size")).isIn(vtt.length, (long) vtt.length);
    assertThat(body.getString("mimeType")).isEqualTo("text/vtt");
    Path file = stored(body.getString("versionId"), "vtt");
    assertThat(file).exists().hasBinaryContent(vtt);
    // an upload moves the seq, not the status
    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("claimed");
    assertThat(view.getLong("seq")).isGreaterThan(seqBefore);
  }

  @Test
  void outputRefusalsAreInvalidOutputAndStoreNothing() throws IOException {
    Claimed c = claimed("output-bad");
    ContractWorker w = c.worker();
    List<Path> before = listVersions();
    Buffer data = Buffer.buffer("some output");

    assertRefusal(w.output(c.id(), c.claim(), "image/gif", "gif", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/html", "html", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "application/octet-stream", "bin", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), null, "txt", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", null, data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", "", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", "t-x-t", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", "abcdefghijk", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", "../txt", data), 400, "INVALID_OUTPUT");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", "txt", Buffer.buffer()), 400, "INVALID_OUTPUT");

    assertThat(listVersions()).isSubsetOf(before);
    assertRefusal(w.complete(c.id(), c.claim()), 409, "OUTPUT_MISSING");
  }

  @Test
  void anOutputWhoseContentLengthIsNotANumberIsInvalidOutputInTheContractsShape() throws IOException {
    Claimed c = claimed("output-bad-length");
    List<Path> before = listVersions();
    try (RawHttp raw = new RawHttp(app.port())) {
      RawHttp.Response r = raw.send("PUT " + ContractWorker.BASE + "/jobs/" + c.id() + "/output HTTP/1.1\r\nHost: x\r\n"
          + "X-Worker-Token: " + c.worker().token() + "\r\nX-Claim-Token: " + c.claim() + "\r\n"
          + "Content-Type: text/plain\r\nX-Output-Ext: txt\r\nContent-Length: 12abc\r\n\r\nhello").read();
      assertThat(r.status()).as(r.toString()).isEqualTo(400);
      assertThat(r.header("X-Shotstash-Pipeline")).isEqualTo("1");
      assertThat(r.header("Cache-Control")).isEqualTo("no-store");
      assertThat(r.header("Content-Type")).startsWith("application/json");
      assertThat(r.header("Connection")).isEqualTo("close");
      JsonObject body = new JsonObject(r.text());
      assertThat(body.fieldNames()).containsExactlyInAnyOrder("code", "message");
      assertThat(body.getString("code")).isEqualTo("INVALID_OUTPUT");
    }
    assertThat(listVersions()).isSubsetOf(before);
    assertThat(jobView(c.id()).getString("status")).isEqualTo("claimed");
  }

  @Test
  void aContractCallWithoutHostIsBadRequestInTheContractsShape() throws IOException {
    RawHttp.Response r = RawHttp.exchange(app.port(), "POST " + ContractWorker.BASE + "/jobs/next HTTP/1.1\r\n"
        + "X-Worker-Token: " + plain().token() + "\r\nContent-Length: 0\r\n\r\n");
    assertThat(r.status()).as(r.toString()).isEqualTo(400);
    assertThat(r.header("X-Shotstash-Pipeline")).isEqualTo("1");
    assertThat(r.header("Cache-Control")).isEqualTo("no-store");
    JsonObject body = new JsonObject(r.text());
    assertThat(body.fieldNames()).containsExactlyInAnyOrder("code", "message");
    assertThat(body.getString("code")).isEqualTo("BAD_REQUEST");
  }

  @Test
  void aWorkerThatDropsItsOutputUploadHalfwayIsLoggedAtInfoNotError() throws IOException {
    Claimed c = claimed("output-dropped");
    List<Path> before = listVersions();
    try (LogCapture log = LogCapture.start()) {
      try (RawHttp raw = new RawHttp(app.port())) {
        raw.send("PUT " + ContractWorker.BASE + "/jobs/" + c.id() + "/output HTTP/1.1\r\nHost: x\r\n"
            + "X-Worker-Token: " + c.worker().token() + "\r\nX-Claim-Token: " + c.claim() + "\r\n"
            + "Content-Type: video/mp4\r\nX-Output-Ext: mp4\r\nContent-Length: 1000000\r\n"
            + "Expect: 100-continue\r\n\r\n");
        assertThat(raw.read().status()).as("the claim holds").isEqualTo(100);
        raw.send(new byte[1000]);
      } // the worker goes away with 999,000 bytes unsent
      ILoggingEvent dropped = log.await(app.vertx(), e -> e.getFormattedMessage().contains(c.id() + "/output"));
      assertThat(dropped).as("the app notices the upload ended").isNotNull();
      assertThat(dropped.getLevel()).as(dropped.getFormattedMessage()).isEqualTo(Level.INFO);
      assertThat(dropped.getThrowableProxy()).as("no stack trace for a worker going away").isNull();
      assertThat(log.at(Level.ERROR)).isEmpty();
    }
    assertThat(listVersions()).isSubsetOf(before);
    // the claim is still the worker's: it may upload again
    assertOk(c.worker().output(c.id(), c.claim(), "text/plain", "txt", Buffer.buffer("second try")), 200);
  }

  static List<Path> listVersions() throws IOException {
    try (var files = Files.list(versions())) {
      return files.toList();
    }
  }

  /**
   * An upload ({@code POST /api/v1/files}) and a worker's output are answered only once their bytes
   * and their name are on disk: the stored file is whole, nothing is left in tmp/, and the
   * storage's fsync meters on {@code /metrics} (the file, then its folder after the rename) moved
   * before the answer came. Streamed bodies (over 64 KiB) and small declared ones alike.
   */
  @Test
  void anUploadAndAnOutputAreOnDiskBeforeTheyAreAnswered() throws IOException {
    Claimed c = claimed("durable");
    for (byte[] body : List.of(bytes(300_000, 11), bytes(1_000, 12))) {
      long files = fsyncs("file");
      long folders = fsyncs("folder");
      String fileId = upload(body, "video/mp4", "durable.mp4");
      assertThat(app.dataDir().resolve("media/originals").resolve(fileId)).hasBinaryContent(body);
      assertThat(listFolder("tmp")).isEmpty();
      assertThat(fsyncs("file")).isGreaterThan(files);
      assertThat(fsyncs("folder")).isGreaterThan(folders);

      files = fsyncs("file");
      folders = fsyncs("folder");
      Answer a = c.worker().output(c.id(), c.claim(), "video/mp4", "mp4", Buffer.buffer(body));
      assertOk(a, 200);
      assertThat(stored(a.json().getString("versionId"), "mp4")).hasBinaryContent(body);
      assertThat(listFolder("tmp")).isEmpty();
      assertThat(fsyncs("file")).isGreaterThan(files);
      assertThat(fsyncs("folder")).isGreaterThan(folders);
    }
  }

  static List<Path> listFolder(String folder) throws IOException {
    try (var files = Files.list(app.dataDir().resolve("media").resolve(folder))) {
      return files.toList();
    }
  }

  /** {@code shotstash_storage_fsync_seconds_count{target="..."}} from {@code GET /metrics}; 0 when absent. */
  static long fsyncs(String target) {
    String text = app.client().get("/metrics").send().await().bodyAsString();
    Matcher m = Pattern.compile("(?m)^shotstash_storage_fsync_seconds_count\\{target=\"" + target + "\",?\\} (\\S+)$")
        .matcher(text);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  @Test
  void uploadingAgainReplacesThePreviousOutput() {
    Claimed c = claimed("replace");
    ContractWorker w = c.worker();
    Answer first = w.output(c.id(), c.claim(), "application/json", "json", Buffer.buffer("{\"n\":1}"));
    assertOk(first, 200);
    Path firstFile = stored(first.json().getString("versionId"), "json");
    assertThat(firstFile).exists();

    Answer second = w.output(c.id(), c.claim(), "text/plain", "txt", Buffer.buffer("second output"));
    assertOk(second, 200);
    String secondVersion = second.json().getString("versionId");
    assertThat(secondVersion).isNotEqualTo(first.json().getString("versionId"));
    Path secondFile = stored(secondVersion, "txt");
    assertThat(secondFile).exists().hasContent("second output");
    assertEventuallyGone(firstFile);

    Answer done = w.complete(c.id(), c.claim());
    assertOk(done, 200);
    assertThat(done.json().getString("versionId")).isEqualTo(secondVersion);
    assertThat(secondFile).exists();
  }

  // ---- complete ----

  @Test
  void completeTurnsTheOutputIntoADownloadableVersion() {
    Claimed c = claimed("complete");
    ContractWorker w = c.worker();
    assertRefusal(w.complete(c.id(), c.claim()), 409, "OUTPUT_MISSING");

    byte[] out = bytes(64, 9);
    Answer output = w.output(c.id(), c.claim(), "video/mp4", "mp4", Buffer.buffer(out));
    assertOk(output, 200);
    String versionId = output.json().getString("versionId");

    Answer done = w.complete(c.id(), c.claim());
    assertOk(done, 200);
    assertThat(done.header("Cache-Control")).isEqualTo("no-store");
    assertThat(done.json().getString("status")).isEqualTo("done");
    assertThat(done.json().getString("versionId")).isEqualTo(versionId);

    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("done");
    assertThat(view.getInteger("progress")).isEqualTo(100);
    assertThat(view.getString("versionId")).isEqualTo(versionId);

    HttpResponse<Buffer> get =
        app.client().get("/media/p/" + versionId).bearerTokenAuthentication(admin).send().await();
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.getHeader("Content-Type")).startsWith("video/mp4");
    assertThat(get.body().getBytes()).isEqualTo(out);

    HttpResponse<Buffer> head =
        app.client().head("/media/p/" + versionId).bearerTokenAuthentication(admin).send().await();
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.getHeader("Content-Length")).isEqualTo("64");
    assertThat(head.body() == null ? 0 : head.body().length()).isZero();

    HttpResponse<Buffer> range = app.client().get("/media/p/" + versionId).bearerTokenAuthentication(admin)
        .putHeader("Range", "bytes=4-7").send().await();
    assertThat(range.statusCode()).isEqualTo(206);
    assertThat(range.getHeader("Content-Range")).isEqualTo("bytes 4-7/64");
    assertThat(range.body().getBytes()).isEqualTo(slice(out, 4, 8));

    HttpResponse<Buffer> anonymous = app.client().get("/media/p/" + versionId).send().await();
    assertThat(anonymous.statusCode()).isEqualTo(401);
  }

  // ---- fail ----

  @Test
  void aRetryableFailureQueuesTheJobAgain() {
    Claimed c = claimed("fail-retry");
    ContractWorker w = c.worker();
    Path file = storedOutput(c, "text/plain", "txt", Buffer.buffer("partial"));

    Answer a = w.fail(c.id(), c.claim(), "The model server is not reachable", true);
    assertOk(a, 200);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.json().getString("status")).isEqualTo("queued");
    assertThat(a.json().getValue("attempts")).isEqualTo(1);
    assertThat(a.json().getValue("maxAttempts")).isEqualTo(3);
    assertEventuallyGone(file);

    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("queued");
    assertThat(view.getString("error")).isEqualTo("The model server is not reachable");
    // the claim is gone: the old holder is stale
    assertRefusal(w.progress(c.id(), c.claim(), 10), 409, "CLAIM_STALE");
    assertRefusal(w.output(c.id(), c.claim(), "text/plain", "txt", Buffer.buffer("late")), 409, "CLAIM_STALE");
  }

  @Test
  void aNonRetryableFailureFailsTheJob() {
    Claimed c = claimed("fail-final");
    ContractWorker w = c.worker();
    Answer a = w.fail(c.id(), c.claim(), "unsupported codec", false);
    assertOk(a, 200);
    assertThat(a.json().getString("status")).isEqualTo("failed");
    assertThat(a.json().getValue("attempts")).isEqualTo(1);
    assertThat(a.json().getValue("maxAttempts")).isEqualTo(3);
    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("failed");
    assertThat(view.getString("error")).isEqualTo("unsupported codec");
    // the claim is kept: the late holder hears JOB_TERMINAL
    assertRefusal(w.progress(c.id(), c.claim(), 10), 409, "JOB_TERMINAL");
    assertRefusal(w.fail(c.id(), c.claim(), "again", true), 409, "JOB_TERMINAL");
  }

  @Test
  void failBodiesAreChecked() {
    Claimed c = claimed("fail-bad");
    ContractWorker w = c.worker();
    List<JsonObject> bad = List.of(new JsonObject().put("error", "").put("retryable", true),
        new JsonObject().put("retryable", true), new JsonObject().putNull("error"),
        new JsonObject().put("error", 500), new JsonObject().put("error", new JsonObject().put("m", "x")),
        new JsonObject().put("error", "x").put("retryable", "true"),
        new JsonObject().put("error", "x").put("retryable", 1),
        new JsonObject().put("error", "x").put("retryable", new JsonArray()));
    for (JsonObject body : bad) {
      Answer a = w.fail(c.id(), c.claim(), body);
      assertThat(a.status()).as("fail %s answered %s", body, a).isEqualTo(400);
      assertRefusal(a, 400, "INVALID_BODY");
    }
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/fail",
        Map.of("X-Claim-Token", c.claim(), "Content-Type", "application/json"), Buffer.buffer("\"broken\"")), 400,
        "INVALID_BODY");
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/fail", Map.of("X-Claim-Token", c.claim()), null),
        400, "INVALID_BODY");
    assertThat(jobView(c.id()).getString("status")).isEqualTo("claimed");
  }

  @Test
  void textTheAppCannotStoreIsInvalidBodyAndNeverAFault() {
    try (LogCapture log = LogCapture.start()) {
      ContractWorker fresh = unregistered(unique("unstorable"), "test/unstorable");
      // U+0000 (PostgreSQL refuses it) and a lone surrogate (not a character), sent as JSON escapes
      assertRefusal(fresh.register(Buffer.buffer("{\"manifest\":{\"name\":\"w\\u0000\",\"version\":\"1.0.0\","
          + "\"kinds\":[\"test/unstorable\"],\"contract\":1}}"), "application/json"), 400, "INVALID_BODY");
      assertRefusal(fresh.register(Buffer.buffer("{\"manifest\":{\"name\":\"w-ok\",\"version\":\"1.\\ud800\","
          + "\"kinds\":[\"test/unstorable\"],\"contract\":1}}"), "application/json"), 400, "INVALID_BODY");
      Claimed c = claimed("fail-unstorable");
      Answer nul = c.worker().call(HttpMethod.POST, "/jobs/" + c.id() + "/fail",
          Map.of("X-Claim-Token", c.claim(), "Content-Type", "application/json"),
          Buffer.buffer("{\"error\":\"broke\\u0000here\",\"retryable\":true}"));
      assertRefusal(nul, 400, "INVALID_BODY");
      assertThat(nul.json().getString("message")).contains("error");
      Answer surrogate = c.worker().call(HttpMethod.POST, "/jobs/" + c.id() + "/fail",
          Map.of("X-Claim-Token", c.claim(), "Content-Type", "application/json"),
          Buffer.buffer("{\"error\":\"broke \\udc00\",\"retryable\":false}"));
      assertRefusal(surrogate, 400, "INVALID_BODY");
      assertThat(jobView(c.id()).getString("status")).isEqualTo("claimed");
      assertThat(log.at(Level.ERROR)).as("nothing is a fault on our side").isEmpty();
    }
  }

  @Test
  void aLongErrorIsCutToTwoThousandCharactersAndRetryableDefaultsToFalse() {
    Claimed c = claimed("fail-long");
    String error = "e".repeat(1990) + "0123456789" + "x".repeat(1000);
    Answer a = c.worker().fail(c.id(), c.claim(), new JsonObject().put("error", error));
    assertOk(a, 200);
    assertThat(a.json().getString("status")).isEqualTo("failed");
    String kept = jobView(c.id()).getString("error");
    assertThat(kept).hasSize(2000).isEqualTo(error.substring(0, 2000)).endsWith("0123456789");
  }

  @Test
  void theErrorIsCutOnACharacterBoundary() {
    Claimed c = claimed("fail-emoji");
    String error = "e".repeat(1999) + "\uD83D\uDE00" + "x";
    assertOk(c.worker().fail(c.id(), c.claim(), error, false), 200);
    String kept = jobView(c.id()).getString("error");
    assertThat(error.startsWith(kept)).as("the kept error is a prefix of the sent one; it ends with '%s'",
        kept.substring(kept.length() - 3)).isTrue();
    assertThat(kept.codePointCount(0, kept.length())).isBetween(1999, 2000);
  }

  // ---- release ----

  @Test
  void releaseGivesTheJobBackWithoutSpendingAnAttempt() {
    Claimed c = claimed("release");
    ContractWorker w = c.worker();
    Path file = storedOutput(c, "image/png", "png", Buffer.buffer(bytes(32, 2)));
    assertThat(file).exists();
    long seq = jobView(c.id()).getLong("seq");

    Answer a = w.release(c.id(), c.claim());
    assertOk(a, 200);
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.json().getString("status")).isEqualTo("queued");
    assertThat(a.json().getValue("attempts")).isEqualTo(0);
    assertEventuallyGone(file);

    JsonObject view = jobView(c.id());
    assertThat(view.getString("status")).isEqualTo("queued");
    assertThat(view.getInteger("attempts")).isZero();
    assertThat(view.getInteger("progress")).isZero();
    assertThat(view.getLong("seq")).isGreaterThan(seq);
    assertRefusal(w.progress(c.id(), c.claim(), 10), 409, "CLAIM_STALE");
    assertRefusal(w.release(c.id(), c.claim()), 409, "CLAIM_STALE");

    // queued again at once: the next claim is attempt 1 again, with a new claim token
    Answer again = w.next();
    assertOk(again, 200);
    assertThat(again.job().getString("id")).isEqualTo(c.id());
    assertThat(again.job().getValue("attempt")).isEqualTo(1);
    assertThat(again.job().getString("claimToken")).isNotEqualTo(c.claim());
  }

  // ---- rate limit ----

  @Test
  void sixHundredCallsAMinutePerWorker() {
    ContractWorker w = worker("busy", "test/" + unique("busy"));
    for (int i = 0; i < 600; i++) {
      Answer a = w.next();
      assertThat(a.status()).as("call %d answered %s", i + 1, a).isEqualTo(204);
    }
    Answer limited = w.next();
    assertRefusal(limited, 429, "RATE_LIMITED");
    assertThat(limited.header("Retry-After")).isNotNull();
    assertThat(Integer.parseInt(limited.header("Retry-After"))).isBetween(1, 60);
    // the limit is per worker: another worker is not limited
    assertOk(plain().next(), 204);
    // the limited worker stays limited on every route within the window
    assertRefusal(w.heartbeat(), 429, "RATE_LIMITED");
  }

  // ---- anything else ----

  @Test
  void anUnknownRouteInContractOneIsNotFoundInTheContractsShape() {
    ContractWorker w = plain();
    Answer a = w.call(HttpMethod.POST, "/jobs/nope/whatever", Map.of(), null);
    assertRefusal(a, 404, "NOT_FOUND");
  }
}
