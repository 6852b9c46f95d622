package io.shotstash.moderation;

import static io.shotstash.moderation.ModerationFixture.AGENT;
import static io.shotstash.moderation.ModerationFixture.BOT;
import static io.shotstash.moderation.ModerationFixture.NOW;
import static io.shotstash.moderation.ModerationFixture.person;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
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
 * An agent's purge: the evidence looked up, then rules 1-8 of docs/moderation-api.md → the agent
 * purge, in that order. One row a case: the member, the records around them, the evidence, whether
 * they signed into Slack, and the code the rules answer (null: the purge goes ahead).
 */
class AgentPurgeRulesTest {
  private static final Duration DAY = Duration.ofDays(1);
  private static final String BIO = "Cheap pills, fast delivery";
  private static final Person SPAM = person("spam", "user", null, Duration.ofHours(2), BIO);
  private static final Person ALICE = person("alice", "user", null, Duration.ofDays(400), null);
  private static final List<Evidence> BIO_ONLY = List.of(new Evidence.Bio());

  private static final Project SPAM_SHOP = project("shop", SPAM);
  private static final Project ALICE_CLUB = project("club", ALICE);

  private static Project project(String slug, Person creator) {
    return new Project("id-p-" + slug, slug, "Title " + slug, null, null, "commenting", creator.id(), creator.id(),
        null,
        NOW, NOW);
  }

  private static UnaryOperator<ModerationFixture> projectOf(Project p) {
    return f -> f.put(Sheet.PROJECTS, p.slug(), p);
  }

