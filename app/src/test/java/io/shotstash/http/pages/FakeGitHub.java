package io.shotstash.http.pages;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A GitHub for the browser on loopback, with one account: its authorize page approves at once and
 * sends the browser back to the app's callback with a code; the token exchange checks the PKCE
 * verifier against the challenge the authorize URL carried.
 */
final class FakeGitHub implements AutoCloseable {
  final long id;
  final String login;
  final String name;
  final String email;
  final Instant createdAt;
  private final Vertx vertx = Vertx.vertx();
  private final Map<String, String> challenges = new ConcurrentHashMap<>();
  private HttpServer server;

  private FakeGitHub(long id, String login, String name, String email, Instant createdAt) {
    this.id = id;
    this.login = login;
    this.name = name;
    this.email = email;
    this.createdAt = createdAt;
  }

  static FakeGitHub start(long id, String login, String name, String email, Instant createdAt) {
    FakeGitHub fake = new FakeGitHub(id, login, name, email, createdAt);
    Router router = Router.router(fake.vertx);
    router.get("/login/oauth/authorize").handler(fake::authorize);
    router.post("/login/oauth/access_token").handler(BodyHandler.create(false)).handler(fake::accessToken);
    router.get("/user").handler(fake::user);
    router.get("/user/emails").handler(fake::emails);
    router.get("/user/:id").handler(fake::user);
    fake.server = fake.vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await();
    return fake;
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  private void authorize(RoutingContext ctx) {
    String code = UUID.randomUUID().toString();
    challenges.put(code, String.valueOf(ctx.request().getParam("code_challenge")));
    String back = ctx.request().getParam("redirect_uri") + "?code=" + code + "&state="
        + URLEncoder.encode(String.valueOf(ctx.request().getParam("state")), StandardCharsets.UTF_8);
    ctx.response().setStatusCode(302).putHeader("Location", back).end();
  }

  private void accessToken(RoutingContext ctx) {
    String challenge = challenges.remove(String.valueOf(ctx.request().getFormAttribute("code")));
    String verifier = ctx.request().getFormAttribute("code_verifier");
    JsonObject answer;
    if (challenge == null || verifier == null || !s256(verifier).equals(challenge)) {
      answer = new JsonObject().put("error", "bad_verification_code");
    } else {
      answer = new JsonObject().put("access_token", "gho_" + UUID.randomUUID()).put("token_type", "bearer").put("scope",
          "read:user,user:email");
    }
    ctx.response().putHeader("Content-Type", "application/json").end(answer.encode());
  }

  private void user(RoutingContext ctx) {
    ctx.response().putHeader("Content-Type", "application/json").end(new JsonObject().put("id", id).put("login", login)
        .put("name", name).put("created_at", createdAt.toString()).put("public_repos", 0).put("followers", 0).encode());
  }

  private void emails(RoutingContext ctx) {
    ctx.response().putHeader("Content-Type", "application/json").end(new JsonArray().add(new JsonObject()
        .put("email", email).put("primary", true).put("verified", true).put("visibility", "public")).encode());
  }

  static String s256(String verifier) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
