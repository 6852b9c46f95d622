package io.shotstash.publicdata;

import java.text.Normalizer;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/** Slug rules for projects, buzz and tags (docs/community-api.md → Common rules), and making one from a title. Pure. */
public final class Slugs {
  public static final Pattern PROJECT = Pattern.compile("^[a-z0-9][a-z0-9-_]{1,79}$");
  public static final Pattern BUZZ = Pattern.compile("^[a-z0-9][a-z0-9-]{1,99}$");
  public static final Pattern TAG = Pattern.compile("^[a-z0-9][a-z0-9-]{0,49}$");

  private Slugs() {}

  /**
   * A slug from a title: ASCII-folded, lowercase, runs of other characters to one dash, cut to
   * {@code max}; then {@code -2}, {@code -3}, ... while {@code taken} says so.
   */
  public static String fromTitle(String title, int max, Predicate<String> taken) {
    String folded = Normalizer.normalize(title == null ? "" : title, Normalizer.Form.NFKD).replaceAll("\\p{M}", "");
    String base = folded.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
    if (base.length() < 2) {
      base = (base + "item").substring(0, Math.max(2, Math.min(4, base.length() + 4)));
    }
    if (base.length() > max) {
      base = base.substring(0, max).replaceAll("-+$", "");
    }
    String slug = base;
    for (int n = 2; taken.test(slug); n++) {
      String suffix = "-" + n;
      slug = (base.length() + suffix.length() > max ? base.substring(0, max - suffix.length()) : base) + suffix;
    }
    return slug;
  }
}
