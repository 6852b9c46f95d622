package io.shotstash.pipeline;

/**
 * Every statement of the pipeline, named, in one place (the River habit). Each write about a job
 * re-checks the holder (worker and claim-token hash) and the status in the same statement, so no
 * check-then-act race exists between two nodes; the batched job calls do it per row inside their
 * functions (migration V8), which also say which refusal applies when the check fails.
 */
final class PipelineSql {
  private PipelineSql() {}

  // ---- workers ----

  static final String WORKER_BY_NAME =
      "SELECT id, revoked_at FROM pipeline_workers WHERE name = $1";

  /** Registering again keeps the row (and its claims) and replaces the token. */
  static final String UPSERT_WORKER =
      "INSERT INTO pipeline_workers (id, name, token_hash, version, kinds, contract) VALUES ($1, $2, $3, $4, $5, $6) "
          + "ON CONFLICT (name) DO UPDATE SET token_hash = EXCLUDED.token_hash, version = EXCLUDED.version, "
          + "kinds = EXCLUDED.kinds, contract = EXCLUDED.contract, last_seen_at = now() "
          + "WHERE pipeline_workers.revoked_at IS NULL "
          + "RETURNING id";

  /** A kind exists once a worker registers it; a registered kind applies to every file. */
  static final String ENSURE_KINDS =
      "INSERT INTO pipeline_kinds (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING";

  static final String WORKER_BY_TOKEN =
      "SELECT id, name, kinds FROM pipeline_workers WHERE token_hash = $1 AND revoked_at IS NULL";

  static final String REVOKE_WORKER =
      "UPDATE pipeline_workers SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING token_hash";

  static final String LIST_WORKERS =
      "SELECT id, name, version, kinds, contract, registered_at, last_seen_at, revoked_at, "
          + "(revoked_at IS NULL AND last_seen_at > now() - make_interval(secs => $1)) AS live, "
          + "(SELECT count(*) FROM pipeline_jobs j WHERE j.worker_id = w.id AND j.status IN ('claimed','running')) AS active_jobs "
          + "FROM pipeline_workers w ORDER BY registered_at";

  // ---- heartbeats ----

  /**
   * Concurrent heartbeats in one statement (migration V9): each worker's last-seen time, version and
   * kinds, new kinds added, and the lease moved for every listed job the worker still holds open;
   * one row per heartbeat with the ids it holds. Locks workers by id, then jobs by id (the claim's
   * order), then new kinds by name.
   */
  static final String HEARTBEAT_BATCH = "SELECT n, held FROM pipeline_heartbeat_batch($1::jsonb)";

  // ---- the claim (Claims) ----

  /** When the next queued job of these kinds becomes claimable (null: none queued). */
  static final String NEXT_RUN_AFTER =
      "SELECT j.kind, min(j.run_after) AS run_after FROM pipeline_jobs j "
          + "JOIN media_files f ON f.id = j.file_id AND f.trashed_at IS NULL "
          + "WHERE j.status = 'queued' AND j.kind = ANY($1) GROUP BY j.kind";

  // ---- batched calls (JobCalls; the functions are in migration V8) ----
  // Each takes one array per argument, element i being call i, and answers one row per call with
  // its number n (1-based) and its outcome. Every *_batch function locks the rows it touches up front,
  // files then jobs, each by id (V8's header), then runs the calls in order: one statement, one commit.

  /** GET input for many callers: a read, no lock. */
  static final String INPUT_BATCH =
      "SELECT n, outcome, storage_key, name, mime_type, size, trashed FROM pipeline_input_batch($1, $2, $3)";

  /** The lease moves as uploads start (asynchronous commit, as a lease move may be forgotten). */
  static final String TOUCH_BATCH = "SELECT n, outcome FROM pipeline_touch_batch($1, $2, $3)";

  /** Progress reports (asynchronous commit). */
  static final String PROGRESS_BATCH =
      "SELECT n, outcome, status, progress, seq FROM pipeline_progress_batch($1, $2, $3, $4)";

  /** Uploaded outputs become their claims' pending outputs (durable). */
  static final String RECORD_OUTPUT_BATCH =
      "SELECT n, outcome, previous FROM pipeline_record_output_batch($1, $2, $3, $4, $5, $6, $7, $8)";

