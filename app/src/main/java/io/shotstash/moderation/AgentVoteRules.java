package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.purge.AccountVotes;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * An agent's vote, rules 1-4 of docs/moderation-api.md → Agent rules, checked in that order. The
 * git writer asks under its lock, so a vote queued behind another one sees its result. Who may not
 * be voted on at all (yourself, an agent account) is {@link ModerationTarget}, asked before. Pure.
 */
public final class AgentVoteRules {
  /** Rule 3: a spam vote by an agent needs a member who joined within this. */
  public static final Duration MAX_AGE = Duration.ofDays(30);
  /** Rule 4: spam votes per agent account in any rolling {@link #WINDOW}. */
  public static final int SPAM_VOTES_PER_DAY = 20;
  public static final Duration WINDOW = Duration.ofDays(1);

  private AgentVoteRules() {}

  /** Why {@code agent} may not vote {@code verdict} on {@code target} at {@code now}, or empty. */
  public static Optional<Refusal> check(PublicState state, Actor.Agent agent, Person target, String verdict,
      Instant now) {
    // 1. humans are final
    if (AccountVotes.of(state, target).humanHasVoted()) {
      return Optional
          .of(Refusal.conflict("human_verdict_exists", "A person has voted on this member; their verdict stands"));
    }
    // 2. only ordinary members
    if (target.level() != AccountLevel.USER) {
      return Optional.of(Refusal.conflict("protected_account", "Agents vote only on ordinary members"));
    }
    if (!"spam".equals(verdict)) {
      return Optional.empty(); // rules 3 and 4 hold spam votes only
    }
    // 3. only new members, for spam
    if (target.createdAt() == null || target.createdAt().isBefore(now.minus(MAX_AGE))) {
      return Optional.of(Refusal.conflict("member_too_old",
          "A spam vote by an agent needs a member who joined in the last 30 days"));
    }
    // 4. volume: this agent account's own spam votes on the accounts that stand now
    Person self = state.personById(agent.personId()).orElse(null);
    if (self == null) {
      return Optional.of(Refusal.notFound()); // the agent account went while the vote was queued
    }
    Integer wait = Allowance.retryAfter(AgentActivity.of(state, self).spamVotesSince(state, now.minus(WINDOW)),
        SPAM_VOTES_PER_DAY, WINDOW, now);
    return wait == null ? Optional.empty() : Optional.of(Refusal.rateLimited("At most 20 spam votes a day", wait));
  }
}
