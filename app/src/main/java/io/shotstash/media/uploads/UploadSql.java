package io.shotstash.media.uploads;

/**
 * Every statement on {@code tus_uploads} (migration V12), named, with why each lock is taken the way
 * it is.
 *
 * <p><b>The upload's lock</b> is a PostgreSQL session-level advisory lock on (class {@link
 * #LOCK_CLASS}, hash of the upload id), held for exactly one PATCH, HEAD-with-finish or DELETE on a
 * session kept for upload locks ({@link UploadLocks}). Why not a row lock ({@code SELECT ... FOR
 * UPDATE}): a PATCH can stream for an hour, and a transaction open that long holds back vacuum on
 * the whole database; a session lock holds no transaction. Why not an in-node lock: nodes of a
 * cluster share PostgreSQL and the data folder, and two nodes writing one part file would interleave
 * bytes. Why sessions apart from the pool: a lock is released ({@link #UNLOCK_ALL}) before its
 * session is kept for the next request, a session that fails is closed rather than kept, and when
 * a node dies its sessions close and PostgreSQL frees their locks at once. A lock taken, the holder
 * reads the upload again (it may have been ended or swept meanwhile) and the durable offset from
 * disk: that re-check is what makes a second PATCH at the same offset, one that waited behind the
 * first, answer 409.
 */
final class UploadSql {
  private UploadSql() {}

  /** The first key of every upload's advisory lock (issue #20); the second is the id's hash. */
  static final int LOCK_CLASS = 20;

  static final String COLUMNS = "id, target, owner_id, folder_id, file_name, mime_type, upload_length, upload_offset, "
      + "result_id, expires_at, completed_at";

  /** A new upload; it expires $9 hours from now unless a PATCH moves that on. */
  static final String INSERT =
      "INSERT INTO tus_uploads (id, target, owner_id, folder_id, file_name, mime_type, upload_length, result_id, "
          + "expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(hours => $9)) "
          + "RETURNING " + COLUMNS;

  /** Read without a lock: answers who owns it and whether it expired, before the lock is asked for. */
  static final String UPLOAD = "SELECT " + COLUMNS + " FROM tus_uploads WHERE id = $1";

  /**
   * The upload's lock, or false at once when another request holds it (the second of two racing
   * PATCHes answers 409 rather than waiting). hashtext: a collision of two ids only makes one wait
   * for (answer 409 to) the other's unrelated PATCH; it never lets two write one upload.
   */
  static final String TRY_LOCK = "SELECT pg_try_advisory_lock(" + LOCK_CLASS + ", hashtext($1))";

  /**
   * Before a lock session is kept for the next request: every session-level advisory lock it holds
   * goes (its upload's lock, and any other), so a kept session never holds one.
   */
  static final String UNLOCK_ALL = "SELECT pg_advisory_unlock_all()";

  /**
   * Once a PATCH's bytes are in (lock held), beside the offset file's commit: mirror the offset, and
   * move the expiry on, since the upload is in use. This one commit does not wait for PostgreSQL's WAL flush
   * ({@code synchronous_commit} off for its transaction only, set in the statement): the offset file
   * is the truth, so a crash that loses this commit loses only a mirror and an expiry one PATCH old,
   * and the PATCH's answer is not held up by a second fsync. Any later synchronous commit (the
   * finish's) flushes it too.
   */
  static final String RECORD_OFFSET =
      "UPDATE tus_uploads SET upload_offset = $2, updated_at = now(), expires_at = now() + make_interval(hours => $3) "
          + "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed "
          + "WHERE id = $1 RETURNING " + COLUMNS;

  /** Once its target made the result (lock held); a second call changes nothing. */
  static final String MARK_COMPLETED =
      "UPDATE tus_uploads SET completed_at = now(), upload_offset = upload_length, updated_at = now() "
          + "WHERE id = $1 AND completed_at IS NULL";

  /** Termination (lock held). */
  static final String DELETE = "DELETE FROM tus_uploads WHERE id = $1";

  /**
   * The sweeper: expired uploads, deleted with the ids returned so their files go too. Rows another
   * sweeper (another node) is deleting are skipped (SKIP LOCKED), and so are uploads whose lock a
   * request holds right now (pg_try_advisory_xact_lock, freed at this transaction's end): a PATCH
   * in flight is never swept from under it, and moves the expiry on when it ends. MATERIALIZED keeps
   * the lock attempt to the expired rows only. At most 500 a sweep.
   */
  static final String SWEEP_EXPIRED =
      "WITH expired AS MATERIALIZED (SELECT id FROM tus_uploads WHERE expires_at <= now() "
          + "  ORDER BY expires_at LIMIT 500 FOR UPDATE SKIP LOCKED), "
          + "free AS MATERIALIZED (SELECT id FROM expired WHERE pg_try_advisory_xact_lock(" + LOCK_CLASS
          + ", hashtext(id::text))) "
          + "DELETE FROM tus_uploads u USING free WHERE u.id = free.id RETURNING u.id, u.completed_at";
}
