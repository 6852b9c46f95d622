package io.shotstash.moderation;

import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the body of a vote, a purge or an unblock may hold (docs/moderation-api.md): an agent's
 * flags, and the reasoning or reason that goes into a public commit. The routes collect each
 * problem into one 422; the write rules decide the rest. Pure.
 */
public final class ModerationBodyRules {
  private ModerationBodyRules() {}

  /** One flag: a lowercase tag such as {@code link-farm} or {@code bio:seo}. */
  static final Pattern FLAG = Pattern.compile("^[a-z0-9][a-z0-9:-]{0,39}$");
  static final int MAX_FLAGS = 10;
  /** The longest reasoning or reason, in characters. */
  static final int TEXT_MAX = 1000;

  /** null when {@code flags} (the body's value; absent means none) is a list of 0 to 10 flags, else why not. */
  public static String flagsProblem(Object flags) {
    if (flags == null) {
      return null;
    }
    if (!(flags instanceof JsonArray arr) || arr.size() > MAX_FLAGS) {
      return "must be a list of 0 to 10 tags";
    }
    for (Object f : arr) {
      if (!(f instanceof String s) || !FLAG.matcher(s).matches()) {
        return "each flag must match ^[a-z0-9][a-z0-9:-]{0,39}$";
      }
    }
    return null;
  }

  /** The flags of a body whose {@link #flagsProblem} is null; none when absent. */
  public static List<String> flags(Object flags) {
    List<String> out = new ArrayList<>();
    if (flags instanceof JsonArray arr) {
      arr.forEach(f -> out.add((String) f));
    }
    return out;
  }

  /**
   * An agent's reasoning or a purge's reason as it goes into a public commit: 1 to 1000 characters
   * when {@code required} (blank counts as absent), no control characters or line breaks, no URL or
   * domain. null when it may go in.
   */
  public static String publicTextProblem(String text, boolean required) {
    if (text == null || text.isBlank()) {
      return required ? "is required (1 to 1000 characters)" : null;
    }
    if (text.length() > TEXT_MAX) {
      return "must be at most 1000 characters";
    }
    if (UrlDetector.hasControlCharacter(text)) {
      return "must not contain control characters or line breaks";
    }
    if (UrlDetector.containsUrl(text)) {
      return "must not contain a URL or a domain; describe it instead";
    }
    return null;
  }

  /** A person's reasoning or an unblock's reason, which may be absent: at most 1000 characters. */
  public static String lengthProblem(String text) {
    return text != null && text.length() > TEXT_MAX ? "must be at most 1000 characters" : null;
  }
}
