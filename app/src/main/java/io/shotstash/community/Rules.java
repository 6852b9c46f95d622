package io.shotstash.community;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import java.util.Optional;

/** Small shared pieces of the community write rules: who the actor is now, and refusing. */
final class Rules {
  private Rules() {}

  static <T> Future<T> refuse(ApiError error) {
    return Future.failedFuture(error.toException());
  }

  static Future<WritePlan> refusePlan(ApiError error) {
    return refuse(error);
  }

  /** The actor's live person record (a signed-in member who still exists and is not an agent). */
  static Optional<Person> live(PublicState state, Actor actor) {
    if (actor instanceof Actor.Member m) {
      return state.personById(m.personId()).filter(p -> !p.isAgentAccount());
    }
    return Optional.empty();
  }

  /** Staff or administrator, read from the live record. */
  static boolean isStaff(PublicState state, Actor actor) {
    return live(state, actor).filter(p -> !p.isDeactivated() && p.level().atLeast(AccountLevel.STAFF)).isPresent();
  }

  static boolean isAdministrator(PublicState state, Actor actor) {
    return live(state, actor).filter(p -> !p.isDeactivated() && p.level() == AccountLevel.ADMINISTRATOR).isPresent();
  }

  static boolean isSelf(Actor actor, Person person) {
    return actor instanceof Actor.Member m && m.personId().equals(person.id());
  }
}
