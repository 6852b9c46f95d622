package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/auth/login} over real HTTP: what it accepts from a browser (login CSRF) and how
 * failed attempts are counted. The route allows 30 calls a minute per client IP, and every test
 * here calls from 127.0.0.1: the class makes 28 counted logins (refusals of the CSRF guard are not
 * counted); keep it below 30.
 */
class LoginHttpTest extends WithSignedInApp {
  static final String PASSWORD = "gil password 123";
  static WebClient http;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of());
    http = app.client();
    for (String slug : new String[]{"gil", "hal", "ivy"}) {
      app.createPerson(admin, slug, "user", PASSWORD);
    }
  }

  static String site() {
    return "http://127.0.0.1:" + app.port();
  }

  static HttpResponse<Buffer> login(String login, String password) {
    return http.post("/api/auth/login").sendJsonObject(new JsonObject().put("login", login).put("password", password))
        .await();
  }

  static JsonObject error(HttpResponse<Buffer> r) {
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getJsonObject("error").getString("traceId")).isNotBlank();
    return body.getJsonObject("error");
  }

  static boolean setsSession(HttpResponse<Buffer> r) {
    return r.cookies().stream()
        .anyMatch(c -> c.startsWith("shotstash_session=") || c.startsWith("__Host-shotstash_session="));
  }

  // ---- login CSRF ----

  @Test
  void aCrossSiteFormCannotSignABrowserIn() {
    String form = new JsonObject().put("login", "gil").put("password", PASSWORD).encode();
    // what <form enctype="text/plain"> on another site sends: no preflight, cookies set on answer
    for (String type : new String[]{"text/plain", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x"}) {
      HttpResponse<Buffer> r = http.post("/api/auth/login").putHeader("Content-Type", type)
          .putHeader("Origin", "https://evil.example").sendBuffer(Buffer.buffer(form)).await();
      assertThat(r.statusCode()).as("%s: %s", type, r.bodyAsString()).isEqualTo(415);
      assertThat(error(r).getString("code")).isEqualTo("unsupported_media_type");
      assertThat(setsSession(r)).isFalse();
    }
    // without any Content-Type, from this very site, it is still refused
    HttpResponse<Buffer> none = http.post("/api/auth/login").putHeader("Origin", site()).sendBuffer(Buffer.buffer(form))
        .await();
    assertThat(none.statusCode()).as(none.bodyAsString()).isEqualTo(415);
    assertThat(setsSession(none)).isFalse();
  }

  @Test
  void aCrossSiteOriginIsRefusedEvenWithJson() {
    for (String origin : new String[]{"https://evil.example", "null", "http://127.0.0.1:1",
        "http://localhost:" + app.port(),
        "https://127.0.0.1.evil.example"}) {
      HttpRequest<Buffer> req = http.post("/api/auth/login").putHeader("Origin", origin);
      HttpResponse<Buffer> r =
          req.sendJsonObject(new JsonObject().put("login", "gil").put("password", PASSWORD)).await();
      assertThat(r.statusCode()).as("%s: %s", origin, r.bodyAsString()).isEqualTo(403);
      assertThat(error(r).getString("code")).isEqualTo("cross_origin");
      assertThat(setsSession(r)).isFalse();
    }
  }

  @Test
  void aSameSiteJsonLoginAndANonBrowserLoginStillWork() {
    HttpResponse<Buffer> page = http.post("/api/auth/login").putHeader("Origin", site().toUpperCase())
        .putHeader("Content-Type", "application/json; charset=utf-8")
        .sendBuffer(new JsonObject().put("login", "gil").put("password", PASSWORD).toBuffer()).await();
    assertThat(page.statusCode()).as(page.bodyAsString()).isEqualTo(200);
    assertThat(setsSession(page)).isTrue();
    // behind a TLS proxy the app was not told about, the browser's page is https on this same host
    HttpResponse<Buffer> tlsPage = http.post("/api/auth/login").putHeader("Origin", "https://127.0.0.1:" + app.port())
        .sendJsonObject(new JsonObject().put("login", "gil").put("password", PASSWORD)).await();
    assertThat(tlsPage.statusCode()).as(tlsPage.bodyAsString()).isEqualTo(200);
    HttpResponse<Buffer> script = login("gil", PASSWORD); // no Origin: curl, a script, a test
    assertThat(script.statusCode()).as(script.bodyAsString()).isEqualTo(200);
    assertThat(script.bodyAsJsonObject().getJsonObject("data").getString("token")).isNotBlank();
  }

  // ---- the failed-login limit ----

  @Test
  void tenFailedLoginsMixingSlugAndEmailOfOneAccountLockIt() {
    String[] ways = {"hal", "hal@example.org", "HAL", " Hal@Example.org "};
    for (int i = 0; i < 10; i++) {
      HttpResponse<Buffer> r = login(ways[i % ways.length], "wrong " + i);
      assertThat(r.statusCode()).as("attempt %d: %s", i + 1, r.bodyAsString()).isEqualTo(401);
    }
    HttpResponse<Buffer> locked = login("hal@example.org", PASSWORD);
    assertThat(locked.statusCode()).as(locked.bodyAsString()).isEqualTo(429);
    assertThat(error(locked).getString("code")).isEqualTo("rate_limited");
    assertThat(Integer.parseInt(locked.getHeader("Retry-After"))).isBetween(1, 60);
    assertThat(login("hal", PASSWORD).statusCode()).as("the slug is the same account").isEqualTo(429);
    // another account is not affected
    assertThat(login("ivy", PASSWORD).statusCode()).isEqualTo(200);
  }

  @Test
  void anUnknownLoginIsLimitedToo() {
    for (int i = 0; i < 10; i++) {
      String login = i % 2 == 0 ? "nobody-here@example.org" : " NOBODY-HERE@example.ORG";
      assertThat(login(login, "wrong " + i).statusCode()).isEqualTo(401);
    }
    HttpResponse<Buffer> locked = login("Nobody-Here@Example.org", "wrong again");
    assertThat(locked.statusCode()).as(locked.bodyAsString()).isEqualTo(429);
  }
}
