package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.people.AccountProtection;
import io.shotstash.people.AccountProtection.Refusal;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who a spam vote or a deactivation may reach, and that no vote, purge, deactivation or level change
 * leaves the site without an
 * active administrator. Each row: the change, the target (its level and whether it is hidden), how
 * many active administrators there are (the target included when it is one), and the refusal or
 * {@code -}.
 */
class AccountProtectionTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  private static Person target(String level, boolean hidden) {
    return new Person("id-t", null, "target", "Target", null, null, level, null, null, null, hidden ? T : null,
        hidden ? "self" : null, T, T);
  }

  private static String outcome(Optional<Refusal> r) {
    return r.map(Refusal::code).orElse("-");
  }

  @ParameterizedTest(name = "{0} votes {1} on {2} (hidden {3}), {4} active admins -> {5}")
  @CsvSource({
      // voter,       verdict, target,        hidden, admins, outcome
      // below the voter: allowed
      "staff,         spam,    user,          false,  1,      -",
      "staff,         spam,    editor,        false,  1,      -",
      "administrator, spam,    staff,         false,  1,      -",
      "administrator, spam,    editor,        false,  1,      -",
      // a peer or higher: protected
      "staff,         spam,    staff,         false,  1,      protected_account",
      "staff,         spam,    administrator, false,  2,      protected_account",
      "administrator, spam,    administrator, false,  2,      protected_account",
      "administrator, spam,    administrator, true,   1,      protected_account",
      "staff,         spam,    administrator, true,   1,      protected_account",
      // the only active administrator: whoever votes, the site-wide rule answers first
      "staff,         spam,    administrator, false,  1,      last_administrator",
      "administrator, spam,    administrator, false,  1,      last_administrator",
      // a legit vote hides nobody: never refused here
      "staff,         legit,   administrator, false,  1,      -",
      "staff,         legit,   staff,         true,   1,      -",
      "administrator, legit,   administrator, true,   1,      -"})
  void aSpamVoteReachesOnlyAccountsBelowTheVoterAndNeverTheLastAdministrator(String voter, String verdict,
      String level, boolean hidden, int admins, String expected) {
    assertThat(outcome(AccountProtection.vote(AccountLevel.parse(voter).orElseThrow(), verdict, target(level, hidden),
        admins))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "purge {0} (hidden {1}), {2} active admins -> {3}")
  @CsvSource({
      "user,          false, 1, -",
      "staff,         false, 1, -",
      "administrator, false, 2, -",
      // a hidden administrator is not one of the active ones: purging them leaves the active one
      "administrator, true,  1, -",
      "administrator, false, 1, last_administrator",
      "administrator, false, 0, last_administrator"})
  void aPurgeNeverTakesTheLastActiveAdministrator(String level, boolean hidden, int admins, String expected) {
    assertThat(outcome(AccountProtection.purge(target(level, hidden), admins))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} (hidden {1}) -> {2}, {3} active admins -> {4}")
  @CsvSource({
      "administrator, false, staff,         2, -",
      "administrator, false, user,          2, -",
      "administrator, false, administrator, 1, -",
      "administrator, true,  user,          1, -",
      "staff,         false, user,          1, -",
      "user,          false, administrator, 1, -",
      "administrator, false, staff,         1, last_administrator",
      "administrator, false, editor,        1, last_administrator",
      "administrator, false, user,          1, last_administrator"})
  void aLevelChangeNeverDemotesTheLastActiveAdministrator(String level, boolean hidden, String to, int admins,
      String expected) {
    assertThat(
        outcome(AccountProtection.levelChange(target(level, hidden), AccountLevel.parse(to).orElseThrow(), admins)))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} (self {1}) deactivates {2} (hidden {3}), {4} active admins -> {5}")
  @CsvSource({
      // caller,      self,  target,        hidden, admins, outcome
      // below the caller: allowed
      "staff,         false, user,          false,  1,      -",
      "staff,         false, editor,        false,  1,      -",
      "administrator, false, staff,         false,  1,      -",
      // a peer or higher: protected, as for a spam vote
      "staff,         false, staff,         false,  1,      protected_account",
      "staff,         false, administrator, false,  2,      protected_account",
      "administrator, false, administrator, false,  2,      protected_account",
      // oneself: always, but for the last active administrator
      "user,          true,  user,          false,  1,      -",
      "staff,         true,  staff,         false,  1,      -",
      "administrator, true,  administrator, false,  2,      -",
      "administrator, true,  administrator, false,  1,      last_administrator",
      // the site-wide rule answers first, whoever asks
      "staff,         false, administrator, false,  1,      last_administrator"})
  void aDeactivationReachesOnlyAccountsBelowTheCallerAndNeverTheLastAdministrator(String caller, boolean self,
      String level, boolean hidden, int admins, String expected) {
    assertThat(outcome(AccountProtection.deactivate(AccountLevel.parse(caller).orElseThrow(), self,
        target(level, hidden), admins))).isEqualTo(expected);
  }
}
