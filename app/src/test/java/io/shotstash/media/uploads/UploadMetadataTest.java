package io.shotstash.media.uploads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Decoding {@code Upload-Metadata}: what is read, and what is refused with which reason. */
class UploadMetadataTest {
  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static Stream<Arguments> decoded() {
    return Stream.of(
        Arguments.of(null, Map.of()),
        Arguments.of("", Map.of()),
        Arguments.of("filename " + b64("clip.mp4"), Map.of("filename", "clip.mp4")),
        Arguments.of("filename " + b64("clip.mp4") + ",filetype " + b64("video/mp4"),
            Map.of("filename", "clip.mp4", "filetype", "video/mp4")),
        Arguments.of("filename " + b64("Café ☕.mp4") + ", is_confidential",
            Map.of("filename", "Café ☕.mp4", "is_confidential", "")),
        Arguments.of("a  " + b64("two spaces"), Map.of("a", "two spaces")),
        Arguments.of("k " + b64("x").replace("=", ""), Map.of("k", "x")),
        Arguments.of("empty ", Map.of("empty", "")));
  }

  @ParameterizedTest(name = "[{index}] ''{0}''")
  @MethodSource("decoded")
  void pairsAreDecoded(String header, Map<String, String> expected) throws Exception {
    assertThat(UploadMetadata.parse(header).values()).isEqualTo(expected);
  }

  static Stream<Arguments> refused() {
    byte[] latin1 = "é".getBytes(StandardCharsets.ISO_8859_1);
    return Stream.of(
        Arguments.of("a " + b64("x") + ",,b " + b64("y"), "empty pair"),
        Arguments.of("a " + b64("x") + ",", "empty pair"),
        Arguments.of("a " + b64("x") + " extra", "not a key and one Base64 value"),
        Arguments.of("a !!!", "is not Base64"),
        Arguments.of("a " + Base64.getEncoder().encodeToString(latin1), "not UTF-8"),
        Arguments.of("a " + b64("x") + ",a " + b64("y"), "more than once"),
        Arguments.of("ké " + b64("x"), "printable ASCII"));
  }

  @ParameterizedTest(name = "{0} is refused: {1}")
  @MethodSource("refused")
  void malformedHeadersAreRefusedWithAReason(String header, String reason) {
    assertThatThrownBy(() -> UploadMetadata.parse(header)).isInstanceOf(UploadMetadata.Invalid.class)
        .hasMessageContaining(reason);
  }
}
