package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.shotstash.testing.Folders;
import io.shotstash.testing.LogCapture;
import io.shotstash.testing.RawHttp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the app does with requests it cannot take as they are, over real HTTP: text it cannot store
 * (U+0000, lone surrogates) is refused on the field, never stored altered and never a 500.
 */
class RequestBoundaryHttpTest extends WithSignedInApp {
  static final String BOUNCE_SECRET = "bounce-secret-0123456789-0123456789";
  /** The folder every upload goes to (an upload needs one). */
  static String folder;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("SHOTSTASH_BOUNCE_SECRET", BOUNCE_SECRET));
    folder = Folders.create(app.client(), admin, "inputs");
  }

  /** Posts JSON text as written: escapes such as a lone surrogate survive only in hand-written JSON. */
  static HttpResponse<Buffer> postJson(String path, String bearer, String json) {
    var req = app.client().post(path).putHeader("Content-Type", "application/json");
    if (bearer != null) {
      req.bearerTokenAuthentication(bearer);
    }
    return req.sendBuffer(Buffer.buffer(json)).await();
  }

  static JsonObject refusedField(HttpResponse<Buffer> r, String field) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(422);
    JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
    assertThat(error.getString("code")).isEqualTo("validation_failed");
    assertThat(error.getJsonObject("fields").getString(field)).as(r.bodyAsString()).isNotBlank();
    return error;
  }

  static long count(String sql) {
    return app.db().number(sql);
  }

  @Test
  void textThePrivateStoreCannotHoldIsRefusedOnTheField() throws Exception {
    try (LogCapture log = LogCapture.start()) {
      refusedField(postJson("/api/auth/login", null,
          "{\"login\":\"a\\u0000b@example.org\",\"password\":\"whatever it is\"}"), "login");
      refusedField(postJson("/api/people", admin,
          "{\"slug\":\"nul-mail\",\"fullName\":\"Nul Mail\",\"email\":\"n\\u0000@example.org\"}"), "email");
      refusedField(postJson("/api/_webhooks/email-bounce", BOUNCE_SECRET,
          "{\"email\":\"x\\u0000@example.org\",\"type\":\"hard\"}"), "email");
      assertThat(log.at(Level.ERROR)).as("nothing is an error on our side").isEmpty();
    }
    assertThat(app.publicState().current().personBySlug("nul-mail")).isEmpty();
  }

  @Test
  void anEmailWithALoneSurrogateIsRefusedNotStoredAsAQuestionMark() throws Exception {
    HttpResponse<Buffer> r = postJson("/api/people", admin,
        "{\"slug\":\"surrogate-mail\",\"fullName\":\"Sur Rogate\",\"email\":\"s\\ud800@example.org\"}");
    refusedField(r, "email");
    assertThat(app.publicState().current().personBySlug("surrogate-mail")).isEmpty();
    assertThat(count("SELECT count(*) FROM private_profiles WHERE email LIKE 's%@example.org'")).isZero();
  }

  @Test
  void textGitCannotHoldIsRefusedBeforeAnyCommit() throws Exception {
    String head;
    try (var repo = app.openRepository()) {
      head = repo.resolve("refs/heads/published").name();
    }
    try (LogCapture log = LogCapture.start()) {
      // a lone low surrogate, and a high one at the end of the value
      refusedField(postJson("/api/people", admin,
          "{\"slug\":\"surrogate-name\",\"fullName\":\"S\\udc00x\",\"email\":\"sn@example.org\"}"), "fullName");
      refusedField(postJson("/api/people", admin,
          "{\"slug\":\"surrogate-name\",\"fullName\":\"Sx\\ud83d\",\"email\":\"sn@example.org\"}"), "fullName");
      assertThat(log.at(Level.ERROR)).isEmpty();
    }
    try (var repo = app.openRepository()) {
      assertThat(repo.resolve("refs/heads/published").name()).isEqualTo(head);
    }
    // a proper pair (an emoji) is text like any other
    HttpResponse<Buffer> ok = postJson("/api/people", admin,
        "{\"slug\":\"emoji-name\",\"fullName\":\"Emo \\ud83d\\ude00 Ji\",\"email\":\"ej@example.org\"}");
    assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(201);
    assertThat(ok.bodyAsJsonObject().getJsonObject("data").getString("fullName")).isEqualTo("Emo \uD83D\uDE00 Ji");
  }

  // ---- requests HTTP itself refuses ----

  static JsonObject envelopeRefusal(RawHttp.Response r, int status, String code) {
    assertThat(r.status()).as(r.toString()).isEqualTo(status);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
    JsonObject body = new JsonObject(r.text());
    assertThat(body.getBoolean("success")).isFalse();
    JsonObject error = body.getJsonObject("error");
    assertThat(error.getString("code")).isEqualTo(code);
    assertThat(error.getString("message")).isNotBlank();
    assertThat(error.getString("traceId")).isNotBlank();
    return error;
  }

  @Test
  void anHttp11RequestWithoutHostIsBadRequestNotAFault() throws Exception {
    try (LogCapture log = LogCapture.start()) {
      JsonObject error =
          envelopeRefusal(RawHttp.exchange(app.port(), "GET /api/auth/me HTTP/1.1\r\n\r\n"), 400, "bad_request");
      assertThat(error.getString("message")).contains("Host");
      envelopeRefusal(RawHttp.exchange(app.port(), "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n"), 400,
          "bad_request");
      envelopeRefusal(RawHttp.exchange(app.port(), "POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 2\r\n\r\n{}"), 400, "bad_request");
      assertThat(log.at(Level.ERROR)).as("a client's mistake is not an error on our side").isEmpty();
    }
    // HTTP/1.0 does not require Host
    RawHttp.Response old = RawHttp.exchange(app.port(), "GET /health HTTP/1.0\r\n\r\n");
    assertThat(old.status()).as(old.toString()).isEqualTo(200);
  }

  @Test
  void aRequestHttpCannotParseIsAnsweredInJsonAndTheConnectionCloses() throws Exception {
    try (RawHttp raw = new RawHttp(app.port())) {
      RawHttp.Response r = raw.send("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: 12abc\r\n\r\n{}").read();
      envelopeRefusal(r, 400, "bad_request");
      assertThat(r.header("Connection")).isEqualTo("close");
    }
    // a NUL byte in a header value
    envelopeRefusal(
        RawHttp.exchange(app.port(), "GET /api/auth/me HTTP/1.1\r\nHost: x\r\nUser-Agent: a\u0000b\r\n\r\n"),
        400, "bad_request");
    // a header block over Netty's limit
    envelopeRefusal(RawHttp.exchange(app.port(), "GET /api/auth/me HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(20_000)
        + "\r\n\r\n"), 431, "headers_too_large");
  }

  // ---- clients that go away ----

  @Test
  void aClientThatDropsItsUploadHalfwayIsLoggedAtInfoNotError() throws Exception {
    try (LogCapture log = LogCapture.start()) {
      try (RawHttp raw = new RawHttp(app.port())) {
        raw.send(
            "POST /api/v1/files?folderId=" + folder + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin + "\r\n"
                + "Content-Type: video/mp4\r\nX-File-Name: cut.mp4\r\nContent-Length: 1000000\r\n"
                + "Expect: 100-continue\r\n\r\n");
        assertThat(raw.read().status()).as("the upload's checks passed").isEqualTo(100);
        raw.send(new byte[1000]);
      } // the client goes away with 999,000 bytes unsent
      ILoggingEvent dropped = log.await(app.vertx(), e -> e.getFormattedMessage().contains("/api/v1/files"));
      assertThat(dropped).as("the app notices the upload ended").isNotNull();
      assertThat(dropped.getLevel()).as(dropped.getFormattedMessage()).isEqualTo(Level.INFO);
      assertThat(dropped.getThrowableProxy()).as("no stack trace for a client going away").isNull();
      assertThat(log.at(Level.ERROR)).isEmpty();
    }
    try (var left = java.nio.file.Files.list(app.dataDir().resolve("media").resolve("tmp"))) {
      assertThat(left.toList()).as("the partial upload is deleted").isEmpty();
    }
    assertThat(count("SELECT count(*) FROM media_files WHERE name = 'cut.mp4'")).isZero();
  }

  /** The head of an upload the app refuses (no such folder), declaring {@code length} bytes of body. */
  static String refusedUploadHead(long length) {
    return "POST /api/v1/files?folderId=" + UUID.randomUUID() + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
        + admin + "\r\nContent-Type: video/mp4\r\nX-File-Name: lost.mp4\r\nContent-Length: " + length + "\r\n\r\n";
  }

  @Test
  @Timeout(60)
  void anUploadRefusedWhileItsBodyIsStillComingIsAnsweredAndItsConnectionClosed() throws Exception {
    // more than loopback's socket buffers hold: a server that left the body unread would block this
    // send for good, and one that closed at once would reset the connection and lose the answer
    byte[] body = new byte[12 << 20];
    try (RawHttp raw = new RawHttp(app.port())) {
      raw.send(refusedUploadHead(body.length));
      raw.send(body);
      RawHttp.Response refused = raw.read();
      assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
      JsonObject error = new JsonObject(refused.text()).getJsonObject("error");
      assertThat(error.getString("code")).isEqualTo("validation_failed");
      assertThat(error.getJsonObject("fields").getString("folderId")).isNotBlank();
      assertThat(refused.header("Connection")).isEqualTo("close");
    }
    assertThat(count("SELECT count(*) FROM media_files WHERE name = 'lost.mp4'")).isZero();
  }

  @Test
  void aRefusedBodyThatStopsComingHasItsConnectionClosed() throws Exception {
    try (RawHttp raw = new RawHttp(app.port())) {
      raw.send(refusedUploadHead(1_000_000)).send(new byte[1000]);
      RawHttp.Response refused = raw.read();
      assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
      assertThat(refused.header("Connection")).isEqualTo("close");
      // the client sends nothing more: the app does not wait for the rest for ever
      assertThat(raw.closedWithin(15_000)).isTrue();
    }
  }

  @Test
  void aRefusedBodyThatKeepsTricklingIsNotReadForEver() throws Exception {
    try (RawHttp raw = new RawHttp(app.port())) {
      raw.send(refusedUploadHead(1_000_000)).send(new byte[1000]);
      assertThat(raw.read().status()).isEqualTo(422);
      // a byte every 200 ms keeps the connection from going idle; the app still closes it (5 s at
      // most); 15 s is the test's patience, not the rule
      boolean closed = false;
      for (int i = 0; i < 75 && !closed; i++) {
        try {
          raw.send(new byte[1]);
          closed = raw.closedWithin(200);
        } catch (IOException e) {
          closed = true; // the write met the closed connection
        }
      }
      assertThat(closed).isTrue();
    }
  }

  // ---- X-File-Name ----

  /** {@code POST /api/v1/files} with the name's bytes written into the header as they are. */
  static RawHttp.Response uploadNamed(byte[] name) throws Exception {
    java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
    req.write(
        ("POST /api/v1/files?folderId=" + folder + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin + "\r\n"
            + "Content-Type: video/mp4\r\nContent-Length: 5\r\nX-File-Name: ").getBytes(StandardCharsets.US_ASCII));
    req.write(name);
    req.write("\r\n\r\nhello".getBytes(StandardCharsets.US_ASCII));
    return RawHttp.exchange(app.port(), req.toByteArray());
  }

  @Test
  void aFileNameSentAsRawUtf8IsStoredAsSent() throws Exception {
    for (String name : new String[]{"Café ☕.mp4", "Café.mp4", "日本語 😀.mov"}) {
      RawHttp.Response r = uploadNamed(name.getBytes(StandardCharsets.UTF_8));
      assertThat(r.status()).as(r.toString()).isEqualTo(201);
      JsonObject file = new JsonObject(r.text()).getJsonObject("data");
      assertThat(file.getString("name")).isEqualTo(name);
      HttpResponse<Buffer> download =
          app.client().get("/media/o/" + file.getString("id")).bearerTokenAuthentication(admin)
              .send().await();
      assertThat(download.statusCode()).isEqualTo(200);
      assertThat(download.getHeader("Content-Disposition")).contains("filename*=UTF-8''"
          + java.net.URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20"));
    }
  }

  @Test
  void aFileNameThatIsNotUtf8IsRefusedNotStoredGarbled() throws Exception {
    byte[] latin1 = "Résumé-latin1.mp4".getBytes(StandardCharsets.ISO_8859_1); // lone 0xE9 bytes
    RawHttp.Response r = uploadNamed(latin1);
    assertThat(r.status()).as(r.toString()).isEqualTo(422);
    JsonObject error = new JsonObject(r.text()).getJsonObject("error");
    assertThat(error.getString("code")).isEqualTo("validation_failed");
    assertThat(error.getJsonObject("fields").getString("X-File-Name")).contains("UTF-8");
    assertThat(count("SELECT count(*) FROM media_files WHERE name LIKE '%latin1.mp4'")).isZero();
  }
}
