package io.shotstash.http.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Ids;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.testing.DataApi;
import io.shotstash.testing.JsonApi;
import io.shotstash.testing.TestApp;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * What the moderation API tests share: HTTP calls with a bearer token (a session or an agent's
 * {@code cfpa_} grant) and envelope assertions ({@link JsonApi}), agents with grants, members put straight into the data
 * repository (with their dates chosen), reads of what git holds, and SQL on the test's database.
 *
 * <p>Rate limits shape these tests: every account may make 30 writes a minute and one address 30
 * sign-ins a minute, so members who never act are written into git in bulk rather than created and
 * signed in one by one, and each test uses agents of its own.
 */
final class ModerationHarness extends DataApi {
  /** Settings every moderation test app starts with: no scheduled sweep runs on its own during a test. */
  static final Map<String, String> QUIET = Map.of("SHOTSTASH_PURGE_SWEEP_SECONDS", "86400");

  private String nudgerToken;
  private String nudgerSlug;

  /** An agent account and one grant's token. */
  record Agent(String slug, String id, String fullName, String grantId, String token) {}

  ModerationHarness(TestApp app) {
    super(app);
  }

  /** The signed-in member whose bio edits make the app notice commits made behind its back. */
  void nudger(String token, String slug) {
    nudgerToken = token;
    nudgerSlug = slug;
  }

  // ---- envelopes (the rest: JsonApi) ----

  static void notFound(HttpResponse<Buffer> r) {
    error(r, 404, "not_found");
  }

  /** A 409 whose error.code is the rule's reason. */
  static void conflict(HttpResponse<Buffer> r, String code) {
    error(r, 409, code);
  }

  /** A 429 rate_limited with a Retry-After of at most a day; returns the seconds. */
  static int rateLimited(HttpResponse<Buffer> r) {
    error(r, 429, "rate_limited");
    String header = r.getHeader("Retry-After");
    assertThat(header).as("Retry-After").isNotNull();
    int seconds = Integer.parseInt(header);
    assertThat(seconds).isBetween(1, 86_400);
    return seconds;
  }

  /** A JSON array's items as strings. */
  static List<String> strings(JsonArray array) {
    return array.stream().map(String::valueOf).toList();
  }

  // ---- accounts ----

  /** An administrator creates an account; returns the person JSON. Costs the administrator one write. */
  JsonObject createPerson(String adminToken, String slug, String level) {
    return app.createPerson(adminToken, slug, level, PASSWORD);
  }

  /** An administrator creates a member with this name and email. */
  JsonObject createPerson(String adminToken, String slug, String fullName, String email) {
    return data(post("/api/people", adminToken, new JsonObject().put("slug", slug).put("fullName", fullName)
        .put("email", email).put("password", PASSWORD).put("accountLevel", "user")), 201);
  }

  /**
   * A new user account under {@code slug} whose predecessor there was voted spam by {@code staffToken}
   * and purged by {@code adminToken}: that vote and purge stay on record as the earlier account's.
   */
  void reusedSlug(String adminToken, String staffToken, String slug) {
    createPerson(adminToken, slug, "user");
    data(vote(staffToken, slug, "spam"));
    data(post("/api/people/" + slug + "/purge", adminToken,
        new JsonObject().put("reason", "Spam account").put("spam", true)));
    createPerson(adminToken, slug, "user");
  }

  /** Creates an account and signs it in (one sign-in of the 30 a minute); returns the token. */
  String member(String adminToken, String slug, String level) {
    createPerson(adminToken, slug, level);
    return app.login(slug, PASSWORD);
  }

  /** An administrator creates an agent account and gives it a grant with these scopes. */
  Agent agent(String adminToken, String slug, String... scopes) {
    String fullName = "Bot " + slug;
    JsonObject person = data(post("/api/admin/agents", adminToken, new JsonObject().put("slug", slug)
        .put("fullName", fullName)), 201);
    assertThat(person.getBoolean("agent")).isTrue();
    return grant(adminToken, slug, person.getString("id"), fullName, scopes);
  }

  /** Another grant for an existing agent. */
  Agent grant(String adminToken, String slug, String id, String fullName, String... scopes) {
    JsonObject created = data(post("/api/admin/agents/" + slug + "/grants", adminToken,
        new JsonObject().put("scopes", new JsonArray(List.of(scopes)))), 201);
    String token = created.getString("token");
    assertThat(token).startsWith("cfpa_").hasSize(48);
    return new Agent(slug, id, fullName, created.getJsonObject("grant").getString("id"), token);
  }