  private static UnaryOperator<ModerationFixture> membership(Project p, Person who, boolean maintainer) {
    ProjectMembership m = new ProjectMembership(p.id(), who.id(), p.slug(), who.slug(), null, maintainer, NOW);
    return f -> f.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(m), m);
  }

  private static UnaryOperator<ModerationFixture> update(Project p, Person who, int number, String body) {
    ProjectUpdate u = new ProjectUpdate("id-u-" + number, p.id(), who.id(), number, body, NOW);
    return f -> f.put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate(p.slug(), number), u);
  }

  private static UnaryOperator<ModerationFixture> purges(int n, Duration ago) {
    return f -> {
      for (int i = 0; i < n; i++) {
        f.purge("purge-" + i, "gone-" + i, "agent-bot", ago);
      }
      return f;
    };
  }

  /** The bot's account made anew under its slug {@code ago}: what an earlier account did is not its doing. */
  private static Person botCreated(Duration ago) {
    return new Person(BOT.id(), null, BOT.slug(), BOT.fullName(), null, null, "user", true, null, null, null, null,
        NOW.minus(ago), NOW.minus(ago));
  }

  @SafeVarargs
  private static UnaryOperator<ModerationFixture> all(UnaryOperator<ModerationFixture>... steps) {
    return f -> {
      for (UnaryOperator<ModerationFixture> s : steps) {
        s.apply(f);
      }
      return f;
    };
  }

  private static Arguments row(String why, Person target, UnaryOperator<ModerationFixture> around,
      List<Evidence> evidence,
      boolean slack, String expected) {
    return Arguments.of(why, target, around, evidence, slack, expected);
  }

  static Stream<Arguments> rules() {
    UnaryOperator<ModerationFixture> nothing = f -> f;
    Person staff = person("staff", "staff", null, Duration.ofHours(2), BIO);
    Person imported = person("imported", "user", "laddr-7", Duration.ofHours(2), BIO);
    Person old = person("old", "user", null, Duration.ofDays(8), BIO);
    return Stream.of(
        row("a brand-new member citing their bio", SPAM, nothing, BIO_ONLY, false, null),
        // the evidence is looked up first
        row("evidence: an empty bio", person("quiet", "user", null, Duration.ofHours(2), " "), nothing, BIO_ONLY, false,
            "evidence_invalid"),
        row("evidence: no such update", SPAM, nothing, List.of(new Evidence.Update("club", 1)), false,
            "evidence_invalid"),
        row("evidence: someone else's update", SPAM, all(projectOf(ALICE_CLUB), update(ALICE_CLUB, ALICE, 1, "hi")),
            List.of(new Evidence.Update("club", 1)), false, "evidence_invalid"),
        row("evidence before 1: staff citing an empty update", staff, nothing, List.of(new Evidence.Update("club", 1)),
            false, "evidence_invalid"),
        row("evidence: their own update in someone else's project", SPAM,
            all(projectOf(ALICE_CLUB), membership(ALICE_CLUB, ALICE, true), update(ALICE_CLUB, SPAM, 2, "buy")),
            List.of(new Evidence.Update("club", 2)), false, null),
        // 1. only ordinary, signed-up members
        row("1: staff", staff, nothing, BIO_ONLY, false, "protected_account"),
        row("1: imported from laddr", imported, nothing, BIO_ONLY, false, "protected_account"),
        row("1 before 2: old staff", person("oldstaff", "staff", null, Duration.ofDays(90), BIO), nothing, BIO_ONLY,
            false, "protected_account"),
        // 2. only brand-new members
        row("2: joined 8 days ago", old, nothing, BIO_ONLY, false, "member_too_old"),
        row("2 before 3: old, and a human voted", old, f -> f.vote("old", "human-ada", "legit", DAY), BIO_ONLY, false,
            "member_too_old"),
        // 3. humans are final
        row("3: a human voted spam", SPAM, f -> f.vote("spam", "human-ada", "spam", Duration.ofHours(1)), BIO_ONLY,
            false, "human_verdict_exists"),
        row("3 before 4: a human and an agent voted legit", SPAM, all(
            f -> f.vote("spam", "human-ada", "legit", Duration.ofHours(1)),
            f -> f.vote("spam", "agent-bot", "legit", Duration.ofHours(1))), BIO_ONLY, false, "human_verdict_exists"),
        // 4. no legit vote standing
        row("4: its own legit vote", SPAM, f -> f.vote("spam", "agent-bot", "legit", Duration.ofHours(1)), BIO_ONLY,
            false, "legit_vote_exists"),
        row("4: another agent's legit vote", SPAM, f -> f.vote("spam", "agent-other", "legit", Duration.ofHours(1)),
            BIO_ONLY, false, "legit_vote_exists"),
        row("4: a staged spam vote does not block", SPAM, f -> f.vote("spam", "agent-bot", "spam", Duration.ofHours(1)),
            BIO_ONLY, false, null),
        row("4 before 5: legit vote, and signed into Slack", SPAM,
            f -> f.vote("spam", "agent-bot", "legit", Duration.ofHours(1)), BIO_ONLY, true, "legit_vote_exists"),
        // 5. not established
        row("5: signed into Slack through the site", SPAM, nothing, BIO_ONLY, true, "established_member"),
        // 6. nothing shared
        row("6: a project of theirs someone else joined", SPAM,
            all(projectOf(SPAM_SHOP), membership(SPAM_SHOP, SPAM, true), membership(SPAM_SHOP, ALICE, false)),
            BIO_ONLY, false, "shared_project"),
        row("6: a maintainer of someone else's project with members", SPAM,
            all(projectOf(ALICE_CLUB), membership(ALICE_CLUB, ALICE, true), membership(ALICE_CLUB, SPAM, true)),
            BIO_ONLY, false, "shared_project"),
        row("6: a plain member of someone else's project does not block", SPAM,
            all(projectOf(ALICE_CLUB), membership(ALICE_CLUB, ALICE, true), membership(ALICE_CLUB, SPAM, false)),
            BIO_ONLY, false, null),
        row("6: a project of theirs nobody else touched goes with them", SPAM,
            all(projectOf(SPAM_SHOP), membership(SPAM_SHOP, SPAM, true)),
            List.of(new Evidence.ProjectText("shop", "title")), false, null),
        // 7. the evidence goes with the purge: every item that passes the lookup is deleted, so no row trips it
        // 8. volume
        row("8: 4 purges in the last day", SPAM, purges(4, Duration.ofHours(1)), BIO_ONLY, false, null),
        row("8: 5 purges in the last day", SPAM, purges(5, Duration.ofHours(1)), BIO_ONLY, false, "rate_limited"),
        row("8: 5 purges, more than a day ago", SPAM, purges(5, Duration.ofHours(25)), BIO_ONLY, false, null),
        row("8: purges by an earlier agent account under the slug do not count", SPAM,
            all(f -> f.person(botCreated(Duration.ofHours(1))), purges(5, Duration.ofHours(2))), BIO_ONLY, false,
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rules")
  void theRulesInOrder(String why, Person target, UnaryOperator<ModerationFixture> around, List<Evidence> evidence,
      boolean slack, String expected) {
    PublicState state = around.apply(new ModerationFixture().person(target).person(ALICE)).state();
    Optional<Refusal> refusal = AgentPurgeRules.check(state, AGENT, target, new AgentPurgeRules.Facts(evidence, slack),
        NOW);
    assertThat(refusal.map(Refusal::code).orElse(null)).isEqualTo(expected);
  }

  @Test
  void anInvalidItemIsNamedWithWhy() {
    PublicState state = new ModerationFixture().person(SPAM).state();
    List<Evidence> evidence = List.of(new Evidence.Bio(), new Evidence.Buzz("shop", "cheap-pills"));
    assertThat(AgentPurgeRules.check(state, AGENT, SPAM, new AgentPurgeRules.Facts(evidence, false), NOW))
        .contains(Refusal.evidenceInvalid(1, "no such buzz"));
  }

  @Test
  void theAllowanceSaysWhenTheOldestPurgeLeavesTheWindow() {
    PublicState state = purges(5, Duration.ofHours(22)).apply(new ModerationFixture().person(SPAM)).state();
    assertThat(AgentPurgeRules.check(state, AGENT, SPAM, new AgentPurgeRules.Facts(BIO_ONLY, false), NOW))
        .contains(Refusal.rateLimited("At most 5 purges a day", 7200));
  }

  @Test
  void anAgentAccountGoneWhileItsPurgeWaitedIsNotFound() {
    PublicState state = new ModerationFixture().person(SPAM).state()
        .apply("c2", List.of(RecordChange.delete(Sheet.PEOPLE, BOT.slug())));
    assertThat(AgentPurgeRules.check(state, AGENT, SPAM, new AgentPurgeRules.Facts(BIO_ONLY, false), NOW))
        .contains(Refusal.notFound());
  }
}
