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

  /** The built-in kinds, as the migrations insert them into pipeline_kinds (builtin = true). */
  public static final List<String> BUILT_IN = List.of("shotstash/proxy-720p", "shotstash/heic-to-jpeg");

  /**
   * The namespace of the built-in kinds. A kind exists once a worker lists it, so without this a
   * worker could mint {@code shotstash/anything} and pass its work off as ours.
   */
  public static final String RESERVED_NAMESPACE = "shotstash/";

  private Kinds() {}

  public static boolean valid(String kind) {
    return kind != null && KIND.matcher(kind).matches();
  }

  /**
   * Whether a worker may list this kind in its manifest: any kind name outside {@link
   * #RESERVED_NAMESPACE}, and the built-in kinds themselves (a worker that makes one serves it,
   * as the reference worker serves shotstash/proxy-720p).
   */
  public static boolean registrable(String kind) {
    return valid(kind) && (!kind.startsWith(RESERVED_NAMESPACE) || BUILT_IN.contains(kind));
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
