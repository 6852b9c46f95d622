package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** Kind names ({@code <namespace>/<name>}) and which files a kind applies to. */
class KindsTest {

  @ParameterizedTest(name = "{0} is a kind")
  @ValueSource(strings = {"acme/transcript", "shotstash/proxy-720p", "shotstash/heic-to-jpeg", "a/b", "0/9",
      "acme.io/whisper_v2", "a-b_c.d/e.f-g_h", "acme/x.", "acme/x-"})
  void validKinds(String kind) {
    assertThat(Kinds.valid(kind)).isTrue();
  }

  @Test
  void eachPartIsAtMostSixtyFourCharacters() {
    String p64 = "a".repeat(64);
    assertThat(Kinds.valid(p64 + "/" + p64)).isTrue();
    assertThat(Kinds.valid("a".repeat(65) + "/b")).isFalse();
    assertThat(Kinds.valid("a/" + "b".repeat(65))).isFalse();
  }

  @ParameterizedTest(name = "''{0}'' is not a kind")
  @NullAndEmptySource
  @ValueSource(strings = {"transcript", "/", "acme/", "/transcript", "Acme/transcript", "acme/Transcript",
      "a/b/c", "-acme/x", "acme/-x", ".acme/x", "acme/.x", "_a/b", "acme /x", "acme/x ", " acme/x", "acme\\x",
      "acme/x\n", "acmé/x", "acme/x y", "acme//x", "acme/x:y"})
  void invalidKinds(String kind) {
    assertThat(Kinds.valid(kind)).isFalse();
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
