package io.shotstash.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/** Random secrets and their hashes: 32 bytes from SecureRandom, stored only as SHA-256. */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Tokens() {}

  /** {@code prefix} + 32 random bytes in base64url without padding (43 characters). */
  public static String random(String prefix) {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Constant-time comparison of two secrets (by their hashes, so lengths leak nothing either). */
  public static boolean sameSecret(String a, String b) {
    if (a == null || b == null) {
      return false;
    }
    return MessageDigest.isEqual(sha256(a), sha256(b));
  }
}
