package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** Setup gate, setup, password sessions and account administration, over real HTTP. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AccountsHttpTest {
  static TestApp app;
  static WebClient http;
  static String adminToken;

  @BeforeAll
  static void start() {
    app = TestApp.start();
    http = app.client();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /** Asserts that {@code r} is the error envelope with {@code status} and the error {@code code}. */
  static void error(HttpResponse<Buffer> r, int status, String code) {
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(error(r).getString("code")).isEqualTo(code);
  }

  static JsonObject error(HttpResponse<Buffer> r) {
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getJsonObject("error").getString("traceId")).isNotBlank();
    assertThat(body.getJsonObject("metadata").getString("timestamp")).isNotBlank();
    return body.getJsonObject("error");
  }

  @Test
  @Order(1)
  void everyApiAnswersSetupRequiredUntilSetupIsDone() {
    HttpResponse<Buffer> me = http.get("/api/auth/me").send().await();
    error(me, 503, "SETUP_REQUIRED");
    HttpResponse<Buffer> login = http.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", "x").put("password", "y")).await();
    assertThat(login.statusCode()).isEqualTo(503);
    // health and readiness are not behind the gate
    assertThat(http.get("/health").send().await().statusCode()).isEqualTo(200);
    HttpResponse<Buffer> ready = http.get("/ready").send().await();
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.bodyAsJsonObject().getJsonObject("checks").getBoolean("migrations")).isTrue();
  }

  @Test
  @Order(2)
  void setupRefusesAWrongTokenAndBadFields() {
    JsonObject body = new JsonObject().put("slug", "ada").put("fullName", "Ada Admin")
        .put("email", "ada@example.org").put("password", TestApp.ADMIN_PASSWORD);
    HttpResponse<Buffer> noToken = http.post("/api/setup").sendJsonObject(body).await();
    assertThat(noToken.statusCode()).isEqualTo(401);
    HttpResponse<Buffer> wrong = http.post("/api/setup").putHeader("X-Setup-Token", "wrong-token-wrong-token")
        .sendJsonObject(body).await();
    error(wrong, 401, "unauthenticated");

    HttpResponse<Buffer> bad = http.post("/api/setup").putHeader("X-Setup-Token", TestApp.SETUP_TOKEN)
        .sendJsonObject(new JsonObject().put("slug", "admin").put("fullName", "").put("email", "nope")
            .put("password", "short").put("extra", 1))
        .await();
    assertThat(bad.statusCode()).isEqualTo(422);
    JsonObject fields = error(bad).getJsonObject("fields");
    assertThat(fields.fieldNames()).containsExactlyInAnyOrder("slug", "fullName", "email", "password", "extra");
    assertThat(fields.getString("slug")).isEqualTo("is reserved");
  }

  @Test
  @Order(3)
  void setupCreatesTheFirstAdministratorOnce() {
    adminToken = app.setupAndLogin();
    HttpResponse<Buffer> again = http.post("/api/setup").putHeader("X-Setup-Token", TestApp.SETUP_TOKEN)
        .sendJsonObject(new JsonObject().put("slug", "bob").put("fullName", "Bob").put("email", "bob@example.org")
            .put("password", TestApp.ADMIN_PASSWORD))
        .await();
    error(again, 409, "conflict");
  }

  @Test
  @Order(4)
  void loginWithSlugOrEmailAndReadMe() {
    HttpResponse<Buffer> wrong = http.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", "ada").put("password", "not the password")).await();
    error(wrong, 401, "invalid_credentials");
    HttpResponse<Buffer> unknown = http.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", "nobody@example.org").put("password", "whatever it is")).await();
    assertThat(unknown.statusCode()).isEqualTo(401);

    HttpResponse<Buffer> byEmail = http.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", "ADA@example.org").put("password", TestApp.ADMIN_PASSWORD))
        .await();
    assertThat(byEmail.statusCode()).isEqualTo(200);
    String cookie =
        byEmail.cookies().stream().filter(c -> c.startsWith("shotstash_session=")).findFirst().orElseThrow();
    assertThat(cookie).containsIgnoringCase("HttpOnly").contains("SameSite=Lax");

    HttpResponse<Buffer> me = http.get("/api/auth/me").bearerTokenAuthentication(adminToken).send().await();
    assertThat(me.statusCode()).isEqualTo(200);
    JsonObject person = me.bodyAsJsonObject().getJsonObject("data");
    assertThat(person.getString("slug")).isEqualTo("ada");
    assertThat(person.getString("accountLevel")).isEqualTo("administrator");
    assertThat(person.getString("email")).isEqualTo("ada@example.org");

    String cookieValue = cookie.substring("shotstash_session=".length(), cookie.indexOf(';'));
    HttpResponse<Buffer> viaCookie = http.get("/api/auth/me").putHeader("Cookie", "shotstash_session=" + cookieValue)
        .send().await();
    assertThat(viaCookie.statusCode()).isEqualTo(200);
  }

  @Test
  @Order(5)
  void aCookieCallerMustSendJsonToChangeAnything() {
    String token = app.login("ada", TestApp.ADMIN_PASSWORD);
    HttpResponse<Buffer> form = http.post("/api/auth/logout").putHeader("Cookie", "shotstash_session=" + token)
        .putHeader("Content-Type", "application/x-www-form-urlencoded").sendBuffer(Buffer.buffer("a=b")).await();
    error(form, 403, "forbidden");
    // the session still works: the refused request changed nothing
    assertThat(http.get("/api/auth/me").bearerTokenAuthentication(token).send().await().statusCode()).isEqualTo(200);
  }

  @Test
  @Order(6)
  void logoutAndRevocationActAtOnce() {
    String token = app.login("ada", TestApp.ADMIN_PASSWORD);
    assertThat(http.get("/api/auth/me").bearerTokenAuthentication(token).send().await().statusCode()).isEqualTo(200);
    HttpResponse<Buffer> out = http.post("/api/auth/logout").bearerTokenAuthentication(token).send().await();
    assertThat(out.statusCode()).isEqualTo(200);
    HttpResponse<Buffer> after = http.get("/api/auth/me").bearerTokenAuthentication(token).send().await();
    error(after, 401, "unauthenticated");

    String other = app.login("ada", TestApp.ADMIN_PASSWORD);
    app.db().execute("UPDATE sessions SET revoked_at = now() WHERE revoked_at IS NULL AND id <> "
        + "(SELECT id FROM sessions WHERE revoked_at IS NULL ORDER BY issued_at LIMIT 1)");
    assertThat(http.get("/api/auth/me").bearerTokenAuthentication(other).send().await().statusCode()).isEqualTo(401);
    // a forged or garbled token is just nobody
    assertThat(http.get("/api/auth/me").bearerTokenAuthentication(other + "x").send().await().statusCode())
        .isEqualTo(401);
  }

  @Test
  @Order(7)
  void onlyAdministratorsCreatePeople() {
    JsonObject editor = app.createPerson(adminToken, "eddie", "editor", "editor password 1");
    assertThat(editor.getString("accountLevel")).isEqualTo("editor");
    assertThat(editor.getString("email")).isEqualTo("eddie@example.org");
    JsonObject body = new JsonObject().put("slug", "zed").put("fullName", "Zed").put("email", "zed@example.org");

    HttpResponse<Buffer> anonymous = http.post("/api/people").sendJsonObject(body).await();
    assertThat(anonymous.statusCode()).isEqualTo(401);
    String editorToken = app.login("eddie", "editor password 1");
    HttpResponse<Buffer> byEditor =
        http.post("/api/people").bearerTokenAuthentication(editorToken).sendJsonObject(body).await();
    error(byEditor, 403, "forbidden");
    assertThat(app.publicState().current().personBySlug("zed")).isEmpty();

    HttpResponse<Buffer> dup = http.post("/api/people").bearerTokenAuthentication(adminToken)
        .sendJsonObject(body.copy().put("slug", "EDDIE".toLowerCase()).put("email", "other@example.org")).await();
    assertThat(dup.statusCode()).isEqualTo(422);
    assertThat(error(dup).getJsonObject("fields").getString("slug")).isEqualTo("is taken");
    HttpResponse<Buffer> dupEmail = http.post("/api/people").bearerTokenAuthentication(adminToken)
        .sendJsonObject(body.copy().put("email", "Eddie@Example.org")).await();
    assertThat(dupEmail.statusCode()).isEqualTo(422);
    assertThat(error(dupEmail).getJsonObject("fields").getString("email")).isEqualTo("is taken");
  }

  @Test
  @Order(8)
  void accountLevelsChangeButTheLastAdministratorStays() {
    HttpResponse<Buffer> demoteSelf = http.post("/api/people/ada/account-level").bearerTokenAuthentication(adminToken)
        .sendJsonObject(new JsonObject().put("level", "staff")).await();
    error(demoteSelf, 409, "last_administrator");

    HttpResponse<Buffer> promote = http.post("/api/people/eddie/account-level").bearerTokenAuthentication(adminToken)
        .sendJsonObject(new JsonObject().put("level", "administrator")).await();
    assertThat(promote.statusCode()).isEqualTo(200);
    assertThat(promote.bodyAsJsonObject().getJsonObject("data").getString("accountLevel")).isEqualTo("administrator");

    // the level is read from the live record: eddie's existing session is now an administrator's
    String eddie = app.login("eddie", "editor password 1");
    HttpResponse<Buffer> demoteAda = http.post("/api/people/ada/account-level").bearerTokenAuthentication(eddie)
        .sendJsonObject(new JsonObject().put("level", "staff")).await();
    assertThat(demoteAda.statusCode()).isEqualTo(200);
    HttpResponse<Buffer> adaTries = http.post("/api/people").bearerTokenAuthentication(adminToken)
        .sendJsonObject(new JsonObject().put("slug", "zed").put("fullName", "Zed").put("email", "zed@example.org"))
        .await();
    assertThat(adaTries.statusCode()).isEqualTo(403);

    HttpResponse<Buffer> badLevel = http.post("/api/people/ada/account-level").bearerTokenAuthentication(eddie)
        .sendJsonObject(new JsonObject().put("level", "emperor")).await();
    assertThat(badLevel.statusCode()).isEqualTo(422);
    HttpResponse<Buffer> missing = http.post("/api/people/nobody-here/account-level").bearerTokenAuthentication(eddie)
        .sendJsonObject(new JsonObject().put("level", "user")).await();
    assertThat(missing.statusCode()).isEqualTo(404);
  }

  @Test
  @Order(9)
  void unknownApiRoutesAnswerJson404AndMetricsAreServed() {
    HttpResponse<Buffer> r = http.get("/api/no-such-thing").send().await();
    error(r, 404, "not_found");
    assertThat(r.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");
    HttpResponse<Buffer> metrics = http.get("/metrics").send().await();
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.bodyAsString()).contains("jvm_memory_used_bytes");
    HttpResponse<Buffer> notJson = http.post("/api/auth/login").putHeader("Content-Type", "application/json")
        .sendBuffer(Buffer.buffer("{nope")).await();
    assertThat(notJson.statusCode()).isEqualTo(422);
  }

  @Test
  @Order(10)
  void tenFailedLoginsAMinuteLockTheAccountForAWhile() {
    app.createPerson(app.login("eddie", "editor password 1"), "fay", "user", "fay password 12"); // ada is staff now
    for (int i = 0; i < 10; i++) {
      HttpResponse<Buffer> r = http.post("/api/auth/login")
          .sendJsonObject(new JsonObject().put("login", "fay").put("password", "wrong " + i)).await();
      assertThat(r.statusCode()).isEqualTo(401);
    }
    HttpResponse<Buffer> locked = http.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", "fay").put("password", "fay password 12")).await();
    error(locked, 429, "rate_limited");
    assertThat(Integer.parseInt(locked.getHeader("Retry-After"))).isBetween(1, 60);
  }

  @Test
  @Order(11)
  void noTokenOrPasswordIsLoggedOrCommitted() throws Exception {
    try (var repo = app.openRepository(); var git = new org.eclipse.jgit.api.Git(repo)) {
      for (var commit : git.log().call()) {
        String message = commit.getFullMessage();
        assertThat(message).doesNotContain("@example.org").doesNotContain(TestApp.ADMIN_PASSWORD);
        assertThat(commit.getAuthorIdent().getEmailAddress()).endsWith("@users.noreply.codeforphilly.org");
      }
    }
  }
}
