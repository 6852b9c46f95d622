package io.shotstash.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.app.InstanceIdentity.DatabaseFacts;
import io.shotstash.app.InstanceIdentity.Decision;
import io.shotstash.app.InstanceIdentity.Refuse;
import io.shotstash.app.InstanceIdentity.RepositoryFacts;
import io.shotstash.app.InstanceIdentity.Start;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The decision table of one database, one data repository (docs/public-data.md). */
class InstanceIdentityTest {
  private static final String DB = "postgresql://shotstash@db.example:5433/shotstash";
  private static final String REPO = "/data/public.git";
  private static final String A = "0b7e3f7a-3c43-4d59-9c1e-5a0e7d7b2a01";
  private static final String B = "6f3f1c2e-8d4b-4a7e-b1f0-2c9d8e7a6b02";
  private static final String NEW = "c0ffee00-0000-4000-8000-000000000003";

  private static DatabaseFacts db(String id, boolean people) {
    return new DatabaseFacts(DB, id, people);
  }

  private static RepositoryFacts missing() {
    return new RepositoryFacts(REPO, false, null, false);
  }

  private static RepositoryFacts repo(String id, boolean people) {
    return new RepositoryFacts(REPO, true, id, people);
  }

  private static Decision decide(DatabaseFacts db, RepositoryFacts repo) {
    return InstanceIdentity.decide(db, repo, () -> NEW);
  }

  private static String refusal(DatabaseFacts db, RepositoryFacts repo) {
    Decision d = decide(db, repo);
    assertThat(d).isInstanceOf(Refuse.class);
    String message = ((Refuse) d).message();
    assertThat(message).startsWith("Shotstash will not start: ").endsWith(InstanceIdentity.WHAT_TO_DO);
    assertThat(message.lines()).hasSize(2); // the problem, then what to do
    return message;
  }

  // ---- starts

  /** The rows of the table that start: what each side holds, and the start that makes. */
  static Stream<Arguments> starts() {
    return Stream.of(
        Arguments.of("a fresh database and a missing repository start as a new instance recorded in both",
            db(null, false), missing(), new Start(NEW, true, true)),
        Arguments.of("a fresh database and a fresh repository start as a new instance recorded in both",
            db(null, false), repo(null, false), new Start(NEW, true, true)),
        Arguments.of("the same id on both sides starts and records nothing", db(A, true), repo(A, true),
            new Start(A, false, false)),
        Arguments.of("the same id on both sides, before setup, starts and records nothing", db(A, false),
            repo(A, false), new Start(A, false, false)),
        Arguments.of("an installation from before ids is adopted with one new id in both", db(null, true),
            repo(null, true), new Start(NEW, true, true)),
        Arguments.of("an existing gitsheets repository brought to a new database is adopted", db(null, false),
            repo(null, true), new Start(NEW, true, true)),
        // e.g. a first start that never got to setup, then a new database: nothing private is lost
        Arguments.of("a new database takes the id of a repository that has no people yet", db(null, false),
            repo(B, false), new Start(B, true, false)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("starts")
  void theseStart(String row, DatabaseFacts db, RepositoryFacts repo, Start start) {
    assertThat(decide(db, repo)).isEqualTo(start);
  }

  // ---- refusals

  @Test
  void aDatabaseWithAnIdRefusesAMissingRepositoryNamingBoth() {
    String message = refusal(db(A, true), missing());
    assertThat(message).contains(DB).contains(REPO).contains(A).contains("there is no data repository at " + REPO);
    // even before setup: the database already belongs to instance A
    assertThat(refusal(db(A, false), missing())).contains(DB).contains(REPO);
  }

  @Test
  void aDatabaseWithAnIdRefusesARepositoryWithoutOne() {
    assertThat(refusal(db(A, true), repo(null, false))).contains(DB).contains(REPO).contains("has no instance id");
    // a repository from before ids (e.g. restored from an old backup) is not taken on trust either
    assertThat(refusal(db(A, true), repo(null, true))).contains(DB).contains(REPO).contains("has no instance id");
  }

  @Test
  void twoDifferentIdsRefuseNamingBothLocationsAndBothIds() {
    String message = refusal(db(A, true), repo(B, true));
    assertThat(message).contains("the database " + DB + " belongs to Shotstash instance " + A)
        .contains("the data repository " + REPO + " belongs to instance " + B);
    assertThat(refusal(db(A, false), repo(B, false))).contains(A).contains(B);
  }

  @Test
  void aDatabaseWithPeopleRefusesARepositoryWithoutPeople() {
    // the case of issue 16: today's app would make a new empty repository and ask for setup again
    assertThat(refusal(db(null, true), missing())).contains("the database " + DB + " already has people")
        .contains("there is no data repository at " + REPO);
    assertThat(refusal(db(null, true), repo(null, false))).contains(DB).contains(REPO).contains("holds no people");
    assertThat(refusal(db(null, true), repo(B, false))).contains(DB).contains(REPO);
  }

  @Test
  void aRepositoryWithAnIdAndPeopleRefusesADatabaseWithoutTheId() {
    // a lost database (new, empty) or another one from before ids
    assertThat(refusal(db(null, false), repo(B, true))).contains(DB).contains(REPO).contains(B)
        .contains("has no record of it");
    assertThat(refusal(db(null, true), repo(B, true))).contains(DB).contains(REPO).contains(B);
  }

  @Test
  void aNewIdIsMadeOnlyWhenNeitherSideHasOne() {
    int[] made = {0};
    InstanceIdentity.decide(db(A, true), repo(A, true), () -> {
      made[0]++;
      return NEW;
    });
    InstanceIdentity.decide(db(null, false), repo(B, false), () -> {
      made[0]++;
      return NEW;
    });
    assertThat(made[0]).isZero();
  }
}
