package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Folders;
import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The session cookie and the same-origin checks behind a TLS-terminating proxy (the nginx set-up of
 * docs/operations.md), over real HTTP: with SHOTSTASH_PUBLIC_ORIGIN, with X-Forwarded-Proto from a
 * trusted proxy, and without either (a plain-HTTP install, which keeps its cookie as it was).
 */
class SessionCookieHttpTest {
  static final String PUBLIC = "https://media.example.org";
  /** Names the site by its public origin; GitHub sign-in on, to see the redirect_uri it builds. */
  static TestApp behindTls;
  /** Believes X-Forwarded-Proto from 127.0.0.1 (where the test's requests come from). */
  static TestApp proxied;
  /** Trusts a proxy range the test's requests do not come from. */
  static TestApp otherProxy;
  /** A folder of each app's for the uploads (an upload needs one). */
  static final Map<TestApp, String> folders = new java.util.HashMap<>();

  @BeforeAll
  static void start() {
    behindTls = TestApp.start(Map.of("SHOTSTASH_PUBLIC_ORIGIN", PUBLIC, "SHOTSTASH_GITHUB_CLIENT_ID", "id",
        "SHOTSTASH_GITHUB_CLIENT_SECRET", "secret"));
    folders.put(behindTls, Folders.create(behindTls.client(), behindTls.setupAndLogin(), "uploads"));
    proxied = TestApp.start(Map.of("SHOTSTASH_TRUSTED_PROXIES", "10.9.0.0/16, 127.0.0.1"));
    folders.put(proxied, Folders.create(proxied.client(), proxied.setupAndLogin(), "uploads"));
    otherProxy = TestApp.start(Map.of("SHOTSTASH_TRUSTED_PROXIES", "10.9.0.0/16"));
    otherProxy.setupAndLogin();
  }

  @AfterAll
  static void stop() {
    for (TestApp app : new TestApp[]{behindTls, proxied, otherProxy}) {
      if (app != null) {
        app.close();
      }
    }
  }

  static HttpResponse<Buffer> login(TestApp app, Map<String, String> headers) {
    HttpRequest<Buffer> req = app.client().post("/api/auth/login");
    headers.forEach(req::putHeader);
    return req.sendJsonObject(new JsonObject().put("login", "ada").put("password", TestApp.ADMIN_PASSWORD)).await();
  }

