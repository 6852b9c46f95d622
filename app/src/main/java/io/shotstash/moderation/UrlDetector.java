package io.shotstash.moderation;

import java.text.Normalizer;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds anything that reads as a URL in text that will be published in a commit (an agent's
 * reasoning, a purge reason), so a purge never republishes the spam link (the moderation API,
 * "A URL is any of"). Pure.
 *
 * <ul>
 *   <li>a scheme: {@code name://}, including the defanged {@code hxxp://} and {@code hxxps://};
 *   <li>{@code www.} at the start of a word;
 *   <li>a bare domain: labels joined by dots with word characters on both sides of each dot,
 *       ending in a top-level domain of two or more letters that is lowercase, or a common TLD in
 *       any case;
 *   <li>a defanged dot between word characters: {@code [.]}, {@code (.)}, {@code {.}},
 *       {@code [dot]}, {@code (dot)}.
 * </ul>
 * Ordinary prose passes: e.g., i.e., U.S., a sentence that runs into the next ({@code spam.Then}),
 * version numbers.
 *
 * <p>The text is read as a browser would read a host name: NFKC first (fullwidth {@code ｈｔｔｐｓ：／／}
 * is {@code https://}, U+2024 ONE DOT LEADER is a full stop), then the dots IDNA takes as label
 * separators (U+3002, U+FF0E, U+FF61) become '.', so {@code cheap-pills。shop} is the domain it
 * opens. Fragments are answered in that normalised form.
 */
public final class UrlDetector {
  /** Any scheme name (a letter, then letters, digits, +, ., -) before "://", wherever it starts. */
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://");
  private static final Pattern WWW = Pattern.compile("(?<![\\w.-])www\\.",
      Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CHARACTER_CLASS);
  private static final Pattern DEFANGED_DOT = Pattern.compile(
      "\\w(?:\\[\\.\\]|\\(\\.\\)|\\{\\.\\}|\\[dot\\]|\\(dot\\))\\w",
      Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CHARACTER_CLASS);
  /** A run of labels joined by dots (Unicode word characters); each is then checked label by label. */
  private static final Pattern DOTTED = Pattern.compile("[\\w-]+(?:\\.[\\w-]+)+", Pattern.UNICODE_CHARACTER_CLASS);
  /** A top-level domain is two or more letters, in any script. */
  private static final Pattern LETTERS = Pattern.compile("\\p{L}{2,}");
  /**
   * TLDs that count in any case (Cheap-Pills.SHOP); any other counts only in lowercase. Decision:
   * TLDs that are also common English words a sentence may start with (In, It, To, Me, Us, Co, Best,
   * Live, ...) are left out, so "went home.In the end" stays prose.
   */
  static final Set<String> COMMON_TLDS = Set.of("com", "org", "net", "edu", "gov", "io", "info", "biz", "xyz", "shop",
      "ru", "cn", "uk", "de", "fr", "jp", "br", "au", "ca", "nl", "eu", "tv", "ly", "tk", "ml", "ga", "cf", "gq", "pw",
      "ws", "icu", "dev");

  private UrlDetector() {}

  /** Whether the text contains anything that reads as a URL. */
  public static boolean containsUrl(String text) {
    return text != null && firstUrl(text) != null;
  }

  /** The first URL-like fragment (of the normalised text), or null. */
  public static String firstUrl(String text) {
    text = normalise(text);
    Matcher m = SCHEME.matcher(text);
    if (m.find()) {
      return m.group();
    }
    m = WWW.matcher(text);
    if (m.find()) {
      return m.group();
    }
    m = DEFANGED_DOT.matcher(text);
    if (m.find()) {
      return m.group();
    }
    m = DOTTED.matcher(text);
    while (m.find()) {
      String domain = bareDomain(m.group());
      if (domain != null) {
        return domain;
      }
    }
    return null;
  }

  /**
   * NFKC, then every IDNA label separator (RFC 3490 section 3.1: U+3002 IDEOGRAPHIC FULL STOP,
   * U+FF0E FULLWIDTH FULL STOP, U+FF61 HALFWIDTH IDEOGRAPHIC FULL STOP) as '.'. NFKC alone already
   * turns U+2024, U+FF0E and U+FF61 (into U+3002), but not U+3002 itself.
   */
  static String normalise(String text) {
    String nfkc = Normalizer.normalize(text, Normalizer.Form.NFKC);
    if (nfkc.indexOf('\u3002') < 0 && nfkc.indexOf('\uff0e') < 0 && nfkc.indexOf('\uff61') < 0) {
      return nfkc;
    }
    return nfkc.replace('\u3002', '.').replace('\uff0e', '.').replace('\uff61', '.');
  }

  /**
   * The first bare domain in a dotted run, or null. Every dot in it must have a word character on
   * both sides (a dot that does not starts the search again after it), and its last label must be
   * a TLD.
   */
  static String bareDomain(String run) {
    String[] labels = run.split("\\.", -1);
    StringBuilder prefix = new StringBuilder(labels[0]);
    for (int i = 1; i < labels.length; i++) {
      String before = labels[i - 1];
      String label = labels[i];
      boolean joined = !before.isEmpty() && !label.isEmpty() && isWord(before.charAt(before.length() - 1))
          && isWord(label.charAt(0));
      if (!joined) {
        prefix = new StringBuilder(label); // a dot without word characters on both sides: a domain may start after it
        continue;
      }
      prefix.append('.').append(label);
      if (isTld(label)) {
        return prefix.toString();
      }
    }
    return null;
  }

  private static boolean isTld(String label) {
    if (!LETTERS.matcher(label).matches()) {
      return false;
    }
    return label.equals(label.toLowerCase(Locale.ROOT)) || COMMON_TLDS.contains(label.toLowerCase(Locale.ROOT));
  }

  private static boolean isWord(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  /** Whether the text has a control character, line breaks included. */
  public static boolean hasControlCharacter(String text) {
    return text != null && text.chars().anyMatch(c -> Character.isISOControl(c) || c == 0x2028 || c == 0x2029);
  }
}
