package io.shotstash.publicdata.records;

import java.util.Locale;
import java.util.Optional;

/** Account levels, lowest first; each has the powers of those below it. */
public enum AccountLevel {
  USER,
  EDITOR,
  STAFF,
  ADMINISTRATOR;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean atLeast(AccountLevel other) {
    return compareTo(other) >= 0;
  }

  public static Optional<AccountLevel> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    for (AccountLevel level : values()) {
      if (level.wire().equals(value)) {
        return Optional.of(level);
      }
    }
    return Optional.empty();
  }
}
