package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The roster's search: q over slug, name, bio (case-insensitive) and email (the domain only for
 * agents), the other filters, the orders, and when the index must be built again.
 */
class RosterIndexTest {
  private static final Instant T0 = Instant.parse("2026-10-01T00:00:00Z");

  private static final Map<UUID, String> EMAILS = new HashMap<>();

  private static Person person(int n, String slug, String name, String bio, String email, Instant deletedAt,
      String legacyId, Boolean agent) {
    UUID id = new UUID(0, n);
    if (email != null) {
      EMAILS.put(id, email);
    }
    return new Person(id.toString(), legacyId, slug, name, bio, null, "user", agent, null, null, deletedAt,
        deletedAt == null ? null : "moderation", T0.plusSeconds(n * 3600L), T0);
  }

  private static final List<Person> PEOPLE = List.of(
      person(1, "ada", "Ada Lovelace", "Writes *notes* on the Analytical Engine.", "ada@example.org", null, "L-1",
          null),
      person(2, "grace", "Grace Hopper", "COBOL, compilers and nanoseconds.", "grace@navy.example", null, null, null),
      person(3, "spammy", "Best SEO Deals", "Cheap links at seo-deals dot com", "deals@mailinator.com", T0, null, null),
      person(4, "bot-one", "Bot One", "An agent account", "bot@example.org", null, null, true),
      person(5, "alan", "Alan Turing", null, null, null, null, null),
      // same sign-up time as alan: the slug breaks the tie
      new Person(new UUID(0, 6).toString(), null, "aaron", "Aaron Swartz", "RSS.\nAnd more", null, "user", null, null,
          null, null, null, T0.plusSeconds(5 * 3600L), T0));

  private static PublicState state(List<Person> people, List<RecordChange> more) {
    List<RecordChange> records = new ArrayList<>();
    for (Person p : people) {
      records.add(RecordChange.put(Sheet.PEOPLE, p.slug(), p));
    }
    records.addAll(more);
    return PublicState.of("c1", records);
  }

  private static final PublicState STATE = state(PEOPLE, List.of());
  private static final RosterIndex INDEX = RosterIndex.of(STATE, EMAILS);

  private static RosterQuery query(String q) {
    return new RosterQuery(q, null, null, null, null, true, "createdAt", true, 1, 50);
  }

  private static List<String> slugs(RosterQuery q, boolean agent) {
    return INDEX.matching(STATE, q, agent, Map.of()).stream().map(Person::slug).toList();
  }

  @Test
  void noFilterListsEveryMemberButAgentsNewestFirstTiesBySlug() {
    assertThat(slugs(query(null), false)).containsExactly("aaron", "alan", "spammy", "grace", "ada");
  }

  @ParameterizedTest(name = "q={0} -> {1}")
  @CsvSource(delimiter = ';', value = {
      "grace;grace", // slug and name
      "LOVELACE;ada", // name, case-insensitive
      "analytical;ada", // bio
      "nanoseconds;grace",
      "example.org;ada", // email (the agent's email matches too, but agents are not listed)
      "navy;grace", // email domain part
      "mailinator;spammy",
      "deals;spammy", // email local part and slug/name/bio
      "a;aaron,alan,spammy,grace,ada",
      "zz;",
      "rss.;aaron"})
  void staffSearchSlugNameBioAndEmail(String q, String expected) {
    assertThat(slugs(query(q), false))
        .containsExactlyElementsOf(expected == null ? List.of() : List.of(expected.split(",")));
  }

  @Test
  void agentsSearchOnlyTheEmailDomainOfThePrivateProfile() {
    // "deals@" is the local part: staff find it through the email, an agent only through slug/name/bio
    assertThat(slugs(query("deals@"), false)).containsExactly("spammy");
    assertThat(slugs(query("deals@"), true)).isEmpty();
    assertThat(slugs(query("navy.example"), true)).containsExactly("grace");
    assertThat(slugs(query("grace@"), true)).isEmpty();
  }

