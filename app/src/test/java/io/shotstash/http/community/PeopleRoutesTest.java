package io.shotstash.http.community;

import static io.shotstash.http.community.CommunityApi.data;
import static io.shotstash.http.community.CommunityApi.error;
import static io.shotstash.http.community.CommunityApi.invalid;
import static io.shotstash.http.community.CommunityApi.list;
import static io.shotstash.http.community.CommunityApi.ok;
import static io.shotstash.http.community.CommunityApi.slugs;
import static io.shotstash.http.community.CommunityApi.trailers;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.ProjectMembership;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * People over HTTP: who sees whom, paging rules, editing one's own record (and staff editing
 * anyone's), renames and the slugs a rename may not take, deactivation and reactivation.
 *
 * <p>The administrator creates every member here, and each creation counts against the 30 writes a
 * minute an account may make: the class stays at about 25; mind that budget when adding tests.
 */
class PeopleRoutesTest extends WithCommunityApp {
  @BeforeAll
  static void members() {
    staffAndUser("stella", "vic");
  }

  private static JsonArray everyone(String token) {
    return list(api.get("/api/people?perPage=200", token));
  }

  // ---- visibility ----

  @Test
  void aDeactivatedPersonIsHiddenFromEveryoneButStaff() {
    String una = api.member(admin, "una", "user");
    JsonObject hidden = data(api.post("/api/people/una/deactivate", una, null), 200);
    assertThat(hidden.getString("deactivatedBy")).isEqualTo("self");
    assertThat(hidden.getString("deletedAt")).isNotNull();

    assertThat(slugs(everyone(null))).contains("vic").doesNotContain("una");
    assertThat(slugs(everyone(user))).contains("vic").doesNotContain("una");
    assertThat(slugs(list(api.get("/api/people?q=una", user)))).isEmpty();
    JsonArray seenByStaff = everyone(staff);
    assertThat(slugs(seenByStaff)).contains("vic", "una");
    JsonObject unaForStaff = seenByStaff.stream().map(JsonObject.class::cast)
        .filter(p -> "una".equals(p.getString("slug"))).findFirst().orElseThrow();
    assertThat(unaForStaff.getString("deactivatedBy")).isEqualTo("self");

    error(api.get("/api/people/una", null), 404, "not_found");
    error(api.get("/api/people/una", user), 404, "not_found");
    JsonObject forStaff = data(api.get("/api/people/una", staff), 200);
    assertThat(forStaff.getString("email")).isEqualTo("una@example.org");
    assertThat(forStaff.getString("deactivatedBy")).isEqualTo("self");
  }

  @Test
  void thePublicViewShowsNoPrivateOrModerationFields() {
    JsonObject pub = data(api.get("/api/people/vic", null), 200);
    assertThat(pub.getString("slug")).isEqualTo("vic");
    assertThat(pub.getString("fullName")).isEqualTo("Person vic");
    assertThat(pub.fieldNames()).doesNotContain("email", "deactivatedBy", "deletedAt");
    assertThat(pub.getJsonArray("memberships")).isEmpty();
    JsonObject byUser = data(api.get("/api/people/stella", user), 200);
    assertThat(byUser.fieldNames()).doesNotContain("email");
    JsonObject byStaff = data(api.get("/api/people/vic", staff), 200);
    assertThat(byStaff.getString("email")).isEqualTo("vic@example.org");
    for (Object p : everyone(user)) {
      assertThat(((JsonObject) p).fieldNames()).doesNotContain("email", "deactivatedBy");
    }
    error(api.get("/api/people/nobody-here", staff), 404, "not_found");
    error(api.get("/api/people/Not_A_Slug", staff), 404, "not_found");
  }

