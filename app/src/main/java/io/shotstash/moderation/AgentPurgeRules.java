package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.purge.AccountVotes;
import io.shotstash.purge.PurgePlan;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * An agent's purge: the evidence is looked up, then rules 1-8 of docs/moderation-api.md → the
 * agent purge, "Rules, in order", are checked in that order. The git writer asks under its lock, so
 * concurrent purges never pass the daily allowance or purge one member twice. Who may not be
 * purged at all (yourself, an agent account) is {@link ModerationTarget}, asked before. Pure.
 */
public final class AgentPurgeRules {
  /** Rule 2: an agent purges only members who joined within this. */
  public static final Duration MAX_AGE = Duration.ofDays(7);
  /** Rule 8: purges per agent account in any rolling {@link #WINDOW}. */
  public static final int PURGES_PER_DAY = 5;
  public static final Duration WINDOW = Duration.ofDays(1);

  private AgentPurgeRules() {}

  /**
   * What the rules read besides the public state.
   *
   * @param evidence the items the agent cites, well formed ({@link Evidence#parse})
   * @param signedIntoSlack whether the member's private profile has {@code last_slack_sso_at} set (rule 5)
   */
  public record Facts(List<Evidence> evidence, boolean signedIntoSlack) {
    public Facts {
      evidence = List.copyOf(evidence);
    }
  }

  /** Why {@code agent} may not purge {@code target} at {@code now}, or empty. */
  public static Optional<Refusal> check(PublicState state, Actor.Agent agent, Person target, Facts facts, Instant now) {
    // the evidence names records that exist, are the member's and are not empty
    for (int i = 0; i < facts.evidence().size(); i++) {
      String problem = facts.evidence().get(i).problem(state, target);
      if (problem != null) {
        return Optional.of(Refusal.evidenceInvalid(i, problem));
      }
    }
    // 1. only ordinary, signed-up members
    if (target.level() != AccountLevel.USER || target.legacyId() != null) {
      return conflict("protected_account", "Agents purge only ordinary, signed-up members");
    }
    // 2. only brand-new members
    if (target.createdAt() == null || target.createdAt().isBefore(now.minus(MAX_AGE))) {
      return conflict("member_too_old", "An agent purges only members who joined in the last 7 days");
    }
    AccountVotes votes = AccountVotes.of(state, target);
    // 3. humans are final
    if (votes.humanHasVoted()) {
      return conflict("human_verdict_exists", "A person has voted on this member");
    }
    // 4. no legit vote standing
    if (votes.agentVotes().stream().anyMatch(e -> "legit".equals(e.verdict()))) {
      return conflict("legit_vote_exists", "An agent's legit vote stands on this member");
    }
    // 5. not established
    if (facts.signedIntoSlack()) {
      return conflict("established_member", "The member has signed into Slack through the site; a person decides");
    }
    PurgePlan plan = PurgePlan.of(state, target);
    // 6. nothing shared
    if (!plan.sharedProjects().isEmpty()) {
      return conflict("shared_project", "The member created or maintains a project others have touched");
    }
    // 7. the evidence goes with the purge
    for (Evidence e : facts.evidence()) {
      String path = e.toRecord(target).path();
      if (!plan.deletedPaths().contains(path)) {
        return conflict("evidence_survives", "Every evidence record must be one the purge deletes: " + path);
      }
    }
    // 8. volume: this agent account's purges (not an earlier account's under its slug)
    Person self = state.personById(agent.personId()).orElse(null);
    if (self == null) {
      return Optional.of(Refusal.notFound()); // the agent account went while the purge was queued
    }
    Integer wait = Allowance.retryAfter(AgentActivity.of(state, self).purgeTimes(), PURGES_PER_DAY, WINDOW, now);
    return wait == null ? Optional.empty() : Optional.of(Refusal.rateLimited("At most 5 purges a day", wait));
  }

  private static Optional<Refusal> conflict(String code, String message) {
    return Optional.of(Refusal.conflict(code, message));
  }
}
