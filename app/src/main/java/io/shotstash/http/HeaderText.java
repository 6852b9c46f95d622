package io.shotstash.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Header values that carry text beyond ASCII, such as {@code X-File-Name}. HTTP/1.1 headers are
 * bytes; Vert.x hands each byte over as one character (ISO-8859-1), so a name curl sends as UTF-8
 * ({@code -H 'X-File-Name: Café.mp4'}) arrives as {@code CafÃ©.mp4}. This reads the bytes back as
 * the UTF-8 they are, and tells a value that is not UTF-8 (a Latin-1 {@code é}, say) apart, so it
 * can be refused rather than stored garbled. Pure: no Vert.x types.
 */
public final class HeaderText {
  private HeaderText() {}

  /** The text a header value's bytes spell in UTF-8; null when the value is null or not UTF-8. */
  public static String utf8(String value) {
    if (value == null) {
      return null;
    }
    byte[] bytes = new byte[value.length()];
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > 0xFF) {
        return value; // not one character per byte: already decoded text, take it as it is
      }
      bytes[i] = (byte) c;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
