package io.shotstash.http.community;

import static io.shotstash.http.community.CommunityApi.data;
import static io.shotstash.http.community.CommunityApi.error;
import static io.shotstash.http.community.CommunityApi.invalid;
import static io.shotstash.http.community.CommunityApi.trailers;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The staff purge over HTTP: only administrators may use it (everyone else gets 404), the cascade
 * (MODERATION.md → Purge) lands as one commit with its trailers and spam-purges record, the
 * private rows and sessions go at once, and what must stay stays.
 */
class PurgeRoutesTest extends WithCommunityApp {
  @BeforeAll
  static void members() {
    staffAndUser("stf", "usr");
  }

  @Test
  void onlyAdministratorsMayPurgeAndEveryoneElseGetsNotFound() {
    api.member(admin, "target", "user");
    ObjectId before = api.head();
    JsonObject body = new JsonObject().put("reason", "spam");
    error(api.post("/api/people/target/purge", staff, body), 404, "not_found");
    error(api.post("/api/people/target/purge", user, body), 404, "not_found");
    error(api.post("/api/people/target/purge", null, body), 404, "not_found");
    // authorised before validated: a bad body from a non-administrator is still 404
    error(api.post("/api/people/target/purge", staff, new JsonObject().put("bogus", true)), 404, "not_found");
    error(api.post("/api/people/target/purge", null, new JsonObject().put("bogus", true)), 404, "not_found");

    invalid(api.post("/api/people/target/purge", admin, new JsonObject()), "reason");
    invalid(api.post("/api/people/target/purge", admin, new JsonObject().put("reason", "x").put("bogus", 1)), "bogus");
    invalid(api.post("/api/people/target/purge", admin, new JsonObject().put("reason", "x").put("spam", "yes")),
        "spam");
    error(api.post("/api/people/no-such-person/purge", admin, body), 404, "not_found");
    invalid(api.post("/api/people/ada/purge", admin, body), "slug");
    assertThat(api.head()).isEqualTo(before);
    assertThat(data(api.get("/api/people/target", null), 200).getString("slug")).isEqualTo("target");
  }