  @Test
  void aNeedleWithALineBreakDoesNotMatchAcrossFields() {
    assertThat(slugs(query("aaron\naaron"), false)).isEmpty(); // slug + "\n" + name would match if joined
    assertThat(slugs(query("rss.\nand"), false)).containsExactly("aaron"); // a line break inside one bio
  }

  @Test
  void otherFiltersApplyAfterTheSearch() {
    RosterQuery active = new RosterQuery("a", null, null, null, null, false, "createdAt", true, 1, 50);
    assertThat(INDEX.matching(STATE, active, false, Map.of()).stream().map(Person::slug))
        .containsExactly("aaron", "alan", "grace", "ada");
    RosterQuery imported = new RosterQuery(null, null, "imported", null, null, true, "createdAt", true, 1, 50);
    assertThat(INDEX.matching(STATE, imported, false, Map.of()).stream().map(Person::slug)).containsExactly("ada");
    RosterQuery window = new RosterQuery(null, null, null, T0.plusSeconds(2 * 3600L), T0.plusSeconds(3 * 3600L), true,
        "createdAt", true, 1, 50);
    assertThat(INDEX.matching(STATE, window, false, Map.of()).stream().map(Person::slug)).containsExactly("spammy",
        "grace");
  }

  @Test
  void theVoteFilterReadsTheVotesOfTheState() {
    PersonEvaluation vote = new PersonEvaluation("grace", "human-chris", "legit", null, List.of("manual-override"), 1.0,
        T0.plusSeconds(86_400));
    PublicState voted =
        state(PEOPLE, List.of(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote)));
    RosterIndex index = RosterIndex.of(voted, EMAILS);
    RosterQuery legit = new RosterQuery(null, "legit", null, null, null, true, "createdAt", true, 1, 50);
    assertThat(index.matching(voted, legit, false, Map.of()).stream().map(Person::slug)).containsExactly("grace");
    RosterQuery none = new RosterQuery(null, "none", null, null, null, true, "createdAt", true, 1, 50);
    assertThat(index.matching(voted, none, false, Map.of())).extracting(Person::slug).doesNotContain("grace")
        .hasSize(4);
  }

  @Test
  void otherOrdersSortTheMatches() {
    RosterQuery byName = new RosterQuery(null, null, null, null, null, true, "fullName", false, 1, 50);
    assertThat(slugs(byName, false)).containsExactly("aaron", "ada", "alan", "spammy", "grace");
    RosterQuery oldest = new RosterQuery(null, null, null, null, null, true, "createdAt", false, 1, 50);
    assertThat(slugs(oldest, false)).containsExactly("ada", "grace", "spammy", "aaron", "alan");
    RosterQuery lastLogin = new RosterQuery(null, null, null, null, null, true, "lastLoginAt", true, 1, 50);
    Map<String, Instant> logins = Map.of(new UUID(0, 1).toString(), T0.plusSeconds(99), new UUID(0, 2).toString(), T0);
    assertThat(INDEX.matching(STATE, lastLogin, false, logins).stream().map(Person::slug))
        .containsExactly("ada", "grace", "aaron", "alan", "spammy");
  }

  @Test
  void theIndexLastsUntilThePeopleChange() {
    PersonEvaluation vote = new PersonEvaluation("grace", "human-chris", "legit", null, List.of(), 1.0, T0);
    PublicState afterVote =
        STATE.apply("c2", List.of(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote)));
    assertThat(INDEX.isFor(afterVote)).isTrue();
    Person renamed = PEOPLE.get(1);
    PublicState afterEdit = afterVote.apply("c3", List.of(RecordChange.put(Sheet.PEOPLE, renamed.slug(), renamed)));
    assertThat(INDEX.isFor(afterEdit)).isFalse();
  }

  @Test
  void theDomainIsWhatSplitPartGives() {
    assertThat(RosterIndex.domain("a@b.example")).isEqualTo("b.example");
    assertThat(RosterIndex.domain("a@b@c")).isEqualTo("b");
    assertThat(RosterIndex.domain("no-at")).isEmpty();
  }
}
