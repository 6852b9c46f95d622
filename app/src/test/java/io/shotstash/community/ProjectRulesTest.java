package io.shotstash.community;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The project rules of docs/community-api.md: stages, lengths, the buzz URL, tag namespaces, slugs. */
class ProjectRulesTest {

  @ParameterizedTest(name = "stage {0} → {1}")
  @CsvSource(nullValues = "NULL", value = {
      "commenting, NULL", "bootstrapping, NULL", "prototyping, NULL", "testing, NULL", "maintaining, NULL",
      "drifting, NULL", "hibernating, NULL",
      "Prototyping, 'must be one of bootstrapping, commenting, drifting, hibernating, maintaining, prototyping, testing'",
      "done, 'must be one of bootstrapping, commenting, drifting, hibernating, maintaining, prototyping, testing'"})
  void stages(String stage, String problem) {
    assertThat(ProjectRules.stageProblem(stage)).isEqualTo(problem);
  }

  static Stream<Arguments> lengths() {
    return Stream.of(
        Arguments.of("title", ProjectRules.TITLE, 1, 200),
        Arguments.of("summary", ProjectRules.SUMMARY, 0, 1000),
        Arguments.of("overview", ProjectRules.OVERVIEW, 0, 20000),
        Arguments.of("update body", ProjectRules.UPDATE_BODY, 1, 20000),
        Arguments.of("buzz headline", ProjectRules.BUZZ_HEADLINE, 1, 200),
        Arguments.of("buzz url", ProjectRules.BUZZ_URL, 1, 2000),
        Arguments.of("buzz summary", ProjectRules.BUZZ_SUMMARY, 0, 2000),
        Arguments.of("role title", ProjectRules.ROLE_TITLE, 1, 200),
        Arguments.of("role description", ProjectRules.ROLE_DESCRIPTION, 1, 10000),
        Arguments.of("interest message", ProjectRules.INTEREST_MESSAGE, 0, 2000),
        Arguments.of("tag title", ProjectRules.TAG_TITLE, 1, 100),
        Arguments.of("staff purge reason", PeopleWrites.PURGE_REASON, 1, 1000));
  }

  @ParameterizedTest(name = "{0}: {2} to {3} characters")
  @MethodSource("lengths")
  void eachTextHasItsDocumentedLength(String what, TextLength length, int min, int max) {
    String problem = "must be " + min + " to " + max + " characters";
    assertThat(length.problem("x".repeat(min))).isNull();
    assertThat(length.problem("x".repeat(max))).isNull();
    assertThat(length.problem("x".repeat(max + 1))).isEqualTo(problem);
    if (min > 0) {
      assertThat(length.problem("x".repeat(min - 1))).isEqualTo(problem);
    }
  }

  @ParameterizedTest(name = "{0} → {1}")
  @CsvSource(nullValues = "NULL", value = {
      "https://news.example.org/transit-map, NULL",
      "http://example.org, NULL",
      "HTTPS://example.org, must be an http or https URL",
      "ftp://example.org, must be an http or https URL",
      "https://, must be an http or https URL",
      "'https://example.org/a b', must be an http or https URL",
      "javascript:alert(1), must be an http or https URL",
      "example.org, must be an http or https URL"})
  void theBuzzUrl(String url, String problem) {
    assertThat(ProjectRules.buzzUrlProblem(url)).isEqualTo(problem);
  }

  @ParameterizedTest(name = "namespace {0} → {1}")
  @CsvSource(nullValues = "NULL", value = {
      "topic, NULL", "tech, NULL", "event, NULL", "Tech, 'must be topic, tech or event'",
      "people, 'must be topic, tech or event'", "NULL, 'must be topic, tech or event'"})
  void tagNamespaces(String namespace, String problem) {
    assertThat(ProjectRules.namespaceProblem(namespace)).isEqualTo(problem);
  }

  @ParameterizedTest(name = "{0} {1} → {2}")
  @CsvSource(nullValues = "NULL", value = {
      "project, transit_map-2, NULL",
      "project, t, 'must be 2 to 80 lowercase letters, digits, - or _'",
      "project, Transit, 'must be 2 to 80 lowercase letters, digits, - or _'",
      "buzz, evening-news, NULL",
      "buzz, evening_news, 'must be 2 to 100 lowercase letters, digits or dashes'",
      "tag, j, NULL",
      "tag, java_17, 'must be 1 to 50 lowercase letters, digits or dashes'"})
  void chosenSlugs(String kind, String slug, String problem) {
    String actual = switch (kind) {
      case "project" -> ProjectRules.projectSlugProblem(slug);
      case "buzz" -> ProjectRules.buzzSlugProblem(slug);
      default -> ProjectRules.tagSlugProblem(slug);
    };
    assertThat(actual).isEqualTo(problem);
  }
}