  /**
   * Completes, each optionally recording its output first (durable). The job's kind and how long its
   * claim ran (for the metrics) come from the row as this statement found it: the join reads the
   * statement's snapshot, taken before the function's update, and neither the kind nor the claim
   * time is changed by it.
   */
  static final String COMPLETE_BATCH =
      "SELECT c.n, c.outcome, c.seq, c.version_id, c.drop_key, c.previous, j.kind, "
          + "extract(epoch FROM now() - j.claimed_at)::float8 AS run_seconds "
          + "FROM pipeline_complete_batch($1, $2, $3, $4, $5, $6, $7, $8) c "
          + "LEFT JOIN pipeline_jobs j ON j.id = ($1::uuid[])[c.n]";

  /** Releases (durable). */
  static final String RELEASE_BATCH =
      "SELECT n, outcome, attempts, seq, previous FROM pipeline_release_batch($1, $2, $3)";

  /** Fails (durable); the kind as for {@link #COMPLETE_BATCH}. */
  static final String FAIL_BATCH =
      "SELECT f.n, f.outcome, f.status, f.attempts, f.max_attempts, f.seq, f.previous, j.kind "
          + "FROM pipeline_fail_batch($1, $2, $3, $4, $5) f LEFT JOIN pipeline_jobs j ON j.id = ($1::uuid[])[f.n]";

  /**
   * Claims for many callers that run the same kinds ($1), one job each, in claim order (priority,
   * then age: created_at, id; migration V13's index pipeline_jobs_claim_priority hands them out in
   * that order): caller i ($2[i] worker, $3[i] claim-token hash) gets the i-th claimable job in that
   * order; callers beyond the jobs found get no row. FOR UPDATE SKIP LOCKED: two batches (two event loops, two nodes) never
   * take the same job nor wait for each other's candidates; a job another transaction is claiming is
   * skipped. Trashed files are skipped (the sweeper cancels their jobs). The workers' rows are
   * marked seen (at most once a second each: liveness is counted in lease lengths) after locking
   * them by id, so two batches naming the same workers cannot deadlock; NO KEY UPDATE, like the
   * update itself, never blocks the claim's own foreign-key checks on them. Asynchronous commit.
   */
  static final String CLAIM_BATCH =
      "WITH callers AS (SELECT c.worker, c.token, c.n FROM unnest($2::uuid[], $3::bytea[]) WITH ORDINALITY AS c(worker, token, n)), "
          + "seen AS (UPDATE pipeline_workers w SET last_seen_at = now() FROM ("
          + "    SELECT id FROM pipeline_workers WHERE id = ANY($2) AND last_seen_at < now() - interval '1 second' "
          + "    ORDER BY id FOR NO KEY UPDATE) l WHERE w.id = l.id), "
          + "picked AS ("
          + "  SELECT j.id, j.priority, j.created_at FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id AND f.trashed_at IS NULL"
          + "  WHERE j.status = 'queued' AND j.kind = ANY($1) AND j.run_after <= now()"
          + "  ORDER BY j.priority, j.created_at, j.id LIMIT cardinality($2) FOR UPDATE OF j SKIP LOCKED), "
          + "numbered AS (SELECT id, row_number() OVER (ORDER BY priority, created_at, id) AS n FROM picked) "
          + "UPDATE pipeline_jobs j SET status = 'claimed', attempts = j.attempts + 1, worker_id = callers.worker, "
          + "  claim_token_hash = callers.token, claimed_at = now(), heartbeat_at = now(), progress = 0, seq = j.seq + 1, "
          + "  updated_at = now() "
          + "FROM numbered JOIN callers ON callers.n = numbered.n, media_files f WHERE j.id = numbered.id AND f.id = j.file_id "
          + "RETURNING callers.n, j.id, j.kind, j.params, j.attempts, j.max_attempts, j.seq, f.name, f.mime_type, f.size, f.storage_key, "
          + "  extract(epoch FROM now() - greatest(j.created_at, j.run_after))::float8 AS waited_seconds";

  // ---- people ----