  @Test
  void deactivatedMembersShowAsPlaceholdersToEveryoneButStaff() {
    String plh = api.member(admin, "plh", "user");
    api.projectWithMember(user, "Placeholder Place", "placeholder-place", plh);
    data(api.post("/api/projects/placeholder-place/updates", plh, new JsonObject().put("body", "hi")), 201);
    data(api.post("/api/people/plh/deactivate", plh, null), 200);

    for (String token : Arrays.asList(null, user)) {
      JsonObject project = data(api.get("/api/projects/placeholder-place", token), 200);
      JsonObject ref = project.getJsonArray("members").stream().map(JsonObject.class::cast)
          .map(m -> m.getJsonObject("person")).filter(p -> p.getBoolean("deactivated")).findFirst().orElseThrow();
      assertThat(ref.getString("slug")).isNull();
      assertThat(ref.getString("fullName")).isEqualTo("Deactivated user");
      JsonObject author = project.getJsonArray("updates").getJsonObject(0).getJsonObject("author");
      assertThat(author.getString("slug")).isNull();
      assertThat(author.getString("fullName")).isEqualTo("Deactivated user");
      assertThat(project.encode()).doesNotContain("plh").doesNotContain("Person plh");
    }
    JsonObject forStaff = data(api.get("/api/projects/placeholder-place", staff), 200);
    assertThat(forStaff.getJsonArray("members").stream().map(m -> ((JsonObject) m).getJsonObject("person"))
        .map(JsonObject.class::cast).filter(p -> "plh".equals(p.getString("slug"))).findFirst().orElseThrow()
        .getBoolean("deactivated")).isTrue();
  }

  @Test
  void aDeactivatedStaffMemberLosesStaffSight() {
    String sven = api.member(admin, "sven", "staff");
    String hid = api.member(admin, "hid", "user");
    data(api.post("/api/people/hid/deactivate", hid, null), 200);
    assertThat(data(api.get("/api/people/vic", sven), 200).getString("email")).isEqualTo("vic@example.org");
    data(api.post("/api/people/sven/deactivate", admin, null), 200);

    assertThat(data(api.get("/api/people/vic", sven), 200).fieldNames()).doesNotContain("email");
    error(api.get("/api/people/hid", sven), 404, "not_found");
    assertThat(slugs(everyone(sven))).doesNotContain("hid", "sven");
  }

  @Test
  void unknownQueryAndBodyKeysAreRefusedOnEveryRoute() {
    String kay = api.member(admin, "kay", "user");
    invalid(api.get("/api/people/vic?colour=red", user), "colour");
    invalid(api.get("/api/projects?colour=red", user), "colour");
    invalid(api.post("/api/people/kay/deactivate", kay, new JsonObject().put("bogus", true)), "bogus");
    data(api.post("/api/projects", kay, new JsonObject().put("title", "Strict Bodies")), 201);
    invalid(api.post("/api/projects/strict-bodies/members/join", user, new JsonObject().put("bogus", 1)), "bogus");
    assertThat(data(api.get("/api/people/kay", user), 200).getString("slug")).isEqualTo("kay");
  }

  // ---- paging ----

