package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.error;
import static io.shotstash.http.moderation.ModerationHarness.invalid;
import static io.shotstash.http.moderation.ModerationHarness.list;
import static io.shotstash.http.moderation.ModerationHarness.newMember;
import static io.shotstash.http.moderation.ModerationHarness.notFound;
import static io.shotstash.http.moderation.ModerationHarness.now;
import static io.shotstash.http.moderation.ModerationHarness.ok;
import static io.shotstash.http.moderation.ModerationHarness.strings;
import static io.shotstash.http.moderation.ModerationHarness.trailerValue;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.http.moderation.ModerationHarness.Agent;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The spam-purge log (filters, byRef, links on the data repository's web page), unblocking a
 * record, the scheduled purge run through its own address, and the administrators' purge of orphan
 * private data. This app runs with SHOTSTASH_DATA_REPO_WEB_URL set, so the log carries links.
 */
class SpamPurgeLogApiTest extends WithSignedInApp {
  static final String WEB = "https://github.com/example/data";
  static final String SPAM_BIO = "Cheap pills, fast delivery, no prescription.";

  static ModerationHarness h;
  static String staff;
  static String staff2;
  static String user;

  @BeforeAll
  static void start() {
    Map<String, String> settings = new HashMap<>(ModerationHarness.QUIET);
    settings.put("SHOTSTASH_DATA_REPO_WEB_URL", WEB);
    startSignedIn(settings);
    h = new ModerationHarness(app);
    staff = h.member(admin, "stf", "staff");
    staff2 = h.member(admin, "stf2", "staff");
    user = h.member(admin, "usr", "user");
    h.nudger(user, "usr");
    h.seedAgents("log-bot", "ub-bot", "sc-bot", "sc-gone-bot", "log-reader");
  }

  private static Agent purger(String slug) {
    return h.grantTo(admin, slug, "moderation:read", "moderation:vote", "moderation:purge");
  }

  private static List<String> logSlugs(String query, String token) {
    List<String> out = new ArrayList<>();
    JsonArray items = list(h.get("/api/admin/spam-purges" + query, token));
    for (int i = 0; i < items.size(); i++) {
      out.add(items.getJsonObject(i).getString("slug"));
    }
    return out;
  }

  private static JsonObject logItem(String slug) {
    JsonArray items = list(h.get("/api/admin/spam-purges?slug=" + slug, staff));
    assertThat(items).hasSize(1);
    return items.getJsonObject(0);
  }

  // ---------------------------------------------------------------- the log

  @Test
  void theLogListsPurgesNewestFirstWithFiltersByRefAndLinks() {
    Instant now = now();
    h.seed(newMember("lg-agent", SPAM_BIO, now), newMember("lg-staff", SPAM_BIO, now),
        newMember("lg-quiet", "bio", now));
    Agent bot = purger("log-bot");
    data(h.purgeBio(bot, "lg-agent"));
    data(h.post("/api/people/lg-staff/purge", admin, new JsonObject().put("reason", "Pill spam").put("spam", true)));
    // a purge that is not for spam leaves no spam-purges record
    data(h.post("/api/people/lg-quiet/purge", admin, new JsonObject().put("reason", "Asked to be removed")
        .put("spam", false)));

    List<String> all = logSlugs("?perPage=200", staff);
    assertThat(all).containsSubsequence("lg-staff", "lg-agent").doesNotContain("lg-quiet");
    assertThat(logSlugs("?by=agent-log-bot", staff)).containsExactly("lg-agent");
    assertThat(logSlugs("?by=human-ada", staff)).contains("lg-staff").doesNotContain("lg-agent");
    assertThat(logSlugs("?slug=lg-agent", staff)).containsExactly("lg-agent");
    assertThat(logSlugs("?slug=lg-quiet", staff)).isEmpty();
    JsonArray agents = list(h.get("/api/admin/spam-purges?by=agent&perPage=200", staff));
    for (int i = 0; i < agents.size(); i++) {
      assertThat(agents.getJsonObject(i).getString("by")).startsWith("agent-");
    }
    assertThat(logSlugs("?by=agent&perPage=200", staff)).contains("lg-agent").doesNotContain("lg-staff");
    JsonArray humans = list(h.get("/api/admin/spam-purges?by=human&perPage=200", staff));
    for (int i = 0; i < humans.size(); i++) {
      assertThat(humans.getJsonObject(i).getString("by")).startsWith("human-");
    }
    assertThat(logSlugs("?by=human&perPage=200", staff)).contains("lg-staff").doesNotContain("lg-agent");
    assertThat(logSlugs("?by=scheduled&slug=lg-agent", staff)).isEmpty();
    String today = LocalDate.now(ZoneOffset.UTC).toString();
    String tomorrow = LocalDate.now(ZoneOffset.UTC).plusDays(1).toString();
    assertThat(logSlugs("?since=" + today + "&perPage=200", staff)).contains("lg-agent", "lg-staff");
    assertThat(logSlugs("?since=" + tomorrow, staff)).isEmpty();
    assertThat(logSlugs("?since=" + now.minusSeconds(1) + "&slug=lg-agent", staff)).containsExactly("lg-agent");
    assertThat(logSlugs("?blocking=true&slug=lg-agent", staff)).containsExactly("lg-agent");
    assertThat(logSlugs("?blocking=false&slug=lg-agent", staff)).isEmpty();
    // an agent with the read scope reads the log too
    Agent reader = h.grantTo(admin, "log-reader", "moderation:read");
    assertThat(logSlugs("?slug=lg-agent", reader.token())).containsExactly("lg-agent");

    // byRef resolves `by`, which stays the stored string
    JsonObject agentItem = logItem("lg-agent");
    assertThat(agentItem.getString("by")).isEqualTo("agent-log-bot");
    JsonObject byRef = agentItem.getJsonObject("byRef");
    assertThat(byRef.getString("kind")).isEqualTo("agent");
    assertThat(byRef.getString("slug")).isEqualTo("log-bot");
    assertThat(byRef.getString("fullName")).isEqualTo("Bot log-bot");
    assertThat(agentItem.getString("grantId")).isEqualTo(bot.grantId());
    JsonObject staffItem = logItem("lg-staff");
    assertThat(staffItem.getString("by")).isEqualTo("human-ada");
    assertThat(staffItem.getJsonObject("byRef").getString("kind")).isEqualTo("human");
    assertThat(staffItem.getJsonObject("byRef").getString("slug")).isEqualTo("ada");
    assertThat(staffItem.getJsonObject("byRef").getString("fullName")).isEqualTo("Ada Admin");

    // links on the data repository's web page
    String id = agentItem.getString("id");
    String beforeCommit = agentItem.getString("beforeCommit");
    assertThat(beforeCommit).hasSize(40);
    JsonObject evidence = agentItem.getJsonArray("evidence").getJsonObject(0);
    assertThat(evidence.getString("path")).isEqualTo("people/lg-agent.toml");
    assertThat(evidence.getString("url")).isEqualTo(WEB + "/blob/" + beforeCommit + "/people/lg-agent.toml");
    assertThat(agentItem.getString("commitUrl")).isEqualTo(WEB + "/commits/published/spam-purges/" + id + ".toml");
    assertThat(h.fileAt(ObjectId.fromString(beforeCommit), "people/lg-agent.toml")).contains("Cheap pills");
    assertThat(staffItem.getJsonArray("evidence")).isEmpty();
    assertThat(staffItem.getString("commitUrl")).endsWith("/spam-purges/" + staffItem.getString("id") + ".toml");

    // paging
    JsonObject page = ok(h.get("/api/admin/spam-purges?perPage=1&page=2", staff), 200);
    assertThat(page.getJsonArray("data")).hasSize(1);
    assertThat(page.getJsonObject("metadata").getInteger("perPage")).isEqualTo(1);
    assertThat(page.getJsonObject("metadata").getLong("totalItems")).isGreaterThanOrEqualTo(2);
    assertThat(page.getJsonObject("metadata").getLong("totalPages"))
        .isEqualTo(page.getJsonObject("metadata").getLong("totalItems"));
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(delimiter = '|', value = {
      "by=robots       | by",
      "by=agent-       | by",
      "by=agent-Bad    | by",
      "since=yesterday | since",
      "blocking=maybe  | blocking",
      "perPage=201     | perPage",
      "bogus=1         | bogus"})
  void badLogFiltersAreRefused(String query, String field) {
    invalid(h.get("/api/admin/spam-purges?" + query, staff), field);
  }

  // ---------------------------------------------------------------- unblocking

  @Test
  void staffUnblockARecordOnceAndUnblockingAgainChangesNothing() {
    h.seed(newMember("ub-one", SPAM_BIO, now()));
    Agent bot = purger("ub-bot");
    String id = data(h.purgeBio(bot, "ub-one")).getJsonObject("purge").getString("id");
    String path = "/api/admin/spam-purges/" + id + "/unblock";

    notFound(h.post(path, bot.token(), new JsonObject()));
    notFound(h.post(path, user, new JsonObject()));
    notFound(h.post(path, null, new JsonObject()));
    notFound(h.post("/api/admin/spam-purges/" + UUID.randomUUID() + "/unblock", staff, new JsonObject()));
    notFound(h.post("/api/admin/spam-purges/not-an-id/unblock", staff, new JsonObject()));
    invalid(h.post(path, staff, new JsonObject().put("reason", "r".repeat(1001))), "reason");
    assertThat(logSlugs("?blocking=true&slug=ub-one", staff)).containsExactly("ub-one");

    ObjectId before = h.head();
    JsonObject purge = data(h.post(path, staff, new JsonObject().put("reason", "The member asked to start over")))
        .getJsonObject("purge");
    assertThat(purge.getString("id")).isEqualTo(id);
    assertThat(purge.getString("unblockedAt")).isNotNull();
    assertThat(purge.getString("unblockedBySlug")).isEqualTo("stf");
    assertThat(purge.getBoolean("blocksSignIn")).isTrue();
    RevCommit c = h.onlyCommitSince(before);
    assertThat(trailerValue(c, "Action")).isEqualTo("spam-purge.unblock");
    assertThat(trailerValue(c, "Actor-Slug")).isEqualTo("stf");
    assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("stf" + ModerationHarness.NOREPLY);
    assertThat(c.getFullMessage()).contains("The member asked to start over");
    SpamPurge record = h.recordAtHead(Sheet.SPAM_PURGES, id, SpamPurge.class);
    assertThat(record.unblockedAt()).isEqualTo(Instant.parse(purge.getString("unblockedAt")));
    assertThat(record.unblockedBySlug()).isEqualTo("stf");
    assertThat(record.by()).isEqualTo("agent-ub-bot");
    assertThat(record.reason()).contains("pharmacy");
    assertThat(logSlugs("?blocking=true&slug=ub-one", staff)).isEmpty();
    assertThat(logSlugs("?blocking=false&slug=ub-one", staff)).containsExactly("ub-one");

    // a second unblock, even by someone else, is a no-op
    ObjectId after = h.head();
    JsonObject again = data(h.post(path, staff2, null)).getJsonObject("purge");
    assertThat(again.getString("unblockedAt")).isEqualTo(purge.getString("unblockedAt"));
    assertThat(again.getString("unblockedBySlug")).isEqualTo("stf");
    assertThat(h.head()).isEqualTo(after);
  }

  // ---------------------------------------------------------------- the scheduled purge

  @Test
  void theSweepPurgesMembersWhoseDecidingVotesHaveBeenSpamForThreeDays() {
    Instant now = now();
    Instant fiveDaysAgo = now.minus(Duration.ofDays(5));
    Instant fourDaysAgo = now.minus(Duration.ofDays(4));

    // through the API: a staff spam vote, then its date moved back four days in git
    h.createPerson(admin, "sc-human", "user");
    String humanId = h.idOf("sc-human");
    data(h.vote(staff, "sc-human", "spam"));
    Person hidden = h.person("sc-human");
    h.commitBehindTheAppsBack(List.of(ModerationHarness.put(ModerationHarness.withCreatedAt(hidden, fiveDaysAgo)),
        ModerationHarness.put(ModerationHarness.evaluatedAt(h.evaluation("sc-human", "human-stf"), fourDaysAgo))));
    assertThat(Instant.parse(h.row(staff, "sc-human").getString("purgeAfter"))).isBefore(now());

    // records written straight into git
    Agent active = h.grantTo(admin, "sc-bot", "moderation:vote");
    Agent gone = h.grantTo(admin, "sc-gone-bot", "moderation:vote");
    h.revoke(admin, gone);
    List<RecordChange> changes = new ArrayList<>();
    // a staged agent spam vote, four days old, by an agent that still holds a grant: purged
    changes.add(ModerationHarness.put(hidden("sc-staged", "moderation", fiveDaysAgo)));
    changes.add(ModerationHarness.put(vote("sc-staged", "agent-sc-bot", "spam", fourDaysAgo)));
    // the same by an agent whose grant was revoked: kept
    changes.add(ModerationHarness.put(hidden("sc-revoked", "moderation", fiveDaysAgo)));
    changes.add(ModerationHarness.put(vote("sc-revoked", "agent-sc-gone-bot", "spam", fourDaysAgo)));
    // the latest human vote is legit: kept
    changes.add(ModerationHarness.put(hidden("sc-legit", "self", fiveDaysAgo)));
    changes.add(ModerationHarness.put(vote("sc-legit", "human-stf", "spam", fourDaysAgo.minusSeconds(60))));
    changes.add(ModerationHarness.put(vote("sc-legit", "human-stf2", "legit", fourDaysAgo)));
    // a spam vote only a day old: not yet
    changes.add(ModerationHarness.put(hidden("sc-young", "moderation", fiveDaysAgo)));
    changes.add(ModerationHarness.put(vote("sc-young", "human-stf", "spam", now.minus(Duration.ofDays(1)))));
    // staff are never purged on schedule
    changes.add(
        ModerationHarness.put(ModerationHarness.withLevel(hidden("sc-staff", "moderation", fiveDaysAgo), "staff")));
    changes.add(ModerationHarness.put(vote("sc-staff", "human-stf", "spam", fourDaysAgo)));
    // shown again: not purged
    changes.add(ModerationHarness.put(newMember("sc-shown", "bio", fiveDaysAgo)));
    changes.add(ModerationHarness.put(vote("sc-shown", "human-stf", "spam", fourDaysAgo)));
    // a vote cast on an earlier account under the slug, and the new account deactivated itself: kept
    changes.add(ModerationHarness.put(hidden("sc-heir", "self", now.minus(Duration.ofDays(1)))));
    changes.add(ModerationHarness.put(vote("sc-heir", "human-stf", "spam", fiveDaysAgo)));
    h.commitBehindTheAppsBack(changes);
    assertThat(active.token()).isNotBlank();

    ObjectId before = h.head();
    JsonObject reply =
        app.vertx().eventBus().<JsonObject>request(Addresses.MODERATION_PURGE_SWEEP, new JsonObject()).await()
            .body();
    assertThat(strings(reply.getJsonArray("purged"))).containsExactlyInAnyOrder("sc-human", "sc-staged");
    assertThat(h.person("sc-human")).isNull();
    assertThat(h.person("sc-staged")).isNull();
    for (String kept : List.of("sc-revoked", "sc-legit", "sc-young", "sc-staff", "sc-shown", "sc-heir")) {
      assertThat(h.person(kept)).as(kept).isNotNull();
    }

    // one commit per purge, by the system
    List<RevCommit> commits = h.commitsSince(before);
    assertThat(commits).hasSize(2);
    for (RevCommit c : commits) {
      assertThat(c.getAuthorIdent().getName()).isEqualTo("Shotstash");
      assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("system" + ModerationHarness.NOREPLY);
      assertThat(c.getShortMessage()).startsWith("system: ");
      assertThat(trailerValue(c, "Action")).isEqualTo("person.purge");
      assertThat(trailerValue(c, "Actor-Kind")).isEqualTo("system");
      assertThat(ModerationHarness.trailer(c, "Grant-Id")).isEmpty();
      assertThat(trailerValue(c, "Purge-Id")).isNotBlank();
    }

    // the spam-purges record, by "scheduled"
    JsonObject item = logItem("sc-human");
    assertThat(item.getString("by")).isEqualTo("scheduled");
    assertThat(item.getString("personId")).isEqualTo(humanId);
    assertThat(item.getValue("grantId")).isNull();
    assertThat(item.getBoolean("blocksSignIn")).isTrue();
    assertThat(item.getString("unblockedAt")).isNull();
    JsonObject byRef = item.getJsonObject("byRef");
    assertThat(byRef.getString("kind")).isEqualTo("scheduled");
    assertThat(byRef.getValue("slug")).isNull();
    assertThat(byRef.getValue("fullName")).isNull();
    assertThat(logSlugs("?by=scheduled", staff)).containsExactlyInAnyOrder("sc-human", "sc-staged");
    SpamPurge record = h.recordAtHead(Sheet.SPAM_PURGES, item.getString("id"), SpamPurge.class);
    assertThat(record.by()).isEqualTo("scheduled");
    assertThat(h.count("SELECT count(*) FROM private_profiles WHERE person_id = '" + humanId + "'")).isZero();
    // the votes stay as the record of why
    assertThat(h.fileAtHead("person-evaluations/sc-human/human-stf.toml")).isNotNull();

    // a second sweep finds nothing more
    ObjectId afterSweep = h.head();
    JsonObject second = app.vertx().eventBus().<JsonObject>request(Addresses.MODERATION_PURGE_SWEEP, new JsonObject())
        .await().body();
    assertThat(second.getJsonArray("purged")).isEmpty();
    assertThat(h.head()).isEqualTo(afterSweep);
  }

  private static Person hidden(String slug, String by, Instant createdAt) {
    return ModerationHarness.hiddenBy(newMember(slug, "bio", createdAt), by, createdAt.plusSeconds(60));
  }

  private static PersonEvaluation vote(String slug, String evaluator, String verdict, Instant at) {
    boolean human = evaluator.startsWith("human-");
    return new PersonEvaluation(slug, evaluator, verdict, "reason",
        human ? List.of("manual-override") : List.of("agent"),
        human ? 1.0 : null, at);
  }

  // ---------------------------------------------------------------- orphan private data

  @Test
  void purgeOrphansCountsThenDeletesAndNeverNamesAnyone() {
    notFound(h.post("/api/admin/private-data/purge-orphans", staff, new JsonObject().put("apply", false)));
    notFound(h.post("/api/admin/private-data/purge-orphans", user, new JsonObject().put("apply", false)));
    invalid(h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject()), "apply");
    invalid(h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("apply", "yes")), "apply");
    ObjectId head = h.head();

    JsonObject baseline =
        data(h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("apply", false)));
    String orphan = UUID.randomUUID().toString();
    h.sql("INSERT INTO private_profiles (person_id, email) VALUES ('" + orphan + "', 'orphan-secret@example.org')");
    h.sql("INSERT INTO password_credentials (person_id, hash) VALUES ('" + orphan + "', 'x')");
    h.sql("INSERT INTO sessions (id, person_id, expires_at) VALUES ('" + UUID.randomUUID() + "', '" + orphan
        + "', now() + interval '1 day')");

    HttpResponse<Buffer> counted =
        h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("apply", false));
    JsonObject counts = data(counted);
    assertThat(counts.fieldNames()).containsExactlyInAnyOrder("applied", "orphanPeople", "profiles", "legacyPasswords",
        "claimRequests", "sessions");
    assertThat(counts.getBoolean("applied")).isFalse();
    assertThat(counts.getInteger("orphanPeople")).isEqualTo(baseline.getInteger("orphanPeople") + 1);
    assertThat(counts.getInteger("profiles")).isEqualTo(baseline.getInteger("profiles") + 1);
    assertThat(counts.getInteger("legacyPasswords")).isEqualTo(baseline.getInteger("legacyPasswords") + 1);
    assertThat(counts.getInteger("sessions")).isEqualTo(baseline.getInteger("sessions") + 1);
    assertThat(counts.getInteger("claimRequests")).isEqualTo(baseline.getInteger("claimRequests"));
    assertThat(counted.bodyAsString()).doesNotContain("orphan-secret").doesNotContain(orphan);
    assertThat(h.count("SELECT count(*) FROM private_profiles WHERE person_id = '" + orphan + "'")).isEqualTo(1);

    HttpResponse<Buffer> applied =
        h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("apply", true));
    JsonObject deleted = data(applied);
    assertThat(deleted.getBoolean("applied")).isTrue();
    for (String key : List.of("orphanPeople", "profiles", "legacyPasswords", "claimRequests", "sessions")) {
      assertThat(deleted.getInteger(key)).as(key).isEqualTo(counts.getInteger(key));
    }
    assertThat(applied.bodyAsString()).doesNotContain("orphan-secret").doesNotContain(orphan);
    assertThat(h.count("SELECT count(*) FROM private_profiles WHERE person_id = '" + orphan + "'")).isZero();
    assertThat(h.count("SELECT count(*) FROM password_credentials WHERE person_id = '" + orphan + "'")).isZero();
    assertThat(h.count("SELECT count(*) FROM sessions WHERE person_id = '" + orphan + "'")).isZero();
    // people who exist keep their private data
    assertThat(h.count("SELECT count(*) FROM private_profiles WHERE person_id = '" + h.idOf("usr") + "'")).isEqualTo(1);
    assertThat(data(h.get("/api/auth/me", user)).getString("slug")).isEqualTo("usr");

    JsonObject after =
        data(h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("apply", false)));
    assertThat(after.getInteger("orphanPeople")).isZero();
    assertThat(h.head()).isEqualTo(head);
    error(h.post("/api/admin/private-data/purge-orphans", admin, new JsonObject().put("apply", false).put("bogus", 1)),
        422, "validation_failed");
  }
}
