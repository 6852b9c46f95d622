package io.shotstash.people;

/**
 * Every statement on the private tables of people (V1__people_private.sql, V3__github_oauth.sql and
 * the migrations after them): private profiles, passwords, sessions, pending GitHub sign-ins, and
 * the rows a purge removes. Named, in one place, with a comment where a lock or an order matters.
 * Private rows are keyed by the person's public id; nothing here reaches git. (Agent grants keep
 * their own statements in {@code agents/Grants}; the job queue in {@code pipeline/PipelineSql}.)
 */
public final class PrivateSql {
  private PrivateSql() {}

  // ---- accounts and sign-in (AccountWrites, Sessions) ----

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

  // ---- GitHub sign-in (GitHubSignup) ----

  private static final String STATE_TTL = "interval '" + GitHubSignup.STATE_TTL_SECONDS + " seconds'";

  /** Saves a pending sign-in and, in the same statement, drops the expired ones. */
  static final String REMEMBER_STATE =
      "WITH expired AS (DELETE FROM oauth_states WHERE created_at < now() - " + STATE_TTL + ") "
          + "INSERT INTO oauth_states (state_hash, verifier, return_path) VALUES ($1, $2, $3)";

  /**
   * Takes a pending sign-in once: the row lock of the UPDATE makes a second caller with the same
   * state (on any node) wait, then see used_at set and get no row.
   */
  static final String TAKE_STATE =
      "UPDATE oauth_states SET used_at = now() "
          + "WHERE state_hash = $1 AND used_at IS NULL AND created_at > now() - " + STATE_TTL + " "
          + "RETURNING verifier, return_path";

  static final String INSERT_PROFILE_WITH_GITHUB =
      "INSERT INTO private_profiles (person_id, email, github) VALUES ($1, $2, $3)";

  /** A linked member signed in again: GitHub's facts as it states them now. */
  static final String UPSERT_GITHUB_FACTS =
      "INSERT INTO private_profiles (person_id, github) VALUES ($1, $2) "
          + "ON CONFLICT (person_id) DO UPDATE SET github = EXCLUDED.github, updated_at = now()";

  /** The roster's re-probe of a member's GitHub account (moderation/GitHubProbe). */
  public static final String UPDATE_GITHUB_FACTS =
      "UPDATE private_profiles SET github = $2, updated_at = now() WHERE person_id = $1";

  // ---- bounces (http/WebhookRoutes) ----

  /** A known email's first terminal bounce; a later one does not replace it. */
  public static final String STORE_BOUNCE =
      "UPDATE private_profiles SET email_bounce = $2, updated_at = now() WHERE email = $1 AND email_bounce IS NULL";

  // ---- the roster (moderation/RosterFacts): private facts of one page of people ----

  public static final String ROSTER_PRIVATE_FACTS =
      "SELECT p.person_id, p.email, p.github, p.last_slack_sso_at, p.email_bounce, "
          + "(SELECT max(issued_at) FROM sessions s WHERE s.person_id = p.person_id) AS last_login, "
          + "(SELECT count(*) FROM sessions s WHERE s.person_id = p.person_id) AS sign_ins "
          + "FROM private_profiles p WHERE p.person_id = ANY($1)";

  /** Sign-ins of the page's people, for those without a private profile too. */
  public static final String ROSTER_SIGN_INS =
      "SELECT person_id, max(issued_at) AS last_login, count(*) AS sign_ins FROM sessions WHERE person_id = ANY($1) "
          + "GROUP BY person_id";

  /** Everyone's last sign-in, only when the roster is sorted by it. */
  public static final String LAST_LOGINS =
      "SELECT person_id, max(issued_at) FROM sessions GROUP BY person_id";

  /** The roster's email index: every email at its first build, then the people it has not seen. */
  public static final String ALL_EMAILS =
      "SELECT person_id, email FROM private_profiles WHERE email IS NOT NULL";

  public static final String EMAILS_OF =
      "SELECT person_id, email FROM private_profiles WHERE person_id = ANY($1) AND email IS NOT NULL";

  // ---- purges ----

  /** Rule 5 of the agent purge: whether the member has signed into Slack through the site. */
  public static final String LAST_SLACK_SIGN_IN =
      "SELECT last_slack_sso_at FROM private_profiles WHERE person_id = $1";

  /*
   * A purged person's private rows, deleted in the purge's own transaction (so a failed commit keeps
   * them): profile, password, sessions (ended at once) and agent grants, in this order.
   */
  public static final String DELETE_PROFILE = "DELETE FROM private_profiles WHERE person_id = $1";
  public static final String DELETE_PASSWORD = "DELETE FROM password_credentials WHERE person_id = $1";
  public static final String DELETE_SESSIONS = "DELETE FROM sessions WHERE person_id = $1";
  public static final String DELETE_GRANTS = "DELETE FROM agent_grants WHERE agent_person_id = $1";

  /**
   * purge-orphans (moderation/PrivateDataWrites): every person id the private tables know. It runs
   * in the git writer, so a member mid-sign-up (private rows written, public record not yet) is
   * never taken for an orphan.
   */
  public static final String PRIVATE_PERSON_IDS =
      "SELECT person_id FROM private_profiles UNION SELECT person_id FROM password_credentials "
          + "UNION SELECT person_id FROM sessions";

  /** purge-orphans without apply counts the rows; with apply it deletes them. Both take the ids as $1. */
  public static final String COUNT_ORPHAN_PROFILES = "SELECT 1 FROM private_profiles WHERE person_id = ANY($1)";
  public static final String COUNT_ORPHAN_PASSWORDS = "SELECT 1 FROM password_credentials WHERE person_id = ANY($1)";
  public static final String COUNT_ORPHAN_SESSIONS = "SELECT 1 FROM sessions WHERE person_id = ANY($1)";
  public static final String DELETE_ORPHAN_PROFILES = "DELETE FROM private_profiles WHERE person_id = ANY($1)";
  public static final String DELETE_ORPHAN_PASSWORDS = "DELETE FROM password_credentials WHERE person_id = ANY($1)";
  public static final String DELETE_ORPHAN_SESSIONS = "DELETE FROM sessions WHERE person_id = ANY($1)";
}
