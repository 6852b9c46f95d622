package io.shotstash.moderation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Row-local facts about a member (docs/moderation-api.md → Signals), never machine verdicts.
 * Negative signals count toward attention; informational ones do not. Order is fixed. Pure.
 */
public final class Signals {
  private static final Pattern BIO_LINK = Pattern.compile("https?://|www\\.|\\]\\(|<a ", Pattern.CASE_INSENSITIVE);
  private static final Duration NEW_GITHUB = Duration.ofDays(30);

  /** What the signals are computed from. */
  public record Facts(
      boolean everSignedIn,
      boolean hasAvatar,
      String bio,
      String email,
      String fullName,
      String emailBounceType,
      String githubStatus,
      Instant githubCreatedAt,
      Integer githubRepos,
      Integer followers,
      boolean slugPurgedBefore,
      boolean slackSso,
      boolean hasFootprint) {}

  /** The signals in order, and how many are negative. */
  public record Result(List<String> signals, int attention) {}

  private Signals() {}

  public static Result of(Facts f, Instant now) {
    List<String> negative = new ArrayList<>();
    if (!f.everSignedIn()) {
      negative.add("never-signed-in");
    }
    if (!f.hasAvatar()) {
      negative.add("no-avatar");
    }
    if (f.bio() == null || f.bio().isBlank()) {
      negative.add("no-bio");
    }
    int links = bioLinks(f.bio());
    if (links > 0) {
      negative.add("bio-links:" + links);
    }
    if (emailNameMismatch(f.email(), f.fullName())) {
      negative.add("email-name-mismatch");
    }
    if (f.emailBounceType() != null) {
      negative.add("email-bounced:" + f.emailBounceType());
    }
    if ("gone".equals(f.githubStatus())) {
      negative.add("github-gone");
    }
    if (f.githubCreatedAt() != null && f.githubCreatedAt().isAfter(now.minus(NEW_GITHUB))) {
      negative.add("github-new-account");
    }
    if (f.githubRepos() != null && f.followers() != null && f.githubRepos() == 0 && f.followers() == 0) {
      negative.add("github-no-activity");
    }
    if (f.slugPurgedBefore()) {
      negative.add("slug-purged-before");
    }
    List<String> all = new ArrayList<>(negative);
    if (f.slackSso()) {
      all.add("slack-sso");
    }
    if (f.hasFootprint()) {
      all.add("has-footprint");
    }
    return new Result(all, negative.size());
  }

  /** Occurrences of http://, https://, www., ]( and &lt;a in the bio. */
  public static int bioLinks(String bio) {
    if (bio == null) {
      return 0;
    }
    int n = 0;
    Matcher m = BIO_LINK.matcher(bio);
    while (m.find()) {
      n++;
    }
    return n;
  }

  /**
   * True when the email's local part (lower-cased, letters only) shares no token of 3+ letters
   * with the display name; false when they share one or when it cannot be decided (no email, a
   * local part or a name with no 3-letter token).
   */
  public static boolean emailNameMismatch(String email, String fullName) {
    if (email == null || fullName == null || email.indexOf('@') < 1) {
      return false;
    }
    String local = email.substring(0, email.indexOf('@')).toLowerCase(Locale.ROOT).replaceAll("[^a-z]", "");
    List<String> tokens = new ArrayList<>();
    for (String t : fullName.toLowerCase(Locale.ROOT).split("[^\\p{L}]+")) {
      String ascii = t.replaceAll("[^a-z]", "");
      if (ascii.length() >= 3) {
        tokens.add(ascii);
      }
    }
    if (local.length() < 3 || tokens.isEmpty()) {
      return false;
    }
    for (String t : tokens) {
      if (local.contains(t) || t.contains(local)) {
        return false;
      }
    }
    return true;
  }

  /** The first ~160 characters of a bio with markdown stripped. */
  public static String bioExcerpt(String bio) {
    if (bio == null) {
      return null;
    }
    String text = bio
        .replaceAll("!\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
        .replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
        .replaceAll("<[^>]+>", "")
        .replaceAll("(?m)^\\s{0,3}(#{1,6}|>|[-*+]|\\d+\\.)\\s+", "")
        .replaceAll("[*_`~]", "")
        .replaceAll("\\s+", " ").strip();
    return text.length() <= 160 ? text : text.substring(0, 159).strip() + "…";
  }
}
