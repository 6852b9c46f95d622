package io.shotstash.people;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class PersonRulesTest {
  private static final String FORMAT =
      "must be 2 to 50 lowercase letters, digits or dashes, starting with a letter or digit";
  private static final String GOOD_PASSWORD = "correct horse";

  // ---- slugs ----

  @ParameterizedTest
  @ValueSource(strings = {"ab", "a1", "1a", "99", "jane-doe", "jane--doe", "jane-", "0-0",
      "abcdefghijklmnopqrstuvwxyz0123456789-abcdefghijklm"}) // the last one is 50 characters
  void slugsOfTwoToFiftyLowercaseLettersDigitsOrDashesAreAccepted(String slug) {
    assertThat(PersonRules.slugProblem(slug)).isNull();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"a", "-ab", "Jane", "jane_doe", "jane.doe", "jane doe", " jane", "jane\n", "jané",
      "abcdefghijklmnopqrstuvwxyz0123456789-abcdefghijklmn"}) // the last one is 51 characters
  void slugsBreakingTheFormatAreRefused(String slug) {
    assertThat(PersonRules.slugProblem(slug)).isEqualTo(FORMAT);
  }

  @Test
  void theSlugLengthBoundsAreTwoAndFifty() {
    assertThat(PersonRules.slugProblem("a".repeat(2))).isNull();
    assertThat(PersonRules.slugProblem("a".repeat(50))).isNull();
    assertThat(PersonRules.slugProblem("a".repeat(1))).isEqualTo(FORMAT);
    assertThat(PersonRules.slugProblem("a".repeat(51))).isEqualTo(FORMAT);
  }

  @ParameterizedTest
  @ValueSource(strings = {"new", "create", "edit", "delete", "restore", "me", "current", "self", "admin", "staff",
      "system", "api", "auth", "login", "logout", "members", "people", "projects", "tags"})
  void everyReservedSlugOfDataMdIsRefused(String slug) {
    assertThat(PersonRules.RESERVED).contains(slug);
    assertThat(PersonRules.slugProblem(slug)).isEqualTo("is reserved");
  }

  @Test
  void theReservedListIsExactlyTheOneOfDataMd() {
    assertThat(PersonRules.RESERVED).containsExactlyInAnyOrder("new", "create", "edit", "delete", "restore", "me",
        "current", "self", "admin", "staff", "system", "api", "auth", "login", "logout", "members", "people",
        "projects", "tags");
  }

  @ParameterizedTest
  @ValueSource(strings = {"admins", "my-admin", "api2", "newt", "tag"})
  void slugsThatOnlyContainAReservedWordAreAccepted(String slug) {
    assertThat(PersonRules.slugProblem(slug)).isNull();
  }

  @Test
  void aReservedWordInAnotherCaseIsAFormatProblem() {
    assertThat(PersonRules.slugProblem("Admin")).isEqualTo(FORMAT);
  }

  @Test
  void aSlugIsTakenByAnyPersonInAnyCaseDeactivatedOrNot() {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    Person active =
        new Person("id-1", null, "jane-doe", "Jane", null, null, "user", null, null, null, null, null, t, t);
    Person gone = new Person("id-2", null, "old-timer", "Old", null, null, "user", null, null, null, t, "admin", t, t);
    PublicState state = PublicState.empty().apply("c1", List.of(RecordChange.put(Sheet.PEOPLE, "jane-doe", active),
        RecordChange.put(Sheet.PEOPLE, "old-timer", gone)));
    assertThat(PersonRules.slugTaken(state, "jane-doe")).isTrue();
    assertThat(PersonRules.slugTaken(state, "Jane-Doe")).isTrue();
    assertThat(PersonRules.slugTaken(state, "old-timer")).isTrue();
    assertThat(PersonRules.slugTaken(state, "someone-else")).isFalse();
  }

  // ---- full names ----

  @ParameterizedTest
  @ValueSource(strings = {"J", "Jane Doe", "Zoë O'Brien-Smith", "李小龙", "  padded  "})
  void fullNamesAreAccepted(String name) {
    assertThat(PersonRules.fullNameProblem(name)).isNull();
  }

  @Test
  void aFullNameIsAtMostOneHundredCharactersOnceStripped() {
    assertThat(PersonRules.fullNameProblem("x".repeat(100))).isNull();
    assertThat(PersonRules.fullNameProblem("  " + "x".repeat(100) + "  ")).isNull();
    assertThat(PersonRules.fullNameProblem("x".repeat(101))).isEqualTo("must be at most 100 characters");
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {" ", "\t", "   \n  "})
  void aFullNameIsRequired(String name) {
    assertThat(PersonRules.fullNameProblem(name)).isEqualTo("is required");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Jane\nDoe", "Jane\tDoe", "Jane\u0000", "Jane\u007f", "Jane\u0085Doe", "\rJane"})
  void aFullNameHasNoControlCharacters(String name) {
    assertThat(PersonRules.fullNameProblem(name)).isEqualTo("must not contain control characters");
  }

  // ---- emails ----

  @ParameterizedTest
  @ValueSource(strings = {"a@b.co", "jane.doe+tag@example.org", "JANE@EXAMPLE.ORG", "x@mail.example-host.io",
      "  jane@example.org  "})
  void emailAddressesAreAccepted(String email) {
    assertThat(PersonRules.emailProblem(email)).isNull();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"jane", "jane@", "@example.org", "jane@localhost", "jane@exa_mple.org", "ja ne@example.org",
      "jane@@example.org", "jane@example..org", "jane@example.org.", "jane@ex ample.org"})
  void malformedEmailAddressesAreRefused(String email) {
    assertThat(PersonRules.emailProblem(email)).isEqualTo("must be an email address");
  }

  @Test
  void anEmailLocalPartIsAtMostSixtyFourCharacters() {
    assertThat(PersonRules.emailProblem("x".repeat(64) + "@example.org")).isNull();
    assertThat(PersonRules.emailProblem("x".repeat(65) + "@example.org")).isEqualTo("must be an email address");
  }

  @Test
  void anEmailIsAtMost254Characters() {
    String label = "d".repeat(60);
    String domain = label + "." + label + "." + label + "." + label + ".org"; // 247 characters
    String at254 = "x".repeat(254 - domain.length() - 1) + "@" + domain;
    assertThat(at254).hasSize(254);
    assertThat(PersonRules.emailProblem(at254)).isNull();
    assertThat(PersonRules.emailProblem("x" + at254)).isEqualTo("must be an email address");
  }

  @ParameterizedTest
  @CsvSource({"Jane@Example.ORG, jane@example.org", "'  a@b.co  ', a@b.co"})
  void emailsAreNormalizedStrippedAndLowerCase(String raw, String normalized) {
    assertThat(PersonRules.normalizeEmail(raw)).isEqualTo(normalized);
  }

  // ---- passwords ----

  @ParameterizedTest
  @CsvSource({
      "0,   must be at least 10 characters",
      "9,   must be at least 10 characters",
      "10,  ",
      "200, ",
      "201, must be at most 200 characters"})
  void passwordsAreTenToTwoHundredCharacters(int length, String problem) {
    assertThat(PersonRules.passwordProblem("p".repeat(length))).isEqualTo(problem);
  }

  @Test
  void aNullPasswordIsTooShort() {
    assertThat(PersonRules.passwordProblem(null)).isEqualTo("must be at least 10 characters");
  }

  // ---- new accounts ----

  @Test
  void aValidNewAccountHasNoProblems() {
    assertThat(PersonRules.newAccountProblems("jane-doe", "Jane Doe", "jane@example.org", GOOD_PASSWORD, true,
        "editor")).isEmpty();
    assertThat(PersonRules.newAccountProblems("jane-doe", "Jane Doe", "jane@example.org", null, false, null))
        .isEmpty();
  }

  @Test
  void newAccountProblemsCollectsEveryBadFieldInFieldOrder() {
    Map<String, String> problems = PersonRules.newAccountProblems("Bad Slug", "", "not-an-email", "short", false,
        "superuser");
    assertThat(problems).containsExactly(
        entry("slug", FORMAT),
        entry("fullName", "is required"),
        entry("email", "must be an email address"),
        entry("password", "must be at least 10 characters"),
        entry("accountLevel", "must be one of user, editor, staff, administrator"));
  }

  @Test
  void newAccountProblemsReportsOnlyTheBadFields() {
    assertThat(PersonRules.newAccountProblems("admin", "Jane Doe", "jane@", GOOD_PASSWORD, true, "user"))
        .containsExactly(entry("slug", "is reserved"), entry("email", "must be an email address"));
  }

  @ParameterizedTest
  @CsvSource({
      "true,  , must be at least 10 characters",
      "false, , ",
      "false, short, must be at least 10 characters",
      "true,  correct horse, "})
  void aPasswordIsCheckedWhenRequiredOrGiven(boolean required, String password, String problem) {
    Map<String, String> problems = PersonRules.newAccountProblems("jane-doe", "Jane", "jane@example.org", password,
        required, null);
    if (problem == null) {
      assertThat(problems).doesNotContainKey("password");
    } else {
      assertThat(problems).containsExactly(entry("password", problem));
    }
  }

  @ParameterizedTest
  @CsvSource({"user, true", "editor, true", "staff, true", "administrator, true", "admin, false",
      "Administrator, false", "USER, false", "'', false", "' user', false", "root, false"})
  void theAccountLevelIsOneOfTheFourWireValues(String level, boolean valid) {
    Map<String, String> problems = PersonRules.newAccountProblems("jane-doe", "Jane", "jane@example.org", null, false,
        level);
    if (valid) {
      assertThat(problems).isEmpty();
    } else {
      assertThat(problems).containsExactly(entry("accountLevel", "must be one of user, editor, staff, administrator"));
    }
  }

  @Test
  void aMissingAccountLevelIsNoProblem() {
    assertThat(PersonRules.newAccountProblems("jane-doe", "Jane", "jane@example.org", null, false, null)).isEmpty();
  }
}
