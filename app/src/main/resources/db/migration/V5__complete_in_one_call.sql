-- complete (POST /api/v1/pipeline/jobs/:id/complete) in one round trip, as graphile-worker's
-- complete_job: the app used to run BEGIN, two locking reads, the INSERT of the version, the UPDATE
-- and COMMIT as six statements, each waiting for the one before. The rules are the same, in the
-- same order (PIPELINE.md, check order), and JobQueueVerticle.complete maps each outcome to the
-- contract's answer:
--
--   job_not_found      no such job                                        404 JOB_NOT_FOUND
--   claim_stale        the caller does not hold the claim                 409 CLAIM_STALE
--   file_gone          the job was cancelled because its file was trashed 409 FILE_GONE
--   job_terminal       the job is done, failed or cancelled               409 JOB_TERMINAL
--   output_dropped     the file is in the Trash: the pending output is    409 FILE_GONE
--                      forgotten (committed) and drop_key names the blob
--                      the caller deletes once the row no longer points at it
--   output_missing     no output was uploaded for this claim              409 OUTPUT_MISSING
--   done               the processed version exists; seq and version_id
--
-- Locks: the file row first, then the job row. Trashing a file takes the file row's lock before it
-- cancels the file's jobs, so the two never wait on each other in opposite orders.
CREATE FUNCTION pipeline_complete(p_job uuid, p_worker uuid, p_token bytea,
    OUT outcome text, OUT seq bigint, OUT version_id uuid, OUT drop_key text) AS $$
#variable_conflict use_column
DECLARE
  f media_files%ROWTYPE;
  j pipeline_jobs%ROWTYPE;
BEGIN
  SELECT * INTO f FROM media_files WHERE id = (SELECT file_id FROM pipeline_jobs WHERE id = p_job) FOR UPDATE;
  IF NOT FOUND THEN
    outcome := 'job_not_found';
    RETURN;
  END IF;
  SELECT * INTO j FROM pipeline_jobs WHERE id = p_job FOR UPDATE;
  IF j.worker_id IS DISTINCT FROM p_worker OR j.claim_token_hash IS DISTINCT FROM p_token THEN
    outcome := 'claim_stale';
    RETURN;
  END IF;
  IF j.status IN ('done', 'failed', 'cancelled') THEN
    outcome := CASE WHEN j.status = 'cancelled' AND j.error = 'file trashed' THEN 'file_gone' ELSE 'job_terminal' END;
    RETURN;
  END IF;
  IF f.trashed_at IS NOT NULL THEN
    UPDATE pipeline_jobs SET output_version_id = NULL, output_storage_key = NULL, output_mime_type = NULL,
        output_ext = NULL, output_size = NULL, seq = pipeline_jobs.seq + 1, updated_at = now()
      WHERE id = p_job;
    outcome := 'output_dropped';
    drop_key := j.output_storage_key;
    RETURN;
  END IF;
  IF j.output_version_id IS NULL THEN
    outcome := 'output_missing';
    RETURN;
  END IF;
  INSERT INTO processed_versions (id, file_id, job_id, attempt, kind, mime_type, ext, size, storage_key)
    VALUES (j.output_version_id, j.file_id, j.id, j.attempts, j.kind, j.output_mime_type, j.output_ext,
            j.output_size, j.output_storage_key);
  UPDATE pipeline_jobs SET status = 'done', progress = 100, version_id = pipeline_jobs.output_version_id,
      output_storage_key = NULL, seq = pipeline_jobs.seq + 1, updated_at = now(), finished_at = now()
    WHERE id = p_job
    RETURNING pipeline_jobs.seq INTO seq;
  outcome := 'done';
  version_id := j.output_version_id;
END
$$ LANGUAGE plpgsql;
