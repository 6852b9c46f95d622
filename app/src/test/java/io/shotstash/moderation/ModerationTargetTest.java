package io.shotstash.moderation;

import static io.shotstash.moderation.ModerationFixture.AGENT;
import static io.shotstash.moderation.ModerationFixture.BOT;
import static io.shotstash.moderation.ModerationFixture.member;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Nobody votes on or purges themselves, and an agent account is no member to moderate. */
class ModerationTargetTest {
  private static final Person JANE = member("jane", Duration.ofDays(1));
  private static final Person ADA = member("ada", Duration.ofDays(1));
  private static final Actor.Member ADA_SIGNED_IN = new Actor.Member(ADA.id(), ADA.slug(), ADA.fullName(),
      AccountLevel.STAFF, "session");
  private static final Person OTHER_BOT =
      new Person("id-other-bot", null, "other-bot", "Other", null, null, "user", true,
          null, null, null, null, null, null);

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("staff on a member", ADA_SIGNED_IN, JANE, null),
        Arguments.of("an agent on a member", AGENT, JANE, null),
        Arguments.of("staff on themselves", ADA_SIGNED_IN, ADA, "you cannot vote on or purge yourself"),
        Arguments.of("an agent on itself", AGENT, BOT, "you cannot vote on or purge yourself"),
        Arguments.of("staff on an agent account", ADA_SIGNED_IN, BOT, "an agent account is not a member to moderate"),
        Arguments.of("an agent on another agent", AGENT, OTHER_BOT, "an agent account is not a member to moderate"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void whoIsAMemberToModerate(String why, Actor actor, Person target, String problem) {
    assertThat(ModerationTarget.problem(actor, target).orElse(null)).isEqualTo(problem);
  }
}