  @Test
  void aSpamPurgeRemovesThePersonAndWhatTheyMadeInOneCommit() {
    String spam = api.member(admin, "spammy", "user");
    String alice = api.member(admin, "alice", "user");
    String bob = api.member(admin, "bob", "user");
    String spamId = api.idOf("spammy");

    // Alice's project, where the spammer joins, posts and says they are interested in Alice's role
    data(api.post("/api/projects", alice, new JsonObject().put("title", "Alice Garden")), 201);
    String aliceRole = data(api.post("/api/projects/alice-garden/help-wanted", alice, new JsonObject()
        .put("title", "Gardener").put("description", "Dig")), 201).getString("id");
    data(api.post("/api/projects/alice-garden/updates", alice, new JsonObject().put("body", "Alice's update")), 201);
    data(api.post("/api/projects/alice-garden/members/join", spam, null), 200);
    data(api.post("/api/projects/alice-garden/updates", spam, new JsonObject().put("body", "buy pills")), 201);
    data(api.post("/api/projects/alice-garden/buzz", spam, new JsonObject().put("headline", "Cheap Pills")
        .put("url", "https://spam.example/pills")), 201);
    data(api.post("/api/help-wanted/" + aliceRole + "/interest", spam, new JsonObject().put("message", "me!")), 201);

    // the spammer's lone project, with everything in it
    String loneId =
        data(api.post("/api/projects", spam, new JsonObject().put("title", "Spam Lone")), 201).getString("id");
    data(api.post("/api/projects/spam-lone/updates", spam, new JsonObject().put("body", "lone update")), 201);
    data(api.post("/api/projects/spam-lone/buzz", spam, new JsonObject().put("headline", "Lone Buzz")
        .put("url", "https://spam.example/lone")), 201);
    String loneRole = data(api.post("/api/projects/spam-lone/help-wanted", spam, new JsonObject()
        .put("title", "Clicker").put("description", "Click")), 201).getString("id");
    String pharmaId = data(api.post("/api/tags", staff, new JsonObject().put("namespace", "topic").put("slug", "pharma")
        .put("title", "Pharma")), 201).getString("id");
    data(api.post("/api/projects/spam-lone/tags/topic/pharma", spam, null), 200);
    data(api.post("/api/people/spammy/tags/topic/pharma", spam, null), 200);

    // the spammer's project that Bob joined, with a role Bob is interested in
    data(api.post("/api/projects", spam, new JsonObject().put("title", "Spam Shared")), 201);
    String sharedRole = data(api.post("/api/projects/spam-shared/help-wanted", spam, new JsonObject()
        .put("title", "Helper").put("description", "Help")), 201).getString("id");
    data(api.post("/api/projects/spam-shared/members/join", bob, null), 200);
    data(api.post("/api/help-wanted/" + sharedRole + "/interest", bob, null), 201);
    data(api.post("/api/projects/spam-shared/updates", bob, new JsonObject().put("body", "Bob's update")), 201);

    // an evaluation of the spammer (the moderation API is another part's; put it into git directly)
    String evalPath = api.spamVoteBehindTheAppsBack("spammy", "human-stf", "pill links", List.of("bio-links:2"), user,
        "usr");
    assertThat(api.existsAtHead(evalPath)).isTrue();

    assertThat(api.privateRows("private_profiles", "person_id", spamId)).isEqualTo(1);
    assertThat(api.privateRows("password_credentials", "person_id", spamId)).isEqualTo(1);
    assertThat(api.privateRows("sessions", "person_id", spamId)).isGreaterThanOrEqualTo(1);
    assertThat(data(api.get("/api/auth/me", spam), 200).getString("slug")).isEqualTo("spammy");
    Map<String, String> filesBefore = api.filesAt(api.head());

    // ---- the purge ----
    ObjectId before = api.head();
    JsonObject result = data(api.post("/api/people/spammy/purge", admin,
        new JsonObject().put("reason", "Pill spam in updates and buzz").put("spam", true)), 200);

    JsonObject deleted = result.getJsonObject("deleted");
    assertThat(deleted.getJsonArray("projects")).hasSize(1);
    assertThat(deleted.getJsonArray("projects").getJsonObject(0).getString("slug")).isEqualTo("spam-lone");
    assertThat(deleted.getInteger("memberships")).isEqualTo(3); // alice-garden, spam-lone, spam-shared
    assertThat(deleted.getInteger("updates")).isEqualTo(2); // alice-garden, spam-lone
    assertThat(deleted.getInteger("buzz")).isEqualTo(2);
    assertThat(deleted.getInteger("helpWantedRoles")).isEqualTo(2); // spam-lone, spam-shared
    JsonObject purge = result.getJsonObject("purge");
    String purgeId = purge.getString("id");
    assertThat(purge.getString("by")).isEqualTo("human-ada");
    assertThat(purge.getString("slug")).isEqualTo("spammy");

    // one commit, on the old head, by the administrator's pseudonym, with the purge trailers
    List<RevCommit> commits = api.commitsSince(before);
    assertThat(commits).hasSize(1);
    RevCommit c = commits.get(0);
    assertThat(c.getParentCount()).isEqualTo(1);
    assertThat(c.getParent(0).getId()).isEqualTo(before);
    assertThat(c.getShortMessage()).isEqualTo("ada: POST /api/people/spammy/purge");
    assertThat(c.getFullMessage()).contains("Pill spam in updates and buzz");
    Map<String, String> trailers = trailers(c);
    assertThat(trailers).containsEntry("Action", "person.purge").containsEntry("Subject-Type", "person")
        .containsEntry("Subject-Id", spamId).containsEntry("Subject-Slug", "spammy").containsEntry("Actor-Slug", "ada")
        .containsEntry("Actor-Kind", "human").containsEntry("Actor-Account-Level", "administrator")
        .containsEntry("Purge-Id", purgeId);
    PersonIdent author = c.getAuthorIdent();
    assertThat(author.getName()).isEqualTo("Ada Admin");
    assertThat(author.getEmailAddress()).isEqualTo("ada" + CommunityApi.NOREPLY);
    assertThat(c.getCommitterIdent().getEmailAddress()).isEqualTo("ada" + CommunityApi.NOREPLY);

    // the spam-purges record
    SpamPurge record = api.recordAtHead(Sheet.SPAM_PURGES, purgeId, SpamPurge.class);
    assertThat(record).isNotNull();
    assertThat(record.personId()).isEqualTo(spamId);
    assertThat(record.slug()).isEqualTo("spammy");
    assertThat(record.fullName()).isEqualTo("Person spammy");
    assertThat(record.by()).isEqualTo("human-ada");
    assertThat(record.reason()).isEqualTo("Pill spam in updates and buzz");
    assertThat(record.blocksSignIn()).isTrue();
    assertThat(record.unblockedAt()).isNull();
    assertThat(record.beforeCommit()).isEqualTo(before.name());
    assertThat(record.purgedAt()).isNotNull();

    // exactly the listed files went, and the spam-purges record came
    Map<String, String> filesAfter = api.filesAt(api.head());
    List<String> gone = filesBefore.keySet().stream().filter(p -> !filesAfter.containsKey(p)).sorted().toList();
    List<String> added = filesAfter.keySet().stream().filter(p -> !filesBefore.containsKey(p)).toList();
    assertThat(gone).containsExactlyInAnyOrder(
        "people/spammy.toml",
        "project-memberships/alice-garden/spammy.toml",
        "project-memberships/spam-lone/spammy.toml",
        "project-memberships/spam-shared/spammy.toml",
        "project-updates/alice-garden/2.toml",
        "project-buzz/alice-garden/cheap-pills.toml",
        "help-wanted-interest/" + aliceRole + "/spammy.toml",
        "projects/spam-lone.toml",
        "project-updates/spam-lone/1.toml",
        "project-buzz/spam-lone/lone-buzz.toml",
        "help-wanted-roles/spam-lone/" + loneRole + ".toml",
        "tag-assignments/" + pharmaId + "/project/" + loneId + ".toml",
        "tag-assignments/" + pharmaId + "/person/" + spamId + ".toml",
        "help-wanted-roles/spam-shared/" + sharedRole + ".toml",
        "help-wanted-interest/" + sharedRole + "/bob.toml");
    assertThat(added).containsExactly("spam-purges/" + purgeId + ".toml");
    // and what stays, stays
    assertThat(filesAfter).containsKeys(evalPath, "projects/spam-shared.toml", "projects/alice-garden.toml",
        "project-memberships/spam-shared/bob.toml", "project-memberships/alice-garden/alice.toml",
        "project-updates/alice-garden/1.toml", "project-updates/spam-shared/1.toml",
        "help-wanted-roles/alice-garden/" + aliceRole + ".toml", "tags/topic/pharma.toml");
    assertThat(filesAfter.get(evalPath)).isEqualTo(filesBefore.get(evalPath));

    // over HTTP
    error(api.get("/api/people/spammy", staff), 404, "not_found");
    error(api.get("/api/projects/spam-lone", staff), 404, "not_found");
    JsonObject shared = data(api.get("/api/projects/spam-shared", null), 200);
    assertThat(shared.getJsonArray("members").stream()
        .map(m -> ((JsonObject) m).getJsonObject("person").getString("slug")).toList()).containsExactly("bob");
    assertThat(shared.getJsonObject("createdBy").getBoolean("deactivated")).isTrue();
    assertThat(shared.getJsonArray("helpWanted")).isEmpty();
    JsonObject garden = data(api.get("/api/projects/alice-garden", null), 200);
    JsonArray updates = garden.getJsonArray("updates");
    assertThat(updates).hasSize(1);
    assertThat(updates.getJsonObject(0).getString("body")).isEqualTo("Alice's update");
    assertThat(garden.getJsonArray("buzz")).isEmpty();

    // private rows went in the same step, and the session ended at once
    assertThat(api.privateRows("private_profiles", "person_id", spamId)).isZero();
    assertThat(api.privateRows("password_credentials", "person_id", spamId)).isZero();
    assertThat(api.privateRows("sessions", "person_id", spamId)).isZero();
    error(api.get("/api/auth/me", spam), 401, "unauthenticated");
    error(api.post("/api/projects", spam, new JsonObject().put("title", "Back Again")), 401, "unauthenticated");
    error(app.client().post("/api/auth/login").sendJsonObject(new JsonObject().put("login", "spammy@example.org")
        .put("password", CommunityApi.PASSWORD)).await(), 401, "invalid_credentials");

    // the others carry on
    data(api.post("/api/projects/spam-shared/updates", bob, new JsonObject().put("body", "still going")), 201);
    assertThat(data(api.get("/api/auth/me", alice), 200).getString("slug")).isEqualTo("alice");
  }

