package io.shotstash.http.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shotstash.testing.Folders;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The GraphQL WebSocket acts as its session is now, not as it was when the socket opened: a logout
 * closes it (4401) and refuses the operation, a level change applies at the next operation, and a
 * running subscription ends with the session. Also the protocol's refusals, and the limits on
 * mutations (per operation, and the writes a minute they share with the REST API).
 */
class GraphqlSocketTest extends WithSignedInApp {
  static final String BOOTSTRAP = "graphql-socket-bootstrap-token-0123456789";
  static WebClient http;

  @BeforeAll
  static void start() {
    startWithWorkers(BOOTSTRAP);
    http = app.client();
  }

  private static TransportClient socket() {
    return new TransportClient(app.vertx(), app.port(), Map.of());
  }

  private static JsonObject bearer(String token) {
    return new JsonObject().put("Authorization", "Bearer " + token);
  }

  private static String person(String slug, String level) {
    return app.createAndLogin(admin, slug, level, slug + " password 123");
  }

  private static void logout(String token) {
    HttpResponse<Buffer> r = http.post("/api/auth/logout").bearerTokenAuthentication(token)
        .sendJsonObject(new JsonObject()).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
  }

  /** A socket initialised with {@code token}, whose first operation checks it acts as {@code slug}. */
  private static TransportClient signedIn(String token, String slug) throws InterruptedException {
    TransportClient socket = socket();
    socket.init(bearer(token));
    assertThat(socket.run("1", "{ me { slug } }").getJsonObject("data").getJsonObject("me").getString("slug"))
        .isEqualTo(slug);
    return socket;
  }

