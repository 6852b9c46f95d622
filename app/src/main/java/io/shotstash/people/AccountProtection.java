package io.shotstash.people;

import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import java.util.Optional;

/**
 * Who a person's moderation powers reach, and the one thing no change may do: leave the site
 * without an active administrator. A spam vote hides its target (an administrator hidden by
 * moderation loses the admin routes and cannot reactivate themselves), a purge deletes them and a
 * demotion takes their level, so each is checked here before it is planned. Pure.
 *
 * <ul>
 *   <li>A person votes spam only on accounts below their own level: staff not on staff or
 *       administrators, an administrator not on another administrator. Those are the people who
 *       could otherwise hide the moderators above them. (Agents are held to ordinary members by
 *       their own rule.)
 *   <li>Deactivating someone else follows the same rule: it hides them just as a spam vote does.
 *   <li>No vote, purge, deactivation or level change may take the last active administrator out of
 *       service.
 *       This is checked first, so a spam vote on the only administrator answers it whoever votes.
 * </ul>
 */
public final class AccountProtection {
  private AccountProtection() {}

  /** Why a change is refused: the HTTP status, the documented code and a message. */
  public enum Refusal {
    PROTECTED_ACCOUNT(
        ApiError.conflict("protected_account", "You may vote spam only on accounts below your own level")),
    PROTECTED_FROM_DEACTIVATION(
        ApiError.conflict("protected_account", "You may deactivate only accounts below your own level")),
    LAST_ADMINISTRATOR(ApiError.conflict("last_administrator",
        "This is the last active administrator: no vote, purge, deactivation or level change may take them out of"
            + " service"));

    private final ApiError error;

    Refusal(ApiError error) {
      this.error = error;
    }

    public String code() {
      return error.code();
    }

    /** The refusal as the caller gets it. */
    public ApiError error() {
      return error;
    }
  }

  /**
   * A person at {@code voterLevel} votes {@code verdict} on {@code target}; {@code activeAdministrators}
   * counts the administrators who are not deactivated, the target included. A legit vote never
   * hides anyone, so only spam is checked.
   */
  public static Optional<Refusal> vote(AccountLevel voterLevel, String verdict, Person target,
      int activeAdministrators) {
    if (!"spam".equals(verdict)) {
      return Optional.empty();
    }
    // the site-wide fact first: it holds whoever asks, so it is the more useful answer
    Optional<Refusal> last = lastAdministrator(target, true, activeAdministrators);
    if (last.isPresent()) {
      return last;
    }
    return target.level().atLeast(voterLevel) ? Optional.of(Refusal.PROTECTED_ACCOUNT) : Optional.empty();
  }

  /** {@code target} is purged: the record and the account are gone. */
  public static Optional<Refusal> purge(Person target, int activeAdministrators) {
    return lastAdministrator(target, true, activeAdministrators);
  }

  /**
   * {@code target} is deactivated (hidden) by a person at {@code callerLevel}, or by themselves
   * ({@code self}). Someone else's deactivation reaches only accounts below the caller's level, as a
   * spam vote does: it hides the same way, and an administrator hidden this way loses the admin
   * routes until they reactivate themselves. Nobody, the last administrator included, may hide the
   * last active administrator.
   */
  public static Optional<Refusal> deactivate(AccountLevel callerLevel, boolean self, Person target,
      int activeAdministrators) {
    Optional<Refusal> last = lastAdministrator(target, true, activeAdministrators);
    if (last.isPresent()) {
      return last;
    }
    return !self && target.level().atLeast(callerLevel) ? Optional.of(Refusal.PROTECTED_FROM_DEACTIVATION)
        : Optional.empty();
  }

  /** {@code target}'s level is set to {@code level}. */
  public static Optional<Refusal> levelChange(Person target, AccountLevel level, int activeAdministrators) {
    return lastAdministrator(target, level != AccountLevel.ADMINISTRATOR, activeAdministrators);
  }

  /**
   * Refused when the target is an active administrator, the change takes them out of service
   * ({@code removed}), and no other active administrator would be left.
   */
  static Optional<Refusal> lastAdministrator(Person target, boolean removed, int activeAdministrators) {
    boolean activeAdministrator = target.level() == AccountLevel.ADMINISTRATOR && !target.isDeactivated();
    if (activeAdministrator && removed && activeAdministrators <= 1) {
      return Optional.of(Refusal.LAST_ADMINISTRATOR);
    }
    return Optional.empty();
  }
}
