package io.shotstash.pipeline.contract;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** What an output upload must carry: an allowed media type and a plain extension. */
public final class OutputRules {
  public static final Set<String> MEDIA_TYPES = Set.of("video/mp4", "video/webm", "video/quicktime", "image/jpeg",
      "image/png", "image/webp", "audio/mpeg", "audio/mp4", "audio/wav", "application/pdf", "application/json",
      "text/plain", "text/vtt");
  private static final Pattern EXT = Pattern.compile("^[a-z0-9]{1,10}$");

  /**
   * An upload that declares at most this many bytes is taken before its claim is checked: it is in
   * within moments, and recording it (RECORD_OUTPUT) checks the claim and moves the lease, so the
   * earlier check would cost a round trip to PostgreSQL for nothing; a refused one is deleted and
   * answered as before. A longer or undeclared body, or a client that waits for {@code 100
   * Continue}, has its claim checked (and its lease moved) before any byte is read.
   */
  public static final long CLAIM_CHECKED_AFTER_MAX_BYTES = 64 * 1024;

  private OutputRules() {}

  /** Whether an upload's claim is checked before its body is read ({@code declaredBytes} -1: not declared). */
  public static boolean claimCheckedFirst(long declaredBytes, boolean expectsContinue) {
    return expectsContinue || declaredBytes < 0 || declaredBytes > CLAIM_CHECKED_AFTER_MAX_BYTES;
  }

  /** The media type of a Content-Type header (before ';', lowercased) if allowed, else null. */
  public static String mediaType(String contentType) {
    if (contentType == null) {
      return null;
    }
    int semi = contentType.indexOf(';');
    String type = (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
    return MEDIA_TYPES.contains(type) ? type : null;
  }

  /** X-Output-Ext trimmed, one leading dot dropped, lowercased, if valid; else null. */
  public static String extension(String header) {
    if (header == null) {
      return null;
    }
    String ext = header.strip();
    if (ext.startsWith(".")) {
      ext = ext.substring(1);
    }
    ext = ext.toLowerCase(Locale.ROOT);
    return EXT.matcher(ext).matches() ? ext : null;
  }
}
