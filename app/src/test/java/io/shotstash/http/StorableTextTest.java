package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rule the body readers apply to every string: U+0000 (PostgreSQL refuses it) and a lone
 * UTF-16 surrogate (stored as {@code ?}, refused by the TOML writer) cannot be stored as sent.
 */
class StorableTextTest {

  @ParameterizedTest(name = "storable: {0}")
  @ValueSource(strings = {"", "plain", "Café ☕.mp4", "emoji 😀 pair", "tab\tand newline\n", "\uFFFD", "\uD83D\uDE00"})
  void ordinaryTextAndProperPairsAreStorable(String text) {
    assertThat(StorableText.problem(text)).isNull();
    assertThat(StorableText.storable(text)).isTrue();
  }

  @Test
  void nullIsStorable() {
    assertThat(StorableText.problem(null)).isNull();
  }

  @ParameterizedTest(name = "NUL in {0}")
  @ValueSource(strings = {"\u0000", "a\u0000b@example.org", "end\u0000"})
  void theNulCharacterIsNot(String text) {
    assertThat(StorableText.problem(text)).isEqualTo(StorableText.NUL);
  }

  @ParameterizedTest(name = "lone surrogate in {0}")
  @ValueSource(strings = {"\uD800", "s\uD800@example.org", "x\uDC00", "\uDE00\uD83D",
      "pair then lone \uD83D\uDE00\uD83D",
      "high at the end \uDBFF"})
  void aLoneSurrogateIsNot(String text) {
    assertThat(StorableText.problem(text)).isEqualTo(StorableText.LONE_SURROGATE);
  }

  @Test
  void findNamesThePathOfTheFirstProblemInNestedDocuments() {
    JsonObject doc = new JsonObject().put("ok", "fine").put("manifest", new JsonObject().put("name", "w\u0000")
        .put("kinds", new JsonArray().add("a/b")));
    assertThat(StorableText.find("", doc)).isEqualTo(new StorableText.Problem("manifest.name", StorableText.NUL));

    JsonObject inList = new JsonObject().put("evidence", new JsonArray().add(new JsonObject().put("id", "1"))
        .add(new JsonObject().put("field", "x\uD800")));
    assertThat(StorableText.find("", inList))
        .isEqualTo(new StorableText.Problem("evidence[1].field", StorableText.LONE_SURROGATE));

    assertThat(StorableText.find("", new JsonObject().put("a\u0000", 1)).path()).isEqualTo("a\u0000");
    assertThat(StorableText.find("", new JsonObject().put("n", 1).put("b", true).putNull("z")
        .put("list", new JsonArray().add(1).add("x")))).isNull();
    // plain Java shapes too, with no Vert.x type involved
    assertThat(StorableText.find("body", Map.of("tags", List.of("ok", "\uDC00"))))
        .isEqualTo(new StorableText.Problem("body.tags[1]", StorableText.LONE_SURROGATE));
    assertThat(StorableText.find("top", "\u0000")).isEqualTo(new StorableText.Problem("top", StorableText.NUL));
  }

  @Test
  void findAllNamesEveryTopLevelFieldThatHoldsAProblem() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("email", "a\u0000@example.org");
    fields.put("fullName", "fine");
    fields.put("bio", Map.of("text", "\uD800"));
    assertThat(StorableText.findAll(new JsonObject(fields))).containsExactly(
        new StorableText.Problem("email", StorableText.NUL),
        new StorableText.Problem("bio.text", StorableText.LONE_SURROGATE));
    assertThat(StorableText.findAll(new JsonObject().put("a", "b"))).isEmpty();
  }
}
