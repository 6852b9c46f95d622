package io.shotstash.publicdata.write;

import io.shotstash.auth.Actor;
import io.shotstash.metrics.DomainMetrics;

/**
 * Counts the moderation writes the writer committed, by kind of actor and verdict. The actions are
 * those of {@code moderation.ModerationWrites} (vote, agent purge, scheduled purge) and
 * {@code purge.PurgeWrite} (an administrator's purge); a write refused or rolled back is not
 * counted, because only a committed one reaches here.
 */
final class ModerationCounts {
  static final String VOTE = "moderation.vote";
  static final String AGENT_PURGE = "moderation.purge";
  static final String SCHEDULED_PURGE = "moderation.scheduled-purge";
  static final String PURGE = "person.purge";

  private ModerationCounts() {}

  static void committed(WriteCommand command) {
    switch (command.action()) {
      case VOTE -> DomainMetrics.vote(actorKind(command.actor()), command.params().getString("verdict", "unknown"));
      case AGENT_PURGE, SCHEDULED_PURGE, PURGE -> DomainMetrics.purge(actorKind(command.actor()));
      default -> {
      } // not moderation
    }
  }

  /** human, agent or system: never who. */
  static String actorKind(Actor actor) {
    if (actor instanceof Actor.Agent) {
      return "agent";
    }
    return actor instanceof Actor.Member ? "human" : "system";
  }
}
