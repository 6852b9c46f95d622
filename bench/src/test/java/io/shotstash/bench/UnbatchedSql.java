package io.shotstash.bench;

/**
 * The job cycle's statements as the job queue sent them before it batched (one job per statement,
 * one statement per worker call; up to commit 38efdab in io.shotstash.pipeline.PipelineSql): what
 * pgbench runs in {@link JobCycleBench}, the unbatched limit that batching must beat (issue #17).
 * Parameters: $1 job (the claim: $1 kinds), $2 worker, $3 claim-token hash.
 */
final class UnbatchedSql {
  private UnbatchedSql() {}

  /**
   * Claims the oldest claimable job of the worker's kinds, and records that the worker was seen.
   * FOR UPDATE SKIP LOCKED: concurrent claimers never wait on each other's candidate and never get
   * the same row; a row another transaction is claiming is simply skipped. Trashed files are
   * skipped (the sweeper cancels their jobs). The worker's row is updated in the same statement
   * (a data-modifying CTE always runs), even when nothing is claimable; it is a non-key column, so
   * it does not conflict with the claim's foreign-key check on the same row. Runs on the
   * asynchronous-commit pool (the job queue): a claim a PostgreSQL crash forgets is a
   * job queued again, which its holder learns as CLAIM_STALE at its next call.
   */
  static final String CLAIM =
      "WITH seen AS (UPDATE pipeline_workers SET last_seen_at = now() WHERE id = $2), "
          + "candidate AS ("
          + "  SELECT j.id FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id AND f.trashed_at IS NULL"
          + "  WHERE j.status = 'queued' AND j.kind = ANY($1) AND j.run_after <= now()"
          + "  ORDER BY j.created_at, j.id LIMIT 1 FOR UPDATE OF j SKIP LOCKED) "
          + "UPDATE pipeline_jobs j SET status = 'claimed', attempts = j.attempts + 1, worker_id = $2, "
          + "  claim_token_hash = $3, claimed_at = now(), heartbeat_at = now(), progress = 0, seq = j.seq + 1, "
          + "  updated_at = now() "
          + "FROM candidate, media_files f WHERE j.id = candidate.id AND f.id = j.file_id "
          + "RETURNING j.id, j.kind, j.params, j.attempts, j.max_attempts, j.seq, f.name, f.mime_type, f.size";

  /** Reading input: checks the holder and the file, does not move the lease. */
  static final String INPUT =
      "SELECT f.storage_key, f.name, f.mime_type, f.size, f.trashed_at FROM pipeline_jobs j "
          + "JOIN media_files f ON f.id = j.file_id "
          + "WHERE j.id = $1 AND j.worker_id = $2 AND j.claim_token_hash = $3 AND j.status IN ('claimed','running')";

  /**
   * Records the uploaded output as the claim's pending output and moves the lease. Returns the key
   * of the output it replaces (the caller deletes it).
   */
  static final String RECORD_OUTPUT =
      "UPDATE pipeline_jobs j SET output_version_id = $4, output_storage_key = $5, output_mime_type = $6, "
          + "output_ext = $7, output_size = $8, heartbeat_at = now(), seq = j.seq + 1, updated_at = now() "
          + "FROM (SELECT id, output_storage_key AS previous FROM pipeline_jobs WHERE id = $1 FOR UPDATE) old "
          + "WHERE j.id = old.id AND j.worker_id = $2 AND j.claim_token_hash = $3 AND j.status IN ('claimed','running') "
          + "RETURNING old.previous";

  /**
   * complete, in one round trip: {@code pipeline_complete} (migration V5, still what a batched complete calls per job) locks the file row, then
   * the job row, re-checks the holder and the status, and creates the version and marks the job
   * done in the same transaction; it answers an outcome ({@code done}, {@code job_not_found},
   * {@code claim_stale}, {@code file_gone}, {@code job_terminal}, {@code output_dropped},
   * {@code output_missing}) that the caller maps to the contract's answer.
   */
  static final String COMPLETE =
      "SELECT outcome, seq, version_id, drop_key FROM pipeline_complete($1, $2, $3)";
}
