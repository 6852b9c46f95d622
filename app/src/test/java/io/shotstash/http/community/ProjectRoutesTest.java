package io.shotstash.http.community;

import static io.shotstash.http.community.CommunityApi.data;
import static io.shotstash.http.community.CommunityApi.error;
import static io.shotstash.http.community.CommunityApi.invalid;
import static io.shotstash.http.community.CommunityApi.list;
import static io.shotstash.http.community.CommunityApi.trailers;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Projects over HTTP: create, edit, soft delete, join and leave, updates, buzz, help-wanted roles
 * and interest, tags, and the 30-writes-a-minute cap. Each test uses members of its own, so one
 * test's writes never eat into another's budget under the cap.
 */
class ProjectRoutesTest extends WithCommunityApp {
  @BeforeAll
  static void members() {
    staffAndUser("tess", "nora");
  }

  private static JsonObject project(String slug, String token) {
    return data(api.get("/api/projects/" + slug, token), 200);
  }

  private static List<String> memberSlugs(JsonObject project) {
    return project.getJsonArray("members").stream()
        .map(m -> ((JsonObject) m).getJsonObject("person").getString("slug")).toList();
  }

  // ---- create ----

  @Test
  void aMemberCreatesAProjectAndMaintainsIt() {
    String pia = api.member(admin, "pia", "user");
    JsonObject created = data(api.post("/api/projects", pia, new JsonObject().put("title", "Clean Streets Philly")
        .put("summary", "Report litter").put("stage", "prototyping")), 201);
    assertThat(created.getString("slug")).isEqualTo("clean-streets-philly");
    assertThat(created.getString("title")).isEqualTo("Clean Streets Philly");
    assertThat(created.getString("summary")).isEqualTo("Report litter");
    assertThat(created.getString("stage")).isEqualTo("prototyping");
    assertThat(created.getJsonObject("createdBy").getString("slug")).isEqualTo("pia");
    assertThat(created.getJsonObject("maintainer").getString("slug")).isEqualTo("pia");

    RevCommit c = api.headCommit();
    assertThat(c.getShortMessage()).isEqualTo("pia: POST /api/projects");
    assertThat(trailers(c)).containsEntry("Action", "project.create").containsEntry("Subject-Type", "project")
        .containsEntry("Subject-Slug", "clean-streets-philly").containsEntry("Actor-Slug", "pia");
    assertThat(api.existsAtHead("projects/clean-streets-philly.toml")).isTrue();
    assertThat(api.existsAtHead("project-memberships/clean-streets-philly/pia.toml")).isTrue();

    JsonObject seen = project("clean-streets-philly", null);
    JsonObject membership = seen.getJsonArray("members").getJsonObject(0);
    assertThat(seen.getJsonArray("members")).hasSize(1);
    assertThat(membership.getJsonObject("person").getString("slug")).isEqualTo("pia");
    assertThat(membership.getBoolean("isMaintainer")).isTrue();
    assertThat(list(api.get("/api/projects?q=clean", null)).stream()
        .map(p -> ((JsonObject) p).getString("slug")).toList()).contains("clean-streets-philly");

    JsonObject second =
        data(api.post("/api/projects", pia, new JsonObject().put("title", "Clean Streets, Philly!")), 201);
    assertThat(second.getString("slug")).isEqualTo("clean-streets-philly-2");
    assertThat(second.getString("stage")).isEqualTo("commenting");
    JsonObject accents = data(api.post("/api/projects", pia, new JsonObject().put("title", "Café Résumé")), 201);
    assertThat(accents.getString("slug")).isEqualTo("cafe-resume");
    JsonObject chosen = data(api.post("/api/projects", pia, new JsonObject().put("title", "Whatever")
        .put("slug", "my_own-slug")), 201);
    assertThat(chosen.getString("slug")).isEqualTo("my_own-slug");
  }