  /** Agent accounts written straight into git in one commit (level user, agent = true), with no grant yet. */
  void seedAgents(String... slugs) {
    List<RecordChange> changes = new ArrayList<>();
    Instant at = now();
    for (String slug : slugs) {
      changes
          .add(put(new Person(Ids.uuid7(), null, slug, "Bot " + slug, null, null, "user", true, null, null, null, null,
              at, at)));
    }
    commitBehindTheAppsBack(changes);
  }

  /** A grant for an agent account that already exists. */
  Agent grantTo(String adminToken, String slug, String... scopes) {
    Person agent = person(slug);
    return grant(adminToken, slug, agent.id(), agent.fullName(), scopes);
  }

  void revoke(String adminToken, Agent agent) {
    data(delete("/api/admin/agents/" + agent.slug() + "/grants/" + agent.grantId(), adminToken));
  }

  // ---- votes and purges ----

  HttpResponse<Buffer> vote(String token, String slug, String verdict) {
    return post("/api/admin/members/" + slug + "/vote", token, new JsonObject().put("verdict", verdict));
  }

  HttpResponse<Buffer> agentVote(Agent agent, String slug, String verdict, String... flags) {
    return post("/api/admin/members/" + slug + "/vote", agent.token(), new JsonObject().put("verdict", verdict)
        .put("reasoning", "Business name as the member name; GitHub account a day old.")
        .put("flags", new JsonArray(List.of(flags))));
  }

  HttpResponse<Buffer> unvote(Agent agent, String slug) {
    return delete("/api/admin/members/" + slug + "/vote", agent.token());
  }

  static JsonObject bioEvidence() {
    return new JsonObject().put("record", "person").put("field", "bio");
  }

  static JsonObject purgeBody(String reason, JsonObject... evidence) {
    return new JsonObject().put("reason", reason).put("flags", new JsonArray().add("bio-promo-link"))
        .put("evidence", new JsonArray(new ArrayList<>(List.of((Object[]) evidence))));
  }

  HttpResponse<Buffer> purge(Agent agent, String slug, JsonObject body) {
    return post("/api/admin/members/" + slug + "/purge", agent.token(), body);
  }

  /** An agent purge citing the member's bio. */
  HttpResponse<Buffer> purgeBio(Agent agent, String slug) {
    return purge(agent, slug, purgeBody("Set a bio advertising a pharmacy shop two minutes after sign-up.",
        bioEvidence()));
  }

  /** Starts an agent purge citing the bio without waiting for its answer. */
  Future<HttpResponse<Buffer>> purgeBioLater(Agent agent, String slug) {
    return app.client().request(HttpMethod.POST, "/api/admin/members/" + slug + "/purge")
        .bearerTokenAuthentication(agent.token())
        .sendJsonObject(purgeBody("Set a bio advertising a pharmacy shop two minutes after sign-up.", bioEvidence()));
  }

  HttpResponse<Buffer> dryRunBio(Agent agent, String slug) {
    return purge(agent, slug, purgeBody("Set a bio advertising a pharmacy shop two minutes after sign-up.",
        bioEvidence()).put("dryRun", true));
  }

  /** The roster row of one member, as this caller sees it (found with q = the slug). */
  JsonObject row(String token, String slug) {
    JsonArray rows = list(get("/api/admin/members?q=" + slug, token));
    for (int i = 0; i < rows.size(); i++) {
      if (slug.equals(rows.getJsonObject(i).getString("slug"))) {
        return rows.getJsonObject(i);
      }
    }
    throw new AssertionError("no roster row for " + slug + " in " + rows.encodePrettily());
  }

  JsonObject detail(String token, String slug) {
    return data(get("/api/admin/members/" + slug, token));
  }

  // ---- public records ----

  Person person(String slug) {
    return app.publicState().current().personBySlug(slug).orElse(null);
  }

