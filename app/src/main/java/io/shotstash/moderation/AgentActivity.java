package io.shotstash.moderation;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.purge.AccountVotes;
import java.time.Instant;
import java.util.List;

/**
 * What one agent account has done, read from the records its evaluator name
 * ({@code agent-<slug>}) marks: its votes and its spam purges. Records are keyed by slug, and a
 * slug can change hands: an agent account purged, and a new one created under the slug. A record
 * dated before this account's {@code createdAt} was made by that earlier account, so it is not this
 * one's (the rule "Votes belong to one account", from the voter's side). Pure.
 *
 * @param votes this account's person-evaluations records, on any member, purged ones included
 * @param purges the spam-purges records this account made
 */
public record AgentActivity(Person agent, List<PersonEvaluation> votes, List<SpamPurge> purges) {

  public AgentActivity {
    votes = List.copyOf(votes);
    purges = List.copyOf(purges);
  }

  public static AgentActivity of(PublicState state, Person agent) {
    String evaluator = "agent-" + agent.slug();
    List<PersonEvaluation> votes = state.find(Sheet.PERSON_EVALUATIONS, "evaluator", evaluator, PersonEvaluation.class)
        .stream().filter(e -> ours(agent, e.evaluatedAt())).toList();
    List<SpamPurge> purges = state.all(Sheet.SPAM_PURGES, SpamPurge.class).stream()
        .filter(p -> evaluator.equals(p.by()) && ours(agent, p.purgedAt())).toList();
    return new AgentActivity(agent, votes, purges);
  }

  /** Made by this account: dated at or after it was created (an account without a date owns all). */
  private static boolean ours(Person agent, Instant at) {
    return agent.createdAt() == null || at != null && !at.isBefore(agent.createdAt());
  }

  /**
   * When the spam votes the daily vote allowance counts were cast: this account's spam votes, but
   * not the one each purge writes (the purge allowance counts that purge), and not one on an
   * earlier account under its member's slug, which every rule ignores. Only votes at or after
   * {@code since} are looked at, so the cost stays with the window.
   */
  public List<Instant> spamVotesSince(PublicState state, Instant since) {
    return votes.stream()
        .filter(e -> "spam".equals(e.verdict()) && !e.flags().contains("purged"))
        .filter(e -> e.evaluatedAt() != null && !e.evaluatedAt().isBefore(since))
        .filter(e -> !onAnEarlierAccount(state, e))
        .map(PersonEvaluation::evaluatedAt).toList();
  }

  /** When this account's purges were made (the purge allowance counts them). */
  public List<Instant> purgeTimes() {
    return purges.stream().map(SpamPurge::purgedAt).toList();
  }

  /** Whether the member now holding the vote's slug is a later account than the one voted on. */
  private static boolean onAnEarlierAccount(PublicState state, PersonEvaluation e) {
    return state.personBySlug(e.personSlug()).map(holder -> AccountVotes.of(state, holder).earlier().contains(e))
        .orElse(false);
  }
}
