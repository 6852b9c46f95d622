package io.shotstash.bus;

import java.util.Map;

/** Whole numbers in a query string, as the list routes read them (page, perPage). Pure. */
public final class QueryNumbers {
  private QueryNumbers() {}

  /**
   * {@code value} as a whole number from {@code min} to {@code max}; {@code dflt} when it is absent.
   * Anything else is noted in {@code problems} under {@code field} (for a 422) and answers {@code dflt}.
   */
  public static int read(String value, String field, int dflt, int min, int max, Map<String, String> problems) {
    if (value == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.put(field, "must be a whole number from " + min + " to " + max);
    return dflt;
  }
}