  @Test
  void pagingMetadataAndBounds() {
    int total = everyone(user).size();
    assertThat(total).isGreaterThanOrEqualTo(3);
    JsonObject page1 = ok(api.get("/api/people?perPage=2&page=1&sort=slug", user), 200);
    JsonObject meta = page1.getJsonObject("metadata");
    assertThat(meta.getInteger("page")).isEqualTo(1);
    assertThat(meta.getInteger("perPage")).isEqualTo(2);
    assertThat(meta.getLong("totalItems")).isEqualTo(total);
    assertThat(meta.getLong("totalPages")).isEqualTo((total + 1) / 2);
    assertThat(page1.getJsonArray("data")).hasSize(2);
    List<String> firstTwo = slugs(page1.getJsonArray("data"));
    assertThat(firstTwo).isSorted();
    JsonObject page2 = ok(api.get("/api/people?perPage=2&page=2&sort=slug", user), 200);
    assertThat(slugs(page2.getJsonArray("data"))).doesNotContainAnyElementsOf(firstTwo);

    JsonObject beyond = ok(api.get("/api/people?perPage=2&page=999", user), 200);
    assertThat(beyond.getJsonArray("data")).isEmpty();
    assertThat(beyond.getJsonObject("metadata").getInteger("page")).isEqualTo(999);

    JsonObject none = ok(api.get("/api/people?q=zzz-no-such-person", user), 200);
    assertThat(none.getJsonArray("data")).isEmpty();
    assertThat(none.getJsonObject("metadata").getLong("totalItems")).isZero();
    assertThat(none.getJsonObject("metadata").getLong("totalPages")).isEqualTo(1);

    JsonObject defaults = ok(api.get("/api/people", null), 200).getJsonObject("metadata");
    assertThat(defaults.getInteger("page")).isEqualTo(1);
    assertThat(defaults.getInteger("perPage")).isEqualTo(50);

    List<String> descending = slugs(list(api.get("/api/people?perPage=200&sort=-slug", user)));
    assertThat(descending).isSortedAccordingTo(Comparator.reverseOrder());
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(delimiter = '|', value = {
      "perPage=201 | perPage | user",
      "perPage=0   | perPage | user",
      "page=0      | page    | user",
      "page=two    | page    | user",
      "colour=red  | colour  | anonymous",
      "sort=email  | sort    | user",
      "sort=--slug | sort    | user"})
  void badQueriesAreRefused(String query, String field, String caller) {
    invalid(api.get("/api/people?" + query, caller.equals("user") ? user : null), field);
  }

  @Test
  void theLargestPageIsAllowed() {
    assertThat(list(api.get("/api/people?perPage=200", user))).isNotEmpty();
  }

  // ---- editing ----

  @Test
  void aMemberEditsTheirOwnNameAndBio() {
    String pat = api.member(admin, "pat", "user");
    JsonObject edited = data(api.patch("/api/people/pat", pat,
        new JsonObject().put("fullName", "  Pat Q. Public ").put("bio", "Maps and transit.")), 200);
    assertThat(edited.getString("fullName")).isEqualTo("Pat Q. Public");
    assertThat(edited.getString("bio")).isEqualTo("Maps and transit.");
    JsonObject seen = data(api.get("/api/people/pat", null), 200);
    assertThat(seen.getString("fullName")).isEqualTo("Pat Q. Public");
    assertThat(seen.getString("bio")).isEqualTo("Maps and transit.");

    ObjectId before = api.head();
    data(api.patch("/api/people/pat", pat, new JsonObject().put("bio", "Maps and transit.")), 200);
    assertThat(api.head()).as("an edit that changes nothing makes no commit").isEqualTo(before);

    assertThat(data(api.patch("/api/people/pat", pat, new JsonObject().putNull("bio")), 200).getString("bio")).isNull();
    invalid(api.patch("/api/people/pat", pat, new JsonObject().put("fullName", " ")), "fullName");
    invalid(api.patch("/api/people/pat", pat, new JsonObject().put("bio", "x".repeat(5001))), "bio");
    invalid(api.patch("/api/people/pat", pat, new JsonObject().put("email", "new@example.org")), "email");
    invalid(api.patch("/api/people/pat", pat, new JsonObject().put("accountLevel", "administrator")), "accountLevel");
    assertThat(api.head()).isNotEqualTo(before);
  }

  @Test
  void staffEditAnyoneAndOthersCannot() {
    String quinn = api.member(admin, "quinn", "user");
    JsonObject byStaff = data(api.patch("/api/people/quinn", staff, new JsonObject().put("bio", "Set by staff")), 200);
    assertThat(byStaff.getString("bio")).isEqualTo("Set by staff");
    RevCommit c = api.headCommit();
    assertThat(c.getShortMessage()).isEqualTo("stella: PATCH /api/people/quinn");
    assertThat(trailers(c)).containsEntry("Action", "person.update").containsEntry("Subject-Slug", "quinn")
        .containsEntry("Actor-Slug", "stella").containsEntry("Actor-Account-Level", "staff");

    ObjectId before = api.head();
    error(api.patch("/api/people/quinn", user, new JsonObject().put("bio", "vandalised")), 404, "not_found");
    error(api.patch("/api/people/stella", quinn, new JsonObject().put("fullName", "Nope")), 404, "not_found");
    error(api.patch("/api/people/quinn", null, new JsonObject().put("bio", "anon")), 401, "unauthenticated");
    error(api.patch("/api/people/ghost-person", quinn, new JsonObject().put("bio", "x")), 404, "not_found");
    assertThat(api.head()).isEqualTo(before);
    assertThat(data(api.get("/api/people/quinn", null), 200).getString("bio")).isEqualTo("Set by staff");
  }

  // ---- renames ----

  @Test
  void aRenameMayNotTakeAReservedMalformedOrTakenSlug() {
    String rena = api.member(admin, "rena", "user");
    String gone = api.member(admin, "gone", "user");
    data(api.post("/api/people/gone/deactivate", gone, null), 200);
    ObjectId before = api.head();
    for (String reserved : List.of("admin", "api", "me", "people", "projects", "staff", "login", "new")) {
      assertThat(invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", reserved)), "slug"))
          .isEqualTo("is reserved");
    }
    invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", "_hidden")), "slug");
    invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", "Rena")), "slug");
    invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", "r")), "slug");
    invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", "x".repeat(51))), "slug");
    assertThat(invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", "vic")), "slug"))
        .isEqualTo("is taken");
    assertThat(invalid(api.patch("/api/people/rena", rena, new JsonObject().put("slug", "gone")), "slug"))
        .as("a deactivated person's slug is still taken").isEqualTo("is taken");
    assertThat(api.head()).isEqualTo(before);
    assertThat(data(api.get("/api/people/rena", null), 200).getString("slug")).isEqualTo("rena");
  }

  @Test
  void aRenameMayNotTakeTheSlugOfAPurgedSpammer() {
    String xander = api.member(admin, "xander", "user");
    String rory = api.member(admin, "rory", "user");
    data(api.post("/api/people/xander/purge", admin, new JsonObject().put("reason", "spam links")), 200);
    error(api.get("/api/auth/me", xander), 401, "unauthenticated");
    error(api.get("/api/people/xander", staff), 404, "not_found");

    ObjectId before = api.head();
    JsonObject refused = error(api.patch("/api/people/rory", rory, new JsonObject().put("slug", "xander")), 409,
        "slug_unavailable");
    assertThat(refused.getString("message")).isNotBlank();
    // staff cannot do it for someone either
    error(api.patch("/api/people/rory", staff, new JsonObject().put("slug", "xander")), 409, "slug_unavailable");
    assertThat(api.head()).isEqualTo(before);
  }

  @Test
  void aRenameMayNotTakeASlugWithEvaluations() {
    String sky = api.member(admin, "sky", "user");
    api.spamVoteBehindTheAppsBack("evalslug", "human-stella", "link farm", List.of("bio-links:3"), sky, "sky");
    error(api.patch("/api/people/sky", sky, new JsonObject().put("slug", "evalslug")), 409, "slug_unavailable");
    // a free slug without history is fine
    assertThat(data(api.patch("/api/people/sky", sky, new JsonObject().put("slug", "sky-blue")), 200).getString("slug"))
        .isEqualTo("sky-blue");
  }

  @Test
  void aRenameLeavesAnEarlierAccountsEvaluationsUnderTheOldSlug() {
    app.createPerson(admin, "xreuse", "user", CommunityApi.PASSWORD);
    String evalPath =
        api.spamVoteBehindTheAppsBack("xreuse", "human-stella", "link farm", List.of(), staff, "stella");
    data(api.post("/api/people/xreuse/purge", admin, new JsonObject().put("reason", "spam")), 200);
    assertThat(api.existsAtHead(evalPath)).isTrue();

    // a sign-up may reuse the freed slug
    String reuser = api.member(admin, "xreuse", "user");
    data(api.patch("/api/people/xreuse", reuser, new JsonObject().put("slug", "xreuse-new")), 200);
    assertThat(api.existsAtHead(evalPath)).as("the purged account's evaluation stays under its slug").isTrue();
    assertThat(api.pathsUnder("person-evaluations/xreuse-new")).isEmpty();
  }

  @Test
  void aRenameMovesTheRecordAndMemberships() {
    String mover = api.member(admin, "mover", "user");
    String host = api.member(admin, "host", "user");
    data(api.post("/api/projects", mover, new JsonObject().put("title", "Movers Club")), 201);
    api.projectWithMember(host, "Host Garden", "host-garden", mover);
    String roleId = data(api.post("/api/projects/host-garden/help-wanted", host, new JsonObject().put("title", "Digger")
        .put("description", "Dig")), 201).getString("id");
    data(api.post("/api/help-wanted/" + roleId + "/interest", mover, null), 201);
    String id = api.idOf("mover");

    JsonObject renamed = data(api.patch("/api/people/mover", mover, new JsonObject().put("slug", "mover-two")), 200);
    assertThat(renamed.getString("slug")).isEqualTo("mover-two");
    assertThat(renamed.getString("id")).isEqualTo(id);

    RevCommit c = api.headCommit();
    assertThat(c.getParentCount()).isEqualTo(1);
    assertThat(c.getShortMessage()).isEqualTo("mover: PATCH /api/people/mover");
    assertThat(c.getFullMessage()).contains("slug: mover -> mover-two");
    assertThat(trailers(c)).containsEntry("Action", "person.update").containsEntry("Subject-Id", id);

    // the person's file and both memberships move to the new slug
    for (String path : List.of("people/%s.toml", "project-memberships/movers-club/%s.toml",
        "project-memberships/host-garden/%s.toml")) {
      assertThat(api.existsAtHead(path.formatted("mover"))).as(path).isFalse();
      assertThat(api.existsAtHead(path.formatted("mover-two"))).as(path).isTrue();
    }
    ProjectMembership moved =
        api.recordAtHead(Sheet.PROJECT_MEMBERSHIPS, "host-garden/mover-two", ProjectMembership.class);
    assertThat(moved.personSlug()).isEqualTo("mover-two");
    assertThat(moved.personId()).isEqualTo(id);
    assertThat(moved.isMaintainer()).isFalse();
    assertThat(api.existsAtHead("help-wanted-interest/" + roleId + "/mover.toml")).isFalse();
    assertThat(api.existsAtHead("help-wanted-interest/" + roleId + "/mover-two.toml")).isTrue();

    for (String project : List.of("movers-club", "host-garden")) {
      JsonArray members = data(api.get("/api/projects/" + project, null), 200).getJsonArray("members");
      List<String> memberSlugs =
          members.stream().map(m -> ((JsonObject) m).getJsonObject("person").getString("slug")).toList();
      assertThat(memberSlugs).contains("mover-two").doesNotContain("mover");
    }
    error(api.get("/api/people/mover", null), 404, "not_found");
    JsonObject seen = data(api.get("/api/people/mover-two", null), 200);
    assertThat(seen.getJsonArray("memberships")).hasSize(2);

    // the session still works and the next write is attributed to the new slug
    data(api.patch("/api/people/mover-two", mover, new JsonObject().put("bio", "renamed")), 200);
    assertThat(api.headCommit().getAuthorIdent().getEmailAddress()).isEqualTo("mover-two" + CommunityApi.NOREPLY);
    // and the member still acts as a member of their projects, and their interest still counts
    data(api.post("/api/projects/movers-club/updates", mover, new JsonObject().put("body", "still here")), 201);
    error(api.post("/api/help-wanted/" + roleId + "/interest", mover, null), 429, "rate_limited");
  }

  // ---- deactivate / reactivate ----

  @Test
  void aMemberDeactivatesAndReactivatesThemselves() {
    String dora = api.member(admin, "dora", "user");
    JsonObject off = data(api.post("/api/people/dora/deactivate", dora, null), 200);
    assertThat(off.getString("deactivatedBy")).isEqualTo("self");
    RevCommit c = api.headCommit();
    assertThat(trailers(c)).containsEntry("Action", "person.deactivate").containsEntry("Actor-Slug", "dora");
    Person stored = api.recordAtHead(Sheet.PEOPLE, "dora", Person.class);
    assertThat(stored.deactivatedBy()).isEqualTo("self");
    assertThat(stored.deletedAt()).isNotNull();

    ObjectId before = api.head();
    assertThat(data(api.post("/api/people/dora/deactivate", dora, null), 200).getString("deactivatedBy"))
        .isEqualTo("self");
    assertThat(api.head()).as("deactivating twice makes one commit").isEqualTo(before);
    error(api.get("/api/people/dora", user), 404, "not_found");
    // while deactivated, no community writes
    error(api.post("/api/projects", dora, new JsonObject().put("title", "While Away")), 403, "forbidden");
    assertThat(api.head()).isEqualTo(before);

    JsonObject on = data(api.post("/api/people/dora/reactivate", dora, null), 200);
    assertThat(on.getString("deactivatedBy")).isNull();
    assertThat(on.getString("deletedAt")).isNull();
    assertThat(api.fileAtHead("people/dora.toml")).doesNotContain("deactivatedBy").doesNotContain("deletedAt");
    assertThat(api.recordAtHead(Sheet.PEOPLE, "dora", Person.class).deletedAt()).isNull();
    assertThat(trailers(api.headCommit())).containsEntry("Action", "person.reactivate");
    assertThat(data(api.get("/api/people/dora", user), 200).getString("slug")).isEqualTo("dora");

    ObjectId active = api.head();
    data(api.post("/api/people/dora/reactivate", dora, null), 200);
    assertThat(api.head()).as("reactivating an active person changes nothing").isEqualTo(active);
  }

  @Test
  void staffDeactivateAndReactivateOthersAndOthersCannot() {
    String dex = api.member(admin, "dex", "user");
    error(api.post("/api/people/dex/deactivate", user, null), 404, "not_found");
    error(api.post("/api/people/dex/deactivate", null, null), 401, "unauthenticated");
    error(api.post("/api/people/stella/deactivate", dex, null), 404, "not_found");

    JsonObject off = data(api.post("/api/people/dex/deactivate", staff, null), 200);
    assertThat(off.getString("deactivatedBy")).isEqualTo("staff");
    assertThat(trailers(api.headCommit())).containsEntry("Actor-Slug", "stella").containsEntry("Subject-Slug", "dex");
    error(api.get("/api/people/dex", user), 404, "not_found");
    assertThat(data(api.get("/api/people/dex", staff), 200).getString("deactivatedBy")).isEqualTo("staff");

    error(api.post("/api/people/dex/reactivate", user, null), 404, "not_found");
    JsonObject on = data(api.post("/api/people/dex/reactivate", staff, null), 200);
    assertThat(on.getString("deactivatedBy")).isNull();
    assertThat(data(api.get("/api/people/dex", user), 200).getString("slug")).isEqualTo("dex");
    assertThat(dex).isNotBlank();
  }

  @Test
  void aMemberHiddenByModerationCannotReactivateThemselves() {
    String mona = api.member(admin, "mona", "user");
    Person live = app.publicState().current().personBySlug("mona").orElseThrow();
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Person hidden = new Person(live.id(), live.legacyId(), live.slug(), live.fullName(), live.bio(), live.avatarKey(),
        live.accountLevel(), live.agent(), live.githubUserId(), live.githubLogin(), now, "moderation", live.createdAt(),
        now);
    // the moderation API is another part's: put the record moderation would leave straight into git
    api.commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.PEOPLE, RecordKeys.person(hidden), hidden)), staff,
        "stella");
    error(api.get("/api/people/mona", user), 404, "not_found");
    assertThat(data(api.get("/api/people/mona", staff), 200).getString("deactivatedBy")).isEqualTo("moderation");

    ObjectId before = api.head();
    error(api.post("/api/people/mona/reactivate", mona, null), 403, "forbidden");
    assertThat(api.head()).isEqualTo(before);
    error(api.get("/api/people/mona", user), 404, "not_found");

    JsonObject on = data(api.post("/api/people/mona/reactivate", staff, null), 200);
    assertThat(on.getString("deactivatedBy")).isNull();
    assertThat(data(api.get("/api/people/mona", user), 200).getString("slug")).isEqualTo("mona");
  }

  @Test
  void aSelfDeactivatedMemberStillReadsTheirSessionAndTheRecordStaysTaken() {
    String tara = api.member(admin, "tara", "user");
    data(api.post("/api/people/tara/deactivate", tara, null), 200);
    HttpResponse<Buffer> me = api.get("/api/auth/me", tara);
    assertThat(data(me, 200).getString("deactivatedBy")).isEqualTo("self");
    HttpResponse<Buffer> again = app.client().post("/api/people").bearerTokenAuthentication(admin)
        .sendJsonObject(
            new JsonObject().put("slug", "tara").put("fullName", "Other Tara").put("email", "tara2@example.org"))
        .await();
    assertThat(invalid(again, "slug")).isEqualTo("is taken");
  }
}
