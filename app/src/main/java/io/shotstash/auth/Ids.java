package io.shotstash.auth;

import java.security.SecureRandom;
import java.util.UUID;

/** UUIDv7 ids: time-ordered (48-bit milliseconds), then random bits (RFC 9562). */
public final class Ids {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  public static String uuid7() {
    return uuid7(System.currentTimeMillis()).toString();
  }

  static UUID uuid7(long millis) {
    long randA = RANDOM.nextInt(1 << 12);
    long msb = (millis << 16) | (0x7L << 12) | randA;
    long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb);
  }

  /** Whether {@code s} is a UUID in its canonical text form (any version). */
  public static boolean isUuid(String s) {
    return s != null && s.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  }
}
