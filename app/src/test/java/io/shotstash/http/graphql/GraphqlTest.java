package io.shotstash.http.graphql;

import static io.shotstash.testing.GraphqlHttp.data;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.testing.ContractWorker.Claimed;
import io.shotstash.testing.Folders;
import io.shotstash.testing.GraphqlHttp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The GraphQL API over real HTTP and WebSocket, against the whole app. */
class GraphqlTest extends WithSignedInApp {
  static final String BOOTSTRAP = "graphql-test-bootstrap-token-0123456789";
  static final String PIPELINE = "/api/v1/pipeline";

  static WebClient http;
  static String editor;
  static String user;
  /** The folder uploads go to when a test does not care which (an upload needs one). */
  static String library;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP));
    http = app.client();
    editor = app.createAndLogin(admin, "eddie", "editor", "editor password 123");
    user = app.createAndLogin(admin, "uma", "user", "user password 123");
    library = Folders.create(http, editor, "Library");
  }

  // ---- helpers ----

  static JsonObject gql(String token, String query) {
    return gql(token, query, new JsonObject());
  }

  static JsonObject gql(String token, String query, JsonObject variables) {
    HttpResponse<Buffer> r = GraphqlHttp.post(http, token, query, variables);
    assertThat(r.getHeader("Content-Type")).startsWith("application/json");
    return r.bodyAsJsonObject();
  }

  /** The code of the first error (every error must carry one). */
  static String code(JsonObject answer) {
    JsonArray errors = answer.getJsonArray("errors");
    assertThat(errors).as(answer.encode()).isNotNull().isNotEmpty();
    for (int i = 0; i < errors.size(); i++) {
      assertThat(errors.getJsonObject(i).getJsonObject("extensions").getString("code")).as(answer.encode())
          .isNotBlank();
    }
    return errors.getJsonObject(0).getJsonObject("extensions").getString("code");
  }

  static String upload(String token, String name, String type, byte[] bytes, String folderId) {
    return app.upload(token, folderId, name, type, bytes);
  }

  static String uploadVideo() {
    return upload(editor, "clip.mp4", "video/mp4", "not really a video".getBytes(StandardCharsets.UTF_8), library);
  }

  static JsonObject enqueue(String token, String fileId, String kind) {
    return gql(token, "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id fileId kind status state "
        + "progress attempts maxAttempts seq error } }", new JsonObject().put("f", fileId).put("k", kind));
  }

  // ---- permissions ----

  @Test
  void anonymousCallersAreUnauthenticatedForEverything() {
    assertThat(code(gql(null, "{ me { id } }"))).isEqualTo("UNAUTHENTICATED");
    assertThat(code(gql(null, "{ folders { id } }"))).isEqualTo("UNAUTHENTICATED");
    assertThat(code(gql(null, "{ pipelineKinds { name } }"))).isEqualTo("UNAUTHENTICATED");
    assertThat(code(gql(null, "{ __schema { queryType { name } } }"))).isEqualTo("UNAUTHENTICATED");
    assertThat(code(gql(null, "mutation { createFolder(name: \"x\") { id } }"))).isEqualTo("UNAUTHENTICATED");
    // a session that does not exist is nobody
    assertThat(code(gql("no-such-session-token", "{ me { id } }"))).isEqualTo("UNAUTHENTICATED");
  }

  @Test
  void meIsTheSignedInPerson() {
    JsonObject me = data(gql(editor, "{ me { id slug fullName accountLevel } }")).getJsonObject("me");
    assertThat(me.getString("slug")).isEqualTo("eddie");
    assertThat(me.getString("accountLevel")).isEqualTo("editor");
    assertThat(me.getString("id")).isNotBlank();
  }

  @Test
  void usersMayLookButNotChange() {
    String fileId = uploadVideo();
    assertThat(code(gql(user, "mutation { createFolder(name: \"Mine\") { id } }"))).isEqualTo("FORBIDDEN");
    assertThat(code(enqueue(user, fileId, "shotstash/proxy-720p"))).isEqualTo("FORBIDDEN");
    assertThat(code(gql(user, "mutation($id: ID!) { trashFile(id: $id) { id } }", new JsonObject().put("id", fileId))))
        .isEqualTo("FORBIDDEN");
    assertThat(code(gql(user, "{ pipelineWorkers { id } }"))).isEqualTo("FORBIDDEN");
    assertThat(code(gql(editor, "{ pipelineWorkers { id } }"))).isEqualTo("FORBIDDEN");
    assertThat(code(gql(editor, "mutation { revokeWorker(id: \"" + UUID.randomUUID() + "\") { id } }")))
        .isEqualTo("FORBIDDEN");
    // but they see the file and may download it
    JsonObject file = data(gql(user, "{ file(id: \"" + fileId + "\") { id name mimeType size downloadUrl } }"))
        .getJsonObject("file");
    assertThat(file.getString("downloadUrl")).isEqualTo("/media/o/" + fileId);
    assertThat(file.getLong("size")).isEqualTo(18L);
    HttpResponse<Buffer> download =
        http.get(file.getString("downloadUrl")).bearerTokenAuthentication(user).send().await();
    assertThat(download.statusCode()).isEqualTo(200);
    assertThat(download.bodyAsString()).isEqualTo("not really a video");
  }

  @Test
  void editorsEnqueueAndAdministratorsSeeWorkers() {
    String fileId = uploadVideo();
    JsonObject job = data(enqueue(editor, fileId, "shotstash/proxy-720p")).getJsonObject("enqueueJob");
    assertThat(job.getString("status")).isEqualTo("queued");
    assertThat(job.getString("fileId")).isEqualTo(fileId);
    data(gql(editor, "mutation($id: ID!) { cancelJob(id: $id) { id } }",
        new JsonObject().put("id", job.getString("id"))));

    String name = "gql-admin-view-" + UUID.randomUUID();
    registerWorker(name, "acme/admin-view");
    JsonArray workers = data(gql(admin, "{ pipelineWorkers { id name version kinds contract registeredAt lastSeenAt "
        + "revokedAt live activeJobs } }")).getJsonArray("pipelineWorkers");
    JsonObject worker = workers.stream().map(JsonObject.class::cast).filter(w -> name.equals(w.getString("name")))
        .findFirst().orElseThrow();
    assertThat(worker.getBoolean("live")).isTrue();
    assertThat(worker.getJsonArray("kinds").stream().toList()).containsExactly("acme/admin-view");
    assertThat(worker.getString("revokedAt")).isNull();

    JsonObject revoked = data(gql(admin, "mutation($id: ID!) { revokeWorker(id: $id) { id name revokedAt live } }",
        new JsonObject().put("id", worker.getString("id")))).getJsonObject("revokeWorker");
    assertThat(revoked.getString("id")).isEqualTo(worker.getString("id"));
    assertThat(revoked.getString("revokedAt")).isNotNull();
    assertThat(revoked.getBoolean("live")).isFalse();
    assertThat(code(gql(admin, "mutation { revokeWorker(id: \"" + UUID.randomUUID() + "\") { id } }")))
        .isEqualTo("NOT_FOUND");
  }

  // ---- folders and files ----

  @Test
  void foldersAndFiles() {
    JsonObject folder =
        data(gql(editor, "mutation { createFolder(name: \"  Shoot day 1  \") { id name parentId createdAt "
            + "files { id } } }")).getJsonObject("createFolder");
    assertThat(folder.getString("name")).isEqualTo("Shoot day 1");
    assertThat(folder.getString("parentId")).isNull();
    assertThat(folder.getJsonArray("files")).isEmpty();
    String folderId = folder.getString("id");
    JsonObject child =
        data(gql(editor, "mutation($p: ID) { createFolder(name: \"Selects\", parentId: $p) { id parentId } }",
            new JsonObject().put("p", folderId))).getJsonObject("createFolder");
    assertThat(child.getString("parentId")).isEqualTo(folderId);

    String fileId = upload(editor, "notes.txt", "text/plain", "hello".getBytes(StandardCharsets.UTF_8), folderId);
    JsonObject read = data(gql(user,
        "query($id: ID!) { folder(id: $id) { id name files { id name mimeType size folderId "
            + "createdAt downloadUrl processedVersions { id } jobs { id } currentJob { id } } } }",
        new JsonObject().put("id", folderId))).getJsonObject("folder");
    assertThat(read.getString("name")).isEqualTo("Shoot day 1");
    JsonArray files = read.getJsonArray("files");
    assertThat(files).hasSize(1);
    JsonObject file = files.getJsonObject(0);
    assertThat(file.getString("id")).isEqualTo(fileId);
    assertThat(file.getString("name")).isEqualTo("notes.txt");
    assertThat(file.getString("mimeType")).isEqualTo("text/plain");
    assertThat(file.getLong("size")).isEqualTo(5L);
    assertThat(file.getString("folderId")).isEqualTo(folderId);
    assertThat(file.getString("downloadUrl")).isEqualTo("/media/o/" + fileId);
    assertThat(file.getJsonArray("processedVersions")).isEmpty();
    assertThat(file.getJsonArray("jobs")).isEmpty();
    assertThat(file.getValue("currentJob")).isNull();

    JsonArray folders = data(gql(user, "{ folders { id name files { id } } }")).getJsonArray("folders");
    JsonObject listed = folders.stream().map(JsonObject.class::cast).filter(f -> folderId.equals(f.getString("id")))
        .findFirst().orElseThrow();
    assertThat(listed.getJsonArray("files").getJsonObject(0).getString("id")).isEqualTo(fileId);

    // names are validated; unknown parents and ids are refused
    for (String bad : List.of("", "   ", "a\u0007b", "x".repeat(256))) {
      assertThat(
          code(gql(editor, "mutation($n: String!) { createFolder(name: $n) { id } }", new JsonObject().put("n", bad))))
          .as(bad).isEqualTo("BAD_USER_INPUT");
    }
    assertThat(
        code(gql(editor, "mutation { createFolder(name: \"ok\", parentId: \"" + UUID.randomUUID() + "\") { id } }")))
        .isEqualTo("BAD_USER_INPUT");
    assertThat(code(gql(user, "{ folder(id: \"" + UUID.randomUUID() + "\") { id } }"))).isEqualTo("NOT_FOUND");
    assertThat(code(gql(user, "{ file(id: \"not-an-id\") { id } }"))).isEqualTo("NOT_FOUND");

    // trash the folder tree: gone from reads
    assertThat(data(gql(editor, "mutation($id: ID!) { trashFolder(id: $id) }", new JsonObject().put("id", folderId)))
        .getBoolean("trashFolder")).isTrue();
    assertThat(code(gql(user, "{ folder(id: \"" + folderId + "\") { id } }"))).isEqualTo("NOT_FOUND");
    assertThat(code(gql(user, "{ file(id: \"" + fileId + "\") { id } }"))).isEqualTo("NOT_FOUND");
    assertThat(code(gql(editor, "mutation($id: ID!) { trashFolder(id: $id) }", new JsonObject().put("id", folderId))))
        .isEqualTo("NOT_FOUND");
  }

  // ---- jobs ----

  @Test
  void enqueueTwiceAnswersTheSameJobAndCancelEndsIt() {
    String fileId = uploadVideo();
    JsonObject first = data(enqueue(editor, fileId, "shotstash/proxy-720p")).getJsonObject("enqueueJob");
    JsonObject second = data(enqueue(editor, fileId, "shotstash/proxy-720p")).getJsonObject("enqueueJob");
    assertThat(second.getString("id")).isEqualTo(first.getString("id"));
    assertThat(first.getString("kind")).isEqualTo("shotstash/proxy-720p");
    assertThat(first.getInteger("progress")).isZero();
    assertThat(first.getInteger("attempts")).isZero();
    assertThat(first.getInteger("maxAttempts")).isEqualTo(3);

    JsonObject file = data(gql(user, "query($id: ID!) { file(id: $id) { jobs { id status } currentJob { id state } } }",
        new JsonObject().put("id", fileId))).getJsonObject("file");
    assertThat(file.getJsonArray("jobs")).hasSize(1);
    assertThat(file.getJsonObject("currentJob").getString("id")).isEqualTo(first.getString("id"));

    JsonArray kinds = data(gql(user, "query($id: ID!) { availableKinds(fileId: $id) { name accepts builtin live } }",
        new JsonObject().put("id", fileId))).getJsonArray("availableKinds");
    assertThat(kinds.stream().map(k -> ((JsonObject) k).getString("name")).toList()).contains("shotstash/proxy-720p")
        .doesNotContain("shotstash/heic-to-jpeg");
    JsonArray all = data(gql(user, "{ pipelineKinds { name builtin } }")).getJsonArray("pipelineKinds");
    assertThat(all.stream().map(k -> ((JsonObject) k).getString("name")).toList())
        .contains("shotstash/proxy-720p", "shotstash/heic-to-jpeg");

    assertThat(code(gql(user, "mutation($id: ID!) { cancelJob(id: $id) { id } }",
        new JsonObject().put("id", first.getString("id"))))).isEqualTo("FORBIDDEN");
    JsonObject cancelled = data(gql(editor, "mutation($id: ID!) { cancelJob(id: $id) { id status state finishedAt } }",
        new JsonObject().put("id", first.getString("id")))).getJsonObject("cancelJob");
    assertThat(cancelled.getString("status")).isEqualTo("cancelled");
    assertThat(cancelled.getString("finishedAt")).isNotNull();
    JsonObject after = data(gql(user, "query($id: ID!) { file(id: $id) { currentJob { id } } }",
        new JsonObject().put("id", fileId))).getJsonObject("file");
    assertThat(after.getValue("currentJob")).isNull();
    // a new request after the cancel is a new job
    JsonObject third = data(enqueue(editor, fileId, "shotstash/proxy-720p")).getJsonObject("enqueueJob");
    assertThat(third.getString("id")).isNotEqualTo(first.getString("id"));
    data(gql(editor, "mutation($id: ID!) { cancelJob(id: $id) { id } }",
        new JsonObject().put("id", third.getString("id"))));

    assertThat(code(gql(editor, "mutation { cancelJob(id: \"" + UUID.randomUUID() + "\") { id } }")))
        .isEqualTo("JOB_NOT_FOUND");
    assertThat(code(gql(user, "{ pipelineJob(id: \"nope\") { id } }"))).isEqualTo("JOB_NOT_FOUND");
  }

  @Test
  void retryRunsAFailedJobAgainAndOnlyAFailedOne() {
    Claimed c = Claimed.fresh(app, BOOTSTRAP, admin, library, "retry-" + UUID.randomUUID().toString().substring(0, 8));
    // an editor of its own: retries are writes, counted against the 30 a minute of the shared one
    String editor = app.createAndLogin(admin, "rita", "editor", "editor password 123");
    String retry = "mutation($id: ID!) { retryJob(id: $id) { id kind status fileId } }";
    JsonObject failedId = new JsonObject().put("id", c.id());
    // not failed yet: it is claimed
    assertThat(code(gql(editor, retry, failedId))).isEqualTo("JOB_NOT_FAILED");
    assertThat(c.worker().fail(c.id(), c.claim(), "cannot decode the input", false).status()).isEqualTo(200);

    assertThat(code(gql(user, retry, failedId))).isEqualTo("FORBIDDEN");
    JsonObject again = data(gql(editor, retry, failedId)).getJsonObject("retryJob");
    assertThat(again.getString("id")).isNotEqualTo(c.id());
    assertThat(again.getString("status")).isEqualTo("queued");
    assertThat(again.getString("kind")).isEqualTo(c.worker().manifest().getJsonArray("kinds").getString(0));
    assertThat(again.getString("fileId")).isEqualTo(c.fileId());
    // the failed job stays as it was, its error on record
    JsonObject old = data(gql(editor, "query($id: ID!) { pipelineJob(id: $id) { status error } }", failedId))
        .getJsonObject("pipelineJob");
    assertThat(old.getString("status")).isEqualTo("failed");
    assertThat(old.getString("error")).isEqualTo("cannot decode the input");
    // asked twice: the unfinished job of that kind is answered, not a second one
    assertThat(data(gql(editor, retry, failedId)).getJsonObject("retryJob").getString("id"))
        .isEqualTo(again.getString("id"));
    // the new job is queued, not failed
    assertThat(code(gql(editor, retry, new JsonObject().put("id", again.getString("id")))))
        .isEqualTo("JOB_NOT_FAILED");
    assertThat(code(gql(editor, retry, new JsonObject().put("id", UUID.randomUUID().toString()))))
        .isEqualTo("JOB_NOT_FOUND");
  }

  @Test
  void kindsMustExistAndApply() {
    String textId = upload(editor, "readme.txt", "text/plain", "text".getBytes(StandardCharsets.UTF_8), library);
    assertThat(code(enqueue(editor, textId, "acme/never-registered"))).isEqualTo("KIND_UNKNOWN");
    assertThat(code(enqueue(editor, textId, "Not A Kind"))).isEqualTo("KIND_UNKNOWN");
    assertThat(code(enqueue(editor, textId, "shotstash/proxy-720p"))).isEqualTo("KIND_NOT_APPLICABLE");
    assertThat(code(enqueue(editor, UUID.randomUUID().toString(), "shotstash/proxy-720p"))).isEqualTo("FILE_NOT_FOUND");
    JsonArray kinds = data(gql(user, "query($id: ID!) { availableKinds(fileId: $id) { name } }",
        new JsonObject().put("id", textId))).getJsonArray("availableKinds");
    assertThat(kinds.stream().map(k -> ((JsonObject) k).getString("name")).toList())
        .doesNotContain("shotstash/proxy-720p", "shotstash/heic-to-jpeg");
  }

  @Test
  void trashingAFileCancelsItsJobAndRestoreBringsItBack() {
    String fileId = uploadVideo();
    String jobId = data(enqueue(editor, fileId, "shotstash/proxy-720p")).getJsonObject("enqueueJob").getString("id");
    JsonObject trashed = data(gql(editor, "mutation($id: ID!) { trashFile(id: $id) { id name trashedAt } }",
        new JsonObject().put("id", fileId))).getJsonObject("trashFile");
    assertThat(trashed.getString("id")).isEqualTo(fileId);
    assertThat(trashed.getString("trashedAt")).isNotNull();

    JsonObject job = data(gql(user, "query($id: ID!) { pipelineJob(id: $id) { status state error finishedAt } }",
        new JsonObject().put("id", jobId))).getJsonObject("pipelineJob");
    assertThat(job.getString("status")).isEqualTo("cancelled");
    assertThat(job.getString("state")).isEqualTo("cancelled");
    assertThat(job.getString("error")).isEqualTo("file trashed");
    assertThat(code(gql(user, "{ file(id: \"" + fileId + "\") { id } }"))).isEqualTo("NOT_FOUND");
    assertThat(code(enqueue(editor, fileId, "shotstash/proxy-720p"))).isEqualTo("FILE_NOT_FOUND");

    JsonObject restored =
        data(gql(editor, "mutation($id: ID!) { restoreFile(id: $id) { id trashedAt jobs { id status } } }",
            new JsonObject().put("id", fileId))).getJsonObject("restoreFile");
    assertThat(restored.getString("trashedAt")).isNull();
    assertThat(restored.getJsonArray("jobs").getJsonObject(0).getString("status")).isEqualTo("cancelled");
  }

  // ---- GraphQL over HTTP ----

  @Test
  void getRunsQueriesButRefusesMutations() {
    HttpResponse<Buffer> query = http.get("/graphql").addQueryParam("query", "{ me { slug } }")
        .bearerTokenAuthentication(editor).send().await();
    assertThat(query.statusCode()).isEqualTo(200);
    assertThat(query.bodyAsJsonObject().getJsonObject("data").getJsonObject("me").getString("slug")).isEqualTo("eddie");

    HttpResponse<Buffer> mutation =
        http.get("/graphql").addQueryParam("query", "mutation { createFolder(name: \"via get\") { id } }")
            .bearerTokenAuthentication(editor).send().await();
    assertThat(mutation.statusCode()).isEqualTo(405);
    assertThat(code(mutation.bodyAsJsonObject())).isEqualTo("METHOD_NOT_ALLOWED");
    HttpResponse<Buffer> named = http.get("/graphql")
        .addQueryParam("query", "query Q { me { id } } mutation M { createFolder(name: \"via get\") { id } }")
        .addQueryParam("operationName", "M").bearerTokenAuthentication(editor).send().await();
    assertThat(named.statusCode()).isEqualTo(405);
    // nothing was created
    JsonArray folders = data(gql(editor, "{ folders { name } }")).getJsonArray("folders");
    assertThat(folders.stream().map(f -> ((JsonObject) f).getString("name")).toList()).doesNotContain("via get");
  }

  @Test
  void cookieCallersMustPostJson() {
    HttpResponse<Buffer> json = http.post("/graphql").putHeader("Cookie", "shotstash_session=" + editor)
        .sendJsonObject(new JsonObject().put("query", "{ me { slug } }")).await();
    assertThat(json.statusCode()).isEqualTo(200);
    assertThat(data(json.bodyAsJsonObject()).getJsonObject("me").getString("slug")).isEqualTo("eddie");
    HttpResponse<Buffer> plain = http.post("/graphql").putHeader("Cookie", "shotstash_session=" + editor)
        .putHeader("Content-Type", "application/graphql")
        .sendBuffer(Buffer.buffer("mutation { createFolder(name: \"csrf\") { id } }"))
        .await();
    assertThat(plain.statusCode()).isEqualTo(403);
    assertThat(code(plain.bodyAsJsonObject())).isEqualTo("FORBIDDEN");
  }

  @Test
  void engineErrorsCarryCodesToo() {
    assertThat(code(gql(editor, "{ me { "))).isEqualTo("GRAPHQL_PARSE_FAILED");
    assertThat(code(gql(editor, "{ noSuchField }"))).isEqualTo("GRAPHQL_VALIDATION_FAILED");
    HttpResponse<Buffer> badJson = http.post("/graphql").bearerTokenAuthentication(editor)
        .putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer("{not json")).await();
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(code(badJson.bodyAsJsonObject())).isEqualTo("BAD_REQUEST");
    // a subscription needs the WebSocket
    assertThat(code(gql(editor, "subscription { jobUpdated(jobId: \"" + UUID.randomUUID() + "\") { id } }")))
        .isEqualTo("BAD_REQUEST");
    // an operation too large for the limits is refused before it runs
    StringBuilder wide = new StringBuilder("{");
    for (int i = 0; i < 600; i++) {
      wide.append(" a").append(i).append(": me { id }");
    }
    assertThat(code(gql(editor, wide.append(" }").toString()))).isEqualTo("BAD_REQUEST");
    // the full introspection query of tools like GraphiQL fits the limits
    assertThat(data(gql(editor, graphql.introspection.IntrospectionQuery.INTROSPECTION_QUERY))
        .getJsonObject("__schema")).isNotNull();
  }

  @Test
  void graphiqlIsServed() {
    HttpResponse<Buffer> page = http.get("/graphiql/").send().await();
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.getHeader("Content-Type")).startsWith("text/html");
    assertThat(page.bodyAsString()).contains("GraphiQL");
  }

  // ---- the worker contract, for the subscription ----

  static JsonObject registerWorker(String name, String kind) {
    HttpResponse<Buffer> r = http.post(PIPELINE + "/workers/register").putHeader("X-Worker-Bootstrap-Token", BOOTSTRAP)
        .sendJsonObject(new JsonObject().put("manifest", new JsonObject().put("name", name).put("version", "1.0.0")
            .put("kinds", new JsonArray().add(kind)).put("contract", 1)))
        .await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject();
  }

  static JsonObject claimNext(String workerToken) throws InterruptedException {
    for (int i = 0; i < 50; i++) {
      HttpResponse<Buffer> r = http.post(PIPELINE + "/jobs/next").putHeader("X-Worker-Token", workerToken)
          .sendJsonObject(new JsonObject()).await();
      if (r.statusCode() == 200) {
        return r.bodyAsJsonObject().getJsonObject("job");
      }
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(204);
      Thread.sleep(100);
    }
    throw new AssertionError("no job to claim");
  }

  static void workerCall(String method, String path, String workerToken, String claimToken, Buffer body,
      Map<String, String> headers) {
    HttpRequest<Buffer> req = http.request(io.vertx.core.http.HttpMethod.valueOf(method), PIPELINE + path)
        .putHeader("X-Worker-Token", workerToken).putHeader("X-Claim-Token", claimToken);
    headers.forEach(req::putHeader);
    HttpResponse<Buffer> r = req.sendBuffer(body).await();
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.bodyAsString()).isEqualTo(200);
  }

  /** A graphql-transport-ws client on the app, with the upgrade's headers. */
  static TransportClient socket(Map<String, String> headers) {
    return new TransportClient(app.vertx(), app.port(), headers);
  }

  @Test
  void aSubscriptionReceivesClaimProgressAndDoneInOrder() throws Exception {
    String kind = "acme/gql-probe";
    JsonObject reg = registerWorker("gql-probe-" + UUID.randomUUID(), kind);
    String workerToken = reg.getString("token");
    byte[] input = "some footage".getBytes(StandardCharsets.UTF_8);
    String fileId = upload(editor, "take.mov", "video/quicktime", input, library);
    String jobId = data(enqueue(editor, fileId, kind)).getJsonObject("enqueueJob").getString("id");

    try (TransportClient socket = socket(Map.of())) {
      socket.init(new JsonObject().put("Authorization", "Bearer " + user));
      // the worker moves only once the subscription listens: it reads the job when it starts, and again
      // right after it listens (its catch-up)
      CountDownLatch listening = jobReads(jobId, 2);
      socket.subscribe("1", "subscription($id: ID!) { jobUpdated(jobId: $id) { id status state progress seq error "
          + "outputVersion { id kind ext size downloadUrl } } }", new JsonObject().put("id", jobId));
      assertThat(listening.await(10, TimeUnit.SECONDS)).as("the subscription listens within 10 s").isTrue();

      List<JsonObject> views = new ArrayList<>();
      JsonObject job = claimNext(workerToken);
      assertThat(job.getString("id")).isEqualTo(jobId);
      String claim = job.getString("claimToken");
      await(socket, views, v -> "claimed".equals(v.getString("status")));
      // a late event (an older seq) and one without a seq that changes nothing emit nothing. No wait is
      // needed: they reach the subscription before the progress below (published earlier, on this node),
      // and it reads one view at a time, so anything they emitted would come before the view of 10 %
      app.vertx().eventBus().publish("pipeline.job.updated", new JsonObject().put("id", jobId).put("seq", 0));
      app.vertx().eventBus().publish("pipeline.job.updated", new JsonObject().put("id", jobId));

      workerCall("POST", "/jobs/" + jobId + "/progress", workerToken, claim,
          new JsonObject().put("progress", 10).toBuffer(), Map.of("Content-Type", "application/json"));
      JsonObject ten = await(socket, views, v -> true);
      assertThat(ten.getString("status")).isEqualTo("running");
      assertThat(ten.getInteger("progress")).isEqualTo(10);
      workerCall("POST", "/jobs/" + jobId + "/progress", workerToken, claim,
          new JsonObject().put("progress", 50).toBuffer(), Map.of("Content-Type", "application/json"));
      await(socket, views, v -> "running".equals(v.getString("status")) && v.getInteger("progress") == 50);

      Buffer output = Buffer.buffer("{\"bytes\":12}");
      workerCall("PUT", "/jobs/" + jobId + "/output", workerToken, claim, output,
          Map.of("Content-Type", "application/json", "X-Output-Ext", "json"));
      workerCall("POST", "/jobs/" + jobId + "/complete", workerToken, claim, new JsonObject().toBuffer(),
          Map.of("Content-Type", "application/json"));
      JsonObject done = await(socket, views, v -> "done".equals(v.getString("status")));
      assertThat(done.getInteger("progress")).isEqualTo(100);
      assertThat(done.getJsonObject("outputVersion").getString("downloadUrl")).startsWith("/media/p/");
      // the stream ends after a final status
      JsonObject complete = socket.next();
      assertThat(complete.getString("type")).isEqualTo("complete");
      assertThat(complete.getString("id")).isEqualTo("1");

      List<Long> seqs = views.stream().map(v -> v.getLong("seq")).toList();
      assertThat(seqs).isSorted().doesNotHaveDuplicates();
      List<String> statuses = views.stream().map(v -> v.getString("status")).toList();
      assertThat(statuses.indexOf("claimed")).isLessThan(statuses.indexOf("running"));
      assertThat(statuses.get(statuses.size() - 1)).isEqualTo("done");
    }

    // the output of the done job, downloadable by any signed-in person
    JsonObject version = data(gql(user,
        "query($id: ID!) { pipelineJob(id: $id) { status progress outputVersion { id kind "
            + "mimeType ext size attempt jobId createdAt downloadUrl } } }",
        new JsonObject().put("id", jobId)))
        .getJsonObject("pipelineJob").getJsonObject("outputVersion");
    assertThat(version.getString("kind")).isEqualTo(kind);
    assertThat(version.getString("mimeType")).isEqualTo("application/json");
    assertThat(version.getString("ext")).isEqualTo("json");
    assertThat(version.getLong("size")).isEqualTo(12L);
    assertThat(version.getInteger("attempt")).isEqualTo(1);
    assertThat(version.getString("jobId")).isEqualTo(jobId);
    assertThat(version.getString("downloadUrl")).isEqualTo("/media/p/" + version.getString("id"));
    HttpResponse<Buffer> download =
        http.get(version.getString("downloadUrl")).bearerTokenAuthentication(user).send().await();
    assertThat(download.statusCode()).isEqualTo(200);
    assertThat(download.bodyAsString()).isEqualTo("{\"bytes\":12}");
    assertThat(http.get(version.getString("downloadUrl")).send().await().statusCode()).isEqualTo(401);
    JsonObject file = data(gql(user, "query($id: ID!) { file(id: $id) { processedVersions { id } currentJob { id } } }",
        new JsonObject().put("id", fileId))).getJsonObject("file");
    assertThat(file.getJsonArray("processedVersions").getJsonObject(0).getString("id"))
        .isEqualTo(version.getString("id"));
    assertThat(file.getValue("currentJob")).isNull();
  }

  /**
   * Counts down on each read of {@code jobId}'s view ({@code job} on pipeline.queue) from now on,
   * until {@code reads} were seen; the count stops there.
   */
  static CountDownLatch jobReads(String jobId, int reads) {
    CountDownLatch latch = new CountDownLatch(reads);
    EventBus bus = app.vertx().eventBus();
    Handler<DeliveryContext<Object>> counter = new Handler<>() {
      @Override
      public void handle(DeliveryContext<Object> delivery) {
        Message<Object> m = delivery.message();
        if (Addresses.PIPELINE_QUEUE.equals(m.address()) && QueueActions.JOB.equals(m.headers().get(Addresses.ACTION))
            && m.body() instanceof JsonObject body && jobId.equals(body.getString("jobId"))) {
          latch.countDown();
          if (latch.getCount() == 0) {
            bus.removeOutboundInterceptor(this);
          }
        }
        delivery.next();
      }
    };
    bus.addOutboundInterceptor(counter);
    return latch;
  }

  /** Reads subscription messages until a view matches; every view is kept in order. */
  static JsonObject await(TransportClient socket, List<JsonObject> views, Predicate<JsonObject> match)
      throws InterruptedException {
    while (true) {
      JsonObject m = socket.next();
      assertThat(m.getString("type")).as(m.encode()).isEqualTo("next");
      JsonObject payload = m.getJsonObject("payload");
      assertThat(payload.getJsonArray("errors")).as(m.encode()).isNull();
      JsonObject view = payload.getJsonObject("data").getJsonObject("jobUpdated");
      views.add(view);
      if (match.test(view)) {
        return view;
      }
    }
  }

  @Test
  void theWebSocketKnowsItsCaller() throws Exception {
    // anonymous: every operation is refused
    try (TransportClient socket = socket(Map.of())) {
      socket.init(new JsonObject());
      socket.subscribe("a", "{ me { slug } }", new JsonObject());
      JsonObject m = socket.next();
      assertThat(m.getString("id")).isEqualTo("a");
      JsonObject payload =
          m.getString("type").equals("error") ? new JsonObject().put("errors", m.getJsonArray("payload"))
              : m.getJsonObject("payload");
      assertThat(code(payload)).isEqualTo("UNAUTHENTICATED");
    }
    // the upgrade's bearer header
    try (TransportClient socket = socket(Map.of("Authorization", "Bearer " + editor))) {
      socket.init(new JsonObject());
      socket.subscribe("b", "{ me { slug } }", new JsonObject());
      JsonObject m = socket.next();
      assertThat(m.getString("type")).isEqualTo("next");
      assertThat(m.getJsonObject("payload").getJsonObject("data").getJsonObject("me").getString("slug"))
          .isEqualTo("eddie");
    }
    // the session cookie, from this site
    try (TransportClient socket = socket(Map.of("Cookie", "shotstash_session=" + user,
        "Origin", "http://127.0.0.1:" + app.port()))) {
      socket.init(null);
      socket.subscribe("c", "subscription($id: ID!) { jobUpdated(jobId: $id) { id } }",
          new JsonObject().put("id", UUID.randomUUID().toString()));
      JsonObject m = socket.next();
      JsonObject payload =
          m.getString("type").equals("error") ? new JsonObject().put("errors", m.getJsonArray("payload"))
              : m.getJsonObject("payload");
      assertThat(code(payload)).isEqualTo("JOB_NOT_FOUND");
    }
    // a cookie from another site is refused at the upgrade
    WebSocketClient client = app.vertx().createWebSocketClient();
    try {
      Throwable refused = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(app.port())
          .setURI("/graphql").addSubProtocol("graphql-transport-ws")
          .addHeader("Cookie", "shotstash_session=" + user).addHeader("Origin", "https://evil.example"))
          .map(ws -> (Throwable) null).otherwise(err -> err).await();
      assertThat(refused).isInstanceOf(io.vertx.core.http.UpgradeRejectedException.class);
      assertThat(((io.vertx.core.http.UpgradeRejectedException) refused).getStatus()).isEqualTo(403);
    } finally {
      client.close().await();
    }
  }
}
