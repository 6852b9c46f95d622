package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** Kind names ({@code <namespace>/<name>}) and which files a kind applies to. */
class KindsTest {

  /**
   * The worker contract's grammar, to the letter: {@code <namespace>/<name>}, each part of
   * lowercase letters, digits, {@code .}, {@code -} and {@code _}, at most 64 characters (and at
   * least one: an empty part names nothing). It says nothing about the first character, so a part
   * may start or end with any of them. Kinds never reach a file system path (storage keys are
   * built from ids we generate), so a part of dots is only a name.
   */
  @ParameterizedTest(name = "{0} is a kind")
  @ValueSource(strings = {
      "acme/transcript", "shotstash/proxy-720p", "shotstash/heic-to-jpeg", "a/b", "0/9", "acme.io/whisper_v2",
      "a-b_c.d/e.f-g_h", "acme/x.", "acme/x-", "acme/x_",
      // a part may start with '.', '-' or '_'
      "-acme/x", "acme/-x", ".acme/x", "acme/.x", "_a/b", "a/_b", "-/-", "_/_", "./.", "../..", "._-/-_.",
      "acme/.well-known", "-/transcript",
  })
  void validKinds(String kind) {
    assertThat(Kinds.valid(kind)).isTrue();
  }

  @ParameterizedTest(name = "a part of {0} characters")
  @ValueSource(ints = {1, 2, 63, 64})
  void eachPartIsOneToSixtyFourCharacters(int n) {
    for (String c : new String[]{"a", "0", ".", "-", "_"}) {
      String part = c.repeat(n);
      assertThat(Kinds.valid(part + "/b")).as("namespace %s", part).isTrue();
      assertThat(Kinds.valid("a/" + part)).as("name %s", part).isTrue();
      assertThat(Kinds.valid(part + "/" + part)).as("both %s", part).isTrue();
    }
  }

  @Test
  void aPartOfSixtyFiveCharactersIsTooLong() {
    String p64 = "a".repeat(64);
    assertThat(Kinds.valid(p64 + "/" + p64)).isTrue();
    assertThat(Kinds.valid("a".repeat(65) + "/b")).isFalse();
    assertThat(Kinds.valid("a/" + "b".repeat(65))).isFalse();
    assertThat(Kinds.valid("-".repeat(65) + "/b")).isFalse();
    assertThat(Kinds.valid("a/" + ".".repeat(65))).isFalse();
  }

  @ParameterizedTest(name = "''{0}'' is not a kind")
  @NullAndEmptySource
  @ValueSource(strings = {
      // exactly one '/' between two non-empty parts
      "transcript", "/", "acme/", "/transcript", "a/b/c", "acme//x", "//", "a/b/",
      // only lowercase ASCII letters, digits, '.', '-', '_'
      "Acme/transcript", "acme/Transcript", "acme /x", "acme/x ", " acme/x", "acme\\x", "acme/x\n", "\nacme/x",
      "acm\u00e9/x", "acme/x y", "acme/x:y", "acme/x+y", "acme/x~", "acme/x%2f", "acme\u2215x", "acme\uff0fx",
      "acme/x\u0000", "acme/\u0131", "\uff41cme/x", "acme/x\t", "acme/x@1",
  })
  void invalidKinds(String kind) {
    assertThat(Kinds.valid(kind)).isFalse();
  }

  @ParameterizedTest(name = "a worker may list {0}: {1}")
  @CsvSource({
      "acme/transcript, true",
      "shotstash/proxy-720p, true",
      "shotstash/heic-to-jpeg, true",
      "shotstash/proxy-1080p, false",
      "shotstash/my-own, false",
      "shotstash/proxy-720p., false",
      "shotstash/.., false",
      "shotstash/-, false",
      "shotstash2/x, true",
      "shotstash.io/x, true",
      "_shotstash/x, true",
      "acme/shotstash, true",
      "Shotstash/x, false",
      "shotstash, false",
  })
  void workersMayListAnyKindButNewOnesInTheReservedNamespace(String kind, boolean registrable) {
    assertThat(Kinds.registrable(kind)).isEqualTo(registrable);
  }

  @Test
  void theBuiltInKindsAreValidAndInTheReservedNamespace() {
    assertThat(Kinds.BUILT_IN).isNotEmpty().allSatisfy(k -> {
      assertThat(Kinds.valid(k)).isTrue();
      assertThat(k).startsWith(Kinds.RESERVED_NAMESPACE);
    });
  }

  @Test
  void aKindWithoutAcceptsAppliesToEveryFile() {
    assertThat(Kinds.applies(null, "video/mp4")).isTrue();
    assertThat(Kinds.applies(null, "application/octet-stream")).isTrue();
    assertThat(Kinds.applies(null, null)).isTrue();
  }

  @Test
  void aKindWithAcceptsAppliesToMatchingMimePrefixes() {
    List<String> video = List.of("video/");
    assertThat(Kinds.applies(video, "video/mp4")).isTrue();
    assertThat(Kinds.applies(video, "video/quicktime")).isTrue();
    assertThat(Kinds.applies(video, "VIDEO/MP4")).isTrue();
    assertThat(Kinds.applies(video, "image/png")).isFalse();
    assertThat(Kinds.applies(video, "audio/video")).isFalse();
    assertThat(Kinds.applies(video, null)).isFalse();

    List<String> heic = List.of("image/heic", "image/heif");
    assertThat(Kinds.applies(heic, "image/heic")).isTrue();
    assertThat(Kinds.applies(heic, "image/heif")).isTrue();
    assertThat(Kinds.applies(heic, "image/jpeg")).isFalse();
  }

  @Test
  void anEmptyAcceptsListAppliesToNothing() {
    assertThat(Kinds.applies(List.of(), "video/mp4")).isFalse();
  }
}
