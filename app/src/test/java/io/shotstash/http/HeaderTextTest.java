package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Header values are bytes, one character each as Vert.x hands them over; UTF-8 text is read back from them. */
class HeaderTextTest {

  /** What Vert.x hands over for these bytes: one character per byte. */
  static String asReceived(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  @ParameterizedTest(name = "UTF-8: {0}")
  @ValueSource(strings = {"clip.mp4", "Café ☕.mp4", "日本語 😀.mov", "", "a b"})
  void utf8BytesAreReadAsTheTextTheySpell(String name) {
    assertThat(HeaderText.utf8(asReceived(name.getBytes(StandardCharsets.UTF_8)))).isEqualTo(name);
  }

  @Test
  void bytesThatAreNotUtf8AreNotText() {
    assertThat(HeaderText.utf8(asReceived("Café.mp4".getBytes(StandardCharsets.ISO_8859_1)))).isNull();
    assertThat(HeaderText.utf8(asReceived(new byte[]{'a', (byte) 0xC3}))).as("a cut sequence").isNull();
    assertThat(HeaderText.utf8(asReceived(new byte[]{(byte) 0xED, (byte) 0xA0, (byte) 0x80})))
        .as("an encoded surrogate")
        .isNull();
    assertThat(HeaderText.utf8(asReceived(new byte[]{(byte) 0xC0, (byte) 0xAF}))).as("an overlong /").isNull();
  }

  @Test
  void nullAndAlreadyDecodedValues() {
    assertThat(HeaderText.utf8(null)).isNull();
    assertThat(HeaderText.utf8("☕ already text")).isEqualTo("☕ already text");
  }
}