  /** The Set-Cookie line for the session, whichever its name. */
  static String sessionCookie(HttpResponse<Buffer> r) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    List<String> cookies = r.cookies().stream()
        .filter(c -> c.startsWith("shotstash_session=") || c.startsWith("__Host-shotstash_session=")).toList();
    assertThat(cookies).as("one session cookie").hasSize(1);
    return cookies.get(0);
  }

  static String value(String setCookie) {
    return setCookie.substring(setCookie.indexOf('=') + 1, setCookie.indexOf(';'));
  }

  static int me(TestApp app, String cookieHeader) {
    return app.client().get("/api/auth/me").putHeader("Cookie", cookieHeader).send().await().statusCode();
  }

  static int upload(TestApp app, String cookieHeader, String origin) {
    return app.client().post("/api/v1/files").addQueryParam("folderId", folders.get(app))
        .putHeader("Cookie", cookieHeader).putHeader("Origin", origin)
        .putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", "clip.mp4")
        .sendBuffer(Buffer.buffer("bytes")).await().statusCode();
  }

  @Test
  void withAnHttpsPublicOriginTheCookieIsSecureAndHostPrefixed() {
    String cookie = sessionCookie(login(behindTls, Map.of()));
    assertThat(cookie).startsWith("__Host-shotstash_session=").contains("; Secure").containsIgnoringCase("HttpOnly")
        .contains("SameSite=Lax").contains("Path=/").doesNotContainIgnoringCase("Domain=");
    String token = value(cookie);
    assertThat(me(behindTls, "__Host-shotstash_session=" + token)).isEqualTo(200);
    // over https only the prefixed name counts: an old-named cookie could have been planted
    assertThat(me(behindTls, "shotstash_session=" + token)).isEqualTo(401);
  }

  @Test
  void theSameOriginChecksUseThePublicOrigin() {
    String token = value(sessionCookie(login(behindTls, Map.of())));
    String cookie = "__Host-shotstash_session=" + token;
    assertThat(upload(behindTls, cookie, PUBLIC)).isEqualTo(201);
    assertThat(upload(behindTls, cookie, "http://127.0.0.1:" + behindTls.port())).as("what the app itself sees")
        .isEqualTo(403);
    assertThat(upload(behindTls, cookie, "http://media.example.org")).as("another scheme").isEqualTo(403);
    // sign-in from the public site's pages works; from the address the proxy talks to, it does not
    assertThat(login(behindTls, Map.of("Origin", PUBLIC)).statusCode()).isEqualTo(200);
    assertThat(login(behindTls, Map.of("Origin", "http://127.0.0.1:" + behindTls.port())).statusCode()).isEqualTo(403);
  }

  @Test
  void gitHubSignInCallsBackToThePublicOrigin() {
    HttpResponse<Buffer> r = behindTls.client().get("/api/auth/github/start").followRedirects(false).send().await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(302);
    String query = URI.create(r.getHeader("Location")).getRawQuery();
    assertThat(URLDecoder.decode(query, StandardCharsets.UTF_8))
        .contains("redirect_uri=" + PUBLIC + "/api/auth/github/callback");
    assertThat(r.cookies()).anySatisfy(c -> assertThat(c).startsWith("shotstash_github_state=").contains("; Secure"));
  }

  @Test
  void aSignedInWebSocketFromAnotherSiteIsRefused() {
    String cookie = "__Host-shotstash_session=" + value(sessionCookie(login(behindTls, Map.of())));
    WebSocketClient client = behindTls.vertx().createWebSocketClient();
    try {
      Throwable refused = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(behindTls.port())
          .setURI("/graphql").addSubProtocol("graphql-transport-ws")
          .addHeader("Cookie", cookie).addHeader("Origin", "https://evil.example"))
          .map(ws -> (Throwable) null).otherwise(err -> err).await();
      assertThat(refused).isInstanceOf(UpgradeRejectedException.class);
      assertThat(((UpgradeRejectedException) refused).getStatus()).isEqualTo(403);
    } finally {
      client.close().await();
    }
  }

  @Test
  void logoutExpiresTheCookieAndAnyOldNamedOne() {
    String token = value(sessionCookie(login(behindTls, Map.of())));
    HttpResponse<Buffer> out =
        behindTls.client().post("/api/auth/logout").bearerTokenAuthentication(token).send().await();
    assertThat(out.statusCode()).isEqualTo(200);
    assertThat(out.cookies())
        .anySatisfy(c -> assertThat(c).startsWith("__Host-shotstash_session=;").contains("Max-Age=0"));
    assertThat(out.cookies()).anySatisfy(c -> assertThat(c).startsWith("shotstash_session=;").contains("Max-Age=0"));
  }

  @Test
  void aTrustedProxysForwardedProtoMakesTheCookieSecure() {
    String viaTls = sessionCookie(login(proxied, Map.of("X-Forwarded-Proto", "https")));
    assertThat(viaTls).startsWith("__Host-shotstash_session=").contains("; Secure");
    String token = value(viaTls);
    String cookie = "__Host-shotstash_session=" + token;
    // the site's origin is https://<Host> now
    assertThat(proxied.client().post("/api/v1/files").addQueryParam("folderId", folders.get(proxied))
        .putHeader("X-Forwarded-Proto", "https").putHeader("Cookie", cookie)
        .putHeader("Origin", "https://127.0.0.1:" + proxied.port()).putHeader("Content-Type", "video/mp4")
        .putHeader("X-File-Name", "clip.mp4").sendBuffer(Buffer.buffer("bytes")).await().statusCode()).isEqualTo(201);
    // the same proxy passing plain HTTP: the cookie as it always was
    String plain = sessionCookie(login(proxied, Map.of()));
    assertThat(plain).startsWith("shotstash_session=").doesNotContain("Secure");
    assertThat(me(proxied, plain.substring(0, plain.indexOf(';')))).isEqualTo(200);
  }

  @Test
  void anyoneElsesForwardedProtoIsIgnored() {
    String cookie = sessionCookie(login(otherProxy, Map.of("X-Forwarded-Proto", "https")));
    assertThat(cookie).startsWith("shotstash_session=").doesNotContain("Secure");
  }
}