  static final String KIND = "SELECT name, accepts FROM pipeline_kinds WHERE name = $1";

  /** Every kind, whether a live worker serves it, and when any worker serving it was last seen (null: never). */
  static final String KINDS =
      "SELECT k.name, k.accepts, k.builtin, EXISTS (SELECT 1 FROM pipeline_workers w WHERE w.revoked_at IS NULL "
          + "AND w.last_seen_at > now() - make_interval(secs => $1) AND k.name = ANY(w.kinds)) AS live, "
          + "(SELECT max(w.last_seen_at) FROM pipeline_workers w WHERE k.name = ANY(w.kinds)) AS worker_seen_at "
          + "FROM pipeline_kinds k ORDER BY k.name";

  static final String FILE = "SELECT id, mime_type, trashed_at FROM media_files WHERE id = $1";

  /** Queue a job; a file has at most one unfinished job per kind, so a repeat returns that job. */
  static final String ENQUEUE =
      "INSERT INTO pipeline_jobs (id, file_id, kind, created_by) VALUES ($1, $2, $3, $4) "
          + "ON CONFLICT (file_id, kind) WHERE status IN ('queued','claimed','running') DO NOTHING RETURNING id";

  /**
   * A person asks for a file whose job of this kind is still queued from a folder's backlog: it moves
   * to the person's priority (and is answered as the file's open job). The row is locked by the
   * update alone; a job a worker claimed meanwhile is no longer queued and keeps its place.
   */
  static final String PROMOTE =
      "UPDATE pipeline_jobs SET priority = $3, seq = seq + 1, updated_at = now() "
          + "WHERE file_id = $1 AND kind = $2 AND status = 'queued' AND priority > $3 RETURNING id, seq";

  // ---- a folder at once (FolderEnqueue) ----

  /** The folder enqueueFolder names: missing or in the Trash is FOLDER_NOT_FOUND. A read, no lock. */
  static final String FOLDER = "SELECT trashed_at FROM folders WHERE id = $1";

  /**
   * The folder and every live sub-folder under it, by id (a folder in the Trash hides its
   * sub-folders, whose files the trash put in the Trash too). UNION, not UNION ALL: a cycle of
   * parents, which nothing makes, would still end. A read, no lock: a folder created meanwhile is
   * simply not part of this call.
   */
  static final String FOLDER_TREE =
      "WITH RECURSIVE tree AS (SELECT id FROM folders WHERE id = $1 AND trashed_at IS NULL UNION "
          + "  SELECT f.id FROM folders f JOIN tree t ON f.parent_id = t.id WHERE f.trashed_at IS NULL) "
          + "SELECT id FROM tree ORDER BY id";

  /**
   * One bounded batch of a folder's backlog, one transaction: the next $3 live files of folder $1
   * after file id $2 (keyset, V13's media_files_folder_live), those the kind accepts ($4: its MIME
   * prefixes, NULL for every file, the rule of Kinds.applies), each queued as kind $6 at priority
   * $7 by person $8 with the ids $5 (UUIDv7, made by the caller, in file order). A file with an
   * open job of the kind is skipped by the one-open-job index (pipeline_jobs_one_open): ON CONFLICT
   * DO NOTHING, no error and no wait unless another transaction is queueing that very file and kind.
   * Locks: only the new job rows, and FOR KEY SHARE on each file row (the foreign key), taken in file
   * id order, the order the job queue's batches lock files in (V8), so a concurrent complete or trash
   * of one of these files waits for this batch's commit (milliseconds), never deadlocks with it, and
   * claims (SKIP LOCKED, and they never see uncommitted rows) are not held up. Answers the batch's
   * last file id (null: the folder is done), its file count, how many the kind accepts and how many
   * were queued (the rest of the accepted ones had an open job).
   */
  static final String ENQUEUE_FOLDER_BATCH =
      "WITH batch AS (SELECT f.id, f.mime_type FROM media_files f "
          + "  WHERE f.folder_id = $1 AND f.trashed_at IS NULL AND f.id > $2 ORDER BY f.id LIMIT $3), "
          + "accepted AS (SELECT b.id, row_number() OVER (ORDER BY b.id) AS n FROM batch b "
          + "  WHERE $4::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($4::text[]) AS a(prefix) "
          + "    WHERE starts_with(lower(b.mime_type), a.prefix))), "
          + "queued AS (INSERT INTO pipeline_jobs (id, file_id, kind, priority, created_by) "
          + "  SELECT ($5::uuid[])[a.n], a.id, $6, $7, $8 FROM accepted a ORDER BY a.id "
          + "  ON CONFLICT (file_id, kind) WHERE status IN ('queued','claimed','running') DO NOTHING RETURNING 1) "
          + "SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM batch) AS files, "
          + "(SELECT count(*) FROM accepted) AS accepted, (SELECT count(*) FROM queued) AS queued";

