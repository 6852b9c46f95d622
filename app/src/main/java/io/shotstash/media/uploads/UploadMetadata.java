package io.shotstash.media.uploads;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A tus {@code Upload-Metadata} header decoded: comma-separated pairs of a key and its value in
 * Base64, separated by a space; a key may come without a value. Keys are ASCII without spaces or
 * commas and appear once; values must be UTF-8 once decoded (a name is stored as text, never as
 * bytes that look like some other text).
 */
public record UploadMetadata(Map<String, String> values) {
  public UploadMetadata {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** Why a header was not decoded, worded for a 422's field reason. */
  public static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    Invalid(String reason) {
      super(reason, null, false, false);
    }
  }

  /** The decoded pairs of {@code header}; none for an absent or empty header. */
  public static UploadMetadata parse(String header) throws Invalid {
    Map<String, String> out = new LinkedHashMap<>();
    if (header == null || header.isBlank()) {
      return new UploadMetadata(out);
    }
    for (String pair : header.split(",", -1)) {
      String p = pair.strip();
      if (p.isEmpty()) {
        throw new Invalid("has an empty pair (two commas in a row, or one at the end)");
      }
      String[] parts = p.split(" +", -1);
      if (parts.length > 2) {
        throw new Invalid("pair '" + shorten(p) + "' is not a key and one Base64 value");
      }
      String key = parts[0];
      if (!key.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ',')) {
        throw new Invalid("key '" + shorten(key) + "' must be printable ASCII without spaces or commas");
      }
      if (out.containsKey(key)) {
        throw new Invalid("key '" + key + "' appears more than once");
      }
      out.put(key, parts.length == 2 ? decode(key, parts[1]) : "");
    }
    return new UploadMetadata(out);
  }

  /** The value of {@code key}, or null when the header does not name it. */
  public String get(String key) {
    return values.get(key);
  }

  /** The value of the first of {@code keys} the header names (clients differ: filename or name). */
  public String first(String... keys) {
    for (String k : keys) {
      if (values.containsKey(k)) {
        return values.get(k);
      }
    }
    return null;
  }

  private static String decode(String key, String base64) throws Invalid {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new Invalid("value of '" + key + "' is not Base64");
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new Invalid("value of '" + key + "' is not UTF-8 text once decoded");
    }
  }

  private static String shorten(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "…";
  }
}
