package io.shotstash.auth;

import at.favre.lib.crypto.bcrypt.BCrypt;
import at.favre.lib.crypto.bcrypt.LongPasswordStrategies;
import java.nio.charset.StandardCharsets;

/**
 * Password hashing with bcrypt (at.favre.lib). Both calls are deliberately slow: run them on a
 * worker thread, never on the event loop.
 */
public final class Passwords {
  /** 2^11 rounds: about 100 ms on this class of machine. */
  private static final int COST = 11;
  /** A hash of a random password, checked when the account does not exist so timing tells nothing. */
  private static final BCrypt.Hasher HASHER =
      BCrypt.with(LongPasswordStrategies.hashSha512(BCrypt.Version.VERSION_2A)); // passwords past 72 bytes still count whole
  private static final String DUMMY = HASHER.hashToString(COST, Tokens.random("").toCharArray());

  private Passwords() {}

  public static String hash(String password) {
    return HASHER.hashToString(COST, password.toCharArray());
  }

  public static boolean verify(String password, String hash) {
    String against = hash == null ? DUMMY : hash;
    boolean ok =
        BCrypt.verifyer(BCrypt.Version.VERSION_2A, LongPasswordStrategies.hashSha512(BCrypt.Version.VERSION_2A)).verify(
            password.getBytes(StandardCharsets.UTF_8),
            against.getBytes(StandardCharsets.UTF_8)).verified;
    return ok && hash != null;
  }
}
