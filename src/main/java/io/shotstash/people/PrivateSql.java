package io.shotstash.people;

/**
 * Every statement on the private people tables (V1__people_private.sql), named, in one place.
 * Private rows are keyed by the person's public id; nothing here reaches git.
 */
public final class PrivateSql {
  private PrivateSql() {}

  static final String INSERT_PROFILE =
      "INSERT INTO private_profiles (person_id, email) VALUES ($1, $2)";

  static final String EMAIL_TAKEN =
      "SELECT 1 FROM private_profiles WHERE email = $1";

  static final String PERSON_BY_EMAIL =
      "SELECT person_id FROM private_profiles WHERE email = $1";

  static final String EMAIL_OF =
      "SELECT email FROM private_profiles WHERE person_id = $1";

  static final String UPSERT_PASSWORD =
      "INSERT INTO password_credentials (person_id, hash) VALUES ($1, $2) "
          + "ON CONFLICT (person_id) DO UPDATE SET hash = EXCLUDED.hash, updated_at = now()";

  static final String PASSWORD_HASH =
      "SELECT hash FROM password_credentials WHERE person_id = $1";

  static final String INSERT_SESSION =
      "INSERT INTO sessions (id, person_id, expires_at, user_agent, method) VALUES ($1, $2, $3, $4, $5)";

  /** A session counts only while neither revoked nor expired; checked on every request. */
  static final String ACTIVE_SESSION =
      "SELECT person_id FROM sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > now()";

  static final String REVOKE_SESSION =
      "UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL";

  static final String REVOKE_ALL_SESSIONS =
      "UPDATE sessions SET revoked_at = now() WHERE person_id = $1 AND revoked_at IS NULL";

  /** Rule 5 of the agent purge: whether the member has signed into Slack through the site. */
  public static final String LAST_SLACK_SIGN_IN =
      "SELECT last_slack_sso_at FROM private_profiles WHERE person_id = $1";
}