  /** What a retry needs of the job it starts again. */
  static final String JOB_TO_RETRY = "SELECT file_id, kind, status FROM pipeline_jobs WHERE id = $1";

  static final String OPEN_JOB_OF_FILE_KIND =
      "SELECT id FROM pipeline_jobs WHERE file_id = $1 AND kind = $2 AND status IN ('queued','claimed','running')";

  /** The view of a job people read, with the derived liveness of its kind. */
  static final String JOB_VIEW =
      "SELECT j.id, j.file_id, j.kind, j.status, j.priority, j.progress, j.attempts, j.max_attempts, j.error, j.seq, "
          + "j.version_id, j.created_at, j.updated_at, j.finished_at, "
          + "EXISTS (SELECT 1 FROM pipeline_workers w WHERE w.revoked_at IS NULL "
          + "  AND w.last_seen_at > now() - make_interval(secs => $2) AND j.kind = ANY(w.kinds)) AS live "
          + "FROM pipeline_jobs j WHERE ";

  static final String JOB_BY_ID = JOB_VIEW + "j.id = $1";

  static final String JOBS_OF_FILE = JOB_VIEW + "j.file_id = $1 ORDER BY j.created_at DESC";

  /** Cancel by a person: final, the claim kept so the holder hears JOB_TERMINAL. */
  static final String CANCEL =
      "UPDATE pipeline_jobs j SET status = 'cancelled', error = coalesce($2, j.error), output_version_id = NULL, "
          + "output_storage_key = NULL, output_mime_type = NULL, output_ext = NULL, output_size = NULL, "
          + "seq = j.seq + 1, updated_at = now(), finished_at = now() "
          + "FROM (SELECT id, output_storage_key AS previous FROM pipeline_jobs WHERE id = $1 FOR UPDATE) old "
          + "WHERE j.id = old.id AND j.status IN ('queued','claimed','running') RETURNING j.seq, old.previous";

  static final String STATUS_COUNTS =
      "SELECT status, count(*) FROM pipeline_jobs GROUP BY status";

  static final String LIVE_WORKERS =
      "SELECT count(*) FROM pipeline_workers WHERE revoked_at IS NULL AND last_seen_at > now() - make_interval(secs => $1)";

  // ---- the sweeper ----

  /** Only one node sweeps at a time: a transaction-scoped advisory lock, skipped if taken. */
  static final String TRY_SWEEP_LOCK = "SELECT pg_try_advisory_xact_lock(7482001)";

  /**
   * Expired claims: requeue with backoff while attempts remain, else fail with the contract's
   * message. SKIP LOCKED: a job a worker is completing right now is left for the next sweep.
   */
  static final String EXPIRE_LEASES =
      "WITH expired AS (SELECT id, output_storage_key AS previous FROM pipeline_jobs "
          + "  WHERE status IN ('claimed','running') AND heartbeat_at < now() - make_interval(secs => $1) "
          + "  FOR UPDATE SKIP LOCKED) "
          + "UPDATE pipeline_jobs j SET "
          + "status = CASE WHEN j.attempts < j.max_attempts THEN 'queued' ELSE 'failed' END, "
          + "worker_id = CASE WHEN j.attempts < j.max_attempts THEN NULL ELSE j.worker_id END, "
          + "claim_token_hash = CASE WHEN j.attempts < j.max_attempts THEN NULL ELSE j.claim_token_hash END, "
          + "run_after = CASE WHEN j.attempts < j.max_attempts THEN now() + make_interval(secs => 30 * j.attempts) "
          + "  ELSE j.run_after END, "
          + "error = CASE WHEN j.attempts < j.max_attempts THEN j.error ELSE 'The worker stopped sending heartbeats' END, "
          + "finished_at = CASE WHEN j.attempts < j.max_attempts THEN NULL ELSE now() END, "
          + "progress = CASE WHEN j.attempts < j.max_attempts THEN 0 ELSE j.progress END, "
          + "output_version_id = NULL, output_storage_key = NULL, output_mime_type = NULL, output_ext = NULL, "
          + "output_size = NULL, seq = j.seq + 1, updated_at = now() "
          + "FROM expired WHERE j.id = expired.id RETURNING j.id, j.kind, j.status, expired.previous";

