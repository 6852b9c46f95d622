package io.shotstash.community;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import io.shotstash.purge.PurgePlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a purge deletes (MODERATION.md → Purge), from a state built record by record: the person,
 * their memberships, interest, tag assignments, updates, buzz, roles (with the interest in them),
 * blog posts, and every project they created that nobody else touched; never a project someone
 * else touched, never person-evaluations or spam-purges.
 */
class PurgePlanTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  private static final Person SPAMMER = person("id-sam", "sam");
  private static final Person ALICE = person("id-alice", "alice");
  private static final Person BOB = person("id-bob", "bob");
  private static final Person CARA = person("id-cara", "cara");

  /** Alice's project; Sam is a plain member and posts in it. */
  private static final Project ALICE_PROJECT = project("id-p-alice", "alice-project", ALICE);
  /** Created by Sam alone: goes with everything in it. */
  private static final Project SAM_LONE = project("id-p-lone", "sam-lone", SPAMMER);
  /** Created by Sam, joined by Bob: stays. */
  private static final Project SAM_JOINED = project("id-p-joined", "sam-joined", SPAMMER);
  /** Created by Sam; only Bob's interest in Sam's role touches it: stays. */
  private static final Project SAM_INTEREST = project("id-p-interest", "sam-interest", SPAMMER);
  /** Cara's project where Sam is a maintainer among other members: shared. */
  private static final Project CARA_PROJECT = project("id-p-cara", "cara-project", CARA);

  private static final Tag TAG = new Tag("id-tag", "topic", "civic", "Civic");

  private static Person person(String id, String slug) {
    return new Person(id, null, slug, "Name " + slug, null, null, "user", null, null, null, null, null, T, T);
  }

  private static Project project(String id, String slug, Person creator) {
    return new Project(id, slug, "Title " + slug, null, null, "commenting", creator.id(), creator.id(), null, T, T);
  }

  private static ProjectMembership member(Project p, Person who, boolean maintainer) {
    return new ProjectMembership(p.id(), who.id(), p.slug(), who.slug(), null, maintainer, T);
  }

  private static ProjectUpdate update(Project p, Person who, int number) {
    return new ProjectUpdate("id-u-" + p.slug() + "-" + number, p.id(), who.id(), number, "update " + number, T);
  }

  private static ProjectBuzz buzz(Project p, Person who, String slug) {
    return new ProjectBuzz("id-b-" + p.slug() + "-" + slug, p.id(), who.id(), slug, "Headline " + slug,
        "https://example.com/" + slug, null, T);
  }

  private static HelpWantedRole role(Project p, Person who, String id) {
    return new HelpWantedRole(id, p.id(), who.id(), "Role " + id, "Help", "open", T);
  }

  private static HelpWantedInterest interest(HelpWantedRole r, Person who) {
    return new HelpWantedInterest(r.id(), who.id(), null, T);
  }

  private static final List<RecordChange> RECORDS = new ArrayList<>();
  private static final Set<String> DELETED = new HashSet<>();

  private static void put(Sheet sheet, String key, Object record, boolean deleted) {
    RECORDS.add(RecordChange.put(sheet, key, record));
    if (deleted) {
      DELETED.add(sheet.path(key));
    }
  }

  private static void put(ProjectMembership m, boolean deleted) {
    put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(m), m, deleted);
  }

  private static void put(Project p, ProjectUpdate u, boolean deleted) {
    put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate(p.slug(), u.number()), u, deleted);
  }

  private static void put(Project p, ProjectBuzz b, boolean deleted) {
    put(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(p.slug(), b.slug()), b, deleted);
  }

  private static void put(Project p, HelpWantedRole r, boolean deleted) {
    put(Sheet.HELP_WANTED_ROLES, RecordKeys.helpWantedRole(p.slug(), r.id()), r, deleted);
  }

  private static void put(HelpWantedInterest i, Person who, boolean deleted) {
    put(Sheet.HELP_WANTED_INTEREST, RecordKeys.helpWantedInterest(i, who.slug()), i, deleted);
  }

  private static void put(TagAssignment a, boolean deleted) {
    put(Sheet.TAG_ASSIGNMENTS, RecordKeys.tagAssignment(a), a, deleted);
  }

  private static final PublicState STATE = build();

  private static PublicState build() {
    for (Person p : List.of(SPAMMER, ALICE, BOB, CARA)) {
      put(Sheet.PEOPLE, p.slug(), p, p == SPAMMER);
    }
    for (Project p : List.of(ALICE_PROJECT, SAM_JOINED, SAM_INTEREST, CARA_PROJECT)) {
      put(Sheet.PROJECTS, p.slug(), p, false);
    }
    put(Sheet.PROJECTS, SAM_LONE.slug(), SAM_LONE, true);
    put(Sheet.TAGS, RecordKeys.tag(TAG), TAG, false);

    // Alice's project: Sam is a member and posts an update, buzz and a role (Bob is interested in it);
    // Sam is interested in Alice's role.
    put(member(ALICE_PROJECT, ALICE, true), false);
    put(member(ALICE_PROJECT, SPAMMER, false), true);
    put(ALICE_PROJECT, update(ALICE_PROJECT, ALICE, 1), false);
    put(ALICE_PROJECT, update(ALICE_PROJECT, SPAMMER, 2), true);
    put(ALICE_PROJECT, update(ALICE_PROJECT, ALICE, 3), false);
    put(ALICE_PROJECT, buzz(ALICE_PROJECT, ALICE, "alice-news"), false);
    put(ALICE_PROJECT, buzz(ALICE_PROJECT, SPAMMER, "cheap-pills"), true);
    HelpWantedRole aliceRole = role(ALICE_PROJECT, ALICE, "id-role-alice");
    HelpWantedRole samRoleInAlice = role(ALICE_PROJECT, SPAMMER, "id-role-sam-in-alice");
    put(ALICE_PROJECT, aliceRole, false);
    put(ALICE_PROJECT, samRoleInAlice, true);
    put(interest(aliceRole, SPAMMER), SPAMMER, true);
    put(interest(aliceRole, BOB), BOB, false);
    put(interest(samRoleInAlice, BOB), BOB, true);
    put(new TagAssignment(TAG.id(), "project", ALICE_PROJECT.id()), false);

    // tags on people
    put(new TagAssignment(TAG.id(), "person", SPAMMER.id()), true);
    put(new TagAssignment(TAG.id(), "person", ALICE.id()), false);

    // Sam's lone project and everything in it
    put(member(SAM_LONE, SPAMMER, true), true);
    put(SAM_LONE, update(SAM_LONE, SPAMMER, 1), true);
    put(SAM_LONE, update(SAM_LONE, SPAMMER, 2), true);
    put(SAM_LONE, buzz(SAM_LONE, SPAMMER, "launch"), true);
    HelpWantedRole loneRole = role(SAM_LONE, SPAMMER, "id-role-lone");
    put(SAM_LONE, loneRole, true);
    put(interest(loneRole, SPAMMER), SPAMMER, true);
    put(new TagAssignment(TAG.id(), "project", SAM_LONE.id()), true);

    // Sam's project that Bob joined: stays, but Sam's own things in it go
    put(member(SAM_JOINED, SPAMMER, true), true);
    put(member(SAM_JOINED, BOB, false), false);
    put(SAM_JOINED, update(SAM_JOINED, SPAMMER, 1), true);
    put(new TagAssignment(TAG.id(), "project", SAM_JOINED.id()), false);

    // Sam's project touched only by Bob's interest in Sam's role: stays
    put(member(SAM_INTEREST, SPAMMER, true), true);
    HelpWantedRole interestRole = role(SAM_INTEREST, SPAMMER, "id-role-interest");
    put(SAM_INTEREST, interestRole, true);
    put(interest(interestRole, BOB), BOB, true);

    // Cara's project: Sam maintains it together with Cara
    put(member(CARA_PROJECT, CARA, true), false);
    put(member(CARA_PROJECT, SPAMMER, true), true);

    // blog posts
    put(Sheet.BLOG_POSTS, "sam-post", new BlogPost("id-post-sam", "sam-post", "Buy now", SPAMMER.id(), T, "spam"),
        true);
    put(Sheet.BLOG_POSTS, "alice-post", new BlogPost("id-post-alice", "alice-post", "Hello", ALICE.id(), T, "hi"),
        false);

    // moderation history is never deleted
    PersonEvaluation eval = new PersonEvaluation("sam", "human-alice", "spam", "ads", List.of("links"), null, T);
    put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(eval), eval, false);
    SpamPurge earlier = new SpamPurge("id-purge-old", "id-old-sam", "sam", "Old Sam", null, null, "human-alice", null,
        "spam", List.of(), List.of(), "abc", T, true, null, null);
    put(Sheet.SPAM_PURGES, RecordKeys.spamPurge(earlier), earlier, false);
    SpamPurge samsOwnId = new SpamPurge("id-purge-same", SPAMMER.id(), "sam", "Name sam", null, null, "scheduled", null,
        "spam", List.of(), List.of(), "abc", T, false, T, "alice");
    put(Sheet.SPAM_PURGES, RecordKeys.spamPurge(samsOwnId), samsOwnId, false);
    return PublicState.empty().apply("c1", RECORDS);
  }

  private static final PurgePlan PLAN = PurgePlan.of(STATE, SPAMMER);

  private static Set<String> paths(List<RecordChange> changes) {
    Set<String> out = new HashSet<>();
    for (RecordChange c : changes) {
      out.add(c.path());
    }
    return out;
  }

  @Test
  void deletesExactlyTheListedRecords() {
    assertThat(PLAN.deletes()).allSatisfy(c -> assertThat(c.isDelete()).isTrue());
    assertThat(paths(PLAN.deletes())).containsExactlyInAnyOrderElementsOf(DELETED);
    assertThat(PLAN.deletedPaths()).containsExactlyInAnyOrderElementsOf(DELETED);
  }

  @Test
  void neverDeletesTheSameRecordTwice() {
    assertThat(PLAN.deletes()).hasSize(paths(PLAN.deletes()).size());
    assertThat(PLAN.deletes()).hasSameSizeAs(DELETED);
  }

  @Test
  void keepsEvaluationsAndSpamPurges() {
    assertThat(PLAN.deletes()).noneMatch(c -> c.sheet() == Sheet.PERSON_EVALUATIONS || c.sheet() == Sheet.SPAM_PURGES);
  }

  @Test
  void keepsWhatOthersMadeAndProjectsOthersTouched() {
    Set<String> deleted = paths(PLAN.deletes());
    assertThat(deleted).doesNotContain(
        "projects/alice-project.toml", "projects/sam-joined.toml", "projects/sam-interest.toml",
        "projects/cara-project.toml", "project-memberships/sam-joined/bob.toml",
        "project-memberships/cara-project/cara.toml", "project-updates/alice-project/1.toml",
        "project-buzz/alice-project/alice-news.toml", "help-wanted-roles/alice-project/id-role-alice.toml",
        "help-wanted-interest/id-role-alice/bob.toml", "tags/topic/civic.toml",
        "tag-assignments/id-tag/project/id-p-joined.toml", "blog-posts/alice-post.md", "people/alice.toml");
  }

  @Test
  void takesOnlyTheLoneProject() {
    assertThat(PLAN.projectsTaken()).extracting(Project::slug).containsExactly("sam-lone");
  }

  @Test
  void listsEveryProjectThatStaysAndThatTheyCreatedOrMaintain() {
    assertThat(PLAN.sharedProjects()).extracting(Project::slug)
        .containsExactlyInAnyOrder("sam-joined", "sam-interest", "cara-project");
  }

  @Test
  void countsWhatGoes() {
    // memberships: alice-project, sam-lone, sam-joined, sam-interest, cara-project
    assertThat(PLAN.memberships()).isEqualTo(5);
    // updates: alice-project #2, sam-lone #1 and #2, sam-joined #1
    assertThat(PLAN.updates()).isEqualTo(4);
    // buzz: cheap-pills, launch
    assertThat(PLAN.buzz()).isEqualTo(2);
    // roles: the one in Alice's project, the lone project's, the one in sam-interest
    assertThat(PLAN.helpWantedRoles()).isEqualTo(3);
    // interest: Sam's in Alice's role, Bob's in Sam's roles (two), Sam's in his own lone role
    assertThat(PLAN.interest()).isEqualTo(4);
    // tag assignments: on Sam, on the lone project
    assertThat(PLAN.tagAssignments()).isEqualTo(2);
    assertThat(PLAN.blogPosts()).isEqualTo(1);
    assertThat(PLAN.person()).isEqualTo(SPAMMER);
  }

  @Test
  void theStateAfterThePurgeHoldsNothingOfThePerson() {
    PublicState after = STATE.apply("c2", PLAN.deletes());
    assertThat(after.personById(SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.PROJECT_UPDATES, "authorId", SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.PROJECT_BUZZ, "postedById", SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.HELP_WANTED_ROLES, "postedById", SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.HELP_WANTED_INTEREST, "personId", SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.TAG_ASSIGNMENTS, "taggable", "person:" + SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.BLOG_POSTS, "authorId", SPAMMER.id())).isEmpty();
    assertThat(after.findKeys(Sheet.PERSON_EVALUATIONS, "personSlug", "sam")).hasSize(1);
    assertThat(after.size(Sheet.SPAM_PURGES)).isEqualTo(2);
    assertThat(after.get(Sheet.PROJECTS, "sam-joined", Project.class)).isNotNull();
    assertThat(after.get(Sheet.PROJECTS, "sam-lone", Project.class)).isNull();
    // no orphan left behind in the lone project
    assertThat(after.findKeys(Sheet.PROJECT_UPDATES, "projectId", SAM_LONE.id())).isEmpty();
    assertThat(after.findKeys(Sheet.TAG_ASSIGNMENTS, "taggable", "project:" + SAM_LONE.id())).isEmpty();
  }

  @Test
  void touchedByOthers() {
    assertThat(PurgePlan.touchedByOthers(STATE, SAM_LONE, SPAMMER.id())).isFalse();
    assertThat(PurgePlan.touchedByOthers(STATE, SAM_JOINED, SPAMMER.id())).isTrue();
    assertThat(PurgePlan.touchedByOthers(STATE, SAM_INTEREST, SPAMMER.id())).isTrue();
    assertThat(PurgePlan.touchedByOthers(STATE, ALICE_PROJECT, ALICE.id())).isTrue();
  }

  @Test
  void aProjectTouchedOnlyByAnotherMembersUpdateOrBuzzStays() {
    Project p = project("id-p-x", "sam-x", SPAMMER);
    Project q = project("id-p-y", "sam-y", SPAMMER);
    ProjectUpdate bobsUpdate = update(p, BOB, 1);
    ProjectBuzz bobsBuzz = buzz(q, BOB, "bob-news");
    PublicState state = PublicState.empty().apply("c1", List.of(
        RecordChange.put(Sheet.PEOPLE, "sam", SPAMMER), RecordChange.put(Sheet.PEOPLE, "bob", BOB),
        RecordChange.put(Sheet.PROJECTS, p.slug(), p), RecordChange.put(Sheet.PROJECTS, q.slug(), q),
        RecordChange.put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate(p.slug(), 1), bobsUpdate),
        RecordChange.put(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(q.slug(), bobsBuzz.slug()), bobsBuzz)));
    PurgePlan plan = PurgePlan.of(state, SPAMMER);
    assertThat(plan.projectsTaken()).isEmpty();
    assertThat(plan.sharedProjects()).extracting(Project::slug).containsExactlyInAnyOrder("sam-x", "sam-y");
    assertThat(paths(plan.deletes())).containsExactly("people/sam.toml");
    assertThat(plan.updates()).isZero();
    assertThat(plan.buzz()).isZero();
  }

  @Test
  void aPersonWithNothingLosesOnlyTheirRecord() {
    PurgePlan plan = PurgePlan.of(STATE, person("id-dan", "dan"));
    assertThat(paths(plan.deletes())).containsExactly("people/dan.toml");
    assertThat(plan.projectsTaken()).isEmpty();
    assertThat(plan.sharedProjects()).isEmpty();
    assertThat(plan.memberships() + plan.updates() + plan.buzz() + plan.helpWantedRoles() + plan.interest()
        + plan.tagAssignments() + plan.blogPosts()).isZero();
  }
}