  /** The folder names the administrator sees: what the refused mutations did not create. */
  private static String folderNames() {
    HttpResponse<Buffer> folders = http.post("/graphql").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("query", "{ folders { name } }")).await();
    return folders.bodyAsString();
  }

  private static String code(JsonObject payload) {
    JsonArray errors = payload.getJsonArray("errors");
    assertThat(errors).as(payload.encode()).isNotNull();
    return errors.getJsonObject(0).getJsonObject("extensions").getString("code");
  }

  // ---- the caller, operation by operation ----

  @Test
  void aLogoutClosesTheSocketAndRefusesTheOperation() throws Exception {
    String token = person("lou", "editor");
    try (TransportClient socket = signedIn(token, "lou")) {
      logout(token);
      // the logout closes the socket at once; a mutation sent meanwhile is refused by its own check
      socket.trySubscribe("2", "mutation { createFolder(name: \"after logout\") { id } }");
      TransportClient.Closed closed = socket.awaitClose();
      assertThat(closed.code()).isEqualTo(4401);
      assertThat(socket.pending()).as("nothing ran").isZero();
    }
    assertThat(folderNames()).doesNotContain("after logout");
  }

  @Test
  void aSessionThatEndedWithoutASignalIsRefusedAtTheNextOperation() throws Exception {
    String token = person("exa", "editor");
    try (TransportClient socket = signedIn(token, "exa")) {
      // the session expires (no logout, so no broadcast): the next operation checks and refuses
      app.db().execute("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE person_id = "
          + "(SELECT person_id FROM private_profiles WHERE email = 'exa@example.org')");
      socket.subscribe("2", "mutation { createFolder(name: \"after expiry\") { id } }", new JsonObject());
      assertThat(socket.awaitClose().code()).isEqualTo(4401);
      assertThat(socket.pending()).as("nothing ran").isZero();
    }
    assertThat(folderNames()).doesNotContain("after expiry");
  }

  @Test
  void aLevelChangeAppliesAtTheNextOperation() throws Exception {
    String token = person("bea", "administrator");
    try (TransportClient socket = socket()) {
      socket.init(bearer(token));
      assertThat(socket.run("1", "{ me { accountLevel } }").getJsonObject("data").getJsonObject("me")
          .getString("accountLevel")).isEqualTo("administrator");
      HttpResponse<Buffer> demote = http.post("/api/people/bea/account-level").bearerTokenAuthentication(admin)
          .sendJsonObject(new JsonObject().put("level", "user")).await();
      assertThat(demote.statusCode()).as(demote.bodyAsString()).isEqualTo(200);

      assertThat(socket.run("2", "{ me { accountLevel } }").getJsonObject("data").getJsonObject("me")
          .getString("accountLevel")).isEqualTo("user");
      // an administrator's mutation is refused for what she is now (as an administrator: NOT_FOUND)
      JsonObject revoke = socket.run("3", "mutation { revokeWorker(id: \"" + UUID.randomUUID() + "\") { id } }");
      assertThat(code(revoke)).isEqualTo("FORBIDDEN");
    }
  }

  @Test
  void aRunningSubscriptionEndsWithItsSession() throws Exception {
    String token = person("sam", "editor");
    String jobId = queuedJob(token);
    try (TransportClient socket = socket()) {
      socket.init(bearer(token));
      socket.subscribe("s", "subscription($id: ID!) { jobUpdated(jobId: $id) { id status } }",
          new JsonObject().put("id", jobId));
      // the subscription runs: a query on the same socket is answered after it started
      assertThat(socket.run("q", "{ me { slug } }").getJsonObject("data").getJsonObject("me").getString("slug"))
          .isEqualTo("sam");
      logout(token);
      assertThat(socket.awaitClose().code()).isEqualTo(4401);
    }
  }

  @Test
  void aPurgedPersonsSocketCloses() throws Exception {
    String token = person("pat", "user");
    try (TransportClient socket = signedIn(token, "pat")) {
      HttpResponse<Buffer> purge = http.post("/api/people/pat/purge").bearerTokenAuthentication(admin)
          .sendJsonObject(new JsonObject().put("reason", "test purge").put("spam", false)).await();
      assertThat(purge.statusCode()).as(purge.bodyAsString()).isBetween(200, 201);
      assertThat(socket.awaitClose().code()).isEqualTo(4401);
    }
  }

  @Test
  void anAnonymousSocketStaysAnonymous() throws Exception {
    try (TransportClient socket = socket()) {
      socket.init(new JsonObject());
      assertThat(code(socket.run("1", "{ me { slug } }"))).isEqualTo("UNAUTHENTICATED");
      assertThat(code(socket.run("2", "{ me { slug } }"))).isEqualTo("UNAUTHENTICATED");
    }
    // a token that names nobody at the start: anonymous, not closed
    try (TransportClient socket = socket()) {
      socket.init(bearer("no-such-session"));
      assertThat(code(socket.run("1", "{ me { slug } }"))).isEqualTo("UNAUTHENTICATED");
    }
  }

  // ---- the protocol's refusals ----

  @Test
  void aFrameThatIsNotJsonClosesWith4400AndLogsNoError() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    try (TransportClient socket = socket()) {
      socket.init(new JsonObject());
      socket.sendText("this is not json {");
      TransportClient.Closed closed = socket.awaitClose();
      assertThat(closed.code()).isEqualTo(4400);
    } finally {
      root.detachAppender(logs);
    }
    assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).isEmpty();
  }

  @Test
  void protocolRefusals() throws Exception {
    try (TransportClient socket = socket()) {
      socket.subscribe("early", "{ me { slug } }", new JsonObject());
      assertThat(socket.awaitClose().code()).isEqualTo(4401);
    }
    try (TransportClient socket = socket()) {
      socket.init(new JsonObject());
      socket.send(new JsonObject().put("type", "connection_init"));
      assertThat(socket.awaitClose().code()).isEqualTo(4429);
    }
    try (TransportClient socket = socket()) {
      socket.init(new JsonObject());
      socket.send(new JsonObject().put("type", "ping").put("payload", new JsonObject().put("n", 1)));
      JsonObject pong = socket.next();
      assertThat(pong.getString("type")).isEqualTo("pong");
      assertThat(pong.getJsonObject("payload").getInteger("n")).isEqualTo(1);
      socket.send(new JsonObject().put("type", "who-knows"));
      assertThat(socket.awaitClose().code()).isEqualTo(4400);
    }
    String token = person("dee", "editor");
    String jobId = queuedJob(token);
    try (TransportClient socket = socket()) {
      socket.init(bearer(token));
      String follow = "subscription($id: ID!) { jobUpdated(jobId: $id) { id } }";
      socket.subscribe("same", follow, new JsonObject().put("id", jobId));
      socket.subscribe("same", follow, new JsonObject().put("id", jobId));
      assertThat(socket.awaitClose().code()).isEqualTo(4409);
    }
    // a syntax error is the protocol's error message, with the engine's code
    try (TransportClient socket = socket()) {
      socket.init(bearer(token));
      socket.subscribe("bad", "{ me { ", new JsonObject());
      JsonObject error = socket.next();
      assertThat(error.getString("type")).isEqualTo("error");
      assertThat(error.getJsonArray("payload").getJsonObject(0).getJsonObject("extensions").getString("code"))
          .isEqualTo("GRAPHQL_PARSE_FAILED");
    }
  }

  // ---- mutations count as writes ----

  @Test
  void oneOperationHoldsAtMostTenMutations() throws Exception {
    String token = person("max", "editor");
    StringBuilder eleven = new StringBuilder("mutation {");
    for (int i = 0; i < 11; i++) {
      eleven.append(" f").append(i).append(": createFolder(name: \"many-").append(i).append("\") { id }");
    }
    JsonObject answer = post(token, eleven.append(" }").toString());
    assertThat(code(answer)).isEqualTo("TOO_MANY_MUTATIONS");
    assertThat(post(token, "{ folders { name } }").encode()).doesNotContain("many-");
    // fragments count too
    StringBuilder spread = new StringBuilder("mutation { ...a ...a } fragment a on Mutation {");
    for (int i = 0; i < 6; i++) {
      spread.append(" g").append(i).append(": createFolder(name: \"frag-").append(i).append("\") { id }");
    }
    assertThat(code(post(token, spread.append(" }").toString()))).isEqualTo("TOO_MANY_MUTATIONS");
    // the same over the WebSocket
    try (TransportClient socket = socket()) {
      socket.init(bearer(token));
      socket.subscribe("m", eleven.toString(), new JsonObject());
      JsonObject error = socket.next();
      assertThat(error.getString("type")).isEqualTo("error");
      assertThat(error.getJsonArray("payload").getJsonObject(0).getJsonObject("extensions").getString("code"))
          .isEqualTo("TOO_MANY_MUTATIONS");
    }
  }

  @Test
  void everyMutationCountsAgainstTheWritesAMinute() {
    String token = person("rae", "editor");
    // 30 writes a minute: three operations of ten mutations each use them all
    for (int round = 0; round < 3; round++) {
      StringBuilder ten = new StringBuilder("mutation {");
      for (int i = 0; i < 10; i++) {
        ten.append(" f").append(i).append(": createFolder(name: \"w").append(round).append('-').append(i)
            .append("\") { id }");
      }
      JsonObject answer = post(token, ten.append(" }").toString());
      assertThat(answer.getJsonArray("errors")).as(answer.encode()).isNull();
    }
    JsonObject refused = post(token, "mutation { createFolder(name: \"one too many\") { id } }");
    assertThat(code(refused)).isEqualTo("RATE_LIMITED");
    // the REST API's writes share the counter
    HttpResponse<Buffer> rest = http.patch("/api/people/rae").bearerTokenAuthentication(token)
        .sendJsonObject(new JsonObject().put("bio", "still here")).await();
    assertThat(rest.statusCode()).as(rest.bodyAsString()).isEqualTo(429);
  }

  // ---- helpers ----

  private static JsonObject post(String token, String query) {
    HttpResponse<Buffer> r = http.post("/graphql").bearerTokenAuthentication(token)
        .sendJsonObject(new JsonObject().put("query", query)).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  /** A job of a kind some worker runs, queued on a fresh upload, not yet claimed. */
  private static String queuedJob(String token) {
    String kind = "acme/socket-" + UUID.randomUUID().toString().substring(0, 8);
    HttpResponse<Buffer> reg =
        http.post("/api/v1/pipeline/workers/register").putHeader("X-Worker-Bootstrap-Token", BOOTSTRAP)
            .sendJsonObject(new JsonObject().put("manifest", new JsonObject().put("name", "socket-" + UUID.randomUUID())
                .put("version", "1.0.0").put("kinds", new JsonArray().add(kind)).put("contract", 1)))
            .await();
    assertThat(reg.statusCode()).as(reg.bodyAsString()).isEqualTo(201);
    HttpResponse<Buffer> up = http.post("/api/v1/files").bearerTokenAuthentication(token)
        .addQueryParam("folderId", Folders.create(http, token, "socket"))
        .putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", "clip.mp4")
        .sendBuffer(Buffer.buffer("not really a video".getBytes(StandardCharsets.UTF_8))).await();
    assertThat(up.statusCode()).as(up.bodyAsString()).isEqualTo(201);
    String fileId = up.bodyAsJsonObject().getJsonObject("data").getString("id");
    return enqueue(token, fileId, kind);
  }

  private static String enqueue(String token, String fileId, String kind) {
    HttpResponse<Buffer> r = http.post("/graphql").bearerTokenAuthentication(token)
        .sendJsonObject(
            new JsonObject().put("query", "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id } }")
                .put("variables", new JsonObject().put("f", fileId).put("k", kind)))
        .await();
    JsonObject answer = r.bodyAsJsonObject();
    assertThat(answer.getJsonArray("errors")).as(answer.encode()).isNull();
    return answer.getJsonObject("data").getJsonObject("enqueueJob").getString("id");
  }
}
