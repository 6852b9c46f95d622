package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.conflict;
import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.error;
import static io.shotstash.http.moderation.ModerationHarness.invalid;
import static io.shotstash.http.moderation.ModerationHarness.list;
import static io.shotstash.http.moderation.ModerationHarness.newMember;
import static io.shotstash.http.moderation.ModerationHarness.notFound;
import static io.shotstash.http.moderation.ModerationHarness.now;
import static io.shotstash.http.moderation.ModerationHarness.ok;
import static io.shotstash.http.moderation.ModerationHarness.rateLimited;
import static io.shotstash.http.moderation.ModerationHarness.slugs;
import static io.shotstash.http.moderation.ModerationHarness.assertTrailers;
import static io.shotstash.http.moderation.ModerationHarness.strings;
import static io.shotstash.http.moderation.ModerationHarness.trailerValue;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.http.moderation.ModerationHarness.Agent;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The moderation API over HTTP with the real app: who may use each /api/admin route (everyone else
 * gets 404, before anything is validated), the roster and one member's detail for staff and for
 * agents, votes (human and agent, with every agent rule), withdrawing a vote, votes that belong to
 * an earlier account under a reused slug, the agents list and withdraw-votes.
 */
class ModerationApiTest extends WithModerationApp {
  static String staff;
  static String staff2;
  static String user;
  /** Agents each lacking one scope, and one with every scope (for the staff-only routes). */
  static Agent noRead;
  static Agent noVote;
  static Agent noPurge;
  static Agent allScopes;
  /** An agent that only reads. */
  static Agent reader;

  static final Instant JAN_10 = Instant.parse("2025-01-10T09:00:00Z");

  @BeforeAll
  static void seed() {
    staff = h.member(admin, "stf", "staff");
    staff2 = h.member(admin, "stf2", "staff");
    user = h.member(admin, "usr", "user");
    h.nudger(user, "usr");
    noRead = h.agent(admin, "ax-noread", "moderation:vote", "moderation:purge");
    noVote = h.agent(admin, "ax-novote", "moderation:read", "moderation:purge");
    noPurge = h.agent(admin, "ax-nopurge", "moderation:read", "moderation:vote");
    allScopes = h.agent(admin, "ax-all", "moderation:read", "moderation:vote", "moderation:purge");
    h.seedAgents("reader", "stager", "dt-bot", "re-purger", "re-voter", "heir-bot", "val-bot", "rule-bot", "counter",
        "un-bot", "un-bot2", "rv-bot", "acc-bot", "wd-bot", "exp-bot", "cap-bot", "race-bot",
        "blank-bot", "dots-bot");
    reader = h.grantTo(admin, "reader", "moderation:read");
    seedRoster();
  }

  // ---------------------------------------------------------------- access

  private record Route(HttpMethod method, String path, List<Agent> agentsRefused, boolean staffRefused,
      boolean adminRefused) {}

  @Test
  void everyAdminRouteIsNotFoundForWhoeverMayNotUseItWhateverTheySend() {
    h.seed(newMember("acc-target", "bio", now()));
    String unknownId = UUID.randomUUID().toString();
    List<Route> routes = List.of(
        new Route(HttpMethod.GET, "/api/admin/members?bogus=1&perPage=9999", List.of(noRead), false, false),
        new Route(HttpMethod.GET, "/api/admin/members/acc-target?bogus=1", List.of(noRead), false, false),
        new Route(HttpMethod.POST, "/api/admin/members/acc-target/vote", List.of(noVote), false, false),
        new Route(HttpMethod.DELETE, "/api/admin/members/acc-target/vote", List.of(noVote), true, true),
        new Route(HttpMethod.POST, "/api/admin/members/acc-target/purge", List.of(noPurge), true, true),
        new Route(HttpMethod.GET, "/api/admin/spam-purges?bogus=1&by=robots", List.of(noRead), false, false),
        new Route(HttpMethod.POST, "/api/admin/spam-purges/" + unknownId + "/unblock", List.of(allScopes), false,
            false),
        new Route(HttpMethod.POST, "/api/admin/private-data/purge-orphans", List.of(allScopes), true, false),
        new Route(HttpMethod.GET, "/api/admin/agents?bogus=1", List.of(allScopes), false, false),
        new Route(HttpMethod.POST, "/api/admin/agents", List.of(allScopes), true, false),
        new Route(HttpMethod.POST, "/api/admin/agents/ax-all/grants", List.of(allScopes), true, false),
        new Route(HttpMethod.DELETE, "/api/admin/agents/ax-all/grants/" + unknownId, List.of(allScopes), true, false),
        new Route(HttpMethod.POST, "/api/admin/agents/ax-all/withdraw-votes", List.of(allScopes), false, false));
    ObjectId before = h.head();
    JsonObject bad = new JsonObject().put("bogus", true).put("verdict", 7).put("evidence", "none");
    for (Route route : routes) {
      List<String> refused = new ArrayList<>();
      refused.add(null); // anonymous
      refused.add(user);
      route.agentsRefused().forEach(a -> refused.add(a.token()));
      if (route.staffRefused()) {
        refused.add(staff);
      }
      if (route.adminRefused()) {
        refused.add(admin);
      }
      for (String token : refused) {
        HttpResponse<Buffer> r = route.method() == HttpMethod.GET || route.method() == HttpMethod.DELETE
            ? h.call(route.method(), route.path(), token, null) : h.call(route.method(), route.path(), token, bad);
        assertThat(r.statusCode())
            .as(route.method() + " " + route.path() + " as " + who(token) + ": " + r.bodyAsString())
            .isEqualTo(404);
        notFound(r);
        if (route.method() == HttpMethod.POST) {
          HttpResponse<Buffer> malformed = h.raw(route.method(), route.path(), token, "{not json");
          assertThat(malformed.statusCode()).as("malformed body to " + route.path() + " as " + who(token))
              .isEqualTo(404);
        }
      }
    }
    // an agent's token that was never issued is nobody
    Agent forged = new Agent("ax-all", allScopes.id(), "x", allScopes.grantId(), "cfpa_" + "A".repeat(43));
    notFound(h.get("/api/admin/members", forged.token()));
    assertThat(h.head()).isEqualTo(before);
  }

  private static String who(String token) {
    if (token == null) {
      return "anonymous";
    }
    if (token.equals(user)) {
      return "user";
    }
    if (token.equals(staff)) {
      return "staff";
    }
    if (token.equals(admin)) {
      return "administrator";
    }
    return "an agent without the scope";
  }

  @Test
  void theAccountLevelIsReadLiveAndEditorsAreNotStaff() {
    String editor = h.member(admin, "edi", "editor");
    String demoted = h.member(admin, "demoted", "staff");
    notFound(h.get("/api/admin/members", editor));
    notFound(h.get("/api/admin/spam-purges", editor));
    notFound(h.vote(editor, "usr", "spam"));
    list(h.get("/api/admin/members", demoted));
    data(h.post("/api/people/demoted/account-level", admin, new JsonObject().put("level", "user")));
    notFound(h.get("/api/admin/members", demoted));
    notFound(h.vote(demoted, "usr", "spam"));
    // a deactivated staff member is no moderator either
    list(h.get("/api/admin/members", staff2));
    String staff3 = h.member(admin, "stf3", "staff");
    data(h.post("/api/people/stf3/deactivate", staff3, null));
    notFound(h.get("/api/admin/members", staff3));
  }