  static Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MILLIS);
  }

  /** A member record: level user, a bio, created at {@code createdAt}. */
  static Person newMember(String slug, String bio, Instant createdAt) {
    return new Person(Ids.uuid7(), null, slug, "Member " + slug, bio, null, "user", null, null, null, null, null,
        createdAt, createdAt);
  }

  /** Members {@code <prefix>-01} to {@code <prefix>-<count>} (see {@link #newMember}), all created at {@code createdAt}. */
  static Person[] numberedMembers(String prefix, int count, String bio, Instant createdAt) {
    Person[] members = new Person[count];
    for (int i = 0; i < count; i++) {
      members[i] = newMember(String.format("%s-%02d", prefix, i + 1), bio, createdAt);
    }
    return members;
  }

  static Person withCreatedAt(Person p, Instant createdAt) {
    return new Person(p.id(), p.legacyId(), p.slug(), p.fullName(), p.bio(), p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), p.deletedAt(), p.deactivatedBy(), createdAt, p.updatedAt());
  }

  static Person withLegacyId(Person p, String legacyId) {
    return new Person(p.id(), legacyId, p.slug(), p.fullName(), p.bio(), p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), p.deletedAt(), p.deactivatedBy(), p.createdAt(), p.updatedAt());
  }

  static Person withLevel(Person p, String level) {
    return p.withAccountLevel(level, p.updatedAt());
  }

  static Person hiddenBy(Person p, String by, Instant at) {
    return new Person(p.id(), p.legacyId(), p.slug(), p.fullName(), p.bio(), p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), at, by, p.createdAt(), p.updatedAt());
  }

  static RecordChange put(Person p) {
    return RecordChange.put(Sheet.PEOPLE, p.slug(), p);
  }

  static RecordChange put(PersonEvaluation e) {
    return RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(e), e);
  }

  /** Writes members straight into git (one commit) and makes the app catch up. */
  void seed(Person... people) {
    List<RecordChange> changes = new ArrayList<>();
    for (Person p : people) {
      changes.add(put(p));
    }
    commitBehindTheAppsBack(changes);
  }

  /** Seeds the {@link #numberedMembers} and returns them. */
  Person[] seedNumbered(String prefix, int count, String bio, Instant createdAt) {
    Person[] members = numberedMembers(prefix, count, bio, createdAt);
    seed(members);
    return members;
  }

  /** Rewrites one member's record in git and makes the app catch up. */
  Person rewrite(String slug, UnaryOperator<Person> edit) {
    Person edited = edit.apply(person(slug));
    commitBehindTheAppsBack(List.of(put(edited)));
    return edited;
  }

  /** The person-evaluations record of one voter on a slug, as the app holds it. */
  PersonEvaluation evaluation(String slug, String evaluator) {
    return app.publicState().current().get(Sheet.PERSON_EVALUATIONS, slug + "/" + evaluator, PersonEvaluation.class);
  }

  static PersonEvaluation evaluatedAt(PersonEvaluation e, Instant at) {
    return new PersonEvaluation(e.personSlug(), e.evaluator(), e.verdict(), e.reasoning(), e.flags(), e.confidence(),
        at);
  }

  // ---- git ----

  /** The single commit made since {@code before}. */
  RevCommit onlyCommitSince(ObjectId before) {
    List<RevCommit> commits = commitsSince(before);
    assertThat(commits).hasSize(1);
    return commits.get(0);
  }

  /** Every value of one trailer key, in order. */
  static List<String> trailer(RevCommit c, String key) {
    List<String> out = new ArrayList<>();
    for (FooterLine f : c.getFooterLines()) {
      if (f.getKey().equals(key)) {
        out.add(f.getValue());
      }
    }
    return out;
  }

  /** Asserts the single value of each trailer named, in pairs: {@code "Action", "person.purge", "Actor-Kind", "agent"}. */
  static void assertTrailers(RevCommit c, String... keysAndValues) {
    for (int i = 0; i < keysAndValues.length; i += 2) {
      assertThat(trailerValue(c, keysAndValues[i])).as("trailer " + keysAndValues[i]).isEqualTo(keysAndValues[i + 1]);
    }
  }

  /** The single value of one trailer key. */
  static String trailerValue(RevCommit c, String key) {
    List<String> values = trailer(c, key);
    assertThat(values).as("trailer " + key + " of\n" + c.getFullMessage()).hasSize(1);
    return values.get(0);
  }

  /**
   * Commits records straight into the data repository, behind the app's back (as a hand-made push
   * would), then makes the app catch up: its git writer finds the branch moved on the next write,
   * answers that write {@code 503 write_conflict} and reloads (unless the replica's periodic
   * catch-up read the commit first); later writes and reads see the records.
   */
  void commitBehindTheAppsBack(List<RecordChange> changes) {
    assertThat(nudgerToken).as("a nudger is set").isNotNull();
    commitBehindTheAppsBack(changes, nudgerToken, nudgerSlug);
  }

  // ---- PostgreSQL ----

  void sql(String statement) {
    app.db().execute(statement);
  }

  long count(String query) {
    return app.db().number(query);
  }

  /** A private profile for a member written straight into git (who has none). */
  void privateProfile(String slug, String email) {
    sql("INSERT INTO private_profiles (person_id, email) VALUES ('" + idOf(slug) + "', '" + email + "')");
  }

  /** A finished session of a member, issued at {@code issuedAt}. */
  void session(String slug, Instant issuedAt) {
    sql("INSERT INTO sessions (id, person_id, issued_at, expires_at, revoked_at) VALUES ('" + UUID.randomUUID() + "', '"
        + idOf(slug) + "', '" + issuedAt + "', '" + issuedAt.plusSeconds(3600) + "', '" + issuedAt.plusSeconds(60)
        + "')");
  }
}
