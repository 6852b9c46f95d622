package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The body rules of docs/moderation-api.md: an agent's flags, and text that goes into a public commit. */
class ModerationBodyRulesTest {
  static final String NOT_A_LIST = "must be a list of 0 to 10 tags";
  static final String BAD_FLAG = "each flag must match ^[a-z0-9][a-z0-9:-]{0,39}$";

  static Stream<Arguments> flags() {
    return Stream.of(
        Arguments.of("absent", null, null, List.of()),
        Arguments.of("empty", new JsonArray(), null, List.of()),
        Arguments.of("two tags", new JsonArray().add("link-farm").add("bio:seo"), null,
            List.of("link-farm", "bio:seo")),
        Arguments.of("ten", tags(10), null, tags(10).getList()),
        Arguments.of("eleven", tags(11), NOT_A_LIST, null),
        Arguments.of("a string", "spam", NOT_A_LIST, null),
        Arguments.of("an object", new JsonObject(), NOT_A_LIST, null),
        Arguments.of("a number in the list", new JsonArray().add(1), BAD_FLAG, null),
        Arguments.of("upper case", new JsonArray().add("Spam"), BAD_FLAG, null),
        Arguments.of("leading dash", new JsonArray().add("-spam"), BAD_FLAG, null),
        Arguments.of("leading colon", new JsonArray().add(":spam"), BAD_FLAG, null),
        Arguments.of("a space", new JsonArray().add("link farm"), BAD_FLAG, null),
        Arguments.of("empty tag", new JsonArray().add(""), BAD_FLAG, null),
        Arguments.of("40 characters", new JsonArray().add("a".repeat(40)), null, List.of("a".repeat(40))),
        Arguments.of("41 characters", new JsonArray().add("a".repeat(41)), BAD_FLAG, null));
  }

  private static JsonArray tags(int n) {
    JsonArray out = new JsonArray();
    for (int i = 0; i < n; i++) {
      out.add("tag-" + i);
    }
    return out;
  }

  @ParameterizedTest(name = "flags {0} → {2}")
  @MethodSource("flags")
  void flags(String what, Object flags, String problem, List<String> parsed) {
    assertThat(ModerationBodyRules.flagsProblem(flags)).isEqualTo(problem);
    if (problem == null) {
      assertThat(ModerationBodyRules.flags(flags)).isEqualTo(parsed);
    }
  }

  @ParameterizedTest(name = "public text \"{0}\" (required {1}) → {2}")
  @CsvSource(nullValues = "NULL", value = {
      "NULL, true, is required (1 to 1000 characters)",
      "'', true, is required (1 to 1000 characters)",
      "'   ', true, is required (1 to 1000 characters)",
      "NULL, false, NULL",
      "'   ', false, NULL",
      "Posts ads for a casino on every project, true, NULL",
      "'Links to example.com in every update', true, must not contain a URL or a domain; describe it instead",
      "'see https://spam.example', true, must not contain a URL or a domain; describe it instead",
      "'see www.spam', true, must not contain a URL or a domain; describe it instead"})
  void publicText(String text, boolean required, String problem) {
    assertThat(ModerationBodyRules.publicTextProblem(text, required)).isEqualTo(problem);
  }

  @ParameterizedTest(name = "{0} characters → {1}")
  @CsvSource(nullValues = "NULL", value = {"1, NULL", "1000, NULL", "1001, must be at most 1000 characters"})
  void publicTextLength(int length, String problem) {
    assertThat(ModerationBodyRules.publicTextProblem("x".repeat(length), true)).isEqualTo(problem);
  }

  @ParameterizedTest(name = "control character {0} → refused")
  @CsvSource({"10", "13", "9", "0", "127"})
  void publicTextHasNoControlCharacters(int codePoint) {
    assertThat(ModerationBodyRules.publicTextProblem("spam" + (char) codePoint + "bot", true))
        .isEqualTo("must not contain control characters or line breaks");
  }

  @ParameterizedTest(name = "length only: {0} characters → {1}")
  @CsvSource(nullValues = "NULL", value = {"0, NULL", "1000, NULL", "1001, must be at most 1000 characters"})
  void lengthOnly(int length, String problem) {
    assertThat(ModerationBodyRules.lengthProblem("x".repeat(length))).isEqualTo(problem);
    assertThat(ModerationBodyRules.lengthProblem(null)).isNull();
  }
}