  @Test
  void projectCreationIsValidated() {
    String pim = api.member(admin, "pim", "user");
    data(api.post("/api/projects", pim, new JsonObject().put("title", "Taken Slug").put("slug", "taken-slug")), 201);
    ObjectId before = api.head();
    assertThat(invalid(api.post("/api/projects", pim, new JsonObject().put("title", "Again").put("slug", "taken-slug")),
        "slug")).isEqualTo("is taken");
    invalid(api.post("/api/projects", pim, new JsonObject().put("title", "Bad").put("slug", "Bad Slug")), "slug");
    invalid(api.post("/api/projects", pim, new JsonObject().put("summary", "no title")), "title");
    invalid(api.post("/api/projects", pim, new JsonObject().put("title", "  ")), "title");
    invalid(api.post("/api/projects", pim, new JsonObject().put("title", "x").put("stage", "launched")), "stage");
    invalid(api.post("/api/projects", pim, new JsonObject().put("title", "x").put("createdById", "someone")),
        "createdById");
    error(api.post("/api/projects", null, new JsonObject().put("title", "Anonymous")), 401, "unauthenticated");
    assertThat(api.head()).isEqualTo(before);
  }

  // ---- edit and delete ----

  @Test
  void maintainersAndStaffEditAProjectAndOthersCannot() {
    String ed = api.member(admin, "ed", "user");
    data(api.post("/api/projects", ed, new JsonObject().put("title", "Edit Me")), 201);
    JsonObject edited =
        data(api.patch("/api/projects/edit-me", ed, new JsonObject().put("summary", "Now with a summary")
            .put("stage", "testing")), 200);
    assertThat(edited.getString("summary")).isEqualTo("Now with a summary");
    assertThat(edited.getString("stage")).isEqualTo("testing");
    assertThat(edited.getString("title")).isEqualTo("Edit Me");
    assertThat(trailers(api.headCommit())).containsEntry("Action", "project.update");

    ObjectId before = api.head();
    error(api.patch("/api/projects/edit-me", user, new JsonObject().put("title", "Hijacked")), 403, "forbidden");
    error(api.patch("/api/projects/edit-me", null, new JsonObject().put("title", "Hijacked")), 401, "unauthenticated");
    error(api.patch("/api/projects/no-such-project", ed, new JsonObject().put("title", "x")), 404, "not_found");
    invalid(api.patch("/api/projects/edit-me", ed, new JsonObject().put("slug", "renamed")), "slug");
    assertThat(api.head()).isEqualTo(before);

    assertThat(data(api.patch("/api/projects/edit-me", staff, new JsonObject().put("title", "Edited By Staff")), 200)
        .getString("title")).isEqualTo("Edited By Staff");
    assertThat(project("edit-me", null).getString("title")).isEqualTo("Edited By Staff");
  }

  @Test
  void deletingAProjectHidesIt() {
    String del = api.member(admin, "del", "user");
    data(api.post("/api/projects", del, new JsonObject().put("title", "Doomed")), 201);
    error(api.delete("/api/projects/doomed", user), 403, "forbidden");
    error(api.delete("/api/projects/doomed", null), 401, "unauthenticated");
    assertThat(data(api.delete("/api/projects/doomed", del), 200).getBoolean("deleted")).isTrue();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "project.delete");

