package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.bioEvidence;
import static io.shotstash.http.moderation.ModerationHarness.conflict;
import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.error;
import static io.shotstash.http.moderation.ModerationHarness.invalid;
import static io.shotstash.http.moderation.ModerationHarness.list;
import static io.shotstash.http.moderation.ModerationHarness.newMember;
import static io.shotstash.http.moderation.ModerationHarness.now;
import static io.shotstash.http.moderation.ModerationHarness.purgeBody;
import static io.shotstash.http.moderation.ModerationHarness.rateLimited;
import static io.shotstash.http.moderation.ModerationHarness.assertTrailers;
import static io.shotstash.http.moderation.ModerationHarness.strings;
import static io.shotstash.http.moderation.ModerationHarness.trailer;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Ids;
import io.shotstash.http.moderation.ModerationHarness.Agent;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * POST /api/admin/members/:slug/purge by an agent: every rule (1-8) on its own and in the seed's
 * order, the evidence checks, the reason rules, a dry run, a real purge (one commit with its
 * trailers, the agent's vote, the spam-purges record), and concurrent purges against the allowance.
 *
 * <p>Rule 7 (evidence_survives): through the API every record a member can be cited for (their bio,
 * a project they created, an update, buzz item or role they authored) is either deleted by the
 * purge or makes the project shared (rule 6 answers first), so the rule is reachable only with
 * records that disagree with their own file name; the test below builds one in git.
 */
class AgentPurgeApiTest extends WithModerationApp {
  static final String SPAM_BIO = "Cheap pills, fast delivery, no prescription: visit our pharmacy shop.";

  static String staff;
  /** sp-owner created sp-garden and posted update 1; sp-joiner and jn joined it; jn posted update 2. */
  static String spOwner;
  static String spJoiner;
  static String jn;

  @BeforeAll
  static void seed() {
    staff = h.member(admin, "stf", "staff");
    h.nudger(staff, "stf");
    spOwner = h.member(admin, "sp-owner", "user");
    spJoiner = h.member(admin, "sp-joiner", "user");
    jn = h.member(admin, "jn", "user");
    data(h.patch("/api/people/sp-owner", spOwner, new JsonObject().put("bio", SPAM_BIO)));
    data(h.post("/api/projects", spOwner, new JsonObject().put("title", "SP Garden").put("slug", "sp-garden")), 201);
    data(h.post("/api/projects/sp-garden/updates", spOwner, new JsonObject().put("body", "Planting day")), 201);
    data(h.post("/api/projects/sp-garden/members/join", spJoiner, null));
    data(h.post("/api/projects/sp-garden/members/join", jn, null));
    JsonObject update = data(h.post("/api/projects/sp-garden/updates", jn, new JsonObject()
        .put("body", "Buy cheap pills now")), 201);
    assertThat(update.getInteger("number")).isEqualTo(2);
    h.seedAgents("pr-a", "pr-b", "pr-ev", "pr-val", "pr-dry", "pr-real", "pr-plain", "pr-conc", "pr-other",
        "pr-survive", "pr-heir", "pr-race1", "pr-race2", "pr-blank");
  }

  private static Agent purger(String slug) {
    return h.grantTo(admin, slug, "moderation:read", "moderation:vote", "moderation:purge");
  }

  private static HttpResponse<Buffer> purgeWith(Agent agent, String slug, JsonObject... evidence) {
    return h.purge(agent, slug, purgeBody("Posted promotional spam right after sign-up.", evidence));
  }

  // ---------------------------------------------------------------- rules one by one

  @Test
  void rule1OnlyOrdinarySignedUpMembers() {
    Instant now = now();
    h.seed(ModerationHarness.withLevel(newMember("pa-editor", SPAM_BIO, now), "editor"),
        ModerationHarness.withLevel(newMember("pa-staff", SPAM_BIO, now), "staff"),
        newMember("pa-legacy", SPAM_BIO, now));
    h.rewrite("pa-legacy", p -> ModerationHarness.withLegacyId(p, "4711"));
    Agent agent = purger("pr-a");
    ObjectId before = h.head();
    conflict(h.purgeBio(agent, "pa-editor"), "protected_account");
    conflict(h.purgeBio(agent, "pa-staff"), "protected_account");
    conflict(h.purgeBio(agent, "pa-legacy"), "protected_account");
    conflict(h.dryRunBio(agent, "pa-legacy"), "protected_account");
    invalid(h.purgeBio(agent, "pr-b"), "slug");
    invalid(h.purgeBio(agent, "pr-a"), "slug");
    error(h.purgeBio(agent, "no-such-member"), 404, "not_found");
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void rule2OnlyBrandNewMembers() {
    h.seed(newMember("old-8d", SPAM_BIO, now().minus(Duration.ofDays(8))),
        newMember("new-6d", SPAM_BIO, now().minus(Duration.ofDays(6))));
    Agent agent = purger("pr-a");
    ObjectId before = h.head();
    conflict(h.purgeBio(agent, "old-8d"), "member_too_old");
    assertThat(data(h.dryRunBio(agent, "new-6d")).getBoolean("dryRun")).isTrue();
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void rule3HumansAreFinal() {
    Instant now = now();
    h.seed(newMember("hv-legit", SPAM_BIO, now), newMember("hv-spam", SPAM_BIO, now));
    data(h.vote(staff, "hv-legit", "legit"));
    data(h.vote(staff, "hv-spam", "spam"));
    Agent agent = purger("pr-a");
    ObjectId before = h.head();
    conflict(h.purgeBio(agent, "hv-legit"), "human_verdict_exists");
    conflict(h.purgeBio(agent, "hv-spam"), "human_verdict_exists");
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void rule4NoLegitVoteStanding() {
    Instant now = now();
    h.seed(newMember("lv-own", SPAM_BIO, now), newMember("lv-other", SPAM_BIO, now),
        newMember("lv-spam", SPAM_BIO, now));
    Agent agent = purger("pr-b");
    Agent other = h.grantTo(admin, "pr-other", "moderation:vote");
    data(h.agentVote(agent, "lv-own", "legit"));
    data(h.agentVote(other, "lv-other", "legit"));
    data(h.agentVote(agent, "lv-spam", "spam"));
    conflict(h.purgeBio(agent, "lv-own"), "legit_vote_exists");
    conflict(h.purgeBio(agent, "lv-other"), "legit_vote_exists");
    // its own spam vote does not stand in the way
    assertThat(data(h.dryRunBio(agent, "lv-spam")).getJsonObject("purge").getString("by")).isEqualTo("agent-pr-b");
  }

  @Test
  void rule5NotEstablished() {
    h.createPerson(admin, "est", "user");
    data(h.patch("/api/people/est", admin, new JsonObject().put("bio", SPAM_BIO)));
    Agent agent = purger("pr-b");
    data(h.dryRunBio(agent, "est"));
    h.sql("UPDATE private_profiles SET last_slack_sso_at = now() WHERE person_id = '" + h.idOf("est") + "'");
    conflict(h.purgeBio(agent, "est"), "established_member");
    assertThat(h.person("est")).isNotNull();
  }

  @Test
  void rule6NothingShared() {
    Agent agent = purger("pr-b");
    ObjectId before = h.head();
    // sp-owner created sp-garden, which others joined
    conflict(h.purgeBio(agent, "sp-owner"), "shared_project");
    conflict(purgeWith(agent, "sp-owner", new JsonObject().put("record", "project").put("project", "sp-garden")),
        "shared_project");
    conflict(purgeWith(agent, "sp-owner", new JsonObject().put("record", "project-update").put("project", "sp-garden")
        .put("number", 1)), "shared_project");
    // a maintainer of a project with another member
    h.seed(newMember("mx", SPAM_BIO, now()));
    Project garden = app.publicState().current().get(Sheet.PROJECTS, "sp-garden", Project.class);
    ProjectMembership maintainer =
        new ProjectMembership(garden.id(), h.idOf("mx"), "sp-garden", "mx", null, true, now());
    h.commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, "sp-garden/mx", maintainer)));
    ObjectId afterSeed = h.head();
    conflict(h.purgeBio(agent, "mx"), "shared_project");
    assertThat(h.head()).isEqualTo(afterSeed);
    assertThat(h.commitsSince(before)).hasSize(2); // the two harness commits only
  }

  @Test
  void aPlainMemberOfSomeoneElsesProjectMayBePurgedWithWhatTheyPostedThere() {
    Agent agent = purger("pr-plain");
    JsonObject result = data(purgeWith(agent, "jn", new JsonObject().put("record", "project-update")
        .put("project", "sp-garden").put("number", 2)));
    JsonObject deleted = result.getJsonObject("deleted");
    assertThat(deleted.getJsonArray("projects")).isEmpty();
    assertThat(deleted.getInteger("memberships")).isEqualTo(1);
    assertThat(deleted.getInteger("updates")).isEqualTo(1);
    assertThat(h.person("jn")).isNull();
    assertThat(List.of("project-updates/sp-garden/2.toml", "project-memberships/sp-garden/jn.toml"))
        .allSatisfy(path -> assertThat(h.fileAtHead(path)).as(path).isNull());
    // the project and everyone else's records are untouched
    assertThat(List.of("projects/sp-garden.toml", "project-updates/sp-garden/1.toml",
        "project-memberships/sp-garden/sp-joiner.toml", "project-memberships/sp-garden/sp-owner.toml"))
        .allSatisfy(path -> assertThat(h.fileAtHead(path)).as(path).isNotNull());
  }

  @Test
  void rule7TheEvidenceGoesWithThePurge() {
    // a project record filed under a name other than its slug (a hand edit): the member created it and
    // nobody touched it, but the cascade deletes projects/<slug>.toml, so the cited file would survive
    h.seed(newMember("sv-member", SPAM_BIO, now()));
    Instant now = now();
    Project misfiled = new Project(Ids.uuid7(), "sv-real-slug", "Pills Outlet", "Cheap pills", null, "commenting",
        h.idOf("sv-member"), h.idOf("sv-member"), null, now, now);
    h.commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.PROJECTS, "sv-filed-name", misfiled)));
    Agent agent = purger("pr-survive");
    ObjectId before = h.head();
    conflict(purgeWith(agent, "sv-member", bioEvidence(), new JsonObject().put("record", "project")
        .put("project", "sv-filed-name").put("field", "summary")), "evidence_survives");
    assertThat(h.head()).isEqualTo(before);
    // the bio alone goes with the member
    data(h.dryRunBio(agent, "sv-member"));
  }

  @Test
  void aHumanVoteOnAnEarlierAccountUnderTheSlugDoesNotBlock() {
    h.reusedSlug(admin, staff, "pu-heir");
    data(h.patch("/api/people/pu-heir", admin, new JsonObject().put("bio", SPAM_BIO)));
    Agent agent = purger("pr-heir");
    JsonObject purge = data(h.purgeBio(agent, "pu-heir")).getJsonObject("purge");
    assertThat(purge.getString("by")).isEqualTo("agent-pr-heir");
    assertThat(list(h.get("/api/admin/spam-purges?slug=pu-heir", staff))).hasSize(2);
  }

  @Test
  void theDetailAndTheRowShowTheFootprint() {
    JsonObject row = h.row(staff, "sp-owner");
    JsonObject counts = row.getJsonObject("footprint");
    assertThat(counts.getInteger("memberships")).isEqualTo(1);
    assertThat(counts.getInteger("updates")).isEqualTo(1);
    assertThat(counts.getInteger("buzz")).isZero();
    assertThat(strings(row.getJsonArray("signals"))).endsWith("has-footprint");
    assertThat(strings(row.getJsonArray("signals"))).doesNotContain("never-signed-in");
    assertThat(row.getLong("signInCount")).isGreaterThanOrEqualTo(1);
    JsonObject footprint = h.detail(staff, "sp-owner").getJsonObject("footprint");
    JsonObject membership = footprint.getJsonArray("memberships").getJsonObject(0);
    assertThat(membership.getJsonObject("project").getString("slug")).isEqualTo("sp-garden");
    assertThat(membership.getJsonObject("project").getString("title")).isEqualTo("SP Garden");
    assertThat(membership.getString("joinedAt")).isNotNull();
    JsonObject update = footprint.getJsonArray("updates").getJsonObject(0);
    assertThat(update.getJsonObject("project").getString("slug")).isEqualTo("sp-garden");
    assertThat(update.getInteger("number")).isEqualTo(1);
    assertThat(update.getString("postedAt")).isNotNull();
    assertThat(List.of("buzz", "blogPosts", "helpWantedInterest", "tags"))
        .allSatisfy(kind -> assertThat(footprint.getJsonArray(kind)).as(kind).isEmpty());
  }

  // ---------------------------------------------------------------- the order of the rules

  @Test
  void theRulesAreCheckedInTheSeedsOrder() {
    Instant now = now();
    Instant old = now.minus(Duration.ofDays(10));
    h.seed(ModerationHarness.withLevel(newMember("ord-a", SPAM_BIO, old), "editor"), newMember("ord-b", SPAM_BIO, now),
        newMember("ord-c", SPAM_BIO, now), newMember("ord-d", SPAM_BIO, now), newMember("ord-e", SPAM_BIO, now));
    Agent agent = purger("pr-a");
    data(h.vote(staff, "ord-a", "spam"));
    // ord-b: a human vote, then its account is made older than 7 days
    data(h.vote(staff, "ord-b", "legit"));
    h.rewrite("ord-b", p -> ModerationHarness.withCreatedAt(p, old));
    // ord-c: the agent's legit vote, then a human vote
    data(h.agentVote(agent, "ord-c", "legit"));
    data(h.vote(staff, "ord-c", "spam"));
    // ord-d: the agent's legit vote, and Slack sign-in through the site
    data(h.agentVote(agent, "ord-d", "legit"));
    h.sql("INSERT INTO private_profiles (person_id, email, last_slack_sso_at) VALUES ('" + h.idOf("ord-d")
        + "', 'ord-d@example.org', now())");
    // ord-e: Slack sign-in, and a maintainer of a project with other members
    h.sql("INSERT INTO private_profiles (person_id, email, last_slack_sso_at) VALUES ('" + h.idOf("ord-e")
        + "', 'ord-e@example.org', now())");
    Project garden = app.publicState().current().get(Sheet.PROJECTS, "sp-garden", Project.class);
    h.commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, "sp-garden/ord-e",
        new ProjectMembership(garden.id(), h.idOf("ord-e"), "sp-garden", "ord-e", null, true, now))));

    conflict(h.purgeBio(agent, "ord-a"), "protected_account"); // 1 before 2 and 3
    conflict(h.purgeBio(agent, "ord-b"), "member_too_old"); // 2 before 3
    conflict(h.purgeBio(agent, "ord-c"), "human_verdict_exists"); // 3 before 4
    conflict(h.purgeBio(agent, "ord-d"), "legit_vote_exists"); // 4 before 5
    conflict(h.purgeBio(agent, "ord-e"), "established_member"); // 5 before 6
  }

  // ---------------------------------------------------------------- evidence

  @Test
  void aMalformedIdentifierIsEvidenceInvalidNamingTheItem() {
    h.seed(newMember("ev-form", SPAM_BIO, now()));
    Agent agent = purger("pr-val");
    ObjectId before = h.head();
    List<Object> bad = List.of(
        new JsonObject().put("record", "help-wanted-role").put("project", "sp-garden").put("roleId", "not-a-uuid"),
        new JsonObject().put("record", "project-update").put("project", "sp-garden").put("number", 0),
        new JsonObject().put("record", "project-update").put("project", "sp-garden").put("number", -1),
        new JsonObject().put("record", "project-update").put("project", "sp-garden").put("number", 1.5),
        new JsonObject().put("record", "project-update").put("project", "sp-garden").put("number", "1"),
        new JsonObject().put("record", "project-update").put("project", "sp-garden"),
        new JsonObject().put("record", "project").put("project", "SP-Garden"),
        new JsonObject().put("record", "project").put("project", "sp garden"),
        new JsonObject().put("record", "project"),
        new JsonObject().put("record", "project").put("project", "sp-garden").put("field", "body"),
        new JsonObject().put("record", "project-buzz").put("project", "sp-garden").put("slug", "Bad_Slug"),
        new JsonObject().put("record", "person").put("field", "fullName"),
        new JsonObject().put("record", "person"),
        new JsonObject().put("record", "person").put("field", "bio").put("project", "sp-garden"),
        new JsonObject().put("record", "blog-post").put("slug", "x"),
        new JsonObject(),
        "people/ev-form.toml");
    for (Object item : bad) {
      JsonObject body = purgeBody("Posted promotional spam right after sign-up.", bioEvidence());
      body.getJsonArray("evidence").add(item);
      JsonObject err = error(h.purge(agent, "ev-form", body), 422, "evidence_invalid");
      assertThat(err.getJsonObject("fields").fieldNames()).as(String.valueOf(item)).containsExactly("evidence[1]");
    }
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void aMissingForeignOrEmptyRecordIsEvidenceInvalid() {
    Instant now = now();
    h.seed(newMember("ev-member", SPAM_BIO, now), newMember("ev-nobio", null, now));
    Project own = new Project(Ids.uuid7(), "ev-own", "Ev Own", null, null, "commenting", h.idOf("ev-member"),
        h.idOf("ev-member"), null, now, now);
    h.commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.PROJECTS, "ev-own", own)));
    Agent agent = purger("pr-ev");
    ObjectId before = h.head();
    Map<String, JsonObject> cases = Map.of(
        "missing update",
        new JsonObject().put("record", "project-update").put("project", "sp-garden").put("number", 99),
        "someone else's update", new JsonObject().put("record", "project-update").put("project", "sp-garden")
            .put("number", 1),
        "someone else's project", new JsonObject().put("record", "project").put("project", "sp-garden"),
        "missing project", new JsonObject().put("record", "project").put("project", "no-such-project"),
        "empty summary", new JsonObject().put("record", "project").put("project", "ev-own").put("field", "summary"),
        "missing buzz", new JsonObject().put("record", "project-buzz").put("project", "ev-own").put("slug", "nothing"),
        "missing role", new JsonObject().put("record", "help-wanted-role").put("project", "ev-own")
            .put("roleId", UUID.randomUUID().toString()));
    cases.forEach((what, item) -> {
      JsonObject err = error(purgeWith(agent, "ev-member", bioEvidence(), item), 422, "evidence_invalid");
      assertThat(err.getJsonObject("fields").fieldNames()).as(what).containsExactly("evidence[1]");
    });
    JsonObject err = error(h.purgeBio(agent, "ev-nobio"), 422, "evidence_invalid");
    assertThat(err.getJsonObject("fields").fieldNames()).containsExactly("evidence[0]");
    assertThat(h.head()).isEqualTo(before);
    // the member's own project with a title is good evidence
    JsonObject dry = data(h.purge(agent, "ev-member", purgeBody("Created a project advertising pills.", new JsonObject()
        .put("record", "project").put("project", "ev-own").put("field", "title")).put("dryRun", true)));
    assertThat(dry.getJsonObject("deleted").getJsonArray("projects").getJsonObject(0).getString("slug"))
        .isEqualTo("ev-own");
    assertThat(dry.getJsonObject("purge").getJsonArray("evidence").getJsonObject(0).getString("path"))
        .isEqualTo("projects/ev-own.toml");
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void theReasonFlagsAndEvidenceListAreValidated() {
    h.seed(newMember("rs-member", SPAM_BIO, now()));
    Agent agent = purger("pr-val");
    ObjectId before = h.head();
    String path = "/api/admin/members/rs-member/purge";
    JsonArray evidence = new JsonArray().add(bioEvidence());
    JsonObject base = new JsonObject().put("evidence", evidence);
    invalid(h.post(path, agent.token(), base.copy()), "reason");
    invalid(h.post(path, agent.token(), base.copy().put("reason", "")), "reason");
    invalid(h.post(path, agent.token(), base.copy().put("reason", "r".repeat(1001))), "reason");
    for (String reason : List.of("Bio links to cheap-pills.shop", "Bio links to pills[.]com",
        "Bio links to pills(dot)com",
        "Bio links to hxxps://pills", "See https://x", "Bio says www.Pills", "Bio links to Cheap-Pills.SHOP",
        "Bio links to pills{.}com")) {
      invalid(h.post(path, agent.token(), base.copy().put("reason", reason)), "reason");
    }
    for (String reason : List.of("Spam bio\nAction: person.restore", "Spam\r\nEvidence: people/ada.toml", "tab\there",
        "line\u2028separator", "nul\u0000")) {
      invalid(h.post(path, agent.token(), base.copy().put("reason", reason)), "reason");
    }
    String reason = "Set a bio advertising a pharmacy shop.";
    invalid(h.post(path, agent.token(), base.copy().put("reason", reason).put("flags", new JsonArray().add("UPPER"))),
        "flags");
    invalid(h.post(path, agent.token(), base.copy().put("reason", reason).put("flags",
        new JsonArray(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")))), "flags");
    invalid(h.post(path, agent.token(), new JsonObject().put("reason", reason)), "evidence");
    invalid(h.post(path, agent.token(), new JsonObject().put("reason", reason).put("evidence", new JsonArray())),
        "evidence");
    JsonArray six = new JsonArray();
    for (int i = 0; i < 6; i++) {
      six.add(bioEvidence());
    }
    invalid(h.post(path, agent.token(), new JsonObject().put("reason", reason).put("evidence", six)), "evidence");
    invalid(h.post(path, agent.token(), base.copy().put("reason", reason).put("dryRun", "yes")), "dryRun");
    invalid(h.post(path, agent.token(), base.copy().put("reason", reason).put("verdict", "spam")), "verdict");
    assertThat(h.head()).isEqualTo(before);
    assertThat(h.person("rs-member")).isNotNull();
  }

  // ---------------------------------------------------------------- dry run and the real purge

  @Test
  void aDryRunRunsEveryCheckAndWritesNothing() {
    h.seed(newMember("dry-one", SPAM_BIO, now()));
    Agent agent = purger("pr-dry");
    ObjectId before = h.head();
    JsonObject result = data(h.dryRunBio(agent, "dry-one"));
    assertThat(result.getBoolean("dryRun")).isTrue();
    JsonObject purge = result.getJsonObject("purge");
    assertThat(purge.getString("by")).isEqualTo("agent-pr-dry");
    assertThat(purge.getString("slug")).isEqualTo("dry-one");
    assertThat(purge.getString("grantId")).isEqualTo(agent.grantId());
    JsonObject deleted = result.getJsonObject("deleted");
    assertThat(deleted.getJsonArray("projects")).isEmpty();
    assertThat(deleted.getInteger("memberships")).isZero();
    assertThat(deleted.getInteger("updates")).isZero();
    assertThat(deleted.getInteger("buzz")).isZero();
    assertThat(deleted.getInteger("helpWantedRoles")).isZero();
    assertThat(deleted.getInteger("rsvps")).isZero();
    assertThat(h.head()).isEqualTo(before);
    assertThat(h.person("dry-one")).isNotNull();
    assertThat(h.evaluation("dry-one", "agent-pr-dry")).isNull();
    assertThat(list(h.get("/api/admin/spam-purges?slug=dry-one", staff))).isEmpty();
    // dry runs do not use up the allowance
    for (int i = 0; i < 6; i++) {
      data(h.dryRunBio(agent, "dry-one"));
    }
    assertThat(h.head()).isEqualTo(before);
  }

  @Test
  void aPurgeIsOneCommitWithTheEvidenceTheVoteAndTheSpamPurgesRecord() {
    String spammer = h.member(admin, "spammer", "user");
    String spammerId = h.idOf("spammer");
    data(h.patch("/api/people/spammer", spammer, new JsonObject().put("bio", SPAM_BIO)));
    data(h.post("/api/projects", spammer, new JsonObject().put("title", "Pill Shop").put("slug", "pill-shop")
        .put("summary", "Cheap pills delivered")), 201);
    data(h.post("/api/projects/pill-shop/updates", spammer, new JsonObject().put("body", "Sale on pills")), 201);
    data(h.post("/api/projects/pill-shop/buzz", spammer, new JsonObject().put("headline", "Pills in the news")
        .put("url", "https://pills.example/news").put("slug", "pills-news")), 201);
    String roleId = data(h.post("/api/projects/pill-shop/help-wanted", spammer, new JsonObject()
        .put("title", "Pill seller").put("description", "Sell pills")), 201).getString("id");
    Agent agent = purger("pr-real");
    String reason =
        "Signed up under a shop name; within two minutes posted pill adverts in a bio, a project, an update, "
            + "a buzz item and a help-wanted role.";
    JsonObject body = new JsonObject().put("reason", reason)
        .put("flags", new JsonArray().add("bio-promo-link").add("business-name"))
        .put("evidence", new JsonArray()
            .add(bioEvidence())
            .add(new JsonObject().put("record", "project").put("project", "pill-shop").put("field", "summary"))
            .add(new JsonObject().put("record", "project-update").put("project", "pill-shop").put("number", 1))
            .add(new JsonObject().put("record", "project-buzz").put("project", "pill-shop").put("slug", "pills-news"))
            .add(new JsonObject().put("record", "help-wanted-role").put("project", "pill-shop").put("roleId", roleId)))
        .put("dryRun", false);
    ObjectId before = h.head();

    JsonObject result = data(h.purge(agent, "spammer", body));
    assertThat(result.getBoolean("dryRun")).isFalse();
    JsonObject deleted = result.getJsonObject("deleted");
    assertThat(deleted.getJsonArray("projects")).hasSize(1);
    assertThat(deleted.getJsonArray("projects").getJsonObject(0).getString("slug")).isEqualTo("pill-shop");
    assertThat(deleted.getJsonArray("projects").getJsonObject(0).getString("title")).isEqualTo("Pill Shop");
    assertThat(deleted.getInteger("memberships")).isEqualTo(1);
    assertThat(deleted.getInteger("updates")).isEqualTo(1);
    assertThat(deleted.getInteger("buzz")).isEqualTo(1);
    assertThat(deleted.getInteger("helpWantedRoles")).isEqualTo(1);
    JsonObject purge = result.getJsonObject("purge");
    String purgeId = purge.getString("id");

    // one commit, by the agent, with the reason as its body and the trailers
    RevCommit c = h.onlyCommitSince(before);
    assertThat(c.getParent(0).getId()).isEqualTo(before);
    assertThat(c.getAuthorIdent().getName()).isEqualTo("Bot pr-real");
    assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("pr-real" + ModerationHarness.NOREPLY);
    assertThat(c.getShortMessage()).isEqualTo("pr-real: POST /api/admin/members/spammer/purge");
    assertThat(c.getFullMessage()).contains(reason);
    assertTrailers(c, "Action", "person.purge", "Subject-Type", "person", "Subject-Id", spammerId,
        "Subject-Slug", "spammer", "Actor-Slug", "pr-real", "Actor-Kind", "agent",
        "Actor-Account-Level", "user", "Grant-Id", agent.grantId(), "Purge-Id", purgeId);
    assertThat(trailer(c, "Evidence")).containsExactly("people/spammer.toml#bio", "projects/pill-shop.toml#summary",
        "project-updates/pill-shop/1.toml", "project-buzz/pill-shop/pills-news.toml",
        "help-wanted-roles/pill-shop/" + roleId + ".toml");

    // git show <commit>^:<evidence path> shows the spam as it stood
    ObjectId parent = c.getParent(0).getId();
    assertThat(h.fileAt(parent, "people/spammer.toml")).contains("Cheap pills, fast delivery");
    assertThat(h.fileAt(parent, "projects/pill-shop.toml")).contains("Cheap pills delivered");
    assertThat(h.fileAt(parent, "project-updates/pill-shop/1.toml")).contains("Sale on pills");
    for (String path : trailer(c, "Evidence")) {
      String file = path.contains("#") ? path.substring(0, path.indexOf('#')) : path;
      assertThat(h.fileAt(parent, file)).as(file).isNotNull();
      assertThat(h.fileAtHead(file)).as(file).isNull();
    }

    // the agent's vote is the durable "why"
    PersonEvaluation vote = h.recordAtHead(Sheet.PERSON_EVALUATIONS, "spammer/agent-pr-real", PersonEvaluation.class);
    assertThat(vote.verdict()).isEqualTo("spam");
    assertThat(vote.flags()).containsExactly("agent", "purged", "bio-promo-link", "business-name");
    assertThat(vote.reasoning()).isEqualTo(reason);

    // the spam-purges record
    SpamPurge record = h.recordAtHead(Sheet.SPAM_PURGES, purgeId, SpamPurge.class);
    assertThat(record.personId()).isEqualTo(spammerId);
    assertThat(record.slug()).isEqualTo("spammer");
    assertThat(record.fullName()).isEqualTo("Person spammer");
    assertThat(record.by()).isEqualTo("agent-pr-real");
    assertThat(record.grantId()).isEqualTo(agent.grantId());
    assertThat(record.reason()).isEqualTo(reason);
    assertThat(record.flags()).containsExactly("bio-promo-link", "business-name");
    assertThat(record.beforeCommit()).isEqualTo(before.name());
    assertThat(record.blocksSignIn()).isTrue();
    assertThat(record.unblockedAt()).isNull();
    assertThat(record.purgedAt()).isNotNull();
    assertThat(record.evidence()).extracting(SpamPurge.Evidence::path).containsExactly("people/spammer.toml",
        "projects/pill-shop.toml", "project-updates/pill-shop/1.toml", "project-buzz/pill-shop/pills-news.toml",
        "help-wanted-roles/pill-shop/" + roleId + ".toml");
    assertThat(record.evidence().get(0).field()).isEqualTo("bio");
    assertThat(record.evidence().get(1).field()).isEqualTo("summary");
    assertThat(record.evidence().get(2).number()).isEqualTo(1);
    assertThat(record.evidence().get(3).slug()).isEqualTo("pills-news");
    assertThat(record.evidence().get(4).roleId()).isEqualTo(roleId);
    assertThat(purge.getString("beforeCommit")).isEqualTo(before.name());

    // the private half went in the same transaction: the session ends at once
    assertThat(h.count("SELECT count(*) FROM private_profiles WHERE person_id = '" + spammerId + "'")).isZero();
    assertThat(h.count("SELECT count(*) FROM password_credentials WHERE person_id = '" + spammerId + "'")).isZero();
    assertThat(h.count("SELECT count(*) FROM sessions WHERE person_id = '" + spammerId + "'")).isZero();
    error(h.get("/api/auth/me", spammer), 401, "unauthenticated");

    // the log shows it; without SHOTSTASH_DATA_REPO_WEB_URL there are no links
    JsonArray log = list(h.get("/api/admin/spam-purges?slug=spammer", staff));
    assertThat(log).hasSize(1);
    assertThat(log.getJsonObject(0).getValue("commitUrl")).isNull();
    assertThat(log.getJsonObject(0).getJsonArray("evidence").getJsonObject(0).getValue("url")).isNull();
    assertThat(strings(log.getJsonObject(0).getJsonArray("flags"))).containsExactly("bio-promo-link", "business-name");
  }

  @Test
  void aPurgeAndAStaffVoteRacingOnOneMemberAreCheckedOneAfterTheOther() {
    h.seed(newMember("race-vote", SPAM_BIO, now()));
    Agent agent = purger("pr-race1");
    Future<HttpResponse<Buffer>> purge = h.purgeBioLater(agent, "race-vote");
    Future<HttpResponse<Buffer>> vote =
        app.client().post("/api/admin/members/race-vote/vote").bearerTokenAuthentication(staff)
            .sendJsonObject(new JsonObject().put("verdict", "spam"));
    Future.all(purge, vote).await();
    if (purge.result().statusCode() == 200) {
      // the purge went first: the member is gone when the vote is checked
      error(vote.result(), 404, "not_found");
      assertThat(h.person("race-vote")).isNull();
    } else {
      // the vote went first: humans are final
      conflict(purge.result(), "human_verdict_exists");
      data(vote.result());
      assertThat(h.person("race-vote").isDeactivated()).isTrue();
    }
  }

  @Test
  void twoAgentsRacingToPurgeOneMemberPurgeItOnce() {
    h.seed(newMember("race-purge", SPAM_BIO, now()));
    Agent one = purger("pr-race1");
    Agent two = purger("pr-race2");
    Future<HttpResponse<Buffer>> first = h.purgeBioLater(one, "race-purge");
    Future<HttpResponse<Buffer>> second = h.purgeBioLater(two, "race-purge");
    Future.all(first, second).await();
    List<Integer> statuses = List.of(first.result().statusCode(), second.result().statusCode());
    assertThat(statuses).containsExactlyInAnyOrder(200, 404);
    assertThat(list(h.get("/api/admin/spam-purges?slug=race-purge", staff))).hasSize(1);
  }

  @Test
  void aBlankReasonIsNoReason() {
    h.seed(newMember("blank-reason", SPAM_BIO, now()));
    Agent agent = purger("pr-blank");
    ObjectId before = h.head();
    invalid(h.purge(agent, "blank-reason", purgeBody("   ", bioEvidence())), "reason");
    assertThat(h.head()).isEqualTo(before);
  }

  // ---------------------------------------------------------------- the allowance, under concurrency

  @Test
  void tenConcurrentPurgesWithAnAllowanceOfFiveLetExactlyFiveThrough() {
    Person[] members = h.seedNumbered("cc", 11, SPAM_BIO, now());
    Agent agent = purger("pr-conc");
    List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      sent.add(h.purgeBioLater(agent, members[i].slug()));
    }
    Future.all(sent).await();
    List<String> purged = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      HttpResponse<Buffer> r = sent.get(i).result();
      if (r.statusCode() == 200) {
        purged.add(members[i].slug());
      } else {
        rateLimited(r);
        refused.add(members[i].slug());
      }
    }
    assertThat(purged).hasSize(5);
    assertThat(refused).hasSize(5);
    purged.forEach(slug -> assertThat(h.person(slug)).as(slug).isNull());
    refused.forEach(slug -> assertThat(h.person(slug)).as(slug).isNotNull());
    List<SpamPurge> records = app.publicState().current().all(Sheet.SPAM_PURGES, SpamPurge.class).stream()
        .filter(s -> "agent-pr-conc".equals(s.by())).toList();
    assertThat(records).extracting(SpamPurge::slug).containsExactlyInAnyOrderElementsOf(purged);

    // the sixth purge of the day, on its own, and a dry run of it, are refused the same way
    ObjectId before = h.head();
    int wait = rateLimited(h.purgeBio(agent, "cc-11"));
    assertThat(wait).isGreaterThan(86_000);
    rateLimited(h.dryRunBio(agent, "cc-11"));
    assertThat(h.head()).isEqualTo(before);
    // rules 1-7 answer before the allowance (rule 8)
    conflict(h.purgeBio(agent, "sp-owner"), "shared_project");
    error(h.purge(agent, "cc-11", purgeBody("Pill spam in the bio.", new JsonObject().put("record", "project")
        .put("project", "no-such-project"))), 422, "evidence_invalid");
  }
}
