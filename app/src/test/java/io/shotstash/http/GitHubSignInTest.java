package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.db.Database;
import io.shotstash.people.GitHubClient;
import io.shotstash.people.GitHubSignup;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.testing.Teardown;
import io.shotstash.testing.TestApp;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * GitHub sign-in end to end: the app over real HTTP, PostgreSQL and git, against a fake GitHub (a
 * Vert.x server on loopback) that checks the client credentials, the redirect_uri and the PKCE
 * verifier against the challenge the app put in its authorize URL.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GitHubSignInTest {
  static final String START = "/api/auth/github/start";
  static final String CALLBACK = "/api/auth/github/callback";
  static final String STATE_COOKIE = "shotstash_github_state";
  static final SecureRandom RANDOM = new SecureRandom();

  static FakeGitHub github;
  static TestApp app;
  static WebClient http;
  static String adminToken;

  @BeforeAll
  static void start() {
    github = FakeGitHub.start();
    app = TestApp.start(Map.of("SHOTSTASH_GITHUB_API_URL", github.url(), "SHOTSTASH_GITHUB_OAUTH_URL", github.url(),
        "SHOTSTASH_GITHUB_CLIENT_ID", "id", "SHOTSTASH_GITHUB_CLIENT_SECRET", "secret"));
    adminToken = app.setupAndLogin();
    http = app.noRedirectClient();
    github.redirectUri = "http://127.0.0.1:" + app.port() + CALLBACK;
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(app, github);
  }

  // ---- the fake GitHub ----

  /** An account the fake knows. */
  record Account(long id, String login, String name, int publicRepos, int followers, JsonArray emails) {
    static Account of(long id, String login, String name, String primaryVerifiedEmail) {
      JsonArray emails = new JsonArray();
      if (primaryVerifiedEmail != null) {
        emails.add(new JsonObject().put("email", "noreply-" + id + "@users.noreply.github.com").put("primary", false)
            .put("verified", true).put("visibility", null));
        emails.add(new JsonObject().put("email", primaryVerifiedEmail).put("primary", true).put("verified", true)
            .put("visibility", "public"));
      }
      return new Account(id, login, name, 8, 3, emails);
    }

    Account withFollowers(int n) {
      return new Account(id, login, name, publicRepos, n, emails);
    }

    Account withEmails(JsonArray list) {
      return new Account(id, login, name, publicRepos, followers, list);
    }
  }

  static final class FakeGitHub implements AutoCloseable {
    final Vertx vertx = Vertx.vertx();
    /** code → the challenge the app sent with the authorize URL that code answers, and the account. */
    final Map<String, Map.Entry<String, Account>> codes = new ConcurrentHashMap<>();
    final Map<String, Account> tokens = new ConcurrentHashMap<>();
    /** Logins whose /user answers 500. */
    final Set<String> broken = ConcurrentHashMap.newKeySet();
    volatile String redirectUri;
    HttpServer server;

    static FakeGitHub start() {
      FakeGitHub fake = new FakeGitHub();
      Router router = Router.router(fake.vertx);
      router.post("/login/oauth/access_token").handler(BodyHandler.create(false)).handler(fake::accessToken);
      router.get("/user").handler(fake::user);
      router.get("/user/emails").handler(fake::emails);
      router.get("/login/oauth/authorize").handler(ctx -> ctx.response().setStatusCode(500)
          .end("the browser goes here, the test never does"));
      fake.server = fake.vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await();
      return fake;
    }

    String url() {
      return "http://127.0.0.1:" + server.actualPort();
    }

    void expect(String code, String challenge, Account account) {
      codes.put(code, Map.entry(challenge, account));
    }

    private void accessToken(RoutingContext ctx) {
      var form = ctx.request().formAttributes();
      JsonObject answer;
      Map.Entry<String, Account> grant = codes.remove(String.valueOf(form.get("code")));
      String verifier = form.get("code_verifier");
      if (!"application/json".equals(ctx.request().getHeader("Accept"))) {
        answer = new JsonObject().put("error", "not_json");
      } else if (!"id".equals(form.get("client_id")) || !"secret".equals(form.get("client_secret"))) {
        answer = new JsonObject().put("error", "incorrect_client_credentials");
      } else if (grant == null || !String.valueOf(redirectUri).equals(form.get("redirect_uri"))) {
        answer = new JsonObject().put("error", "bad_verification_code");
      } else if (verifier == null || verifier.length() < 43 || !s256(verifier).equals(grant.getKey())) {
        answer = new JsonObject().put("error", "bad_verification_code").put("error_description", "PKCE failed");
      } else {
        String token = "gho_" + random();
        tokens.put(token, grant.getValue());
        answer = new JsonObject().put("access_token", token).put("token_type", "bearer")
            .put("scope", "read:user,user:email");
      }
      ctx.response().putHeader("Content-Type", "application/json").end(answer.encode());
    }

    private Account caller(RoutingContext ctx) {
      String header = ctx.request().getHeader("Authorization");
      Account a = header == null || !header.startsWith("Bearer ") ? null : tokens.get(header.substring(7));
      if (a == null) {
        ctx.response().setStatusCode(401).end(new JsonObject().put("message", "Bad credentials").encode());
      }
      return a;
    }

    private void user(RoutingContext ctx) {
      Account a = caller(ctx);
      if (a == null) {
        return;
      }
      if (broken.contains(a.login())) {
        ctx.response().setStatusCode(500).end("{}");
        return;
      }
      ctx.response().putHeader("Content-Type", "application/json").end(new JsonObject().put("id", a.id())
          .put("login", a.login()).put("name", a.name()).put("created_at", "2015-03-01T12:00:00Z")
          .put("public_repos", a.publicRepos()).put("followers", a.followers()).encode());
    }

    private void emails(RoutingContext ctx) {
      Account a = caller(ctx);
      if (a != null) {
        ctx.response().putHeader("Content-Type", "application/json").end(a.emails().encode());
      }
    }

    @Override
    public void close() {
      vertx.close().await();
    }
  }

  static String s256(String verifier) {
    try {
      return Base64.getUrlEncoder().withoutPadding().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String random() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  // ---- the browser's side ----

  /** A started sign-in: what the browser would carry to GitHub and back. */
  record Flow(String state, String challenge, String stateCookie, URI authorize, Map<String, String> params) {}

  static Flow begin(String returnPath) {
    String uri = START + (returnPath == null ? "" : "?return=" + URLEncoder.encode(returnPath, StandardCharsets.UTF_8));
    HttpResponse<Buffer> r = http.get(uri).send().await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(302);
    URI authorize = URI.create(r.getHeader("Location"));
    Map<String, String> params = new HashMap<>();
    for (String pair : authorize.getRawQuery().split("&")) {
      String[] kv = pair.split("=", 2);
      params.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
    }
    return new Flow(params.get("state"), params.get("code_challenge"), cookie(r, STATE_COOKIE), authorize, params);
  }

  static HttpResponse<Buffer> callback(String query, String stateCookie) {
    var request = http.get(CALLBACK + query);
    if (stateCookie != null) {
      request.putHeader("Cookie", STATE_COOKIE + "=" + stateCookie);
    }
    return request.send().await();
  }

  static HttpResponse<Buffer> callback(Flow flow, String code) {
    return callback("?code=" + code + "&state=" + flow.state(), flow.stateCookie());
  }

  /** The whole dance for one account: start, "GitHub" answers a code, the browser comes back. */
  static HttpResponse<Buffer> signIn(Account account, String returnPath) {
    Flow flow = begin(returnPath);
    String code = random();
    github.expect(code, flow.challenge(), account);
    return callback(flow, code);
  }

  /** The value a Set-Cookie of this name sets, or null. */
  static String cookie(HttpResponse<Buffer> r, String name) {
    String header = setCookie(r, name);
    return header == null ? null : header.substring(name.length() + 1, header.indexOf(';'));
  }

  static String setCookie(HttpResponse<Buffer> r, String name) {
    return r.cookies().stream().filter(c -> c.startsWith(name + "=")).findFirst().orElse(null);
  }

  static JsonObject me(String sessionCookie) {
    HttpResponse<Buffer> r = http.get("/api/auth/me").putHeader("Cookie", Callers.COOKIE + "=" + sessionCookie)
        .send().await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject().getJsonObject("data");
  }

  // ---- git and PostgreSQL ----

  static ObjectId head() {
    try (Repository repo = app.openRepository()) {
      return repo.resolve("refs/heads/" + app.config().dataBranch());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static RevCommit headCommit() {
    try (Repository repo = app.openRepository(); RevWalk walk = new RevWalk(repo)) {
      return walk.parseCommit(repo.resolve("refs/heads/" + app.config().dataBranch()));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static String fileAtHead(String path) {
    try (Repository repo = app.openRepository(); RevWalk walk = new RevWalk(repo)) {
      RevCommit c = walk.parseCommit(repo.resolve("refs/heads/" + app.config().dataBranch()));
      try (TreeWalk tree = TreeWalk.forPath(repo, path, c.getTree())) {
        return tree == null ? null : new String(repo.open(tree.getObjectId(0)).getBytes(), StandardCharsets.UTF_8);
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Map<String, String> trailers(RevCommit c) {
    Map<String, String> out = new HashMap<>();
    for (FooterLine f : c.getFooterLines()) {
      out.put(f.getKey(), f.getValue());
    }
    return out;
  }

  /** The first column of the first row, as text (null when no row). */
  static String sql(String query, Object... args) {
    try (Connection c = Database.connect(app.db().url()); PreparedStatement s = c.prepareStatement(query)) {
      for (int i = 0; i < args.length; i++) {
        s.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static Person byGitHubId(long id) {
    return GitHubSignup.linked(app.publicState().current(), id).orElse(null);
  }

  static String location(HttpResponse<Buffer> r) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(302);
    return r.getHeader("Location");
  }

  // ---- the cases ----

  @Test
  @Order(1)
  void startSendsTheBrowserToGitHubWithStateAndPkce() {
    HttpResponse<Buffer> r = http.get(START + "?return=%2Fprojects").send().await();
    assertThat(r.statusCode()).isEqualTo(302);
    assertThat(r.getHeader("Cache-Control")).isEqualTo("no-store");
    URI authorize = URI.create(r.getHeader("Location"));
    assertThat(authorize.getScheme() + "://" + authorize.getAuthority() + authorize.getPath())
        .isEqualTo(github.url() + "/login/oauth/authorize");
    assertThat(authorize.getRawQuery()).contains("&scope=read%3Auser%20user%3Aemail");
    Flow flow = begin("/projects");
    assertThat(flow.params()).containsEntry("client_id", "id").containsEntry("code_challenge_method", "S256")
        .containsEntry("redirect_uri", "http://127.0.0.1:" + app.port() + CALLBACK)
        .containsEntry("scope", "read:user user:email");
    assertThat(flow.state()).matches("[A-Za-z0-9_-]{43}"); // 32 random bytes
    assertThat(flow.challenge()).matches("[A-Za-z0-9_-]{43}"); // a SHA-256, base64url
    assertThat(flow.stateCookie()).isEqualTo(flow.state());
    String cookie = setCookie(r, STATE_COOKIE);
    assertThat(cookie).containsIgnoringCase("HttpOnly").contains("SameSite=Lax").contains("Path=" + CALLBACK)
        .contains("Max-Age=600");

    // only the SHA-256 of the state is kept, with the verifier (whose S256 is the challenge) and the path
    String verifier = sql("SELECT verifier FROM oauth_states WHERE state_hash = sha256(convert_to(?, 'UTF8'))",
        flow.state());
    assertThat(verifier).hasSizeGreaterThanOrEqualTo(43);
    assertThat(s256(verifier)).isEqualTo(flow.challenge());
    assertThat(sql("SELECT return_path FROM oauth_states WHERE state_hash = sha256(convert_to(?, 'UTF8'))",
        flow.state())).isEqualTo("/projects");
    assertThat(sql("SELECT count(*) FROM oauth_states WHERE verifier = ? OR return_path = ?", flow.state(),
        flow.state())).isEqualTo("0");
  }

  @Test
  @Order(2)
  void aNewMemberIsCreatedSignedInAndSentBack() {
    ObjectId before = head();
    Account mona = Account.of(1001, "Octo-Cat", "Mona Octocat", "Mona@Example.org");
    HttpResponse<Buffer> r = signIn(mona, "/projects?tab=mine");
    assertThat(location(r)).isEqualTo("/projects?tab=mine");
    assertThat(setCookie(r, Callers.COOKIE)).containsIgnoringCase("HttpOnly").contains("SameSite=Lax")
        .contains("Path=/");
    assertThat(setCookie(r, STATE_COOKIE)).contains("Max-Age=0"); // the state cookie is spent

    JsonObject me = me(cookie(r, Callers.COOKIE));
    assertThat(me.getString("slug")).isEqualTo("octo-cat");
    assertThat(me.getString("fullName")).isEqualTo("Mona Octocat");
    assertThat(me.getString("accountLevel")).isEqualTo("user");
    assertThat(me.getString("githubLogin")).isEqualTo("Octo-Cat");
    assertThat(me.getString("email")).isEqualTo("mona@example.org");

    // git: one commit by the system, the record with the GitHub id and login, no email
    RevCommit commit = headCommit();
    assertThat(commit.getParent(0).getId()).isEqualTo(before);
    assertThat(commit.getShortMessage()).isEqualTo("system: GET /api/auth/github/callback");
    assertThat(commit.getAuthorIdent().getName()).isEqualTo("Shotstash");
    Person person = byGitHubId(1001);
    assertThat(trailers(commit)).containsEntry("Action", "person.signup").containsEntry("Subject-Type", "person")
        .containsEntry("Subject-Id", person.id()).containsEntry("Subject-Slug", "octo-cat")
        .containsEntry("Actor-Kind", "system");
    String toml = fileAtHead("people/octo-cat.toml");
    assertThat(toml).contains("githubUserId = 1001").contains("githubLogin = 'Octo-Cat'")
        .contains("accountLevel = 'user'").doesNotContain("mona@");
    assertThat(commit.getFullMessage()).doesNotContain("mona@");

    // PostgreSQL: the email and the GitHub facts; a session opened by GitHub
    JsonObject facts = new JsonObject(sql("SELECT github::text FROM private_profiles WHERE person_id = ?::uuid",
        person.id()));
    assertThat(facts.getString("login")).isEqualTo("Octo-Cat");
    assertThat(facts.getString("accountCreatedAt")).isEqualTo("2015-03-01T12:00:00Z");
    assertThat(facts.getInteger("publicRepos")).isEqualTo(8);
    assertThat(facts.getInteger("followers")).isEqualTo(3);
    assertThat(facts.getString("status")).isEqualTo("ok");
    assertThat(Instant.parse(facts.getString("checkedAt"))).isBefore(Instant.now().plusSeconds(1));
    assertThat(sql("SELECT email FROM private_profiles WHERE person_id = ?::uuid", person.id()))
        .isEqualTo("mona@example.org");
    assertThat(sql("SELECT method FROM sessions WHERE person_id = ?::uuid", person.id())).isEqualTo("github");
  }

  @Test
  @Order(3)
  void aLinkedMemberSignsInAgainWithoutANewRecordOrCommit() {
    Person mona = byGitHubId(1001);
    int people = app.publicState().current().size(Sheet.PEOPLE);
    ObjectId before = head();
    HttpResponse<Buffer> r = signIn(Account.of(1001, "Octo-Cat", "Mona Octocat", "mona@example.org").withFollowers(10),
        null);
    assertThat(location(r)).isEqualTo("/");
    assertThat(me(cookie(r, Callers.COOKIE)).getString("id")).isEqualTo(mona.id());
    assertThat(head()).isEqualTo(before);
    assertThat(app.publicState().current().size(Sheet.PEOPLE)).isEqualTo(people);
    assertThat(sql("SELECT github->>'followers' FROM private_profiles WHERE person_id = ?::uuid", mona.id()))
        .isEqualTo("10");
    assertThat(sql("SELECT count(*) FROM sessions WHERE person_id = ?::uuid AND method = 'github'", mona.id()))
        .isEqualTo("2");
  }

  @Test
  @Order(4)
  void theStateMustBeKnownFreshUnusedAndThisBrowsers() {
    int people = app.publicState().current().size(Sheet.PEOPLE);
    String unknown = random();
    assertThat(location(callback("?code=x&state=" + unknown, unknown))).isEqualTo("/login?error=state_mismatch");
    assertThat(location(callback("?code=x", null))).isEqualTo("/login?error=state_mismatch");

    // a valid state without the cookie of the browser that started it: someone else's sign-in
    Flow stolen = begin(null);
    String code = random();
    github.expect(code, stolen.challenge(), Account.of(3001, "victim-bait", null, null));
    assertThat(location(callback("?code=" + code + "&state=" + stolen.state(), null)))
        .isEqualTo("/login?error=state_mismatch");
    Flow other = begin(null);
    assertThat(location(callback("?code=" + code + "&state=" + stolen.state(), other.stateCookie())))
        .isEqualTo("/login?error=state_mismatch");

    // expired: ten minutes have passed
    Flow old = begin(null);
    app.db().execute("UPDATE oauth_states SET created_at = now() - interval '11 minutes'");
    String oldCode = random();
    github.expect(oldCode, old.challenge(), Account.of(3002, "too-late", null, null));
    assertThat(location(callback(old, oldCode))).isEqualTo("/login?error=state_mismatch");

    // used: the second callback with the same state is refused, even with a fresh code
    Flow once = begin("/once");
    String first = random();
    github.expect(first, once.challenge(), Account.of(3003, "once-only", null, null));
    assertThat(location(callback(once, first))).isEqualTo("/once");
    String second = random();
    github.expect(second, once.challenge(), Account.of(3003, "once-only", null, null));
    HttpResponse<Buffer> replay = callback(once, second);
    assertThat(location(replay)).isEqualTo("/login?error=state_mismatch");
    assertThat(cookie(replay, Callers.COOKIE)).isNull();

    assertThat(app.publicState().current().size(Sheet.PEOPLE)).isEqualTo(people + 1); // once-only alone
    assertThat(byGitHubId(3001)).isNull();
    assertThat(byGitHubId(3002)).isNull();
  }

  @Test
  @Order(5)
  void aWrongPkceVerifierIsRefusedByGitHub() {
    Flow flow = begin(null);
    Flow another = begin(null);
    String code = random();
    // GitHub issued this code for the other flow's challenge: our verifier cannot match it
    github.expect(code, another.challenge(), Account.of(4001, "pkce-victim", null, null));
    HttpResponse<Buffer> r = callback(flow, code);
    assertThat(location(r)).isEqualTo("/login?error=github_failed");
    assertThat(cookie(r, Callers.COOKIE)).isNull();
    assertThat(byGitHubId(4001)).isNull();
  }

  @Test
  @Order(6)
  void gitHubFailuresAndRefusalsEndAtGithubFailed() {
    github.broken.add("broken-user");
    assertThat(location(signIn(Account.of(4002, "broken-user", null, null), null)))
        .isEqualTo("/login?error=github_failed");
    assertThat(byGitHubId(4002)).isNull();
    // the person said no at GitHub: GitHub comes back with the state and an error, no code
    Flow denied = begin(null);
    assertThat(location(callback("?error=access_denied&state=" + denied.state(), denied.stateCookie())))
        .isEqualTo("/login?error=github_failed");
  }

  @Test
  @Order(7)
  void slugsFromLoginsAvoidTakenAndReservedOnes() {
    app.createPerson(adminToken, "hubot", "user", null);
    HttpResponse<Buffer> r = signIn(Account.of(1002, "hubot", "Hubot", "HUBOT@example.org"), null);
    assertThat(location(r)).isEqualTo("/");
    Person hubot2 = byGitHubId(1002);
    assertThat(hubot2.slug()).isEqualTo("hubot-2");
    assertThat(fileAtHead("people/hubot-2.toml")).contains("githubUserId = 1002");
    // the email belongs to the older hubot: the new member starts without one
    assertThat(sql("SELECT email FROM private_profiles WHERE person_id = ?::uuid", hubot2.id())).isNull();
    assertThat(sql("SELECT github->>'login' FROM private_profiles WHERE person_id = ?::uuid", hubot2.id()))
        .isEqualTo("hubot");

    JsonArray unverified = new JsonArray()
        .add(new JsonObject().put("email", "admin@gh.example").put("primary", true).put("verified", false))
        .add(new JsonObject().put("email", "other@gh.example").put("primary", false).put("verified", true));
    signIn(Account.of(1003, "Admin", null, null).withEmails(unverified), null);
    Person admin2 = byGitHubId(1003);
    assertThat(admin2.slug()).isEqualTo("admin-2"); // reserved
    assertThat(admin2.fullName()).isEqualTo("Admin"); // no GitHub name: the login
    assertThat(sql("SELECT email FROM private_profiles WHERE person_id = ?::uuid", admin2.id())).isNull();
  }

  @Test
  @Order(8)
  void aGitHubAccountThatASpamPurgeBlocksIsRefused() {
    signIn(Account.of(1004, "spammer", "Spam Spam", "spam@example.org"), null);
    assertThat(byGitHubId(1004).slug()).isEqualTo("spammer");
    HttpResponse<Buffer> purge = http.post("/api/people/spammer/purge").bearerTokenAuthentication(adminToken)
        .sendJsonObject(new JsonObject().put("reason", "link spam").put("spam", true)).await();
    assertThat(purge.statusCode()).as(purge.bodyAsString()).isEqualTo(200);
    SpamPurge record = app.publicState().current().all(Sheet.SPAM_PURGES, SpamPurge.class).stream()
        .filter(p -> "spammer".equals(p.slug())).findFirst().orElseThrow();
    assertThat(record.githubUserId()).isEqualTo(1004L);
    assertThat(record.blockInForce()).isTrue();

    ObjectId before = head();
    int people = app.publicState().current().size(Sheet.PEOPLE);
    HttpResponse<Buffer> r = signIn(Account.of(1004, "spammer", "Spam Spam", "spam@example.org"), null);
    assertThat(location(r)).isEqualTo("/login?error=account_blocked");
    assertThat(cookie(r, Callers.COOKIE)).isNull();
    assertThat(byGitHubId(1004)).isNull();
    assertThat(head()).isEqualTo(before);
    assertThat(app.publicState().current().size(Sheet.PEOPLE)).isEqualTo(people);

    // the write rule refuses it too (the writer is the mutex; the HTTP check alone could be stale)
    PublicDataClient writes = new PublicDataClient(app.vertx());
    GitHubClient.User spammer = new GitHubClient.User(1004, "spammer-renamed", null, null, 0, 0);
    Throwable refused = writes.write(GitHubSignup.command(spammer, null, Instant.now(), CALLBACK))
        .map(reply -> (Throwable) null).otherwise(e -> e).await();
    assertThat(ApiError.from(refused).code()).isEqualTo("account_blocked");
    // and only the system (the callback) may sign people up
    Actor.Member ada = Actor.member(app.publicState().current().personBySlug("ada").orElseThrow(), "s");
    GitHubClient.User fresh = new GitHubClient.User(4999, "fresh", null, null, 0, 0);
    JsonObject params = GitHubSignup.command(fresh, null, Instant.now(), CALLBACK).params();
    Throwable notSystem = writes.write(new WriteCommand(GitHubSignup.ACTION, ada, "GET", CALLBACK, params))
        .map(reply -> (Throwable) null).otherwise(e -> e).await();
    assertThat(ApiError.from(notSystem).status()).isEqualTo(403);
    assertThat(head()).isEqualTo(before);

    // another GitHub account with the purged login is someone else: the freed slug is theirs to take
    HttpResponse<Buffer> newcomer = signIn(Account.of(1005, "spammer", "New Person", null), null);
    assertThat(location(newcomer)).isEqualTo("/");
    assertThat(byGitHubId(1005).slug()).isEqualTo("spammer");
  }

  @Test
  @Order(9)
  void onlyPathsOnThisSiteAreFollowedAfterSignIn() {
    HttpResponse<Buffer> r = signIn(Account.of(1006, "returner", null, null), "//evil.com/steal");
    assertThat(location(r)).isEqualTo("/");
    Flow backslash = begin("/\\evil.com");
    assertThat(sql("SELECT return_path FROM oauth_states WHERE state_hash = sha256(convert_to(?, 'UTF8'))",
        backslash.state())).isEqualTo("/");
  }

  @Test
  @Order(10)
  void startIsNotFoundWhenSignInIsNotConfigured() {
    try (TestApp plain = TestApp.start()) {
      plain.setupAndLogin();
      for (String path : new String[]{START, CALLBACK + "?code=a&state=b"}) {
        HttpResponse<Buffer> r = plain.client().get(path).send().await();
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("not_found");
      }
    }
  }

  @Test
  @Order(11)
  void startAndCallbackAreLimitedPerClientAddress() {
    HttpResponse<Buffer> limited = null;
    for (int i = 0; i < 31 && limited == null; i++) {
      HttpResponse<Buffer> r = http.get(START).send().await();
      if (r.statusCode() == 429) {
        limited = r;
      } else {
        assertThat(r.statusCode()).isEqualTo(302);
      }
    }
    assertThat(limited).isNotNull();
    assertThat(limited.getHeader("Retry-After")).isNotBlank();
    assertThat(limited.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("rate_limited");

    // the callback is a browser's navigation: it says so with a redirect too
    String last = null;
    for (int i = 0; i < 31 && !"/login?error=rate_limited".equals(last); i++) {
      last = location(callback("?code=x&state=" + random(), null));
    }
    assertThat(last).isEqualTo("/login?error=rate_limited");
  }
}
