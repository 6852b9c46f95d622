package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Making a slug from a title (projects, buzz): folding, dashes, length, collisions. */
class SlugsTest {
  private static final Predicate<String> NONE_TAKEN = s -> false;

  private static Predicate<String> taken(String... slugs) {
    Set<String> set = Set.of(slugs);
    return set::contains;
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "Café Crème          | cafe-creme",
      "Ñandú über naïve    | nandu-uber-naive",
      "Ångström Émigré     | angstrom-emigre",
      "ﬁle ﬂow             | file-flow",
      "HELLO World         | hello-world",
  })
  void foldsAccentsAndCase(String title, String expected) {
    assertThat(Slugs.fromTitle(title, 80, NONE_TAKEN)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'  Hello,   World!!  ' | hello-world",
      "'--Philly -- Transit--' | philly-transit",
      "'a_b.c/d'              | a-b-c-d",
      "'Code for Philly 2026' | code-for-philly-2026",
      "'x — y'                | x-y",
  })
  void runsOfOtherCharactersBecomeOneDashAndEdgesAreTrimmed(String title, String expected) {
    String slug = Slugs.fromTitle(title, 80, NONE_TAKEN);
    assertThat(slug).isEqualTo(expected).doesNotContain("--").doesNotStartWith("-").doesNotEndWith("-");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "!!!", "日本語", "x", "é"})
  void aTitleWithTooLittleToUseStillGivesAValidSlug(String title) {
    String slug = Slugs.fromTitle(title, 80, NONE_TAKEN);
    assertThat(slug).matches(Slugs.PROJECT.pattern()).matches(Slugs.BUZZ.pattern());
  }

  @Test
  void isCutToTheMaximumLength() {
    String slug = Slugs.fromTitle("a".repeat(120), 80, NONE_TAKEN);
    assertThat(slug).isEqualTo("a".repeat(80)).matches(Slugs.PROJECT.pattern());
    assertThat(Slugs.fromTitle("b".repeat(150), 100, NONE_TAKEN)).hasSize(100).matches(Slugs.BUZZ.pattern());
  }

  @Test
  void aCutNeverLeavesATrailingDash() {
    // the 80th character is the dash between the words
    String title = "a".repeat(79) + " bcd";
    assertThat(Slugs.fromTitle(title, 80, NONE_TAKEN)).isEqualTo("a".repeat(79));
  }

  @Test
  void collisionsGetTwoThenThree() {
    assertThat(Slugs.fromTitle("Hello World", 80, taken("hello-world"))).isEqualTo("hello-world-2");
    assertThat(Slugs.fromTitle("Hello World", 80, taken("hello-world", "hello-world-2"))).isEqualTo("hello-world-3");
    // a free base is used as is even when numbered variants are taken
    assertThat(Slugs.fromTitle("Hello World", 80, taken("hello-world-2"))).isEqualTo("hello-world");
  }

  @Test
  void aNumberedSlugStaysWithinTheMaximum() {
    String base = "a".repeat(80);
    String slug = Slugs.fromTitle(base, 80, taken(base));
    assertThat(slug).hasSize(80).endsWith("-2").matches(Slugs.PROJECT.pattern());
    String third = Slugs.fromTitle(base, 80, taken(base, slug));
    assertThat(third).hasSize(80).endsWith("-3").isNotEqualTo(slug);
  }

  @Test
  void slugPatterns() {
    assertThat(Slugs.PROJECT.matcher("code_for-philly").matches()).isTrue();
    assertThat(Slugs.PROJECT.matcher("a").matches()).isFalse();
    assertThat(Slugs.PROJECT.matcher("-ab").matches()).isFalse();
    assertThat(Slugs.PROJECT.matcher("Ab").matches()).isFalse();
    assertThat(Slugs.PROJECT.matcher("a".repeat(81)).matches()).isFalse();
    assertThat(Slugs.BUZZ.matcher("a_b").matches()).isFalse();
    assertThat(Slugs.BUZZ.matcher("a".repeat(100)).matches()).isTrue();
    assertThat(Slugs.TAG.matcher("x").matches()).isTrue();
    assertThat(Slugs.TAG.matcher("a".repeat(51)).matches()).isFalse();
  }
}
