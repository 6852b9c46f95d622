package io.shotstash.http;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.StreamSupport;

/**
 * Whether text can be stored exactly as it was sent. PostgreSQL refuses U+0000 in {@code text}
 * (the insert fails: a 500), and a lone UTF-16 surrogate is not a character at all: the UTF-8
 * encoder of the database client turns it into {@code ?} (the stored value silently differs) and
 * the TOML writer of the data repository refuses it (another 500). JSON lets a client send both as
 * escapes ({@code "\u0000"}, {@code "\ud800"}), so the body readers check every string, keys
 * included, with this rule before any route sees the body, and refuse the field instead.
 *
 * <p>Pure: no Vert.x types. {@link #find} walks the plain shapes a JSON document decodes to
 * (maps, lists, map entries and strings), which JsonObject and JsonArray are as well.
 */
public final class StorableText {
  static final String NUL = "must not contain the character U+0000";
  static final String LONE_SURROGATE = "must not contain a lone UTF-16 surrogate (not a Unicode character)";

  private StorableText() {}

  /** Where in a document an unstorable string sits ({@code manifest.name}, {@code evidence[0].id}) and why. */
  public record Problem(String path, String reason) {}

  /** Why {@code text} cannot be stored as it is, or null when it can (null text can). */
  public static String problem(String text) {
    if (text == null) {
      return null;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\u0000') {
        return NUL;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++; // a proper pair: one supplementary character
          continue;
        }
        return LONE_SURROGATE;
      }
      if (Character.isLowSurrogate(c)) {
        return LONE_SURROGATE;
      }
    }
    return null;
  }

  public static boolean storable(String text) {
    return problem(text) == null;
  }

  /**
   * The first unstorable string in {@code value} (a string, a map, a list, or an iterable of map
   * entries, nested), with its path below {@code path}; null when every string can be stored.
   */
  public static Problem find(String path, Object value) {
    if (value instanceof String s) {
      String reason = problem(s);
      return reason == null ? null : new Problem(path, reason);
    }
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Problem p = entry(path, e);
        if (p != null) {
          return p;
        }
      }
      return null;
    }
    if (value instanceof Iterable<?> items) {
      int index = 0;
      for (Object item : items) {
        // an object decoded by Vert.x iterates as map entries; an array as its items
        Problem p = item instanceof Map.Entry<?, ?> e ? entry(path, e) : find(path + "[" + index + "]", item);
        if (p != null) {
          return p;
        }
        index++;
      }
    }
    return null;
  }

  /** Every top-level field of an object whose name or value holds unstorable text, by field path. */
  public static List<Problem> findAll(Iterable<? extends Map.Entry<String, ?>> fields) {
    return StreamSupport.stream(fields.spliterator(), false).map(e -> entry("", e)).filter(Objects::nonNull).toList();
  }

  private static Problem entry(String path, Map.Entry<?, ?> e) {
    String key = String.valueOf(e.getKey());
    String here = path.isEmpty() ? key : path + "." + key;
    String keyReason = problem(key);
    if (keyReason != null) {
      return new Problem(here, keyReason);
    }
    return find(here, e.getValue());
  }
}
