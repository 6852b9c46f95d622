package io.shotstash.pipeline.contract;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Range rule for inputs and downloads: one range only, {@code bytes=a-b} (end clamped),
 * {@code bytes=a-}, {@code bytes=-n}; unsatisfiable → 416; malformed or several ranges → the whole
 * body with 200.
 */
public sealed interface ByteRange {
  /** Serve everything with 200. */
  record Whole() implements ByteRange {}

  /** Serve bytes start..end inclusive with 206. */
  record Partial(long start, long end) implements ByteRange {
    public long length() {
      return end - start + 1;
    }

    public String contentRange(long size) {
      return "bytes " + start + "-" + end + "/" + size;
    }
  }

  /** Answer 416 with {@code Content-Range: bytes *}{@code /size}. */
  record Unsatisfiable() implements ByteRange {}

  Pattern SINGLE = Pattern.compile("^bytes=(\\d*)-(\\d*)$");

  static ByteRange parse(String header, long size) {
    if (header == null) {
      return new Whole();
    }
    Matcher m = SINGLE.matcher(header.strip());
    if (!m.matches()) {
      return new Whole(); // malformed, another unit, or several ranges
    }
    String a = m.group(1);
    String b = m.group(2);
    try {
      if (a.isEmpty() && b.isEmpty()) {
        return new Whole();
      }
      if (a.isEmpty()) { // suffix: the last n bytes
        long n = Long.parseLong(b);
        if (n == 0 || size == 0) {
          return new Unsatisfiable();
        }
        return new Partial(Math.max(0, size - n), size - 1);
      }
      long start = Long.parseLong(a);
      if (start >= size) {
        return new Unsatisfiable();
      }
      if (b.isEmpty()) {
        return new Partial(start, size - 1);
      }
      long end = Long.parseLong(b);
      if (end < start) {
        return new Whole(); // syntactically invalid: ignore the header
      }
      return new Partial(start, Math.min(end, size - 1));
    } catch (NumberFormatException e) {
      return new Whole(); // a number too long for a long: treat as malformed
    }
  }
}
