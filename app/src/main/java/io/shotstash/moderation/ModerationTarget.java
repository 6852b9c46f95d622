package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.records.Person;
import java.util.Optional;

/**
 * Who is not a member to vote on or purge: yourself, and any agent account (docs/moderation-api.md
 * → the 422 rows of the vote and purge errors). The routes check it with the rest of the body, the
 * writer again under its lock; both ask here. Pure.
 */
public final class ModerationTarget {
  private ModerationTarget() {}

  /** Why {@code actor} may not vote on or purge {@code target} (a 422 on {@code slug}), or empty. */
  public static Optional<String> problem(Actor actor, Person target) {
    String me = actor instanceof Actor.Member m ? m.personId() : actor instanceof Actor.Agent a ? a.personId() : null;
    if (target.id().equals(me)) {
      return Optional.of("you cannot vote on or purge yourself");
    }
    if (target.isAgentAccount()) {
      return Optional.of("an agent account is not a member to moderate");
    }
    return Optional.empty();
  }
}