    error(api.get("/api/projects/doomed", null), 404, "not_found");
    error(api.get("/api/projects/doomed", staff), 404, "not_found");
    assertThat(list(api.get("/api/projects?perPage=200", null)).stream()
        .map(p -> ((JsonObject) p).getString("slug")).toList()).doesNotContain("doomed");
    // soft: the record stays in git with deletedAt, and its slug stays taken
    assertThat(api.fileAtHead("projects/doomed.toml")).contains("deletedAt");
    error(api.delete("/api/projects/doomed", del), 404, "not_found");
    error(api.post("/api/projects/doomed/members/join", user, null), 404, "not_found");
    JsonObject again = data(api.post("/api/projects", del, new JsonObject().put("title", "Doomed")), 201);
    assertThat(again.getString("slug")).isEqualTo("doomed-2");
  }

  // ---- membership ----

  @Test
  void joinAndLeaveAreSelfServiceAndIdempotent() {
    String jo = api.member(admin, "jo", "user");
    String max = api.member(admin, "max", "user");
    data(api.post("/api/projects", jo, new JsonObject().put("title", "Join Us")), 201);

    JsonObject joined = data(api.post("/api/projects/join-us/members/join", max, null), 200);
    assertThat(joined.getJsonObject("person").getString("slug")).isEqualTo("max");
    assertThat(joined.getBoolean("isMaintainer")).isFalse();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "project.join").containsEntry("Actor-Slug", "max");
    ObjectId once = api.head();
    assertThat(data(api.post("/api/projects/join-us/members/join", max, null), 200).getJsonObject("person")
        .getString("slug")).isEqualTo("max");
    assertThat(api.head()).as("joining twice makes one commit").isEqualTo(once);
    assertThat(memberSlugs(project("join-us", null))).containsExactlyInAnyOrder("jo", "max");

    assertThat(data(api.post("/api/projects/join-us/members/leave", max, null), 200).getBoolean("left")).isTrue();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "project.leave");
    ObjectId left = api.head();
    assertThat(data(api.post("/api/projects/join-us/members/leave", max, null), 200).getBoolean("left")).isFalse();
    assertThat(api.head()).isEqualTo(left);
    assertThat(memberSlugs(project("join-us", null))).containsExactly("jo");
    assertThat(api.existsAtHead("project-memberships/join-us/max.toml")).isFalse();

    error(api.post("/api/projects/join-us/members/join", null, null), 401, "unauthenticated");
    error(api.post("/api/projects/no-such-project/members/join", max, null), 404, "not_found");
  }

  @Test
  void theLastMaintainerCannotLeaveWhileOthersAreMembers() {
    String lee = api.member(admin, "lee", "user");
    String mo = api.member(admin, "mo", "user");
    api.projectWithMember(lee, "Stay Put", "stay-put", mo);
    ObjectId before = api.head();
    error(api.post("/api/projects/stay-put/members/leave", lee, null), 409, "last_maintainer");
    assertThat(api.head()).isEqualTo(before);
    assertThat(memberSlugs(project("stay-put", null))).containsExactlyInAnyOrder("lee", "mo");

    data(api.post("/api/projects/stay-put/members/leave", mo, null), 200);
    assertThat(data(api.post("/api/projects/stay-put/members/leave", lee, null), 200).getBoolean("left")).isTrue();
  }

  // ---- what members post ----

  @Test
  void membersPostNumberedUpdatesAndOthersCannot() {
    String upa = api.member(admin, "upa", "user");
    String upm = api.member(admin, "upm", "user");
    api.projectWithMember(upa, "Updates Here", "updates-here", upm);

    JsonObject first =
        data(api.post("/api/projects/updates-here/updates", upa, new JsonObject().put("body", "one")), 201);
    assertThat(first.getInteger("number")).isEqualTo(1);
    assertThat(first.getJsonObject("author").getString("slug")).isEqualTo("upa");
    assertThat(trailers(api.headCommit())).containsEntry("Action", "project-update.create");
    assertThat(api.existsAtHead("project-updates/updates-here/1.toml")).isTrue();
    assertThat(data(api.post("/api/projects/updates-here/updates", upm, new JsonObject().put("body", "two")), 201)
        .getInteger("number")).isEqualTo(2);
    assertThat(data(api.post("/api/projects/updates-here/updates", upa, new JsonObject().put("body", "three")), 201)
        .getInteger("number")).isEqualTo(3);

    ObjectId before = api.head();
    error(api.post("/api/projects/updates-here/updates", user, new JsonObject().put("body", "spam")), 403,
        "forbidden");
    error(api.post("/api/projects/updates-here/updates", null, new JsonObject().put("body", "spam")), 401,
        "unauthenticated");
    invalid(api.post("/api/projects/updates-here/updates", upa, new JsonObject()), "body");
    invalid(api.post("/api/projects/updates-here/updates", upa, new JsonObject().put("body", "x").put("number", 9)),
        "number");
    error(api.post("/api/projects/nowhere-here/updates", upa, new JsonObject().put("body", "x")), 404, "not_found");
    assertThat(api.head()).isEqualTo(before);

    JsonArray updates = project("updates-here", null).getJsonArray("updates");
    assertThat(updates.stream().map(u -> ((JsonObject) u).getInteger("number")).toList()).containsExactly(3, 2, 1);
    assertThat(updates.getJsonObject(1).getString("body")).isEqualTo("two");
    assertThat(updates.getJsonObject(1).getJsonObject("author").getString("slug")).isEqualTo("upm");
  }

  @Test
  void membersPostBuzzWithAWebUrl() {
    String buz = api.member(admin, "buz", "user");
    data(api.post("/api/projects", buz, new JsonObject().put("title", "In The News")), 201);
    JsonObject buzz = data(api.post("/api/projects/in-the-news/buzz", buz, new JsonObject()
        .put("headline", "We Made The News!").put("url", "https://example.com/story").put("summary", "A story")), 201);
    assertThat(buzz.getString("slug")).isEqualTo("we-made-the-news");
    assertThat(buzz.getString("url")).isEqualTo("https://example.com/story");
    assertThat(buzz.getJsonObject("postedBy").getString("slug")).isEqualTo("buz");
    assertThat(api.existsAtHead("project-buzz/in-the-news/we-made-the-news.toml")).isTrue();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "project-buzz.create");
    assertThat(data(api.post("/api/projects/in-the-news/buzz", buz, new JsonObject()
        .put("headline", "We made the news").put("url", "http://example.com/other")), 201).getString("slug"))
        .isEqualTo("we-made-the-news-2");

    ObjectId before = api.head();
    for (String bad : List.of("ftp://example.com/file", "javascript:alert(1)", "example.com", "https://",
        "https://a b")) {
      invalid(api.post("/api/projects/in-the-news/buzz", buz, new JsonObject().put("headline", "Bad").put("url", bad)),
          "url");
    }
    invalid(api.post("/api/projects/in-the-news/buzz", buz, new JsonObject().put("url", "https://example.com")),
        "headline");
    assertThat(invalid(api.post("/api/projects/in-the-news/buzz", buz, new JsonObject().put("headline", "Again")
        .put("url", "https://example.com").put("slug", "we-made-the-news")), "slug")).isEqualTo("is taken");
    error(api.post("/api/projects/in-the-news/buzz", user, new JsonObject().put("headline", "Spam")
        .put("url", "https://spam.example")), 403, "forbidden");
    assertThat(api.head()).isEqualTo(before);
    assertThat(project("in-the-news", null).getJsonArray("buzz")).hasSize(2);
  }

  @Test
  void maintainersPostHelpWantedRolesAndMembersExpressInterestOncePerThirtyDays() {
    String rolf = api.member(admin, "rolf", "user");
    String ivy = api.member(admin, "ivy", "user");
    String mia = api.member(admin, "mia", "user");
    api.projectWithMember(rolf, "Hiring Now", "hiring-now", mia);

    error(api.post("/api/projects/hiring-now/help-wanted", mia, new JsonObject().put("title", "Designer")
        .put("description", "Draw")), 403, "forbidden");
    error(api.post("/api/projects/hiring-now/help-wanted", user, new JsonObject().put("title", "Designer")
        .put("description", "Draw")), 403, "forbidden");
    invalid(api.post("/api/projects/hiring-now/help-wanted", rolf, new JsonObject().put("title", "Designer")),
        "description");
    JsonObject role = data(api.post("/api/projects/hiring-now/help-wanted", rolf, new JsonObject()
        .put("title", "Designer").put("description", "Draw the logo")), 201);
    String roleId = role.getString("id");
    assertThat(roleId).isNotBlank();
    assertThat(role.getString("status")).isEqualTo("open");
    assertThat(role.getJsonObject("postedBy").getString("slug")).isEqualTo("rolf");
    assertThat(api.existsAtHead("help-wanted-roles/hiring-now/" + roleId + ".toml")).isTrue();
    assertThat(list(api.get("/api/help-wanted?perPage=200", null)).stream()
        .map(r -> ((JsonObject) r).getString("id")).toList()).contains(roleId);

    JsonObject interest = data(api.post("/api/help-wanted/" + roleId + "/interest", ivy,
        new JsonObject().put("message", "I draw")), 201);
    assertThat(interest.getString("roleId")).isEqualTo(roleId);
    assertThat(interest.getJsonObject("person").getString("slug")).isEqualTo("ivy");
    assertThat(trailers(api.headCommit())).containsEntry("Action", "help-wanted-interest.create");
    String key = roleId + "/ivy";
    assertThat(api.existsAtHead("help-wanted-interest/" + key + ".toml")).isTrue();

    ObjectId before = api.head();
    HttpResponse<Buffer> again = api.post("/api/help-wanted/" + roleId + "/interest", ivy, new JsonObject());
    error(again, 429, "rate_limited");
    long retryAfter = Long.parseLong(again.getHeader("Retry-After"));
    assertThat(retryAfter).isBetween(Duration.ofDays(29).toSeconds(), Duration.ofDays(30).toSeconds());
    assertThat(api.head()).isEqualTo(before);
    // someone else may still say they are interested
    data(api.post("/api/help-wanted/" + roleId + "/interest", mia, null), 201);
    assertThat(role(roleId).getInteger("interested")).isEqualTo(2);

    // 31 days later the same member may say so again
    HelpWantedInterest old = api.recordAtHead(Sheet.HELP_WANTED_INTEREST, key, HelpWantedInterest.class);
    HelpWantedInterest earlier = new HelpWantedInterest(old.roleId(), old.personId(), old.message(),
        old.createdAt().minus(Duration.ofDays(31)));
    api.commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.HELP_WANTED_INTEREST, key, earlier)), ivy, "ivy");
    JsonObject renewed = data(api.post("/api/help-wanted/" + roleId + "/interest", ivy,
        new JsonObject().put("message", "Still keen")), 201);
    assertThat(renewed.getString("message")).isEqualTo("Still keen");
    assertThat(api.recordAtHead(Sheet.HELP_WANTED_INTEREST, key, HelpWantedInterest.class).createdAt())
        .isAfter(old.createdAt());

    error(api.post("/api/help-wanted/" + UUID.randomUUID() + "/interest", ivy, null), 404, "not_found");
    error(api.post("/api/help-wanted/not-a-uuid/interest", ivy, null), 404, "not_found");
    error(api.post("/api/help-wanted/" + roleId + "/interest", null, null), 401, "unauthenticated");
    assertThat(RecordKeys.helpWantedInterest(earlier, "ivy")).isEqualTo(key);
  }

  private static JsonObject role(String id) {
    return list(api.get("/api/help-wanted?perPage=200", null)).stream().map(JsonObject.class::cast)
        .filter(r -> id.equals(r.getString("id"))).findFirst().orElseThrow();
  }

  // ---- tags ----

  @Test
  void staffCreateTagsAndMembersAssignThem() {
    String tag = api.member(admin, "tagger", "user");
    data(api.post("/api/projects", tag, new JsonObject().put("title", "Tagged Project")), 201);

    ObjectId before = api.head();
    error(api.post("/api/tags", tag, new JsonObject().put("namespace", "topic").put("slug", "civic-tech")
        .put("title", "Civic Tech")), 403, "forbidden");
    error(api.post("/api/tags", null, new JsonObject().put("namespace", "topic").put("title", "Civic Tech")), 401,
        "unauthenticated");
    assertThat(api.head()).isEqualTo(before);

    JsonObject created = data(api.post("/api/tags", staff, new JsonObject().put("namespace", "topic")
        .put("slug", "civic-tech").put("title", "Civic Tech")), 201);
    assertThat(created.getString("handle")).isEqualTo("topic.civic-tech");
    assertThat(api.existsAtHead("tags/topic/civic-tech.toml")).isTrue();
    assertThat(
        data(api.post("/api/tags", staff, new JsonObject().put("namespace", "tech").put("title", "Java 17")), 201)
            .getString("slug"))
        .isEqualTo("java-17");
    assertThat(invalid(api.post("/api/tags", staff, new JsonObject().put("namespace", "topic").put("slug", "civic-tech")
        .put("title", "Again")), "slug")).isEqualTo("is taken");
    invalid(api.post("/api/tags", staff, new JsonObject().put("namespace", "colour").put("title", "Red")), "namespace");
    List<String> handles = list(api.get("/api/tags", null)).stream()
        .map(t -> ((JsonObject) t).getString("handle")).toList();
    assertThat(handles).contains("topic.civic-tech", "tech.java-17");
    assertThat(list(api.get("/api/tags?namespace=tech", null)).stream()
        .map(t -> ((JsonObject) t).getString("handle")).toList()).containsExactly("tech.java-17");

    // on oneself
    assertThat(data(api.post("/api/people/tagger/tags/topic/civic-tech", tag, null), 200).getBoolean("assigned"))
        .isTrue();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "tag.assign");
    assertThat(handles(data(api.get("/api/people/tagger", null), 200))).containsExactly("topic.civic-tech");
    error(api.post("/api/people/tagger/tags/topic/civic-tech", user, null), 404, "not_found");
    // on a project
    error(api.post("/api/projects/tagged-project/tags/topic/civic-tech", user, null), 403, "forbidden");
    data(api.post("/api/projects/tagged-project/tags/topic/civic-tech", tag, null), 200);
    data(api.post("/api/projects/tagged-project/tags/tech/java-17", staff, null), 200);
    ObjectId tagged = api.head();
    data(api.post("/api/projects/tagged-project/tags/tech/java-17", tag, null), 200);
    assertThat(api.head()).as("assigning twice makes one commit").isEqualTo(tagged);
    assertThat(handles(project("tagged-project", null))).containsExactlyInAnyOrder("topic.civic-tech", "tech.java-17");
    invalid(api.post("/api/projects/tagged-project/tags/topic/no-such-tag", tag, null), "tag");
    error(api.post("/api/projects/tagged-project/tags/colour/red", tag, null), 404, "not_found");

    // unassign
    assertThat(data(api.delete("/api/projects/tagged-project/tags/tech/java-17", tag), 200).getBoolean("assigned"))
        .isFalse();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "tag.unassign");
    assertThat(handles(project("tagged-project", null))).containsExactly("topic.civic-tech");
    data(api.delete("/api/people/tagger/tags/topic/civic-tech", tag), 200);
    assertThat(handles(data(api.get("/api/people/tagger", null), 200))).isEmpty();
    ObjectId untagged = api.head();
    data(api.delete("/api/people/tagger/tags/topic/civic-tech", tag), 200);
    assertThat(api.head()).isEqualTo(untagged);
  }

  @Test
  void aNonStaffCallerIsRefusedBeforeTheTagBodyIsValidated() {
    String editor = api.member(admin, "tag-editor", "editor");
    ObjectId before = api.head();
    JsonObject bad = new JsonObject().put("namespace", "colour").put("title", "Red").put("bogus", 1);
    error(api.post("/api/tags", user, bad), 403, "forbidden");
    error(api.post("/api/tags", null, bad), 401, "unauthenticated");
    // an editor is not staff either
    error(api.post("/api/tags", editor, bad), 403, "forbidden");
    assertThat(api.head()).isEqualTo(before);
    // staff get the validation
    invalid(api.post("/api/tags", staff, bad), "bogus");
  }

  private static List<String> handles(JsonObject taggable) {
    return taggable.getJsonArray("tags").stream().map(t -> ((JsonObject) t).getString("handle")).toList();
  }

  // ---- the write cap ----

  @Test
  void theThirtyFirstWriteInAMinuteIsRefused() {
    String cap = api.member(admin, "cap", "user");
    for (int i = 1; i <= 30; i++) {
      data(api.patch("/api/people/cap", cap, new JsonObject().put("bio", "edit " + i)), 200);
    }
    ObjectId before = api.head();
    HttpResponse<Buffer> refused = api.post("/api/projects", cap, new JsonObject().put("title", "One Too Many"));
    error(refused, 429, "rate_limited");
    assertThat(Integer.parseInt(refused.getHeader("Retry-After"))).isBetween(1, 60);
    error(api.patch("/api/people/cap", cap, new JsonObject().put("bio", "edit 31")), 429, "rate_limited");
    assertThat(api.head()).isEqualTo(before);
    // reads are not writes, and the cap is per account
    assertThat(data(api.get("/api/people/cap", cap), 200).getString("bio")).isEqualTo("edit 30");
    data(api.patch("/api/people/nora", user, new JsonObject().put("bio", "unaffected")), 200);
  }
}