  @Test
  void whoeverMayUseARouteGetsItsValidation() {
    h.seed(newMember("acc-valid", "bio", now()));
    invalid(h.get("/api/admin/members?bogus=1", staff), "bogus");
    invalid(h.get("/api/admin/members?perPage=201", reader.token()), "perPage");
    invalid(h.post("/api/admin/members/acc-valid/vote", staff, new JsonObject().put("bogus", true)), "bogus");
    invalid(h.post("/api/admin/members/acc-valid/vote", noPurge.token(), new JsonObject().put("bogus", true)), "bogus");
    invalid(h.post("/api/admin/members/acc-valid/purge", allScopes.token(), new JsonObject().put("bogus", true)),
        "bogus");
    invalid(h.get("/api/admin/spam-purges?bogus=1", staff), "bogus");
    invalid(h.get("/api/admin/spam-purges?by=robots", reader.token()), "by");
    invalid(h.post("/api/admin/spam-purges/" + UUID.randomUUID() + "/unblock", staff, new JsonObject().put("bogus", 1)),
        "bogus");
    invalid(h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("bogus", 1)), "bogus");
    invalid(h.post("/api/admin/agents", admin, new JsonObject().put("bogus", 1)), "bogus");
    invalid(
        h.post("/api/admin/agents/ax-all/grants", admin, new JsonObject().put("scopes", new JsonArray().add("root"))),
        "scopes");
  }

  @Test
  void unknownKeysAreRefusedOnEveryRoute() {
    h.seed(newMember("acc-keys", "bio", now()));
    ObjectId before = h.head();
    String unknownId = UUID.randomUUID().toString();
    invalid(h.get("/api/admin/agents?bogus=1", staff), "bogus");
    invalid(h.get("/api/admin/members/acc-keys?bogus=1", staff), "bogus");
    invalid(h.post("/api/admin/agents/ax-all/withdraw-votes", staff, new JsonObject().put("bogus", 1)), "bogus");
    // the routes that take no query string refuse one, writes included, rather than ignore it
    invalid(h.post("/api/admin/members/acc-keys/vote?bogus=1", staff, new JsonObject().put("verdict", "spam")),
        "bogus");
    invalid(h.delete("/api/admin/members/acc-keys/vote?bogus=1", allScopes.token()), "bogus");
    invalid(h.post("/api/admin/members/acc-keys/purge?dryRun=true", allScopes.token(),
        ModerationHarness.purgeBody("Set a bio advertising a pharmacy shop.", ModerationHarness.bioEvidence())),
        "dryRun");
    invalid(h.post("/api/admin/spam-purges/" + unknownId + "/unblock?bogus=1", staff, null), "bogus");
    invalid(h.post("/api/admin/private-data/purge-orphans?apply=true", admin, new JsonObject().put("apply", false)),
        "apply");
    invalid(h.post("/api/admin/agents?bogus=1", admin, new JsonObject().put("slug", "keys-bot").put("fullName", "K")),
        "bogus");
    invalid(h.post("/api/admin/agents/ax-all/grants?bogus=1", admin, new JsonObject()
        .put("scopes", new JsonArray().add("moderation:read"))), "bogus");
    invalid(h.delete("/api/admin/agents/ax-all/grants/" + allScopes.grantId() + "?bogus=1", admin), "bogus");
    invalid(h.post("/api/admin/agents/ax-noread/withdraw-votes?bogus=1", staff2, null), "bogus");
    assertThat(h.head()).as("nothing refused was written").isEqualTo(before);
    assertThat(h.person("acc-keys").isDeactivated()).isFalse();
    assertThat(h.person("keys-bot")).isNull();
    list(h.get("/api/admin/members", allScopes.token())); // the grant was not revoked

    // withdraw-votes takes no input: no body, an empty body and {} are all fine
    assertThat(data(h.raw(HttpMethod.POST, "/api/admin/agents/ax-noread/withdraw-votes", staff2, ""))
        .getInteger("withdrawn")).isZero();
    assertThat(data(h.post("/api/admin/agents/ax-noread/withdraw-votes", staff2, new JsonObject()))
        .getInteger("withdrawn")).isZero();
  }

  // ---------------------------------------------------------------- the roster

  /**
   * Five members who joined in January 2025 (so date bounds can pin them), with private profiles,
   * sign-ins and votes written straight into the records: Anna (imported, signed in twice, a bio
   * with a link), Bert (hidden by an agent's staged spam vote), Cleo (hidden by a staff spam vote;
   * her email's local part appears nowhere else), Dora (a staff legit vote over an agent's spam vote;
   * joined in the last millisecond of 13 January) and Emil (nothing at all).
   */
  static void seedRoster() {
    Agent stager = h.grantTo(admin, "stager", "moderation:read");
    assertThat(stager.token()).isNotBlank();
    Instant votedAt = now();
    Person anna = ModerationHarness.withLegacyId(new Person(UUID.randomUUID().toString(), null, "r-anna", "Roster Anna",
        "Maps. [shop](https://x)", null, "user", null, null, null, null, null, JAN_10, JAN_10), "1001");
    Person bert = rosterPerson("r-bert", "Bert", Instant.parse("2025-01-11T00:00:00Z"), votedAt);
    Person cleo = rosterPerson("r-cleo", "Cleo", Instant.parse("2025-01-12T12:00:00Z"), votedAt);
    Person dora = rosterPerson("r-dora", "Dora", Instant.parse("2025-01-13T23:59:59.999Z"), null);
    Person emil =
        new Person(UUID.randomUUID().toString(), null, "r-emil", "Roster Emil", null, null, "user", null, null,
            null, null, null, Instant.parse("2025-01-14T00:00:00Z"), Instant.parse("2025-01-14T00:00:00Z"));
    List<RecordChange> changes = new ArrayList<>(List.of(ModerationHarness.put(anna), ModerationHarness.put(bert),
        ModerationHarness.put(cleo), ModerationHarness.put(dora), ModerationHarness.put(emil)));
    changes.add(ModerationHarness.put(new PersonEvaluation("r-bert", "agent-stager", "spam", "Throwaway account.",
        List.of("agent", "github-new-account"), null, votedAt)));
    changes.add(ModerationHarness.put(new PersonEvaluation("r-cleo", "human-stf", "spam", null,
        List.of("manual-override"), 1.0, votedAt)));
    changes.add(ModerationHarness.put(new PersonEvaluation("r-dora", "agent-stager", "spam", "Looks like a shop.",
        List.of("agent"), null, votedAt.minusSeconds(60))));
    changes.add(ModerationHarness.put(new PersonEvaluation("r-dora", "human-stf2", "legit", "Known volunteer.",
        List.of("manual-override"), 1.0, votedAt)));
    h.commitBehindTheAppsBack(changes);
    h.privateProfile("r-anna", "anna.roster@annamail.test");
    h.privateProfile("r-bert", "bert@bertmail.test");
    h.privateProfile("r-cleo", "zanzibar@quuxmail.test");
    h.privateProfile("r-dora", "dora@doramail.test");
    h.session("r-anna", Instant.parse("2025-02-01T10:00:00Z"));
    h.session("r-anna", Instant.parse("2025-02-03T10:00:00Z"));
    h.session("r-bert", Instant.parse("2025-03-01T10:00:00Z"));
  }

  private static Person rosterPerson(String slug, String name, Instant createdAt, Instant hiddenAt) {
    return new Person(UUID.randomUUID().toString(), null, slug, "Roster " + name, "I help out.", null, "user", null,
        null,
        null, hiddenAt, hiddenAt == null ? null : "moderation", createdAt, createdAt);
  }

  /** The fixture's window: only the five January members. */
  private static List<String> roster(String token, String query) {
    return slugs(list(h.get("/api/admin/members?joinedAfter=2025-01-01&joinedBefore=2025-01-31"
        + (query.isEmpty() ? "" : "&" + query), token)));
  }

  @Test
  void theRosterIsNewestSignupFirstWithEveryFieldForStaff() {
    JsonObject body = ok(h.get("/api/admin/members?joinedAfter=2025-01-01&joinedBefore=2025-01-31", staff), 200);
    JsonArray rows = body.getJsonArray("data");
    assertThat(slugs(rows)).containsExactly("r-emil", "r-dora", "r-cleo", "r-bert", "r-anna");
    JsonObject meta = body.getJsonObject("metadata");
    assertThat(meta.getInteger("page")).isEqualTo(1);
    assertThat(meta.getInteger("perPage")).isEqualTo(50);
    assertThat(meta.getLong("totalItems")).isEqualTo(5);
    assertThat(meta.getLong("totalPages")).isEqualTo(1);

    JsonObject anna = rows.getJsonObject(4);
    assertThat(anna.getString("id")).isEqualTo(h.idOf("r-anna"));
    assertThat(anna.getString("fullName")).isEqualTo("Roster Anna");
    assertThat(Instant.parse(anna.getString("createdAt"))).isEqualTo(JAN_10);
    assertThat(anna.getString("deletedAt")).isNull();
    assertThat(anna.getString("origin")).isEqualTo("imported");
    assertThat(anna.getString("email")).isEqualTo("anna.roster@annamail.test");
    assertThat(anna.getString("emailDomain")).isEqualTo("annamail.test");
    assertThat(anna.getBoolean("hasGitHubLink")).isFalse();
    assertThat(anna.getValue("github")).isNull();
    assertThat(Instant.parse(anna.getString("lastLoginAt"))).isEqualTo(Instant.parse("2025-02-03T10:00:00Z"));
    assertThat(anna.getLong("signInCount")).isEqualTo(2);
    assertThat(anna.getString("lastSlackSsoAt")).isNull();
    assertThat(anna.getValue("emailBounce")).isNull();
    assertThat(anna.getString("bioExcerpt")).isEqualTo("Maps. shop");
    assertThat(anna.getJsonObject("footprint").getMap()).containsOnlyKeys("memberships", "updates", "buzz",
        "blogPosts", "helpWantedInterest", "tags").allSatisfy((k, v) -> assertThat(v).isEqualTo(0));
    assertThat(anna.getValue("latestVote")).isNull();
    assertThat(anna.getValue("stagedVote")).isNull();
    assertThat(anna.getValue("purgeAfter")).isNull();
    assertThat(strings(anna.getJsonArray("signals"))).containsExactly("no-avatar", "bio-links:2");
    assertThat(anna.getInteger("attention")).isEqualTo(2);

    JsonObject emil = rows.getJsonObject(0);
    assertThat(emil.getString("origin")).isEqualTo("signed-up");
    assertThat(emil.getString("email")).isNull();
    assertThat(emil.getString("emailDomain")).isNull();
    assertThat(emil.getString("lastLoginAt")).isNull();
    assertThat(emil.getLong("signInCount")).isZero();
    assertThat(emil.getString("bioExcerpt")).isNull();
    assertThat(strings(emil.getJsonArray("signals"))).containsExactly("never-signed-in", "no-avatar", "no-bio");
    assertThat(emil.getInteger("attention")).isEqualTo(3);
  }

  @Test
  void rowsCarryTheVoteStateOfTheAccount() {
    JsonArray rows = list(h.get("/api/admin/members?joinedAfter=2025-01-01&joinedBefore=2025-01-31", staff));
    JsonObject dora = rows.getJsonObject(1);
    JsonObject cleo = rows.getJsonObject(2);
    JsonObject bert = rows.getJsonObject(3);

    // Cleo: a staff spam vote hides her and puts her on the three-day clock
    JsonObject cleoVote = cleo.getJsonObject("latestVote");
    assertThat(cleoVote.getString("verdict")).isEqualTo("spam");
    assertThat(cleoVote.getJsonObject("voter").getString("slug")).isEqualTo("stf");
    assertThat(cleoVote.getJsonObject("voter").getString("fullName")).isEqualTo("Person stf");
    assertThat(cleo.getValue("stagedVote")).isNull();
    assertThat(cleo.getString("deletedAt")).isNotNull();
    assertThat(Instant.parse(cleo.getString("purgeAfter")))
        .isEqualTo(Instant.parse(cleoVote.getString("evaluatedAt")).plus(Duration.ofDays(3)));
    assertThat(strings(cleo.getJsonArray("signals"))).contains("email-name-mismatch");

    // Bert: an agent's staged vote, which counts while the agent holds an active grant
    assertThat(bert.getValue("latestVote")).isNull();
    JsonObject staged = bert.getJsonObject("stagedVote");
    assertThat(staged.getString("verdict")).isEqualTo("spam");
    assertThat(staged.getJsonObject("agent").getString("slug")).isEqualTo("stager");
    assertThat(staged.getJsonObject("agent").getString("fullName")).isEqualTo("Bot stager");
    assertThat(staged.getString("reasoning")).isEqualTo("Throwaway account.");
    assertThat(strings(staged.getJsonArray("flags"))).contains("github-new-account");
    assertThat(staged.getBoolean("counts")).isTrue();
    assertThat(Instant.parse(bert.getString("purgeAfter")))
        .isEqualTo(Instant.parse(staged.getString("evaluatedAt")).plus(Duration.ofDays(3)));

    // Dora: the human legit vote decides; the agent's older spam vote is history
    assertThat(dora.getJsonObject("latestVote").getString("verdict")).isEqualTo("legit");
    assertThat(dora.getJsonObject("latestVote").getJsonObject("voter").getString("slug")).isEqualTo("stf2");
    assertThat(dora.getValue("stagedVote")).isNull();
    assertThat(dora.getValue("purgeAfter")).isNull();
  }

  @Test
  void anAgentSeesTheRosterWithoutEmailsButWithTheirDomains() {
    JsonArray rows = list(h.get("/api/admin/members?joinedAfter=2025-01-01&joinedBefore=2025-01-31", reader.token()));
    assertThat(slugs(rows)).containsExactly("r-emil", "r-dora", "r-cleo", "r-bert", "r-anna");
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.getJsonObject(i).getString("email")).isNull();
    }
    assertThat(rows.getJsonObject(2).getString("emailDomain")).isEqualTo("quuxmail.test");
    assertThat(rows.getJsonObject(4).getString("emailDomain")).isEqualTo("annamail.test");
    assertThat(rows.getJsonObject(3).getJsonObject("stagedVote").getString("verdict")).isEqualTo("spam");
    assertThat(rows.encode()).doesNotContain("zanzibar").doesNotContain("anna.roster@");
  }

  @Test
  void qMatchesTheWholeEmailForStaffAndOnlyItsDomainForAgents() {
    assertThat(roster(staff, "q=zanzibar")).containsExactly("r-cleo");
    assertThat(roster(reader.token(), "q=zanzibar")).isEmpty();
    assertThat(slugs(list(h.get("/api/admin/members?q=zanzibar", reader.token())))).isEmpty();
    assertThat(roster(staff, "q=quuxmail")).containsExactly("r-cleo");
    assertThat(roster(reader.token(), "q=quuxmail")).containsExactly("r-cleo");
    // ".test" finds everyone on that domain, for both
    assertThat(slugs(list(h.get("/api/admin/members?q=.test", staff))))
        .containsExactly("r-dora", "r-cleo", "r-bert", "r-anna");
    assertThat(slugs(list(h.get("/api/admin/members?q=.test", reader.token()))))
        .containsExactly("r-dora", "r-cleo", "r-bert", "r-anna");
    // name, slug and bio, in any case
    assertThat(roster(staff, "q=roster%20ANNA")).containsExactly("r-anna");
    assertThat(roster(reader.token(), "q=r-emil")).containsExactly("r-emil");
    assertThat(roster(reader.token(), "q=shop")).containsExactly("r-anna");
    assertThat(roster(staff, "q=nobody-matches-this")).isEmpty();
  }

  @Test
  void aMemberWhoJoinsAfterTheRosterWasReadIsFoundByEmailAtOnce() {
    // the roster (and its email index) is built by this read
    assertThat(slugs(list(h.get("/api/admin/members?q=late-joiner-mail", staff)))).isEmpty();
    h.createPerson(admin, "r-late", "Late Joiner", "someone@late-joiner-mail.test");
    assertThat(slugs(list(h.get("/api/admin/members?q=late-joiner-mail", staff)))).containsExactly("r-late");
    assertThat(slugs(list(h.get("/api/admin/members?q=late-joiner-mail", reader.token())))).containsExactly("r-late");
    assertThat(slugs(list(h.get("/api/admin/members?q=someone@late", staff)))).containsExactly("r-late");
    assertThat(slugs(list(h.get("/api/admin/members?q=someone@late", reader.token())))).isEmpty();
  }

  @Test
  void voteFilters() {
    assertThat(roster(staff, "vote=none")).containsExactly("r-emil", "r-bert", "r-anna");
    assertThat(roster(staff, "vote=staged")).containsExactly("r-bert");
    assertThat(roster(staff, "vote=spam")).containsExactly("r-cleo");
    assertThat(roster(staff, "vote=legit")).containsExactly("r-dora");
    assertThat(roster(reader.token(), "vote=staged")).containsExactly("r-bert");
    invalid(h.get("/api/admin/members?vote=maybe", staff), "vote");
  }

  @Test
  void originFilter() {
    assertThat(roster(staff, "origin=imported")).containsExactly("r-anna");
    assertThat(roster(staff, "origin=signed-up")).containsExactly("r-emil", "r-dora", "r-cleo", "r-bert");
    invalid(h.get("/api/admin/members?origin=laddr", staff), "origin");
  }

  @Test
  void joinedBoundsAreInclusiveAndADateOnlyUpperBoundCoversTheDay() {
    assertThat(slugs(list(h.get("/api/admin/members?joinedAfter=2025-01-11&joinedBefore=2025-01-13", staff))))
        .containsExactly("r-dora", "r-cleo", "r-bert");
    assertThat(slugs(list(h.get("/api/admin/members?joinedAfter=2025-01-11T00:00:00Z&joinedBefore=2025-01-13T00:00:00Z",
        staff)))).containsExactly("r-cleo", "r-bert");
    assertThat(slugs(list(h.get("/api/admin/members?joinedAfter=2025-01-11T00:00:00.001Z&joinedBefore=2025-01-13",
        staff)))).containsExactly("r-dora", "r-cleo");
    assertThat(roster(staff, "joinedAfter=2025-01-14")).containsExactly("r-emil");
    assertThat(slugs(list(h.get("/api/admin/members?joinedBefore=2025-01-09", staff)))).isEmpty();
    invalid(h.get("/api/admin/members?joinedAfter=last-week", staff), "joinedAfter");
  }

  @Test
  void includeDeactivatedFalseLeavesOutWhatModerationHid() {
    assertThat(roster(staff, "includeDeactivated=false")).containsExactly("r-emil", "r-dora", "r-anna");
    assertThat(roster(staff, "includeDeactivated=true")).containsExactly("r-emil", "r-dora", "r-cleo", "r-bert",
        "r-anna");
  }

  @Test
  void sortAndPaging() {
    assertThat(roster(staff, "sort=fullName")).containsExactly("r-anna", "r-bert", "r-cleo", "r-dora", "r-emil");
    assertThat(roster(staff, "sort=-fullName")).containsExactly("r-emil", "r-dora", "r-cleo", "r-bert", "r-anna");
    assertThat(roster(staff, "sort=createdAt")).containsExactly("r-anna", "r-bert", "r-cleo", "r-dora", "r-emil");
    assertThat(roster(staff, "sort=-lastLoginAt")).containsSubsequence("r-bert", "r-anna");
    assertThat(roster(staff, "sort=lastLoginAt")).containsSubsequence("r-anna", "r-bert");
    invalid(h.get("/api/admin/members?sort=slug", staff), "sort");

    String window = "/api/admin/members?joinedAfter=2025-01-01&joinedBefore=2025-01-31&perPage=2";
    JsonObject page2 = ok(h.get(window + "&page=2", staff), 200);
    assertThat(slugs(page2.getJsonArray("data"))).containsExactly("r-cleo", "r-bert");
    JsonObject meta = page2.getJsonObject("metadata");
    assertThat(meta.getInteger("page")).isEqualTo(2);
    assertThat(meta.getInteger("perPage")).isEqualTo(2);
    assertThat(meta.getLong("totalItems")).isEqualTo(5);
    assertThat(meta.getLong("totalPages")).isEqualTo(3);
    assertThat(slugs(list(h.get(window + "&page=3", staff)))).containsExactly("r-anna");
    JsonObject beyond = ok(h.get(window + "&page=4", staff), 200);
    assertThat(beyond.getJsonArray("data")).isEmpty();
    assertThat(beyond.getJsonObject("metadata").getLong("totalItems")).isEqualTo(5);
    assertThat(ok(h.get("/api/admin/members?perPage=200", staff), 200).getJsonObject("metadata").getInteger("perPage"))
        .isEqualTo(200);
    invalid(h.get("/api/admin/members?perPage=201", staff), "perPage");
    invalid(h.get("/api/admin/members?page=0", staff), "page");
    JsonObject none = ok(h.get("/api/admin/members?q=nobody-matches-this", staff), 200);
    assertThat(none.getJsonArray("data")).isEmpty();
    assertThat(none.getJsonObject("metadata").getLong("totalItems")).isZero();
    assertThat(none.getJsonObject("metadata").getLong("totalPages")).isEqualTo(1);
  }

  @Test
  void agentAccountsAreNotOnTheRoster() {
    List<String> all = slugs(list(h.get("/api/admin/members?perPage=200", staff)));
    assertThat(all).contains("stf", "usr").doesNotContain("reader", "ax-all", "stager");
  }

  // ---------------------------------------------------------------- one member's detail

  @Test
  void theDetailListsEveryVoteNewestFirstWithItsKind() {
    h.seed(newMember("dt-member", "Buy things", now()));
    h.privateProfile("dt-member", "dt-member@dtmail.example");
    Agent bot = voter("dt-bot");
    data(h.agentVote(bot, "dt-member", "spam", "business-name"));
    data(h.post("/api/admin/members/dt-member/vote", staff, new JsonObject().put("verdict", "legit")
        .put("reasoning", "Known to the Tuesday group.")));

    JsonObject detail = h.detail(staff, "dt-member");
    JsonObject person = detail.getJsonObject("person");
    assertThat(person.getString("slug")).isEqualTo("dt-member");
    assertThat(person.getString("email")).isEqualTo("dt-member@dtmail.example");
    assertThat(person.containsKey("deletedAt")).isTrue();
    assertThat(person.getString("deletedAt")).isNull();
    JsonArray votes = detail.getJsonArray("votes");
    assertThat(votes).hasSize(2);
    // newest first (the staff vote came second; equal instants fall back to the evaluator's name)
    assertThat(Instant.parse(votes.getJsonObject(0).getString("evaluatedAt")))
        .isAfterOrEqualTo(Instant.parse(votes.getJsonObject(1).getString("evaluatedAt")));
    JsonObject human = byKind(votes, "human");
    assertThat(human.getString("kind")).isEqualTo("human");
    assertThat(human.getString("verdict")).isEqualTo("legit");
    assertThat(human.getString("reasoning")).isEqualTo("Known to the Tuesday group.");
    assertThat(strings(human.getJsonArray("flags"))).containsExactly("manual-override");
    assertThat(human.getJsonObject("voter").getString("slug")).isEqualTo("stf");
    assertThat(human.getJsonObject("voter").getString("fullName")).isEqualTo("Person stf");
    JsonObject agent = byKind(votes, "agent");
    assertThat(agent.getString("kind")).isEqualTo("agent");
    assertThat(agent.getString("verdict")).isEqualTo("spam");
    assertThat(strings(agent.getJsonArray("flags"))).contains("business-name");
    assertThat(agent.getJsonObject("voter").getString("slug")).isEqualTo("dt-bot");
    assertThat(agent.getJsonObject("voter").getString("fullName")).isEqualTo("Bot dt-bot");
    assertThat(Instant.parse(human.getString("evaluatedAt")))
        .isAfterOrEqualTo(Instant.parse(agent.getString("evaluatedAt")));
    assertThat(detail.getJsonArray("earlierVotes")).isEmpty();
    assertThat(detail.getJsonArray("earlierPurges")).isEmpty();
    assertThat(detail.getJsonObject("footprint").getMap()).containsOnlyKeys("memberships", "updates", "buzz",
        "blogPosts", "helpWantedInterest", "tags");
    assertThat(detail.getJsonObject("latestVote").getString("verdict")).isEqualTo("legit");

    // an agent reads the same detail, without the email
    JsonObject forAgent = h.detail(reader.token(), "dt-member");
    assertThat(forAgent.getJsonObject("person").containsKey("email")).isFalse();
    assertThat(forAgent.getString("email")).isNull();
    assertThat(forAgent.getString("emailDomain")).isEqualTo("dtmail.example");
    assertThat(forAgent.getJsonArray("votes")).hasSize(2);
    assertThat(forAgent.encode()).doesNotContain("dt-member@dtmail.example");

    notFound(h.get("/api/admin/members/no-such-member", staff));
    notFound(h.get("/api/admin/members/reader", staff));
  }

  private static JsonObject byKind(JsonArray votes, String kind) {
    for (int i = 0; i < votes.size(); i++) {
      if (kind.equals(votes.getJsonObject(i).getString("kind"))) {
        return votes.getJsonObject(i);
      }
    }
    throw new AssertionError("no " + kind + " vote in " + votes.encode());
  }

  // ---------------------------------------------------------------- votes that belong to an earlier account

  @Test
  void aReusedSlugKeepsTheEarlierAccountsVotesApart() {
    h.createPerson(admin, "reuse", "user");
    data(h.patch("/api/people/reuse", admin, new JsonObject().put("bio", "Cheap pills, fast delivery.")));
    Agent voter = h.grantTo(admin, "re-voter", "moderation:read", "moderation:vote");
    Agent purger = h.grantTo(admin, "re-purger", "moderation:read", "moderation:vote", "moderation:purge");
    String oldId = h.idOf("reuse");
    data(h.agentVote(voter, "reuse", "spam"));
    JsonObject purge = data(h.purgeBio(purger, "reuse")).getJsonObject("purge");
    assertThat(h.person("reuse")).isNull();

    // a new sign-up takes the freed slug
    h.createPerson(admin, "reuse", "user");
    assertThat(h.idOf("reuse")).isNotEqualTo(oldId);
    JsonObject detail = h.detail(staff, "reuse");
    assertThat(detail.getJsonArray("votes")).isEmpty();
    JsonArray earlier = detail.getJsonArray("earlierVotes");
    assertThat(earlier).hasSize(2);
    List<String> voters = new ArrayList<>();
    for (int i = 0; i < earlier.size(); i++) {
      voters.add(earlier.getJsonObject(i).getJsonObject("voter").getString("slug"));
      assertThat(earlier.getJsonObject(i).getString("kind")).isEqualTo("agent");
    }
    assertThat(voters).containsExactly("re-purger", "re-voter");
    assertThat(strings(earlier.getJsonObject(0).getJsonArray("flags"))).contains("purged");
    JsonArray purges = detail.getJsonArray("earlierPurges");
    assertThat(purges).hasSize(1);
    assertThat(purges.getJsonObject(0).getString("id")).isEqualTo(purge.getString("id"));
    assertThat(purges.getJsonObject(0).getString("by")).isEqualTo("agent-re-purger");
    assertThat(purges.getJsonObject(0).getString("purgedAt")).isNotNull();
    assertThat(purges.getJsonObject(0).getString("reason")).contains("pharmacy");
    assertThat(detail.getValue("latestVote")).isNull();
    assertThat(detail.getValue("stagedVote")).isNull();
    assertThat(detail.getValue("purgeAfter")).isNull();
    assertThat(detail.getString("deletedAt")).isNull();
    assertThat(strings(detail.getJsonArray("signals"))).contains("slug-purged-before");
    assertThat(strings(h.row(staff, "reuse").getJsonArray("signals"))).contains("slug-purged-before");
    assertThat(slugs(list(h.get("/api/admin/members?vote=staged&q=reuse", staff)))).isEmpty();

    // the purger's vote was on the earlier account: it has none on this one to take back, and the record stays
    notFound(h.unvote(purger, "reuse"));
    assertThat(h.fileAtHead("person-evaluations/reuse/agent-re-purger.toml")).isNotNull();

    // an agent may vote on the new account: it is a vote on this account alone
    data(h.agentVote(voter, "reuse", "legit"));
    JsonObject after = h.detail(staff, "reuse");
    assertThat(after.getJsonArray("votes")).hasSize(1);
    assertThat(after.getJsonArray("votes").getJsonObject(0).getString("verdict")).isEqualTo("legit");
    assertThat(after.getJsonArray("earlierVotes")).hasSize(1);
    assertThat(after.getJsonObject("stagedVote").getString("verdict")).isEqualTo("legit");
  }

  @Test
  void aStaffVoteOnAnEarlierAccountDoesNotStopAnAgentOnTheNewOne() {
    h.reusedSlug(admin, staff, "heir");
    Agent bot = voter("heir-bot");

    JsonObject voted = data(h.agentVote(bot, "heir", "spam"));
    assertThat(voted.getJsonObject("person").getString("deletedAt")).isNotNull();
    assertThat(voted.getValue("latestVote")).isNull();
    JsonObject detail = h.detail(staff, "heir");
    assertThat(detail.getJsonArray("votes")).hasSize(1);
    assertThat(detail.getJsonArray("votes").getJsonObject(0).getString("kind")).isEqualTo("agent");
    assertThat(detail.getJsonArray("earlierVotes")).hasSize(1);
    assertThat(detail.getJsonArray("earlierVotes").getJsonObject(0).getString("kind")).isEqualTo("human");
    assertThat(detail.getJsonArray("earlierPurges").getJsonObject(0).getString("by")).isEqualTo("human-ada");
    assertThat(detail.getValue("latestVote")).isNull();
    assertThat(detail.getJsonObject("stagedVote").getJsonObject("agent").getString("slug")).isEqualTo("heir-bot");
  }

  @Test
  void votesCastBeforeAPurgeOfAnotherPersonUnderTheSlugBelongToTheEarlierAccount() {
    // the member existed before another account under the slug was purged (a slug that changed hands
    // some other way than a new sign-up): only the spam-purges record tells the votes apart
    Instant joined = now().minus(Duration.ofDays(2));
    h.seed(newMember("handed", "bio", joined));
    Instant votedAt = joined.plus(Duration.ofHours(1));
    Instant purgedAt = joined.plus(Duration.ofHours(2));
    SpamPurge earlier = new SpamPurge(
        UUID.randomUUID().toString(), UUID.randomUUID().toString(), "handed", "Someone Else", null, null, "human-stf",
        null, "Spam", List.of(), List.of(), "0".repeat(40), purgedAt, true, null, null);
    h.commitBehindTheAppsBack(List.of(
        ModerationHarness
            .put(new PersonEvaluation("handed", "human-stf", "spam", "pills", List.of("manual-override"), 1.0,
                votedAt)),
        RecordChange.put(Sheet.SPAM_PURGES, earlier.id(), earlier)));
    JsonObject detail = h.detail(staff, "handed");
    assertThat(detail.getJsonArray("votes")).isEmpty();
    assertThat(detail.getJsonArray("earlierVotes")).hasSize(1);
    assertThat(detail.getJsonArray("earlierPurges").getJsonObject(0).getString("id")).isEqualTo(earlier.id());
    assertThat(detail.getValue("latestVote")).isNull();
    assertThat(strings(detail.getJsonArray("signals"))).contains("slug-purged-before");
    Agent bot = voter("rule-bot");
    data(h.agentVote(bot, "handed", "spam"));
    assertThat(h.detail(staff, "handed").getJsonArray("votes")).hasSize(1);
  }

  // ---------------------------------------------------------------- human votes

  @Test
  void aStaffSpamVoteHidesTheMemberAndIsCommittedAsTheStaffMember() {
    h.seed(newMember("hv-one", "Pills", now()));
    String id = h.idOf("hv-one");
    ObjectId before = h.head();
    JsonObject result = data(h.post("/api/admin/members/hv-one/vote", staff, new JsonObject().put("verdict", "spam")
        .put("reasoning", "Pharmacy spam in the bio")));
    JsonObject person = result.getJsonObject("person");
    assertThat(person.getString("deletedAt")).isNotNull();
    assertThat(person.getString("deactivatedBy")).isEqualTo("moderation");
    JsonObject vote = result.getJsonObject("vote");
    assertThat(vote.getString("kind")).isEqualTo("human");
    assertThat(vote.getString("verdict")).isEqualTo("spam");
    assertThat(strings(vote.getJsonArray("flags"))).containsExactly("manual-override");
    assertThat(vote.getJsonObject("voter").getString("slug")).isEqualTo("stf");
    assertThat(result.getJsonObject("latestVote").getString("verdict")).isEqualTo("spam");

    RevCommit c = h.onlyCommitSince(before);
    assertThat(c.getAuthorIdent().getName()).isEqualTo("Person stf");
    assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("stf" + ModerationHarness.NOREPLY);
    assertThat(c.getCommitterIdent().getEmailAddress()).isEqualTo("stf" + ModerationHarness.NOREPLY);
    assertThat(c.getShortMessage()).isEqualTo("stf: POST /api/admin/members/hv-one/vote");
    assertTrailers(c, "Action", "moderation.vote", "Subject-Type", "person", "Subject-Id", id,
        "Subject-Slug", "hv-one", "Actor-Slug", "stf", "Actor-Kind", "human", "Actor-Account-Level", "staff");
    assertThat(ModerationHarness.trailer(c, "Grant-Id")).isEmpty();
    assertThat(c.getFullMessage()).doesNotContain("@example.org");

    PersonEvaluation record = h.recordAtHead(Sheet.PERSON_EVALUATIONS, "hv-one/human-stf", PersonEvaluation.class);
    assertThat(record.verdict()).isEqualTo("spam");
    assertThat(record.reasoning()).isEqualTo("Pharmacy spam in the bio");
    assertThat(record.flags()).containsExactly("manual-override");
    assertThat(record.confidence()).isEqualTo(1.0);
    Person hidden = h.recordAtHead(Sheet.PEOPLE, "hv-one", Person.class);
    assertThat(hidden.deletedAt()).isNotNull();
    assertThat(hidden.deactivatedBy()).isEqualTo("moderation");

    // a staff legit vote after the spam vote shows the member again
    JsonObject shown = data(h.vote(staff2, "hv-one", "legit"));
    assertThat(shown.getJsonObject("person").getString("deletedAt")).isNull();
    assertThat(shown.getJsonObject("latestVote").getJsonObject("voter").getString("slug")).isEqualTo("stf2");
    assertThat(h.person("hv-one").isDeactivated()).isFalse();
    assertThat(h.person("hv-one").deactivatedBy()).isNull();
  }

  @Test
  void votingAgainReplacesTheVotersRecord() {
    h.seed(newMember("hv-again", "bio", now()));
    data(h.vote(staff, "hv-again", "spam"));
    data(h.vote(staff, "hv-again", "legit"));
    assertThat(h.evaluation("hv-again", "human-stf").verdict()).isEqualTo("legit");
    assertThat(h.detail(staff, "hv-again").getJsonArray("votes")).hasSize(1);
    assertThat(h.person("hv-again").isDeactivated()).isFalse();
  }

  @Test
  void aLegitVoteLeavesASelfDeactivationAlone() {
    String selfie = h.member(admin, "selfie", "user");
    data(h.post("/api/people/selfie/deactivate", selfie, null));
    assertThat(h.person("selfie").deactivatedBy()).isEqualTo("self");
    Instant hiddenAt = h.person("selfie").deletedAt();

    data(h.vote(staff, "selfie", "spam"));
    assertThat(h.person("selfie").deactivatedBy()).isEqualTo("self");
    JsonObject result = data(h.vote(staff2, "selfie", "legit"));
    assertThat(result.getJsonObject("person").getString("deletedAt")).isNotNull();
    assertThat(h.person("selfie").deletedAt()).isEqualTo(hiddenAt);
    assertThat(h.person("selfie").deactivatedBy()).isEqualTo("self");
  }

  @Test
  void badHumanVotesAreRefused() {
    h.seed(newMember("hv-bad", "bio", now()));
    ObjectId before = h.head();
    invalid(h.vote(staff, "stf", "spam"), "slug");
    invalid(h.vote(staff, "reader", "spam"), "slug");
    invalid(h.vote(staff, "hv-bad", "maybe"), "verdict");
    invalid(h.post("/api/admin/members/hv-bad/vote", staff, new JsonObject()), "verdict");
    invalid(h.post("/api/admin/members/hv-bad/vote", staff, new JsonObject().put("verdict", "spam")
        .put("reasoning", "x".repeat(1001))), "reasoning");
    invalid(h.post("/api/admin/members/hv-bad/vote", staff, new JsonObject().put("verdict", "spam")
        .put("flags", new JsonArray().add("x"))), "flags");
    notFound(h.vote(staff, "no-such-member", "spam"));
    assertThat(h.head()).isEqualTo(before);
    // 1000 characters is fine, and a person's reasoning may name a link
    data(h.post("/api/admin/members/hv-bad/vote", staff, new JsonObject().put("verdict", "legit")
        .put("reasoning", "y".repeat(1000))));
    data(h.post("/api/admin/members/hv-bad/vote", staff2, new JsonObject().put("verdict", "legit")
        .put("reasoning", "Runs https://example.org, the civic group.")));
  }

  // ---------------------------------------------------------------- agent votes

  @Test
  void anAgentSpamVoteHidesAndIsCommittedAsTheAgentWithItsGrant() {
    h.seed(newMember("ag-one", "bio", now()));
    Agent bot = voter("rule-bot");
    ObjectId before = h.head();
    JsonObject result = data(h.agentVote(bot, "ag-one", "spam", "business-name", "github-new-account"));
    assertThat(result.getJsonObject("person").getString("deletedAt")).isNotNull();
    assertThat(result.getJsonObject("person").getString("deactivatedBy")).isEqualTo("moderation");
    assertThat(result.getJsonObject("vote").getString("kind")).isEqualTo("agent");
    assertThat(result.getValue("latestVote")).isNull();

    RevCommit c = h.onlyCommitSince(before);
    assertThat(c.getAuthorIdent().getName()).isEqualTo("Bot rule-bot");
    assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("rule-bot" + ModerationHarness.NOREPLY);
    assertThat(c.getShortMessage()).isEqualTo("rule-bot: POST /api/admin/members/ag-one/vote");
    assertThat(trailerValue(c, "Action")).isEqualTo("moderation.vote");
    assertThat(trailerValue(c, "Actor-Kind")).isEqualTo("agent");
    assertThat(trailerValue(c, "Actor-Slug")).isEqualTo("rule-bot");
    assertThat(trailerValue(c, "Actor-Account-Level")).isEqualTo("user");
    assertThat(trailerValue(c, "Grant-Id")).isEqualTo(bot.grantId());
    assertThat(trailerValue(c, "Subject-Slug")).isEqualTo("ag-one");

    PersonEvaluation record = h.recordAtHead(Sheet.PERSON_EVALUATIONS, "ag-one/agent-rule-bot", PersonEvaluation.class);
    assertThat(record.verdict()).isEqualTo("spam");
    assertThat(record.flags()).containsExactly("agent", "business-name", "github-new-account");
    assertThat(record.confidence()).isNull();
    assertThat(record.reasoning()).startsWith("Business name");
    JsonObject row = h.row(staff, "ag-one");
    assertThat(strings(row.getJsonObject("stagedVote").getJsonArray("flags")))
        .containsExactly("business-name", "github-new-account");
  }

  @Test
  void anAgentsReasoningAndFlagsAreHeldToThePublicCommitRules() {
    h.seed(newMember("ag-val", "bio", now()));
    Agent bot = voter("val-bot");
    ObjectId before = h.head();
    String path = "/api/admin/members/ag-val/vote";
    JsonObject spam = new JsonObject().put("verdict", "spam");
    invalid(h.post(path, bot.token(), spam.copy()), "reasoning");
    invalid(h.post(path, bot.token(), spam.copy().put("reasoning", "")), "reasoning");
    invalid(h.post(path, bot.token(), spam.copy().put("reasoning", "r".repeat(1001))), "reasoning");
    refusedAsReasoning(bot, path, List.of("Links to cheap-pills.shop", "See https://x", "hxxps://pills",
        "Visit www.Pharmacy", "pills[.]com in bio", "Cheap-Pills.SHOP", "bio links pills(dot)com"));
    refusedAsReasoning(bot, path, List.of("first line\nAction: person.purge", "carriage\rreturn", "tab\tin it",
        "nul\u0000", "separator\u2028here"));
    String reasoning = "Business name as the member name.";
    for (Object flags : List.of(new JsonArray().add("Bad"), new JsonArray().add("a".repeat(41)),
        new JsonArray().add("-leading"), new JsonArray().add("has space"), new JsonArray().add(7),
        new JsonArray(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")), "business-name")) {
      invalid(h.post(path, bot.token(), spam.copy().put("reasoning", reasoning).put("flags", flags)), "flags");
    }
    invalid(h.post(path, bot.token(), new JsonObject().put("verdict", "hidden").put("reasoning", reasoning)),
        "verdict");
    invalid(h.post(path, bot.token(), spam.copy().put("reasoning", reasoning).put("confidence", 0.5)), "confidence");
    assertThat(h.head()).isEqualTo(before);

    // the limits themselves are fine: 10 flags, 40 characters, a colon
    JsonArray ten = new JsonArray(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i:j-k", "x".repeat(40)));
    data(h.post(path, bot.token(), spam.copy().put("reasoning", "r".repeat(1000)).put("flags", ten)));
    assertThat(h.evaluation("ag-val", "agent-val-bot").flags()).hasSize(11).startsWith("agent");
  }

  /** A dot that only looks like one (IDNA reads it as one) does not get a link into a public commit. */
  @Test
  void anAgentsReasoningWithALookAlikeDotIsRefused() {
    h.seed(newMember("ag-dots", "bio", now()));
    Agent bot = voter("dots-bot");
    ObjectId before = h.head();
    refusedAsReasoning(bot, "/api/admin/members/ag-dots/vote", List.of("Links to cheap-pills\u3002shop",
        "Links to cheap-pills\uff0eshop", "Links to cheap-pills\u2024shop", "Links to cheap-pills\uff61shop",
        "Visit www\uff0ePharmacy"));
    assertThat(h.head()).isEqualTo(before);
  }

  /** Each of {@code reasonings}, as the reasoning of the agent's spam vote at {@code path}, is refused (400). */
  private static void refusedAsReasoning(Agent bot, String path, List<String> reasonings) {
    for (String reasoning : reasonings) {
      invalid(h.post(path, bot.token(), new JsonObject().put("verdict", "spam").put("reasoning", reasoning)),
          "reasoning");
    }
  }

  /** An agent that the administrator grants moderation:vote (and nothing else). */
  private static Agent voter(String name) {
    return h.grantTo(admin, name, "moderation:vote");
  }

  @Test
  void rule1HumansAreFinal() {
    h.seed(newMember("ag-human", "bio", now()));
    Agent bot = voter("rule-bot");
    data(h.vote(staff, "ag-human", "legit"));
    ObjectId before = h.head();
    conflict(h.agentVote(bot, "ag-human", "spam"), "human_verdict_exists");
    conflict(h.agentVote(bot, "ag-human", "legit"), "human_verdict_exists");
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void rule2OnlyOrdinaryMembers() {
    Instant now = now();
    h.seed(ModerationHarness.withLevel(newMember("ag-editor", "bio", now), "editor"),
        ModerationHarness.withLevel(newMember("ag-staff", "bio", now), "staff"));
    Agent bot = voter("rule-bot");
    ObjectId before = h.head();
    conflict(h.agentVote(bot, "ag-editor", "spam"), "protected_account");
    conflict(h.agentVote(bot, "ag-editor", "legit"), "protected_account");
    conflict(h.agentVote(bot, "ag-staff", "spam"), "protected_account");
    conflict(h.agentVote(bot, "stf", "legit"), "protected_account");
    invalid(h.agentVote(bot, "reader", "spam"), "slug");
    invalid(h.agentVote(bot, "rule-bot", "spam"), "slug");
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void rule3OnlyNewMembersForSpam() {
    h.createPerson(admin, "ag-old", "user");
    h.rewrite("ag-old", p -> ModerationHarness.withCreatedAt(p, now().minus(Duration.ofDays(40))));
    h.seed(newMember("ag-29", "bio", now().minus(Duration.ofDays(29))));
    Agent bot = voter("rule-bot");
    conflict(h.agentVote(bot, "ag-old", "spam"), "member_too_old");
    assertThat(h.person("ag-old").isDeactivated()).isFalse();
    // legit votes have no age limit
    data(h.agentVote(bot, "ag-old", "legit"));
    data(h.agentVote(bot, "ag-29", "spam"));
  }

  @Test
  void theVoteRulesAreCheckedInOrder() {
    Instant old = now().minus(Duration.ofDays(40));
    h.seed(ModerationHarness.withLevel(newMember("ag-ord-1", "bio", now()), "editor"),
        ModerationHarness.withLevel(newMember("ag-ord-2", "bio", old), "editor"));
    Agent bot = voter("rule-bot");
    data(h.vote(staff, "ag-ord-1", "legit"));
    // a human vote (rule 1) comes before a protected account (rule 2)
    conflict(h.agentVote(bot, "ag-ord-1", "spam"), "human_verdict_exists");
    // a protected account (rule 2) comes before the age limit (rule 3)
    conflict(h.agentVote(bot, "ag-ord-2", "spam"), "protected_account");
  }

  @Test
  void rule4AtMostTwentySpamVotesADay() {
    Person[] members = h.seedNumbered("cnt", 21, "bio", now().minus(Duration.ofHours(1)));
    Agent counter = voter("counter");
    for (int i = 0; i < 20; i++) {
      data(h.agentVote(counter, members[i].slug(), "spam"));
    }
    ObjectId before = h.head();
    int wait = rateLimited(h.agentVote(counter, "cnt-21", "spam"));
    assertThat(wait).isGreaterThan(86_000);
    // a re-vote is a spam vote too
    rateLimited(h.agentVote(counter, "cnt-01", "spam"));
    assertThat(h.head()).isEqualTo(before);
    assertThat(h.person("cnt-21").isDeactivated()).isFalse();
    // legit votes are not counted
    data(h.agentVote(counter, "cnt-21", "legit"));
  }

  @Test
  void concurrentSpamVotesNeverPassTheDailyAllowance() {
    Person[] members = h.seedNumbered("race", 25, "bio", now().minus(Duration.ofHours(1)));
    Agent bot = voter("race-bot");
    List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>();
    for (Person m : members) {
      sent.add(app.client().post("/api/admin/members/" + m.slug() + "/vote").bearerTokenAuthentication(bot.token())
          .sendJsonObject(new JsonObject().put("verdict", "spam").put("reasoning", "Throwaway account, shop name.")));
    }
    Future.all(sent).await();
    int accepted = 0;
    for (Future<HttpResponse<Buffer>> f : sent) {
      if (f.result().statusCode() == 200) {
        accepted++;
      } else {
        rateLimited(f.result());
      }
    }
    assertThat(accepted).isEqualTo(20);
    long hidden = Arrays.stream(members).filter(m -> h.person(m.slug()).isDeactivated()).count();
    assertThat(hidden).isEqualTo(20);
  }

  @Test
  void aBlankReasoningIsNoReasoning() {
    h.seed(newMember("blank-member", "bio", now()));
    Agent bot = voter("blank-bot");
    invalid(h.post("/api/admin/members/blank-member/vote", bot.token(), new JsonObject().put("verdict", "spam")
        .put("reasoning", "   ")), "reasoning");
    assertThat(h.evaluation("blank-member", "agent-blank-bot")).isNull();
  }

  // ---------------------------------------------------------------- withdrawing a vote

  @Test
  void deletingAVoteAppliesTheReversalRule() {
    Instant now = now();
    h.seed(newMember("un-none", "bio", now), newMember("un-one", "bio", now), newMember("un-two", "bio", now),
        newMember("un-three", "bio", now));
    Agent bot = voter("un-bot");
    Agent bot2 = voter("un-bot2");

    notFound(h.unvote(bot, "un-none"));
    notFound(h.unvote(bot, "no-such-member"));

    data(h.agentVote(bot, "un-one", "spam"));
    assertThat(h.person("un-one").isDeactivated()).isTrue();
    ObjectId before = h.head();
    JsonObject result = data(h.unvote(bot, "un-one"));
    assertThat(result.getJsonObject("person").getString("deletedAt")).isNull();
    assertThat(result.getValue("stagedVote")).isNull();
    RevCommit c = h.onlyCommitSince(before);
    assertThat(c.getShortMessage()).isEqualTo("un-bot: DELETE /api/admin/members/un-one/vote");
    assertThat(trailerValue(c, "Actor-Kind")).isEqualTo("agent");
    assertThat(trailerValue(c, "Grant-Id")).isEqualTo(bot.grantId());
    assertThat(h.fileAtHead("person-evaluations/un-one/agent-un-bot.toml")).isNull();
    notFound(h.unvote(bot, "un-one"));

    // another agent's spam vote still stands: the member stays hidden
    data(h.agentVote(bot, "un-two", "spam"));
    data(h.agentVote(bot2, "un-two", "spam"));
    JsonObject kept = data(h.unvote(bot2, "un-two"));
    assertThat(kept.getJsonObject("person").getString("deletedAt")).isNotNull();
    assertThat(kept.getJsonObject("stagedVote").getJsonObject("agent").getString("slug")).isEqualTo("un-bot");

    // once a human voted, the agent's vote is history
    data(h.agentVote(bot, "un-three", "spam"));
    data(h.vote(staff, "un-three", "spam"));
    ObjectId beforeConflict = h.head();
    conflict(h.unvote(bot, "un-three"), "human_verdict_exists");
    assertThat(h.head()).isEqualTo(beforeConflict);
  }

  @Test
  void aRevokedGrantsStagedVoteStaysButNoLongerCounts() {
    h.seed(newMember("rv-member", "bio", now()));
    Agent bot = h.grantTo(admin, "rv-bot", "moderation:vote", "moderation:read");
    data(h.agentVote(bot, "rv-member", "spam"));
    JsonObject row = h.row(staff, "rv-member");
    JsonObject staged = row.getJsonObject("stagedVote");
    assertThat(staged.getBoolean("counts")).isTrue();
    assertThat(Instant.parse(row.getString("purgeAfter")))
        .isEqualTo(Instant.parse(staged.getString("evaluatedAt")).plus(Duration.ofDays(3)));

    h.revoke(admin, bot);
    JsonObject after = h.row(staff, "rv-member");
    assertThat(after.getJsonObject("stagedVote").getString("verdict")).isEqualTo("spam");
    assertThat(after.getJsonObject("stagedVote").getBoolean("counts")).isFalse();
    assertThat(after.getValue("purgeAfter")).isNull();
    assertThat(after.getString("deletedAt")).isNotNull();
    // the revoked token answers as if it never existed
    notFound(h.get("/api/admin/members", bot.token()));
    notFound(h.unvote(bot, "rv-member"));
  }

  @Test
  void anExpiredGrantIsNoGrant() {
    h.seed(newMember("exp-member", "bio", now()));
    Agent bot = h.grantTo(admin, "exp-bot", "moderation:vote", "moderation:read");
    data(h.agentVote(bot, "exp-member", "spam"));
    assertThat(h.row(staff, "exp-member").getJsonObject("stagedVote").getBoolean("counts")).isTrue();
    h.sql("UPDATE agent_grants SET expires_at = now() - interval '1 minute' WHERE id = '" + bot.grantId() + "'");
    JsonObject row = h.row(staff, "exp-member");
    assertThat(row.getJsonObject("stagedVote").getBoolean("counts")).isFalse();
    assertThat(row.getValue("purgeAfter")).isNull();
    notFound(h.get("/api/admin/members", bot.token()));
    notFound(h.agentVote(bot, "exp-member", "legit"));
  }

  @Test
  void theGeneralWriteCapAppliesToAgentsOnTop() {
    h.seed(newMember("cap-member", "bio", now()));
    Agent bot = voter("cap-bot");
    for (int i = 0; i < 30; i++) {
      data(h.agentVote(bot, "cap-member", "legit"));
    }
    ObjectId before = h.head();
    int wait = rateLimited(h.agentVote(bot, "cap-member", "legit"));
    assertThat(wait).isLessThanOrEqualTo(60);
    assertThat(h.head()).isEqualTo(before);
  }

  // ---------------------------------------------------------------- agents and their votes

  @Test
  void theAgentsListCountsVotesOverrulesAndPurges() {
    Instant now = now();
    h.seed(newMember("ac-one", "bio", now), newMember("ac-two", "bio", now),
        newMember("ac-three", "Pills for sale", now));
    Agent bot = h.grantTo(admin, "acc-bot", "moderation:read", "moderation:vote", "moderation:purge");
    data(h.agentVote(bot, "ac-one", "spam"));
    data(h.agentVote(bot, "ac-two", "spam"));
    data(h.vote(staff, "ac-one", "legit"));
    assertThat(h.person("ac-one").isDeactivated()).isFalse();
    data(h.purgeBio(bot, "ac-three"));

    JsonArray agents = list(h.get("/api/admin/agents", staff));
    JsonObject entry = null;
    for (int i = 0; i < agents.size(); i++) {
      if ("acc-bot".equals(agents.getJsonObject(i).getJsonObject("person").getString("slug"))) {
        entry = agents.getJsonObject(i);
      }
    }
    assertThat(entry).as(agents.encodePrettily()).isNotNull();
    assertThat(entry.getInteger("votesCast")).isEqualTo(3);
    assertThat(entry.getInteger("overruled")).isEqualTo(1);
    assertThat(entry.getLong("purges")).isEqualTo(1);
    JsonArray grants = entry.getJsonArray("grants");
    assertThat(grants).hasSize(1);
    assertThat(grants.getJsonObject(0).getString("id")).isEqualTo(bot.grantId());
    assertThat(grants.getJsonObject(0).getBoolean("active")).isTrue();
    assertThat(strings(grants.getJsonObject(0).getJsonArray("scopes")))
        .containsExactlyInAnyOrder("moderation:read", "moderation:vote", "moderation:purge");
    assertThat(agents.encode()).doesNotContain(bot.token());
  }

  @Test
  void withdrawVotesRemovesTheAgentsVotesNoHumanHasSeenInOneCommit() {
    Instant now = now();
    h.seed(newMember("wd-one", "bio", now), newMember("wd-two", "bio", now), newMember("wd-three", "bio", now));
    Agent bot = voter("wd-bot");
    data(h.agentVote(bot, "wd-one", "spam"));
    data(h.agentVote(bot, "wd-two", "spam"));
    data(h.agentVote(bot, "wd-three", "legit"));
    data(h.vote(staff, "wd-two", "spam"));
    notFound(h.post("/api/admin/agents/wd-bot/withdraw-votes", user, null));
    notFound(h.post("/api/admin/agents/wd-bot/withdraw-votes", bot.token(), null));

    ObjectId before = h.head();
    JsonObject result = data(h.post("/api/admin/agents/wd-bot/withdraw-votes", staff, null));
    assertThat(result.getInteger("withdrawn")).isEqualTo(2);
    RevCommit c = h.onlyCommitSince(before);
    assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("stf" + ModerationHarness.NOREPLY);
    assertThat(h.fileAtHead("person-evaluations/wd-one/agent-wd-bot.toml")).isNull();
    assertThat(h.fileAtHead("person-evaluations/wd-three/agent-wd-bot.toml")).isNull();
    assertThat(h.fileAtHead("person-evaluations/wd-two/agent-wd-bot.toml")).isNotNull();
    assertThat(h.person("wd-one").isDeactivated()).isFalse();
    assertThat(h.person("wd-two").isDeactivated()).isTrue();
    assertThat(h.person("wd-three").isDeactivated()).isFalse();

    // nothing left to withdraw: no commit
    ObjectId after = h.head();
    assertThat(data(h.post("/api/admin/agents/wd-bot/withdraw-votes", staff2, null)).getInteger("withdrawn")).isZero();
    assertThat(h.head()).isEqualTo(after);
    notFound(h.post("/api/admin/agents/no-such-agent/withdraw-votes", staff, null));
  }

  @Test
  void recordsWrittenBehindTheAppsBackAreSeenAtOnce() {
    // a check of the harness itself, which the tests above lean on
    h.seed(newMember("hv-git", "bio", now()));
    assertThat(h.person("hv-git")).isNotNull();
    assertThat(error(h.get("/api/admin/members/hv-git", null), 404, "not_found")).isNotNull();
    assertThat(h.detail(staff, "hv-git").getJsonArray("votes")).isEmpty();
  }
}
