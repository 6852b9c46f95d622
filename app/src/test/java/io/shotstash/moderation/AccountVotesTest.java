package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.purge.AccountVotes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "Votes belong to one account": which votes on a slug count for the person now holding it, and
 * what the counting votes decide (latestVote, stagedVote, the deciding votes, purgeAfter).
 */
class AccountVotesTest {
  private static final Instant CREATED = Instant.parse("2026-03-10T12:00:00Z");
  private static final Set<String> NO_AGENTS = Set.of();

  // ---- building a state ----

  private static Person member(String level, Instant deletedAt) {
    return new Person("id-jane", null, "jane", "Jane Doe", null, null, level, null, null, null, deletedAt,
        deletedAt == null ? null : "moderation", CREATED, CREATED);
  }

  private static Person member() {
    return member("user", null);
  }

  private static Person hidden() {
    return member("user", CREATED.plusSeconds(60));
  }

  private static PersonEvaluation human(String slug, String verdict, Instant at) {
    return new PersonEvaluation("jane", "human-" + slug, verdict, null, List.of("manual-override"), 1.0, at);
  }

  private static PersonEvaluation agent(String slug, String verdict, Instant at) {
    return new PersonEvaluation("jane", "agent-" + slug, verdict, "reasoning", List.of("agent"), null, at);
  }

  private static SpamPurge purge(String id, String personId, Instant at) {
    return new SpamPurge(id, personId, "jane", "Old Jane", null, null, "agent-bot", null, "spam", List.of(), List.of(),
        "abc", at, true, null, null);
  }

