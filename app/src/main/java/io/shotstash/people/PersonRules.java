package io.shotstash.people;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.records.AccountLevel;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** The rules for a person's slug, name, email and password (docs/api.md → First run). Pure. */
public final class PersonRules {
  public static final Pattern SLUG = Pattern.compile("^[a-z0-9][a-z0-9-]{1,49}$");
  private static final Pattern EMAIL = Pattern.compile("^[^@\\s]{1,64}@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$");
  public static final Set<String> RESERVED = Set.of("new", "create", "edit", "delete", "restore", "me", "current",
      "self", "admin", "staff", "system", "api", "auth", "login", "logout", "members", "people", "projects", "tags");
  public static final int FULL_NAME_MAX = 100;
  public static final int PASSWORD_MIN = 10;
  public static final int PASSWORD_MAX = 200;

  private PersonRules() {}

  /** Why {@code slug} cannot be a person's slug (format and reserved words only), or null. */
  public static String slugProblem(String slug) {
    if (slug == null || !SLUG.matcher(slug).matches()) {
      return "must be 2 to 50 lowercase letters, digits or dashes, starting with a letter or digit";
    }
    if (RESERVED.contains(slug)) {
      return "is reserved";
    }
    return null;
  }

  /** Whether another person (deactivated ones count) already has this slug, in any case. */
  public static boolean slugTaken(PublicState state, String slug) {
    return state.personBySlug(slug).isPresent();
  }

  public static String fullNameProblem(String fullName) {
    if (fullName == null || fullName.isBlank()) {
      return "is required";
    }
    if (fullName.strip().length() > FULL_NAME_MAX) {
      return "must be at most " + FULL_NAME_MAX + " characters";
    }
    if (fullName.chars().anyMatch(Character::isISOControl)) {
      return "must not contain control characters";
    }
    return null;
  }

  public static String emailProblem(String email) {
    if (email == null || email.length() > 254 || !EMAIL.matcher(email.strip()).matches()) {
      return "must be an email address";
    }
    return null;
  }

  public static String normalizeEmail(String email) {
    return email.strip().toLowerCase(Locale.ROOT);
  }

  public static String passwordProblem(String password) {
    if (password == null || password.length() < PASSWORD_MIN) {
      return "must be at least " + PASSWORD_MIN + " characters";
    }
    if (password.length() > PASSWORD_MAX) {
      return "must be at most " + PASSWORD_MAX + " characters";
    }
    return null;
  }

  /**
   * Validates a new account's fields: slug, fullName, email, password (optional unless
   * {@code passwordRequired}) and accountLevel (optional). Returns field → reason; empty when valid.
   */
  public static Map<String, String> newAccountProblems(String slug, String fullName, String email, String password,
      boolean passwordRequired, String accountLevel) {
    Map<String, String> problems = new LinkedHashMap<>();
    put(problems, "slug", slugProblem(slug));
    put(problems, "fullName", fullNameProblem(fullName));
    put(problems, "email", emailProblem(email));
    if (password != null || passwordRequired) {
      put(problems, "password", passwordProblem(password));
    }
    if (accountLevel != null && AccountLevel.parse(accountLevel).isEmpty()) {
      problems.put("accountLevel", "must be one of user, editor, staff, administrator");
    }
    return problems;
  }

  private static void put(Map<String, String> problems, String field, String problem) {
    if (problem != null) {
      problems.put(field, problem);
    }
  }
}
