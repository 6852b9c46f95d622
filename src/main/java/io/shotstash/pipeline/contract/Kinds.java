package io.shotstash.pipeline.contract;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Kind names, exactly as the worker contract defines them: {@code <namespace>/<name>}, each part 1
 * to 64 of lowercase letters, digits, '.', '-' and '_', in any order. The contract puts no rule on
 * a part's first character, so neither do we: a kind never reaches a file system path (storage
 * keys are built only from ids we generate; a processed version's download name turns '/' into
 * '-' and goes through the Content-Disposition encoder), so ".." or "-x" is only a name.
 */
public final class Kinds {
  private static final Pattern KIND = Pattern.compile("[a-z0-9._-]{1,64}/[a-z0-9._-]{1,64}");

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
