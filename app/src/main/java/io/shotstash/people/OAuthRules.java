package io.shotstash.people;

import io.shotstash.publicdata.records.SpamPurge;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The pure rules of GitHub sign-in: the PKCE challenge (RFC 7636, S256), the authorize URL, which
 * {@code return} paths may be followed, the slug and name a new member gets from GitHub, and which
 * spam-purges record blocks a GitHub account (docs/api.md → GitHub sign-in).
 */
public final class OAuthRules {
  /** RFC 7636 §4.1: 43..128 unreserved characters. */
  private static final Pattern VERIFIER = Pattern.compile("^[A-Za-z0-9._~-]{43,128}$");
  /**
   * GitHub logins are letters, digits and dashes (39 at most); GitHub Enterprise adds {@code _} and
   * {@code .}. Anything else means the answer is not what we asked for.
   */
  private static final Pattern GITHUB_LOGIN = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$");
  private static final int RETURN_PATH_MAX = 2048;
  private static final String FALLBACK_SLUG = "member";
  private static final int MAX_SUFFIX = 100_000;
  public static final String SCOPE = "read:user user:email";

  private OAuthRules() {}

  /** The S256 code challenge of a verifier: base64url, unpadded, of SHA-256 over its ASCII bytes. */
  public static String s256Challenge(String verifier) {
    if (!isVerifier(verifier)) {
      throw new IllegalArgumentException("a PKCE verifier is 43 to 128 unreserved characters");
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  public static boolean isVerifier(String verifier) {
    return verifier != null && VERIFIER.matcher(verifier).matches();
  }

  /** {@code <oauthUrl>/login/oauth/authorize?...}: every value percent-encoded (spaces as %20). */
  public static String authorizeUrl(String oauthUrl, String clientId, String redirectUri, String state,
      String challenge) {
    return oauthUrl + "/login/oauth/authorize?client_id=" + encode(clientId)
        + "&redirect_uri=" + encode(redirectUri)
        + "&state=" + encode(state)
        + "&code_challenge=" + encode(challenge)
        + "&code_challenge_method=S256"
        + "&scope=" + encode(SCOPE);
  }

  static String encode(String value) {
    // URLEncoder writes form encoding; a literal '+' becomes %2B, so every '+' left is a space
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /**
   * The path to send the browser to after sign-in: {@code raw} when it is a path on this site, else
   * {@code /}. It must start with one {@code /} (not {@code //}, which a browser reads as another
   * host), and hold only printable ASCII without a backslash or whitespace (browsers turn
   * {@code \} into {@code /} and drop tabs and line breaks, so {@code /\evil} and
   * {@code /<tab>/evil} would leave the site too).
   */
  public static String safeReturnPath(String raw) {
    if (raw == null || raw.isEmpty() || raw.length() > RETURN_PATH_MAX || raw.charAt(0) != '/') {
      return "/";
    }
    if (raw.length() > 1 && (raw.charAt(1) == '/' || raw.charAt(1) == '\\')) {
      return "/";
    }
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c <= 0x20 || c >= 0x7f || c == '\\') {
        return "/";
      }
    }
    return raw;
  }

  public static boolean isGitHubLogin(String login) {
    return login != null && GITHUB_LOGIN.matcher(login).matches();
  }

  /**
   * A new member's slug from their GitHub login: lower-cased, other characters to dashes (runs
   * collapsed, none at either end), cut to 50. When that is not a valid slug, is reserved or is
   * {@code taken}, the first of {@code -2}, {@code -3}, ... that is free. A slug freed by a purge
   * is not taken (docs/moderation-api.md → Votes belong to one account: a sign-up may reuse it).
   */
  public static String slugFromLogin(String login, Predicate<String> taken) {
    String base = (login == null ? "" : login).toLowerCase(Locale.ROOT)
        .replaceAll("[^a-z0-9-]+", "-").replaceAll("-{2,}", "-").replaceAll("^-+|-+$", "");
    base = trimTo(base, 50);
    if (base.isEmpty()) {
      base = FALLBACK_SLUG;
    }
    if (free(base, taken)) {
      return base;
    }
    for (int n = 2; n < MAX_SUFFIX; n++) {
      String suffix = "-" + n;
      String candidate = trimTo(base, 50 - suffix.length()) + suffix;
      if (free(candidate, taken)) {
        return candidate;
      }
    }
    throw new IllegalStateException("no free slug for this login");
  }

  private static boolean free(String slug, Predicate<String> taken) {
    return PersonRules.slugProblem(slug) == null && !taken.test(slug);
  }

  private static String trimTo(String s, int max) {
    String cut = s.length() > max ? s.substring(0, max) : s;
    return cut.replaceAll("-+$", "");
  }

  /**
   * A new member's full name: the GitHub name without control characters, whitespace runs made one
   * space, cut to {@link PersonRules#FULL_NAME_MAX}; the login when that leaves nothing.
   */
  public static String fullNameFrom(String name, String login) {
    String cleaned = name == null ? "" : name.replaceAll("\\p{Cntrl}", " ").replaceAll("\\s+", " ").strip();
    if (cleaned.length() > PersonRules.FULL_NAME_MAX) {
      int end = PersonRules.FULL_NAME_MAX;
      if (Character.isHighSurrogate(cleaned.charAt(end - 1))) {
        end--; // never cut a character in half
      }
      cleaned = cleaned.substring(0, end).strip();
    }
    return cleaned.isEmpty() ? login : cleaned;
  }

  /**
   * Whether {@code record} keeps this GitHub account out: its block is in force and it names the
   * account by numeric id, or, for a record without an id, by login (case-insensitively). A record
   * with an id never matches by login: logins change hands, ids do not.
   */
  public static boolean blocks(SpamPurge record, long githubUserId, String login) {
    if (!record.blockInForce()) {
      return false;
    }
    if (record.githubUserId() != null) {
      return record.githubUserId() == githubUserId;
    }
    return record.githubLogin() != null && login != null && record.githubLogin().equalsIgnoreCase(login);
  }

  /** The first record in {@code records} that blocks the account, if any. */
  public static Optional<SpamPurge> blockFor(Iterable<SpamPurge> records, long githubUserId, String login) {
    for (SpamPurge r : records) {
      if (blocks(r, githubUserId, login)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
