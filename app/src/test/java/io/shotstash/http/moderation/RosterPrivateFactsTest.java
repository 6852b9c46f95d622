package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.list;
import static io.shotstash.http.moderation.ModerationHarness.now;
import static io.shotstash.http.moderation.ModerationHarness.slugs;
import static io.shotstash.http.moderation.ModerationHarness.strings;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Ids;
import io.shotstash.publicdata.records.Person;
import io.shotstash.testing.TestApp;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The roster's private facts (email bounce, Slack sign-in, GitHub facts) and the GitHub re-probe:
 * rows of the requested page whose facts are older than a day are re-probed on a local fake
 * GitHub, at most five at a time; a 404 keeps the old facts with status gone, any other failure
 * keeps the old record.
 */
class RosterPrivateFactsTest {
  static Vertx github;
  static HttpServer server;
  static TestApp app;
  static ModerationHarness h;
  static String staff;

  /** GitHub user id → what the fake answers (200 with a body, or a bare status). */
  static final Map<Long, Integer> STATUS = new HashMap<>();
  static final Map<Long, JsonObject> USERS = new HashMap<>();
  static final List<Long> asked = new ArrayList<>();
  /** Requests held until five are in flight (or every expected one arrived), so parallelism shows. */
  static final List<HttpServerRequest> held = new ArrayList<>();
  static final AtomicInteger inFlight = new AtomicInteger();
  static int maxInFlight;
  static int expected = Integer.MAX_VALUE;

  static final Instant STALE_CHECK = Instant.now().minus(Duration.ofDays(2));

  @BeforeAll
  static void start() {
    github = Vertx.vertx();
    server =
        github.createHttpServer().requestHandler(RosterPrivateFactsTest::answerLater).listen(0, "127.0.0.1").await();
    Map<String, String> settings = new HashMap<>(ModerationHarness.QUIET);
    settings.put("SHOTSTASH_GITHUB_API_URL", "http://127.0.0.1:" + server.actualPort());
    app = TestApp.start(settings);
    h = new ModerationHarness(app);
    String admin = app.setupAndLogin();
    staff = h.member(admin, "stf", "staff");
    h.nudger(staff, "stf");
  }

  @AfterAll
  static void stop() {
    app.close();
    github.close().await();
  }

  private static synchronized void answerLater(HttpServerRequest request) {
    long id = Long.parseLong(request.path().substring("/user/".length()));
    asked.add(id);
    held.add(request);
    maxInFlight = Math.max(maxInFlight, inFlight.incrementAndGet());
    if (held.size() >= 5 || asked.size() >= expected) {
      List<HttpServerRequest> release = new ArrayList<>(held);
      held.clear();
      release.forEach(RosterPrivateFactsTest::answer);
    }
  }

  /** Starts counting afresh: {@code count} probes are expected from the next roster request. */
  private static synchronized void expect(int count) {
    asked.clear();
    held.clear();
    maxInFlight = 0;
    expected = count;
  }

  private static synchronized List<Long> asked() {
    return List.copyOf(asked);
  }

  private static synchronized int maxInFlight() {
    return maxInFlight;
  }

  private static void answer(HttpServerRequest request) {
    long id = Long.parseLong(request.path().substring("/user/".length()));
    inFlight.decrementAndGet();
    int status = STATUS.getOrDefault(id, 404);
    if (status == 200) {
      request.response().putHeader("Content-Type", "application/json").end(USERS.get(id).encode());
    } else {
      request.response().setStatusCode(status).end();
    }
  }

  private static Person githubMember(String slug, long githubId, Instant createdAt) {
    return new Person(Ids.uuid7(), null, slug, "Member " + slug, "bio", null, "user", null, githubId,
        "login-" + githubId,
        null, null, createdAt, createdAt);
  }

  private static void facts(String slug, JsonObject github) {
    h.sql("INSERT INTO private_profiles (person_id, email, github) VALUES ('" + h.idOf(slug) + "', '" + slug
        + "@example.org', '" + github.encode() + "'::jsonb)");
  }

  private static JsonObject githubFacts(String login, Instant accountCreatedAt, int repos, int followers,
      Instant checked) {
    return new JsonObject().put("login", login).put("accountCreatedAt", accountCreatedAt.toString())
        .put("publicRepos", repos).put("followers", followers).put("status", "ok").put("checkedAt", checked.toString());
  }

  private static Map<String, JsonObject> rows(String query) {
    Map<String, JsonObject> out = new HashMap<>();
    JsonArray rows = list(h.get("/api/admin/members?" + query, staff));
    for (int i = 0; i < rows.size(); i++) {
      out.put(rows.getJsonObject(i).getString("slug"), rows.getJsonObject(i));
    }
    return out;
  }