  @Test
  void aPurgeThatIsNotSpamLeavesNoSpamPurgesRecord() {
    String clean = api.member(admin, "clean", "user");
    data(api.post("/api/projects", clean, new JsonObject().put("title", "Clean Work")), 201);
    String cleanId = api.idOf("clean");
    List<String> purgesBefore = api.pathsUnder("spam-purges");
    ObjectId before = api.head();

    JsonObject result = data(api.post("/api/people/clean/purge", admin,
        new JsonObject().put("reason", "Asked to be forgotten").put("spam", false)), 200);
    assertThat(result.getValue("purge")).isNull();
    assertThat(result.getJsonObject("deleted").getJsonArray("projects")).hasSize(1);

    List<RevCommit> commits = api.commitsSince(before);
    assertThat(commits).hasSize(1);
    Map<String, String> trailers = trailers(commits.get(0));
    assertThat(trailers).containsEntry("Action", "person.purge").containsEntry("Subject-Slug", "clean")
        .doesNotContainKey("Purge-Id");
    assertThat(api.pathsUnder("spam-purges")).containsExactlyInAnyOrderElementsOf(purgesBefore);
    assertThat(api.existsAtHead("people/clean.toml")).isFalse();
    assertThat(api.existsAtHead("projects/clean-work.toml")).isFalse();
    assertThat(api.privateRows("private_profiles", "person_id", cleanId)).isZero();
    assertThat(api.privateRows("sessions", "person_id", cleanId)).isZero();
    error(api.get("/api/auth/me", clean), 401, "unauthenticated");

    // with no spam-purges record and no evaluations, the freed slug may be taken by a rename
    String later = api.member(admin, "later", "user");
    assertThat(data(api.patch("/api/people/later", later, new JsonObject().put("slug", "clean")), 200)
        .getString("slug")).isEqualTo("clean");
  }

  @Test
  void spamIsTheDefault() {
    api.member(admin, "dflt", "user");
    JsonObject result = data(api.post("/api/people/dflt/purge", admin, new JsonObject().put("reason", "spam")), 200);
    String purgeId = result.getJsonObject("purge").getString("id");
    assertThat(api.existsAtHead("spam-purges/" + purgeId + ".toml")).isTrue();
    assertThat(trailers(api.headCommit())).containsEntry("Purge-Id", purgeId);
  }
}
