package io.shotstash.pipeline.contract;

import java.util.List;
import java.util.regex.Pattern;

/** Kind names: {@code <namespace>/<name>}, lowercase letters, digits, '.', '-' and '_', each part 1..64. */
public final class Kinds {
  private static final Pattern KIND = Pattern.compile("^[a-z0-9][a-z0-9._-]{0,63}/[a-z0-9][a-z0-9._-]{0,63}$");

  private Kinds() {}

  public static boolean valid(String kind) {
    return kind != null && KIND.matcher(kind).matches();
  }

  /** Whether a kind with these MIME prefixes applies to a file of this type (null accepts: every file). */
  public static boolean applies(List<String> accepts, String mimeType) {
    if (accepts == null) {
      return true;
    }
    String type = mimeType == null ? "" : mimeType.toLowerCase();
    for (String prefix : accepts) {
      if (type.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