  private static AccountVotes votes(Person person, List<PersonEvaluation> evaluations, List<SpamPurge> purges) {
    List<RecordChange> changes = new ArrayList<>();
    changes.add(RecordChange.put(Sheet.PEOPLE, person.slug(), person));
    evaluations.forEach(e -> changes.add(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(e), e)));
    purges.forEach(p -> changes.add(RecordChange.put(Sheet.SPAM_PURGES, p.id(), p)));
    PublicState state = PublicState.empty().apply("c1", changes);
    return AccountVotes.of(state, person);
  }

  private static AccountVotes votes(Person person, PersonEvaluation... evaluations) {
    return votes(person, List.of(evaluations), List.of());
  }

  private static Instant at(long minutesAfterCreation) {
    return CREATED.plus(Duration.ofMinutes(minutesAfterCreation));
  }

  // ---- which votes belong to this account ----

  @Test
  void aVoteBeforeCreatedAtWasCastOnAnEarlierAccount() {
    PersonEvaluation old = human("chris", "spam", at(-1));
    PersonEvaluation now = agent("bot", "spam", at(1));
    AccountVotes v = votes(hidden(), old, now);
    assertThat(v.earlier()).containsExactly(old);
    assertThat(v.counting()).containsExactly(now);
  }

  @Test
  void aVoteAtCreatedAtBelongsToTheAccount() {
    PersonEvaluation same = human("chris", "legit", CREATED);
    assertThat(votes(member(), same).counting()).containsExactly(same);
  }

  @Test
  void aVoteAtOrBeforeTheNewestPurgeOfAnotherPersonIsEarlier() {
    // Jane existed before the purge of an earlier account under her slug (e.g. the slug changed hands)
    Instant purgedAt = at(100);
    PersonEvaluation before = human("chris", "spam", at(50));
    PersonEvaluation exactly = agent("bot", "spam", purgedAt);
    PersonEvaluation after = agent("other-bot", "spam", at(101));
    AccountVotes v = votes(hidden(), List.of(before, exactly, after), List.of(purge("p1", "id-old-jane", purgedAt)));
    assertThat(v.earlier()).containsExactlyInAnyOrder(before, exactly);
    assertThat(v.counting()).containsExactly(after);
    assertThat(v.slugPurgedBefore()).isTrue();
  }

  @Test
  void theNewestPurgeOfAnotherPersonIsTheOneThatCounts() {
    PersonEvaluation between = human("chris", "spam", at(150));
    PersonEvaluation later = human("dana", "legit", at(250));
    AccountVotes v = votes(member(), List.of(between, later),
        List.of(purge("p1", "id-old-1", at(100)), purge("p2", "id-old-2", at(200))));
    assertThat(v.earlier()).containsExactly(between);
    assertThat(v.counting()).containsExactly(later);
    assertThat(v.purgesOfSlug()).extracting(SpamPurge::id).containsExactly("p2", "p1");
  }

  @Test
  void aPurgeRecordOfThisSamePersonDoesNotMakeTheirVotesEarlier() {
    PersonEvaluation vote = human("chris", "spam", at(50));
    AccountVotes v = votes(hidden(), List.of(vote), List.of(purge("p1", "id-jane", at(100))));
    assertThat(v.counting()).containsExactly(vote);
    assertThat(v.earlier()).isEmpty();
    assertThat(v.slugPurgedBefore()).isFalse();
  }

  @Test
  void noPurgeMeansNoSlugPurgedBefore() {
    assertThat(votes(member()).slugPurgedBefore()).isFalse();
    assertThat(votes(member()).purgesOfSlug()).isEmpty();
  }

  @Test
  void earlierVotesNeverDecideNorSetPurgeAfterNorStage() {
    // a self-deactivated new account under a slug whose earlier account had staff and agent spam votes
    Person selfHidden = new Person("id-jane", null, "jane", "Jane", null, null, "user", null, null, null, at(5), "self",
        CREATED, CREATED);
    PersonEvaluation oldHuman = human("chris", "spam", at(-10));
    PersonEvaluation oldAgent = agent("bot", "spam", at(-5));
    AccountVotes v = votes(selfHidden, oldHuman, oldAgent);
    assertThat(v.counting()).isEmpty();
    assertThat(v.earlier()).containsExactly(oldAgent, oldHuman);
    assertThat(v.humanHasVoted()).isFalse();
    assertThat(v.latestVote()).isEmpty();
    assertThat(v.stagedVote()).isEmpty();
    assertThat(v.latestAnyVote()).isEmpty();
    assertThat(v.voteBy("human-chris")).isEmpty();
    assertThat(v.voteBy("agent-bot")).isEmpty();
    assertThat(v.decidingVotes(Set.of("bot"))).isEmpty();
    assertThat(v.purgeAfter(Set.of("bot"))).isNull();
  }

  @Test
  void earlierVotesAfterAPurgeNeverDecide() {
    Instant purgedAt = at(100);
    PersonEvaluation oldHuman = human("chris", "spam", at(90));
    AccountVotes v = votes(hidden(), List.of(oldHuman), List.of(purge("p1", "id-old-jane", purgedAt)));
    assertThat(v.humanHasVoted()).isFalse();
    assertThat(v.latestVote()).isEmpty();
    assertThat(v.purgeAfter(NO_AGENTS)).isNull();
  }

  /** An undated vote is earlier, whether or not the slug was purged before. */
  @ParameterizedTest(name = "slug purged before: {0}")
  @ValueSource(booleans = {true, false})
  void anUndatedVoteIsEarlier(boolean slugPurgedBefore) {
    PersonEvaluation undated = human("chris", "spam", null);
    List<SpamPurge> purges = slugPurgedBefore ? List.of(purge("p1", "id-old-jane", at(-100))) : List.of();
    assertThat(votes(member(), List.of(undated), purges).earlier()).containsExactly(undated);
  }

  // ---- latestVote and stagedVote ----

  @Test
  void latestVoteIsTheNewestHumanVoteAndNeverAnAgents() {
    PersonEvaluation a = human("chris", "spam", at(10));
    PersonEvaluation b = human("dana", "legit", at(20));
    PersonEvaluation c = agent("bot", "spam", at(30));
    AccountVotes v = votes(member(), a, b, c);
    assertThat(v.latestVote()).contains(b);
    assertThat(v.stagedVote()).isEmpty();
    assertThat(v.latestAnyVote()).contains(c);
    assertThat(v.humanVotes()).containsExactly(b, a);
    assertThat(v.agentVotes()).containsExactly(c);
  }

  @Test
  void stagedVoteIsTheNewestAgentVoteWhileNoHumanHasVoted() {
    PersonEvaluation a = agent("bot", "spam", at(10));
    PersonEvaluation b = agent("other-bot", "legit", at(20));
    AccountVotes v = votes(member(), a, b);
    assertThat(v.latestVote()).isEmpty();
    assertThat(v.stagedVote()).contains(b);
    assertThat(v.humanHasVoted()).isFalse();
  }

  @Test
  void aHumanVoteEndsTheStagedVote() {
    AccountVotes v = votes(member(), agent("bot", "spam", at(10)), human("chris", "spam", at(5)));
    assertThat(v.stagedVote()).isEmpty();
    assertThat(v.latestVote()).map(PersonEvaluation::evaluator).contains("human-chris");
  }

  @Test
  void votesAreNewestFirstWithTiesByEvaluator() {
    PersonEvaluation b = human("b", "spam", at(10));
    PersonEvaluation a = human("a", "spam", at(10));
    PersonEvaluation c = agent("c", "spam", at(20));
    assertThat(votes(member(), b, a, c).counting()).containsExactly(c, a, b);
  }

  @Test
  void voteByFindsOneVotersCountingVote() {
    PersonEvaluation mine = agent("bot", "spam", at(10));
    AccountVotes v = votes(member(), mine, human("chris", "legit", at(20)));
    assertThat(v.voteBy("agent-bot")).contains(mine);
    assertThat(v.voteBy("agent-nobody")).isEmpty();
  }

  // ---- deciding votes ----

  @Test
  void humanVotesDecideWhenThereAreAny() {
    PersonEvaluation h = human("chris", "spam", at(10));
    PersonEvaluation g = agent("bot", "legit", at(20));
    assertThat(votes(hidden(), h, g).decidingVotes(Set.of("bot"))).containsExactly(h);
  }

  @Test
  void withoutHumanVotesTheAgentsWithAnActiveGrantDecide() {
    PersonEvaluation active = agent("bot", "spam", at(10));
    PersonEvaluation revoked = agent("old-bot", "legit", at(20));
    AccountVotes v = votes(hidden(), active, revoked);
    assertThat(v.decidingVotes(Set.of("bot"))).containsExactly(active);
    assertThat(v.decidingVotes(NO_AGENTS)).isEmpty();
    assertThat(v.decidingVotes(Set.of("bot", "old-bot"))).containsExactly(revoked, active);
  }

  // ---- purgeAfter ----

  @Test
  void purgeAfterIsThreeDaysAfterTheNewestDecidingVote() {
    AccountVotes v = votes(hidden(), human("chris", "spam", at(10)), human("dana", "spam", at(40)));
    assertThat(v.purgeAfter(NO_AGENTS)).isEqualTo(at(40).plus(Duration.ofDays(3)));
    assertThat(AccountVotes.PURGE_DELAY).isEqualTo(Duration.ofDays(3));
  }

  @Test
  void purgeAfterFromAStagedAgentVoteNeedsAnActiveGrant() {
    AccountVotes v = votes(hidden(), agent("bot", "spam", at(10)));
    assertThat(v.purgeAfter(Set.of("bot"))).isEqualTo(at(10).plus(Duration.ofDays(3)));
    assertThat(v.purgeAfter(NO_AGENTS)).isNull();
    assertThat(v.purgeAfter(Set.of("someone-else"))).isNull();
  }

  @Test
  void anyLegitDecidingVoteMeansNoPurge() {
    assertThat(votes(hidden(), human("chris", "spam", at(10)), human("dana", "legit", at(5))).purgeAfter(NO_AGENTS))
        .isNull();
    assertThat(votes(hidden(), agent("a", "spam", at(10)), agent("b", "legit", at(5))).purgeAfter(Set.of("a", "b")))
        .isNull();
  }

  @Test
  void anAgentLegitVoteDoesNotMatterOnceAHumanVotedSpam() {
    AccountVotes v = votes(hidden(), human("chris", "spam", at(10)), agent("bot", "legit", at(20)));
    assertThat(v.purgeAfter(Set.of("bot"))).isEqualTo(at(10).plus(Duration.ofDays(3)));
  }

  @Test
  void noPurgeWhileTheMemberIsShown() {
    assertThat(votes(member(), human("chris", "spam", at(10))).purgeAfter(NO_AGENTS)).isNull();
  }

  @Test
  void noPurgeWithoutVotes() {
    assertThat(votes(hidden()).purgeAfter(Set.of("bot"))).isNull();
  }

  @ParameterizedTest(name = "level {0}: purgeAfter set = {1}")
  @CsvSource({"user, true", "editor, true", "staff, false", "administrator, false"})
  void staffAreNeverPurgedOnSchedule(String level, boolean purged) {
    AccountVotes v = votes(member(level, at(1)), human("chris", "spam", at(10)));
    assertThat(v.purgeAfter(NO_AGENTS) != null).isEqualTo(purged);
  }

  @ParameterizedTest(name = "vote {0} minutes after creation")
  @ValueSource(longs = {0, 1, 60, 4320})
  void purgeAfterFollowsTheVote(long minutes) {
    AccountVotes v = votes(hidden(), human("chris", "spam", at(minutes)));
    assertThat(v.purgeAfter(NO_AGENTS)).isEqualTo(at(minutes).plus(Duration.ofDays(3)));
  }
}