  @Test
  void emailBounceAndSlackSignInComeFromThePrivateProfile() {
    h.seed(ModerationHarness.newMember("pf-member", "bio", now()));
    h.sql("INSERT INTO private_profiles (person_id, email, last_slack_sso_at, email_bounce) VALUES ('"
        + h.idOf("pf-member")
        + "', 'dealsdeals@example.org', '2026-01-02T03:04:05Z', '{\"type\":\"hard\",\"at\":\"2026-01-01T00:00:00Z\"}'::jsonb)");
    JsonObject row = h.row(staff, "pf-member");
    assertThat(Instant.parse(row.getString("lastSlackSsoAt"))).isEqualTo(Instant.parse("2026-01-02T03:04:05Z"));
    assertThat(row.getJsonObject("emailBounce").getString("type")).isEqualTo("hard");
    assertThat(strings(row.getJsonArray("signals"))).containsExactly("never-signed-in", "no-avatar",
        "email-name-mismatch", "email-bounced:hard", "slack-sso");
    assertThat(row.getInteger("attention")).isEqualTo(4);
    assertThat(row.getBoolean("hasGitHubLink")).isFalse();
    assertThat(row.getValue("github")).isNull();
  }

  @Test
  void staleGithubFactsAreReprobedFiveAtATime() {
    Instant now = now();
    Instant twoDaysAgo = now.minus(Duration.ofDays(2));
    // 101-105 fresh on GitHub, 106 gone, 107 failing; 108 checked an hour ago; 109 never probed and failing
    List<Person> people = new ArrayList<>();
    for (long id = 101; id <= 109; id++) {
      people.add(githubMember("gh-" + id, id, now));
    }
    h.seed(people.toArray(Person[]::new));
    for (long id = 101; id <= 105; id++) {
      STATUS.put(id, 200);
      USERS.put(id, new JsonObject().put("login", "fresh-" + id).put("created_at", twoDaysAgo.toString())
          .put("public_repos", 0).put("followers", 0));
      facts("gh-" + id, githubFacts("old-" + id, Instant.parse("2015-01-01T00:00:00Z"), 10, 10, STALE_CHECK));
    }
    STATUS.put(106L, 404);
    facts("gh-106", githubFacts("old-106", Instant.parse("2015-01-01T00:00:00Z"), 3, 4, STALE_CHECK));
    STATUS.put(107L, 500);
    facts("gh-107", githubFacts("old-107", Instant.parse("2015-01-01T00:00:00Z"), 3, 4, STALE_CHECK));
    facts("gh-108",
        githubFacts("old-108", Instant.parse("2015-01-01T00:00:00Z"), 3, 4, now.minus(Duration.ofHours(1))));
    STATUS.put(109L, 500);
    expect(8);

    Map<String, JsonObject> rows = rows("q=gh-1&perPage=200");
    assertThat(rows).hasSize(9);
    assertThat(asked()).containsExactlyInAnyOrder(101L, 102L, 103L, 104L, 105L, 106L, 107L, 109L);
    assertThat(maxInFlight()).isEqualTo(5);

    JsonObject fresh = rows.get("gh-101");
    assertThat(fresh.getBoolean("hasGitHubLink")).isTrue();
    JsonObject facts = fresh.getJsonObject("github");
    assertThat(facts.getString("login")).isEqualTo("fresh-101");
    assertThat(facts.getString("status")).isEqualTo("ok");
    assertThat(facts.getInteger("publicRepos")).isZero();
    assertThat(Instant.parse(facts.getString("checkedAt"))).isAfter(now.minusSeconds(1));
    assertThat(strings(fresh.getJsonArray("signals"))).contains("github-new-account", "github-no-activity");
    assertThat(h.count("SELECT count(*) FROM private_profiles WHERE github->>'login' = 'fresh-101'")).isEqualTo(1);

    JsonObject gone = rows.get("gh-106").getJsonObject("github");
    assertThat(gone.getString("status")).isEqualTo("gone");
    assertThat(gone.getString("login")).isEqualTo("old-106");
    assertThat(gone.getInteger("publicRepos")).isEqualTo(3);
    assertThat(strings(rows.get("gh-106").getJsonArray("signals"))).contains("github-gone")
        .doesNotContain("github-new-account");

    JsonObject kept = rows.get("gh-107").getJsonObject("github");
    assertThat(kept.getString("status")).isEqualTo("ok");
    assertThat(kept.getString("login")).isEqualTo("old-107");
    assertThat(Instant.parse(kept.getString("checkedAt"))).isEqualTo(STALE_CHECK);

    assertThat(rows.get("gh-108").getJsonObject("github").getString("login")).isEqualTo("old-108");
    JsonObject unknown = rows.get("gh-109").getJsonObject("github");
    assertThat(unknown.getString("status")).isEqualTo("unknown");
    assertThat(unknown.getString("login")).isEqualTo("login-109");
  }

  @Test
  void onlyTheRowsOfTheRequestedPageAreProbed() {
    Instant now = now();
    h.seed(githubMember("pg-201", 201, now.minusSeconds(2)), githubMember("pg-202", 202, now.minusSeconds(1)));
    for (long id = 201; id <= 202; id++) {
      STATUS.put(id, 200);
      USERS.put(id, new JsonObject().put("login", "pg-" + id).put("created_at", "2010-01-01T00:00:00Z")
          .put("public_repos", 5).put("followers", 5));
      facts("pg-" + id, githubFacts("pg-" + id, Instant.parse("2010-01-01T00:00:00Z"), 5, 5, STALE_CHECK));
    }
    expect(1);
    assertThat(slugs(list(h.get("/api/admin/members?q=pg-2&perPage=1", staff)))).containsExactly("pg-202");
    assertThat(asked()).containsExactly(202L);
  }
}
