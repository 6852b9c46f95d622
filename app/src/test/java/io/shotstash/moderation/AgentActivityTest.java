package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What counts as one agent account's doing, for its daily allowances and its track record: only
 * records made since this account was created under the slug, and for the vote allowance only
 * spam votes that are not a purge's and not on an earlier account of their member.
 */
class AgentActivityTest {
  private static final Instant CREATED = Instant.parse("2026-03-10T12:00:00Z");
  private static final Person BOT = new Person("id-bot", null, "bot", "Bot", null, null, "user", true, null, null, null,
      null, CREATED, CREATED);

  private static Instant at(long minutesAfterCreation) {
    return CREATED.plus(Duration.ofMinutes(minutesAfterCreation));
  }

  /**
   * One vote by agent-bot on member "jane", who joined at {@code joined}, with a spam-purges record
   * of another person under her slug at {@code purgedAt} (or none).
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(nullValues = "NULL", value = {
      // why,                                            verdict, flags,        votedAt, joined, purgedAt, votes, allowance
      "a spam vote by this account,                      spam,    agent,        5,       -60,    NULL,     1,     1",
      "a legit vote is no spam vote,                     legit,   agent,        5,       -60,    NULL,     1,     0",
      "the vote a purge writes counts toward purges,     spam,    agent purged, 5,       -60,    NULL,     1,     0",
      "at the moment of creation: this account's,        spam,    agent,        0,       -60,    NULL,     1,     1",
      "before creation: an earlier agent's,              spam,    agent,        -1,      -60,    NULL,     0,     0",
      "on an earlier account of a member who joined since, spam,  agent,        5,       10,     NULL,     1,     0",
      "before a purge of another person under the slug,  spam,    agent,        5,       -60,    6,        1,     0",
      "after that purge: on the account now there,       spam,    agent,        7,       -60,    6,        1,     1"})
  void whatCounts(String why, String verdict, String flags, long votedAt, long joined, Long purgedAt, int votes,
      int allowance) {
    Person jane = new Person("id-jane", null, "jane", "Jane", null, null, "user", null, null, null, null, null,
        at(joined), at(joined));
    PersonEvaluation vote = new PersonEvaluation("jane", "agent-bot", verdict, "reasoning", List.of(flags.split(" ")),
        null, at(votedAt));
    List<RecordChange> changes = new ArrayList<>(List.of(RecordChange.put(Sheet.PEOPLE, "bot", BOT),
        RecordChange.put(Sheet.PEOPLE, "jane", jane),
        RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote)));
    if (purgedAt != null) {
      SpamPurge p = new SpamPurge("id-purge", "id-old-jane", "jane", "Old Jane", null, null, "human-ada", null, "spam",
          List.of(), List.of(), "abc", at(purgedAt), true, null, null);
      changes.add(RecordChange.put(Sheet.SPAM_PURGES, p.id(), p));
    }
    PublicState state = PublicState.empty().apply("c1", changes);
    AgentActivity activity = AgentActivity.of(state, BOT);
    assertThat(activity.votes()).hasSize(votes);
    assertThat(activity.spamVotesSince(state, at(-24 * 60))).hasSize(allowance);
  }

  @ParameterizedTest(name = "a purge {0} min after the account was created counts: {1}")
  @CsvSource({"-1, false", "0, true", "30, true"})
  void purgesCountFromTheAccountsCreation(long purgedAt, boolean counts) {
    SpamPurge p =
        new SpamPurge("id-purge", "id-gone", "gone", "Gone", null, null, "agent-bot", "g-1", "spam", List.of(),
            List.of(), "abc", at(purgedAt), true, null, null);
    SpamPurge other = new SpamPurge("id-other", "id-gone2", "gone2", "Gone", null, null, "agent-other", "g-2", "spam",
        List.of(), List.of(), "abc", at(5), true, null, null);
    PublicState state = PublicState.empty().apply("c1", List.of(RecordChange.put(Sheet.PEOPLE, "bot", BOT),
        RecordChange.put(Sheet.SPAM_PURGES, p.id(), p), RecordChange.put(Sheet.SPAM_PURGES, other.id(), other)));
    assertThat(AgentActivity.of(state, BOT).purgeTimes()).hasSize(counts ? 1 : 0);
  }
}
