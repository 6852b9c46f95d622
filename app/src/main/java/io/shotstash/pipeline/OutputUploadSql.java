package io.shotstash.pipeline;

/**
 * The statements on {@code tus_output_uploads} (migration V14): which job and which claim a worker's
 * resumable output belongs to. No locks of their own: the row is written in the transaction that
 * creates its upload, never changed, and goes with the upload's row (ON DELETE CASCADE), which the
 * upload's lock guards (media/uploads/UploadSql).
 */
final class OutputUploadSql {
  private OutputUploadSql() {}

  /** Beside a new upload, in the transaction that inserts it. */
  static final String INSERT =
      "INSERT INTO tus_output_uploads (upload_id, job_id, claim_token_hash) VALUES ($1, $2, $3)";

  /**
   * Output uploads whose claim is over: the job is gone, not open, or held under another claim (the
   * upload sweeper removes them). No lock: once a claim is over it never holds again (a new claim
   * gets a new token, and a final job stays final), so what this read finds stays true until the
   * removal, which takes each upload's lock.
   */
  static final String OVER =
      "SELECT o.upload_id FROM tus_output_uploads o LEFT JOIN pipeline_jobs j ON j.id = o.job_id "
          + "WHERE j.id IS NULL OR j.status NOT IN ('claimed', 'running') "
          + "OR j.claim_token_hash IS DISTINCT FROM o.claim_token_hash LIMIT $1";

  /** The job and claim of an upload; no row: not an output upload. */
  static final String OF_UPLOAD = "SELECT job_id, claim_token_hash FROM tus_output_uploads WHERE upload_id = $1";
}
