package io.shotstash.moderation;

import static io.shotstash.moderation.ModerationFixture.AGENT;
import static io.shotstash.moderation.ModerationFixture.BOT;
import static io.shotstash.moderation.ModerationFixture.NOW;
import static io.shotstash.moderation.ModerationFixture.member;
import static io.shotstash.moderation.ModerationFixture.person;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An agent's vote, rules 1-4 of docs/moderation-api.md → Agent rules, in that order: one row a
 * case, the member, the verdict, the records around them and the code the rules answer (null: the
 * vote is allowed).
 */
class AgentVoteRulesTest {
  private static final Duration DAY = Duration.ofDays(1);
  private static final Person JANE = member("jane", Duration.ofDays(2));
  private static final Person OLD = member("old", Duration.ofDays(31));
  private static final Person STAFF = person("sam", "staff", null, Duration.ofDays(2), null);
  private static final Person EDITOR = person("ed", "editor", null, Duration.ofDays(2), null);
  private static final Person UNDATED = person("undated", "user", null, null, null);

  /** {@code n} spam votes by the bot on other members, each cast {@code ago}. */
  private static UnaryOperator<ModerationFixture> spamVotes(int n, Duration ago, String... flags) {
    return f -> {
      for (int i = 0; i < n; i++) {
        f.vote("other-" + i, "agent-bot", "spam", ago, flags.length == 0 ? new String[]{"agent"} : flags);
      }
      return f;
    };
  }

  private static Arguments row(String why, Person target, String verdict, UnaryOperator<ModerationFixture> around,
      String expected) {
    return Arguments.of(why, target, verdict, around, expected);
  }

  static Stream<Arguments> rules() {
    UnaryOperator<ModerationFixture> nothing = f -> f;
    return Stream.of(
        row("a new ordinary member, spam", JANE, "spam", nothing, null),
        row("a new ordinary member, legit", JANE, "legit", nothing, null),
        // 1. humans are final
        row("1: a human voted spam", JANE, "spam", f -> f.vote("jane", "human-ada", "spam", DAY),
            "human_verdict_exists"),
        row("1: a human voted legit, and the agent votes legit", JANE, "legit",
            f -> f.vote("jane", "human-ada", "legit", DAY), "human_verdict_exists"),
        row("1: a human vote on an earlier account under the slug does not count", JANE, "spam",
            f -> f.vote("jane", "human-ada", "spam", Duration.ofDays(3)), null),
        row("1: another agent's vote is no human's", JANE, "spam", f -> f.vote("jane", "agent-other", "legit", DAY),
            null),
        row("1 before 2: a human voted on staff", STAFF, "spam", f -> f.vote("sam", "human-ada", "spam", DAY),
            "human_verdict_exists"),
        // 2. only ordinary members
        row("2: staff", STAFF, "spam", nothing, "protected_account"),
        row("2: an editor", EDITOR, "legit", nothing, "protected_account"),
        row("2 before 3: an old staff member", person("oldstaff", "staff", null, Duration.ofDays(90), null), "spam",
            nothing, "protected_account"),
        // 3. only new members, for spam
        row("3: joined 31 days ago, spam", OLD, "spam", nothing, "member_too_old"),
        row("3: joined 31 days ago, legit has no age limit", OLD, "legit", nothing, null),
        row("3: no createdAt counts as old", UNDATED, "spam", nothing, "member_too_old"),
        row("3 before 4: old, and the allowance used up", OLD, "spam", spamVotes(20, Duration.ofHours(1)),
            "member_too_old"),
        // 4. volume
        row("4: 19 spam votes in the last day", JANE, "spam", spamVotes(19, Duration.ofHours(1)), null),
        row("4: 20 spam votes in the last day", JANE, "spam", spamVotes(20, Duration.ofHours(1)), "rate_limited"),
        row("4: 20 spam votes, but more than a day ago", JANE, "spam", spamVotes(20, Duration.ofHours(25)), null),
        row("4: a purge's own vote counts toward the purge allowance instead", JANE, "spam",
            spamVotes(20, Duration.ofHours(1), "agent", "purged"), null),
        row("4: legit votes are not limited", JANE, "legit", spamVotes(20, Duration.ofHours(1)), null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rules")
  void theRulesInOrder(String why, Person target, String verdict, UnaryOperator<ModerationFixture> around,
      String expected) {
    ModerationFixture f = around.apply(new ModerationFixture().person(target));
    Optional<Refusal> refusal = AgentVoteRules.check(f.state(), AGENT, target, verdict, NOW);
    assertThat(refusal.map(Refusal::code).orElse(null)).isEqualTo(expected);
  }

  @Test
  void theAllowanceSaysWhenTheOldestVoteLeavesTheWindow() {
    ModerationFixture f = new ModerationFixture().person(JANE);
    spamVotes(20, Duration.ofHours(23)).apply(f);
    assertThat(AgentVoteRules.check(f.state(), AGENT, JANE, "spam", NOW))
        .contains(Refusal.rateLimited("At most 20 spam votes a day", 3600));
  }

  @Test
  void anAgentAccountGoneWhileItsVoteWaitedIsNotFound() {
    ModerationFixture f = new ModerationFixture().person(JANE);
    PublicState state = f.state().apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, BOT.slug())));
    assertThat(AgentVoteRules.check(state, AGENT, JANE, "spam", NOW)).contains(Refusal.notFound());
    assertThat(AgentVoteRules.check(state, AGENT, JANE, "legit", NOW)).isEmpty();
  }
}
