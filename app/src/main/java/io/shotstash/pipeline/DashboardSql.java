package io.shotstash.pipeline;

/**
 * The statements of the jobs dashboard ({@code /admin/jobs}), named, in one place: the per-minute
 * samples of the last hour ({@link MinuteSampler}, table {@code pipeline_minutes} of migration V10)
 * and the reads behind {@code pipelineJobCounts}, {@code pipelineMinutes} and {@code pipelineJobs}
 * ({@link DashboardQueries}).
 */
final class DashboardSql {
  private DashboardSql() {}

  // ---- the per-minute samples (MinuteSampler) ----

  /**
   * Writes the minute that just ended (by the database's clock), once: every node runs this a couple
   * of seconds after each minute, and the first insert wins (ON CONFLICT DO NOTHING; NOT EXISTS
   * spares the counting when the row is there already). Finished and failed are counted by
   * finished_at through pipeline_jobs_finished; the queue depth is the open jobs now, read through
   * the partial indexes of open jobs (pipeline_jobs_claim_order, pipeline_jobs_open). A job whose
   * finishing transaction began in the minute but commits after this sample ran is not counted
   * (the job calls are single short statements, so this is rare and off by one at most).
   */
  static final String SAMPLE_PREVIOUS_MINUTE =
      "INSERT INTO pipeline_minutes (minute, finished, failed, queue_depth) "
          + "SELECT m.minute, "
          + "  (SELECT count(*) FROM pipeline_jobs WHERE finished_at >= m.minute "
          + "     AND finished_at < m.minute + interval '1 minute' AND status = 'done'), "
          + "  (SELECT count(*) FROM pipeline_jobs WHERE finished_at >= m.minute "
          + "     AND finished_at < m.minute + interval '1 minute' AND status = 'failed'), "
          + "  (SELECT count(*) FROM pipeline_jobs WHERE status IN ('queued','claimed','running')) "
          + "FROM (SELECT date_trunc('minute', now()) - interval '1 minute' AS minute) m "
          + "WHERE NOT EXISTS (SELECT 1 FROM pipeline_minutes p WHERE p.minute = m.minute) "
          + "ON CONFLICT (minute) DO NOTHING";

  /** Samples older than a day go ($1: hours kept); the dashboard shows one hour. */
  static final String PRUNE_MINUTES =
      "DELETE FROM pipeline_minutes WHERE minute < now() - make_interval(hours => $1)";

  // ---- the dashboard's reads (DashboardQueries) ----

  /** Jobs by status, every job (the statuses without a job are filled in as 0 by the caller). */
  static final String COUNTS_BY_STATUS = "SELECT status, count(*) AS jobs FROM pipeline_jobs GROUP BY status";

  /**
   * The last hour: the 60 minutes before the current one, each with its sample or NULLs when no
   * sample was stored (no node was sampling: a gap, not a zero), then the current minute so far,
   * counted now (not stored; the same on every node, as it reads the same rows).
   */
  static final String LAST_HOUR =
      "SELECT g.minute, p.finished, p.failed, p.queue_depth, p.minute IS NOT NULL AS sampled, false AS current "
          + "FROM generate_series(date_trunc('minute', now()) - interval '60 minutes', "
          + "  date_trunc('minute', now()) - interval '1 minute', interval '1 minute') AS g(minute) "
          + "LEFT JOIN pipeline_minutes p ON p.minute = g.minute "
          + "UNION ALL "
          + "SELECT date_trunc('minute', now()), "
          + "  (SELECT count(*) FROM pipeline_jobs WHERE finished_at >= date_trunc('minute', now()) AND status = 'done')::int, "
          + "  (SELECT count(*) FROM pipeline_jobs WHERE finished_at >= date_trunc('minute', now()) AND status = 'failed')::int, "
          + "  (SELECT count(*) FROM pipeline_jobs WHERE status IN ('queued','claimed','running'))::int, true, true "
          + "ORDER BY 1";

  /**
   * The filters of the jobs table, each NULL when not set: $1 status, $2 kind (exact), $3 the name
   * of the worker that holds or last held the claim (exact), $4 a piece of the file name (ILIKE with
   * its wildcards escaped by the caller, backslash being the escape).
   */
  private static final String JOB_FILTERS =
      "FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
          + "LEFT JOIN pipeline_workers w ON w.id = j.worker_id "
          + "WHERE ($1::text IS NULL OR j.status = $1) AND ($2::text IS NULL OR j.kind = $2) "
          + "AND ($3::text IS NULL OR w.name = $3) "
          + "AND ($4::text IS NULL OR f.name ILIKE '%' || $4 || '%' ESCAPE '\\') ";

  /**
   * One page of the jobs table, newest first (created_at, then id, so the order is total), by
   * offset: $5 rows from row $6. Without filters pipeline_jobs_newest serves it from its end. Each
   * row is the job's usual view (JobQueries.jobJson, with its kind's liveness; $7 the lease in
   * seconds), its file's name and whether the file is in the Trash, and the worker's name.
   */
  static final String JOBS_PAGE =
      "SELECT j.id, j.file_id, j.kind, j.status, j.priority, j.progress, j.attempts, j.max_attempts, j.error, j.seq, "
          + "j.version_id, j.created_at, j.updated_at, j.finished_at, "
          + "EXISTS (SELECT 1 FROM pipeline_workers lw WHERE lw.revoked_at IS NULL "
          + "  AND lw.last_seen_at > now() - make_interval(secs => $7) AND j.kind = ANY(lw.kinds)) AS live, "
          + "f.name AS file_name, f.trashed_at IS NOT NULL AS file_trashed, w.name AS worker_name "
          + JOB_FILTERS
          + "ORDER BY j.created_at DESC, j.id DESC LIMIT $5 OFFSET $6";

  /** How many jobs the same filters match (for "page n of m"). */
  static final String JOBS_COUNT = "SELECT count(*) " + JOB_FILTERS;
}
