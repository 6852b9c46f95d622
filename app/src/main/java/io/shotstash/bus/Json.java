package io.shotstash.bus;

import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * How timestamps travel in our JSON (messages and API answers): ISO-8601 in UTC
 * ({@code 2026-12-01T10:15:30Z}), null for none.
 */
public final class Json {
  private Json() {}

  public static String iso(Instant t) {
    return t == null ? null : t.toString();
  }

  /** A PostgreSQL {@code timestamptz} as the instant it is, whatever offset the row came with. */
  public static String iso(OffsetDateTime t) {
    return t == null ? null : t.toInstant().toString();
  }
}
