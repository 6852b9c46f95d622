package io.shotstash.media.uploads;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The tus 1.0 protocol's headers (https://tus.io/protocols/resumable-upload), read and written
 * without Vert.x types: the version a request speaks, the numbers in {@code Upload-Offset} and
 * {@code Upload-Length}, the body type of a PATCH, and the date format of {@code Upload-Expires}.
 */
public final class TusHeaders {
  /** The one version this server speaks ({@code Tus-Resumable}, {@code Tus-Version}). */
  public static final String VERSION = "1.0.0";
  /** The extensions {@code OPTIONS} advertises ({@code Tus-Extension}). */
  public static final String EXTENSIONS = "creation,creation-with-upload,termination,expiration";
  /** The body type of a PATCH and of a creation that carries its first bytes. */
  public static final String OFFSET_STREAM = "application/offset+octet-stream";
  /** tus's escape for clients that cannot send PATCH or DELETE: a POST naming the method it stands for. */
  public static final String METHOD_OVERRIDE = "X-HTTP-Method-Override";

  /** Up to 18 digits: every such number fits a long, and no upload is that large. */
  private static final int MAX_DIGITS = 18;

  private TusHeaders() {}

  /** Whether a request's {@code Tus-Resumable} names the version this server speaks. */
  public static boolean speaksOurVersion(String tusResumable) {
    return tusResumable != null && VERSION.equals(tusResumable.strip());
  }

  /**
   * The non-negative decimal an {@code Upload-Offset} or {@code Upload-Length} holds: digits only
   * (no sign, no spaces inside, no exponent); -1 when the header is absent or holds anything else.
   * Surrounding spaces are what HTTP allows around a value and are ignored.
   */
  public static long number(String value) {
    if (value == null) {
      return -1;
    }
    String v = value.strip();
    if (v.isEmpty() || v.length() > MAX_DIGITS) {
      return -1;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return Long.parseLong(v);
  }

  /** Whether a {@code Content-Type} is tus's body type (parameters and case aside). */
  public static boolean isOffsetStream(String contentType) {
    if (contentType == null) {
      return false;
    }
    return contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT).equals(OFFSET_STREAM);
  }

  /** The method an {@value #METHOD_OVERRIDE} names, upper case ({@code PATCH}, {@code DELETE}, ...); "" when absent. */
  public static String overriddenMethod(String methodOverride) {
    return methodOverride == null ? "" : methodOverride.strip().toUpperCase(Locale.ROOT);
  }

  /** {@code Upload-Expires} as tus writes it: an HTTP date (RFC 7231, always GMT). */
  public static String httpDate(Instant at) {
    return DateTimeFormatter.RFC_1123_DATE_TIME.format(at.atOffset(ZoneOffset.UTC));
  }
}
