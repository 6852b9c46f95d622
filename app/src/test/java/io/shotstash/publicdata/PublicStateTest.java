package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.records.Tag;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class PublicStateTest {
  private static final Instant T = Instant.parse("2026-01-02T03:04:05.123Z");

  private static Person person(String id, String slug, String level) {
    return new Person(id, null, slug, slug + " name", null, null, level, null, null, null, null, null, T, T);
  }

  private static Person deactivated(Person p) {
    return new Person(p.id(), p.legacyId(), p.slug(), p.fullName(), p.bio(), p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), T, "someone", p.createdAt(), T);
  }

  private static Person withSlug(Person p, String slug) {
    return new Person(p.id(), p.legacyId(), slug, p.fullName(), p.bio(), p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), p.deletedAt(), p.deactivatedBy(), p.createdAt(), T);
  }

  private static ProjectMembership membership(String projectId, String projectSlug, String personId,
      String personSlug) {
    return new ProjectMembership(projectId, personId, projectSlug, personSlug, null, false, T);
  }

  private static RecordChange putPerson(Person p) {
    return RecordChange.put(Sheet.PEOPLE, RecordKeys.person(p), p);
  }

  private static RecordChange putMembership(ProjectMembership m) {
    return RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(m), m);
  }

  private static final Person ADA = person("id-ada", "ada", "administrator");
  private static final Person BOB = person("id-bob", "Bob-Smith", "user");
  private static final Person CY = person("id-cy", "cy", "staff");

  private static PublicState people() {
    return PublicState.empty().apply("c1", List.of(putPerson(ADA), putPerson(BOB), putPerson(CY)));
  }

  // ---- empty ----

  @ParameterizedTest
  @EnumSource(Sheet.class)
  void theEmptyStateHasNoCommitAndNoRecords(Sheet sheet) {
    PublicState empty = PublicState.empty();
    assertThat(empty.commit()).isNull();
    assertThat(empty.size(sheet)).isZero();
    assertThat(empty.keys(sheet)).isEmpty();
    assertThat(empty.all(sheet, Object.class)).isEmpty();
    assertThat(empty.get(sheet, "anything", Object.class)).isNull();
    for (Sheet.Index index : sheet.indexes()) {
      assertThat(empty.findKeys(sheet, index.name(), "anything")).isEmpty();
    }
    assertThat(empty.hasActiveAdministrator()).isFalse();
  }

  // ---- puts, reads ----

  @Test
  void putRecordsAreReadByKeyAllAndKeys() {
    PublicState s = people();
    assertThat(s.commit()).isEqualTo("c1");
    assertThat(s.get(Sheet.PEOPLE, "ada", Person.class)).isEqualTo(ADA);
    assertThat(s.get(Sheet.PEOPLE, "Bob-Smith", Person.class)).isEqualTo(BOB);
    assertThat(s.get(Sheet.PEOPLE, "nobody", Person.class)).isNull();
    assertThat(s.all(Sheet.PEOPLE, Person.class)).containsExactlyInAnyOrder(ADA, BOB, CY);
    assertThat(s.keys(Sheet.PEOPLE)).containsExactlyInAnyOrder("ada", "Bob-Smith", "cy");
    assertThat(s.size(Sheet.PEOPLE)).isEqualTo(3);
    assertThat(s.size(Sheet.PROJECTS)).isZero();
  }

  @Test
  void getWithTheWrongTypeFails() {
    PublicState s = people();
    assertThatThrownBy(() -> s.get(Sheet.PEOPLE, "ada", Project.class)).isInstanceOf(ClassCastException.class);
  }

  @Test
  void aChangeOfTheWrongRecordTypeIsRefused() {
    assertThatThrownBy(() -> RecordChange.put(Sheet.PROJECTS, "ada", ADA))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keysAndFindKeysAreReadOnly() {
    PublicState s = people();
    assertThatThrownBy(() -> s.keys(Sheet.PEOPLE).clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.findKeys(Sheet.PEOPLE, "id", "id-ada").clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void peopleAreFoundById() {
    PublicState s = people();
    assertThat(s.personById("id-bob")).contains(BOB);
    assertThat(s.personById("id-none")).isEmpty();
    assertThat(s.personById(null)).isEmpty();
    assertThat(s.findKeys(Sheet.PEOPLE, "id", "id-cy")).containsExactly("cy");
  }

  @ParameterizedTest
  @CsvSource({"bob-smith", "Bob-Smith", "BOB-SMITH", "bOb-sMiTh"})
  void peopleAreFoundBySlugInAnyCase(String asked) {
    assertThat(people().personBySlug(asked)).contains(BOB);
  }

  @Test
  void personBySlugOfNullOrUnknownIsEmpty() {
    assertThat(people().personBySlug(null)).isEmpty();
    assertThat(people().personBySlug("zed")).isEmpty();
  }

  @Test
  void theSlugIndexHoldsLowerCaseValues() {
    PublicState s = people();
    assertThat(s.findKeys(Sheet.PEOPLE, "slug", "bob-smith")).containsExactly("Bob-Smith");
    assertThat(s.findKeys(Sheet.PEOPLE, "slug", "Bob-Smith")).isEmpty();
  }

  @Test
  void findOnAnUnknownIndexOrNullValueIsEmpty() {
    PublicState s = people();
    assertThat(s.find(Sheet.PEOPLE, "noSuchIndex", "ada", Person.class)).isEmpty();
    assertThat(s.findKeys(Sheet.PEOPLE, "id", null)).isEmpty();
    assertThat(s.findOne(Sheet.PEOPLE, "id", "id-none", Person.class)).isEmpty();
  }

  @Test
  void nullIndexValuesAreNotIndexed() {
    PublicState s = people();
    // nobody has a githubLogin: the index has no entry at all, not one under "null"
    assertThat(s.findKeys(Sheet.PEOPLE, "githubLogin", "null")).isEmpty();
    Person withGithub = new Person("id-gh", null, "gh", null, null, null, "user", null, 77L, "OctoCat", null, null,
        null, null);
    PublicState next = s.apply("c2", List.of(putPerson(withGithub)));
    assertThat(next.findOne(Sheet.PEOPLE, "githubLogin", "octocat", Person.class)).contains(withGithub);
    assertThat(next.findOne(Sheet.PEOPLE, "githubUserId", "77", Person.class)).contains(withGithub);
  }

  // ---- active levels ----

  @Test
  void activeAdministratorsAreCounted() {
    PublicState s = people();
    assertThat(s.hasActiveAdministrator()).isTrue();
    assertThat(s.countActive(AccountLevel.ADMINISTRATOR)).isEqualTo(1);
    assertThat(s.countActive(AccountLevel.STAFF)).isEqualTo(1);
    assertThat(s.countActive(AccountLevel.USER)).isEqualTo(1);
    assertThat(s.countActive(AccountLevel.EDITOR)).isZero();
    assertThat(s.find(Sheet.PEOPLE, "activeLevel", "administrator", Person.class)).containsExactly(ADA);
  }

  @Test
  void aDeactivatedAdministratorDoesNotCount() {
    PublicState s = people().apply("c2", List.of(putPerson(deactivated(ADA))));
    assertThat(s.hasActiveAdministrator()).isFalse();
    assertThat(s.countActive(AccountLevel.ADMINISTRATOR)).isZero();
    // still a person, still found by slug and id
    assertThat(s.personBySlug("ada")).contains(deactivated(ADA));
    assertThat(s.personById("id-ada")).isPresent();
  }

  @Test
  void onlyDeactivatedAdministratorsMeansNoActiveAdministrator() {
    Person a1 = deactivated(person("id-a1", "a1", "administrator"));
    Person a2 = person("id-a2", "a2", "administrator");
    PublicState s = PublicState.empty().apply("c1", List.of(putPerson(a1), putPerson(a2)));
    assertThat(s.countActive(AccountLevel.ADMINISTRATOR)).isEqualTo(1);
    PublicState after = s.apply("c2", List.of(putPerson(deactivated(a2))));
    assertThat(after.hasActiveAdministrator()).isFalse();
    PublicState restored = after.apply("c3", List.of(putPerson(a2)));
    assertThat(restored.hasActiveAdministrator()).isTrue();
  }

  @Test
  void aLevelChangeMovesThePersonBetweenActiveLevels() {
    PublicState s = people().apply("c2", List.of(putPerson(BOB.withAccountLevel("administrator", T))));
    assertThat(s.countActive(AccountLevel.ADMINISTRATOR)).isEqualTo(2);
    assertThat(s.countActive(AccountLevel.USER)).isZero();
    assertThat(s.findKeys(Sheet.PEOPLE, "activeLevel", "user")).isEmpty();

    PublicState demoted = s.apply("c3", List.of(putPerson(ADA.withAccountLevel("editor", T))));
    assertThat(demoted.countActive(AccountLevel.ADMINISTRATOR)).isEqualTo(1);
    assertThat(demoted.countActive(AccountLevel.EDITOR)).isEqualTo(1);
    assertThat(demoted.find(Sheet.PEOPLE, "activeLevel", "administrator", Person.class))
        .extracting(Person::slug).containsExactly("Bob-Smith");
  }

  // ---- replace and delete keep indexes exact ----

  @Test
  void replacingAPersonUnderANewSlugKeyMovesEveryIndexEntry() {
    Person renamed = withSlug(BOB, "robert");
    PublicState s = people().apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, "Bob-Smith"), putPerson(renamed)));
    assertThat(s.get(Sheet.PEOPLE, "Bob-Smith", Person.class)).isNull();
    assertThat(s.get(Sheet.PEOPLE, "robert", Person.class)).isEqualTo(renamed);
    assertThat(s.personBySlug("bob-smith")).isEmpty();
    assertThat(s.personBySlug("robert")).contains(renamed);
    assertThat(s.findKeys(Sheet.PEOPLE, "id", "id-bob")).containsExactly("robert");
    assertThat(s.findKeys(Sheet.PEOPLE, "activeLevel", "user")).containsExactly("robert");
    assertThat(s.size(Sheet.PEOPLE)).isEqualTo(3);
  }

  @Test
  void replacingARecordUnderTheSameKeyDropsItsOldIndexValues() {
    // same file, the slug inside changes case and the id changes: no stale entries remain
    Person changed = new Person("id-bob-2", null, "BOB-SMITH", null, null, null, "staff", null, null, null, null, null,
        null, null);
    PublicState s = people().apply("c2", List.of(RecordChange.put(Sheet.PEOPLE, "Bob-Smith", changed)));
    assertThat(s.findKeys(Sheet.PEOPLE, "id", "id-bob")).isEmpty();
    assertThat(s.findKeys(Sheet.PEOPLE, "id", "id-bob-2")).containsExactly("Bob-Smith");
    assertThat(s.findKeys(Sheet.PEOPLE, "slug", "bob-smith")).containsExactly("Bob-Smith");
    assertThat(s.countActive(AccountLevel.USER)).isZero();
    assertThat(s.countActive(AccountLevel.STAFF)).isEqualTo(2);
    assertThat(s.size(Sheet.PEOPLE)).isEqualTo(3);
  }

  @Test
  void deletingAPersonRemovesItFromEveryIndex() {
    PublicState s = people().apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, "ada")));
    assertThat(s.get(Sheet.PEOPLE, "ada", Person.class)).isNull();
    assertThat(s.personById("id-ada")).isEmpty();
    assertThat(s.personBySlug("ada")).isEmpty();
    assertThat(s.hasActiveAdministrator()).isFalse();
    assertThat(s.keys(Sheet.PEOPLE)).containsExactlyInAnyOrder("Bob-Smith", "cy");
  }

  @Test
  void deletingAnAbsentKeyChangesNothingButTheCommit() {
    PublicState before = people();
    PublicState s = before.apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, "nobody")));
    assertThat(s.commit()).isEqualTo("c2");
    assertThat(s.all(Sheet.PEOPLE, Person.class)).containsExactlyInAnyOrderElementsOf(
        before.all(Sheet.PEOPLE, Person.class));
    assertThat(s.countActive(AccountLevel.ADMINISTRATOR)).isEqualTo(1);
  }

  @Test
  void changesApplyInOrderWithinOneCommit() {
    Person ada2 = ADA.withAccountLevel("staff", T);
    PublicState s = PublicState.empty().apply("c1", List.of(putPerson(ADA), putPerson(ada2),
        RecordChange.delete(Sheet.PEOPLE, "cy"), putPerson(CY), RecordChange.delete(Sheet.PEOPLE, "cy")));
    assertThat(s.get(Sheet.PEOPLE, "ada", Person.class)).isEqualTo(ada2);
    assertThat(s.get(Sheet.PEOPLE, "cy", Person.class)).isNull();
    assertThat(s.countActive(AccountLevel.ADMINISTRATOR)).isZero();
    assertThat(s.countActive(AccountLevel.STAFF)).isEqualTo(1);
  }

  // ---- other sheets' indexes ----

  @Test
  void membershipsAreFoundByPersonIdAndProjectId() {
    ProjectMembership adaMaps = membership("pr-maps", "maps", "id-ada", "ada");
    ProjectMembership bobMaps = membership("pr-maps", "maps", "id-bob", "bob");
    ProjectMembership adaBus = membership("pr-bus", "bus", "id-ada", "ada");
    PublicState s = PublicState.empty().apply("c1",
        List.of(putMembership(adaMaps), putMembership(bobMaps), putMembership(adaBus)));
    assertThat(s.find(Sheet.PROJECT_MEMBERSHIPS, "personId", "id-ada", ProjectMembership.class))
        .containsExactlyInAnyOrder(adaMaps, adaBus);
    assertThat(s.find(Sheet.PROJECT_MEMBERSHIPS, "projectId", "pr-maps", ProjectMembership.class))
        .containsExactlyInAnyOrder(adaMaps, bobMaps);
    assertThat(s.findKeys(Sheet.PROJECT_MEMBERSHIPS, "projectId", "pr-bus")).containsExactly("bus/ada");

    PublicState after = s.apply("c2", List.of(RecordChange.delete(Sheet.PROJECT_MEMBERSHIPS, "maps/ada")));
    assertThat(after.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", "id-ada")).containsExactly("bus/ada");
    assertThat(after.findKeys(Sheet.PROJECT_MEMBERSHIPS, "projectId", "pr-maps")).containsExactly("maps/bob");

    PublicState last = after.apply("c3", List.of(RecordChange.delete(Sheet.PROJECT_MEMBERSHIPS, "bus/ada")));
    assertThat(last.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", "id-ada")).isEmpty();
    assertThat(last.findKeys(Sheet.PROJECT_MEMBERSHIPS, "projectId", "pr-bus")).isEmpty();
  }

  @Test
  void evaluationsAreFoundByPersonSlugInLowerCase() {
    PersonEvaluation human = new PersonEvaluation("Spammy", "human-ada", "spam", null, null, null, T);
    PersonEvaluation agent = new PersonEvaluation("Spammy", "agent-bot", "ok", null, List.of("x"), 0.5, T);
    PersonEvaluation other = new PersonEvaluation("fine", "human-ada", "ok", null, null, null, T);
    PublicState s = PublicState.empty().apply("c1", List.of(
        RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(human), human),
        RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(agent), agent),
        RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(other), other)));
    assertThat(s.find(Sheet.PERSON_EVALUATIONS, "personSlug", "spammy", PersonEvaluation.class))
        .containsExactlyInAnyOrder(human, agent);
    assertThat(s.findKeys(Sheet.PERSON_EVALUATIONS, "evaluator", "human-ada"))
        .containsExactlyInAnyOrder("Spammy/human-ada", "fine/human-ada");

    PublicState after = s.apply("c2", List.of(RecordChange.delete(Sheet.PERSON_EVALUATIONS, "Spammy/human-ada")));
    assertThat(after.find(Sheet.PERSON_EVALUATIONS, "personSlug", "spammy", PersonEvaluation.class))
        .containsExactly(agent);
  }

  @Test
  void spamPurgesAreFoundBySlugCaseInsensitivelyAndById() {
    SpamPurge purge = new SpamPurge("sp-1", "id-sp", "Spammer", null, null, null, "ada", null, "spam", null, null, null,
        T, true, null, null);
    PublicState s = PublicState.empty().apply("c1",
        List.of(RecordChange.put(Sheet.SPAM_PURGES, RecordKeys.spamPurge(purge), purge)));
    assertThat(s.findOne(Sheet.SPAM_PURGES, "slug", "spammer", SpamPurge.class)).contains(purge);
    assertThat(s.findOne(Sheet.SPAM_PURGES, "id", "sp-1", SpamPurge.class)).contains(purge);
    assertThat(s.findOne(Sheet.SPAM_PURGES, "personId", "id-sp", SpamPurge.class)).contains(purge);

    SpamPurge unblocked = new SpamPurge("sp-1", "id-sp", "Spammer", null, null, null, "ada", null, "spam", null, null,
        null, T, true, T, "ada");
    PublicState after = s.apply("c2", List.of(RecordChange.put(Sheet.SPAM_PURGES, "sp-1", unblocked)));
    assertThat(after.findOne(Sheet.SPAM_PURGES, "slug", "spammer", SpamPurge.class)).contains(unblocked);
    assertThat(after.findKeys(Sheet.SPAM_PURGES, "slug", "spammer")).hasSize(1);
  }

  @Test
  void recordsOfOneSheetDoNotLeakIntoAnother() {
    Tag tag = new Tag("id-ada", "topic", "ada", "Ada");
    PublicState s = people().apply("c2", List.of(RecordChange.put(Sheet.TAGS, RecordKeys.tag(tag), tag)));
    assertThat(s.findKeys(Sheet.TAGS, "id", "id-ada")).containsExactly("topic/ada");
    assertThat(s.findKeys(Sheet.PEOPLE, "id", "id-ada")).containsExactly("ada");
    assertThat(s.size(Sheet.TAGS)).isEqualTo(1);
    assertThat(s.size(Sheet.PEOPLE)).isEqualTo(3);
  }

  // ---- snapshots ----

  @Test
  void anOlderSnapshotIsUnchangedByApply() {
    PublicState before = people();
    PublicState after = before.apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, "ada"),
        putPerson(BOB.withAccountLevel("staff", T)), putPerson(person("id-dee", "dee", "editor")),
        putMembership(membership("pr-1", "maps", "id-bob", "Bob-Smith"))));

    assertThat(before.commit()).isEqualTo("c1");
    assertThat(before.all(Sheet.PEOPLE, Person.class)).containsExactlyInAnyOrder(ADA, BOB, CY);
    assertThat(before.personBySlug("ada")).contains(ADA);
    assertThat(before.personBySlug("dee")).isEmpty();
    assertThat(before.hasActiveAdministrator()).isTrue();
    assertThat(before.countActive(AccountLevel.USER)).isEqualTo(1);
    assertThat(before.countActive(AccountLevel.STAFF)).isEqualTo(1);
    assertThat(before.size(Sheet.PROJECT_MEMBERSHIPS)).isZero();

    assertThat(after.commit()).isEqualTo("c2");
    assertThat(after.hasActiveAdministrator()).isFalse();
    assertThat(after.countActive(AccountLevel.STAFF)).isEqualTo(2);
    assertThat(after.personBySlug("dee")).isPresent();
    assertThat(after.size(Sheet.PROJECT_MEMBERSHIPS)).isEqualTo(1);
  }

  @Test
  void commitMovesWithEachApplyEvenWithoutChanges() {
    PublicState s1 = PublicState.empty().apply("aaa", List.of());
    PublicState s2 = s1.apply("bbb", List.of());
    assertThat(PublicState.empty().commit()).isNull();
    assertThat(s1.commit()).isEqualTo("aaa");
    assertThat(s2.commit()).isEqualTo("bbb");
  }

  @Test
  void aHolderHandsOutTheLatestSnapshot() {
    PublicState first = people();
    PublicStateHolder holder = new PublicStateHolder(first);
    PublicState read = holder.current();
    holder.set(first.apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, "ada"))));
    assertThat(holder.current().commit()).isEqualTo("c2");
    assertThat(read.personBySlug("ada")).contains(ADA);
  }
}