  // ---- the metrics' gauges (QueueGauges), read by every node; each is answered from the partial
  //      indexes of open jobs (pipeline_jobs_claim, pipeline_jobs_open), never a scan of finished ones

  /** Open jobs by status and kind. Finished ones are counted by the counters as they finish. */
  static final String OPEN_JOB_COUNTS =
      "SELECT status, kind, count(*) AS jobs FROM pipeline_jobs WHERE status IN ('queued','claimed','running') "
          + "GROUP BY status, kind";

  /** Per kind, how long the oldest claimable job has waited since it became claimable. */
  static final String OLDEST_CLAIMABLE =
      "SELECT kind, extract(epoch FROM now() - min(greatest(created_at, run_after)))::float8 AS age "
          + "FROM pipeline_jobs WHERE status = 'queued' AND run_after <= now() GROUP BY kind";

  // (the live workers: LIVE_WORKERS above)

  /** Open jobs of trashed files (normally cancelled by the trash itself; this is the safety net). */
  static final String CANCEL_TRASHED =
      "WITH doomed AS (SELECT j.id, j.output_storage_key AS previous FROM pipeline_jobs j "
          + "  JOIN media_files f ON f.id = j.file_id WHERE f.trashed_at IS NOT NULL "
          + "  AND j.status IN ('queued','claimed','running') FOR UPDATE OF j SKIP LOCKED) "
          + "UPDATE pipeline_jobs j SET status = 'cancelled', error = 'file trashed', output_version_id = NULL, "
          + "output_storage_key = NULL, output_mime_type = NULL, output_ext = NULL, output_size = NULL, "
          + "seq = j.seq + 1, updated_at = now(), finished_at = now() FROM doomed WHERE j.id = doomed.id "
          + "RETURNING j.id, doomed.previous";

  /** Worker rows not seen for 30 days that hold no claim; revoked rows stay so the name stays revoked. */
  static final String PRUNE_WORKERS =
      "DELETE FROM pipeline_workers w WHERE w.revoked_at IS NULL AND w.last_seen_at < now() - interval '30 days' "
          + "AND NOT EXISTS (SELECT 1 FROM pipeline_jobs j WHERE j.worker_id = w.id AND j.status IN ('claimed','running'))";

  /** Kinds whose liveness flipped since the last sweep; their queued jobs' seq moves. */
  static final String FLIP_LIVENESS =
      "WITH now_live AS (SELECT k.name, EXISTS (SELECT 1 FROM pipeline_workers w WHERE w.revoked_at IS NULL "
          + "  AND w.last_seen_at > now() - make_interval(secs => $1) AND k.name = ANY(w.kinds)) AS live "
          + "  FROM pipeline_kinds k) "
          + "UPDATE pipeline_kinds k SET live = now_live.live FROM now_live "
          + "WHERE k.name = now_live.name AND k.live <> now_live.live RETURNING k.name";

  static final String BUMP_QUEUED_OF_KINDS =
      "UPDATE pipeline_jobs SET seq = seq + 1, updated_at = now() WHERE status = 'queued' AND kind = ANY($1) RETURNING id";

  /** Every storage key a job or a version still owns (for deleting orphan outputs). */
  static final String OWNED_VERSION_KEYS =
      "SELECT storage_key FROM processed_versions UNION ALL "
          + "SELECT output_storage_key FROM pipeline_jobs WHERE output_storage_key IS NOT NULL";
}
