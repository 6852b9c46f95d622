-- The job calls of many workers in one statement each (issue #17). The job queue collects the calls
-- of one kind that arrive while its previous statement is in flight and sends them together
-- (pipeline/Batcher): one round trip and one commit for the lot. Each call is still judged on its
-- own: the per-call functions below hold the rules of one call, exactly as the single statements
-- did (holder = worker and claim-token hash, status, output, file), and each answers an outcome the
-- app maps to the contract's answer:
--
--   ok / recorded / done   the call took effect
--   job_not_found          no such job                                          404 JOB_NOT_FOUND
--   claim_stale            the caller does not hold the claim (or it is over)   409 CLAIM_STALE
--   job_terminal           the caller holds it and the job is final             409 JOB_TERMINAL
--   (complete only: file_gone, output_dropped, output_missing, as pipeline_complete in V5)
--
-- The *_batch functions take one array per argument (element i is call i), lock every row the
-- batch touches up front in one global order, then run the calls one after another in the order
-- they arrived, so a call sees what the calls before it in the batch did (a job completed twice in
-- one batch: the second hears JOB_TERMINAL, as it would have one call later).
--
-- Locks, everywhere in the pipeline: media_files rows before pipeline_jobs rows; within a table,
-- by id. Trashing a file locks the file, then its jobs; the sweeper and the claim skip locked jobs.
-- Two batches (two event loops, two nodes) therefore never wait on each other in opposite orders.

-- The refusal for a call that matched no open claim: p_status is the job's status (NULL: no such
-- job), p_holder whether the caller holds its claim.
CREATE FUNCTION pipeline_refusal(p_status text, p_holder boolean) RETURNS text AS $$
  SELECT CASE WHEN p_status IS NULL THEN 'job_not_found'
              WHEN p_holder AND p_status IN ('done', 'failed', 'cancelled') THEN 'job_terminal'
              ELSE 'claim_stale' END
$$ LANGUAGE sql IMMUTABLE;

-- The refusal for a call on p_job by (p_worker, p_token), read from the job as it is now.
CREATE FUNCTION pipeline_refusal_of(p_job uuid, p_worker uuid, p_token bytea) RETURNS text AS $$
  SELECT coalesce((SELECT pipeline_refusal(j.status, j.worker_id = p_worker AND j.claim_token_hash = p_token)
                   FROM pipeline_jobs j WHERE j.id = p_job), 'job_not_found')
$$ LANGUAGE sql STABLE;

-- Locks the jobs of a batch, by id. NO KEY UPDATE, as the updates themselves take: a claim's
-- foreign-key check on another row never waits on it.
CREATE FUNCTION pipeline_lock_jobs(p_jobs uuid[]) RETURNS void AS $$
BEGIN
  PERFORM 1 FROM pipeline_jobs WHERE id = ANY(p_jobs) ORDER BY id FOR NO KEY UPDATE;
END
$$ LANGUAGE plpgsql;

-- ---- progress (POST jobs/:id/progress): running, the lease moves ----

CREATE FUNCTION pipeline_progress(p_job uuid, p_worker uuid, p_token bytea, p_progress int,
    OUT outcome text, OUT status text, OUT progress int, OUT seq bigint) AS $$
#variable_conflict use_column
BEGIN
  UPDATE pipeline_jobs SET status = 'running', progress = p_progress, heartbeat_at = now(),
      seq = pipeline_jobs.seq + 1, updated_at = now()
    WHERE id = p_job AND worker_id = p_worker AND claim_token_hash = p_token AND status IN ('claimed', 'running')
    RETURNING pipeline_jobs.status, pipeline_jobs.progress, pipeline_jobs.seq INTO status, progress, seq;
  outcome := CASE WHEN FOUND THEN 'ok' ELSE pipeline_refusal_of(p_job, p_worker, p_token) END;
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION pipeline_progress_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[], p_progress int[])
    RETURNS TABLE (n int, outcome text, status text, progress int, seq bigint) AS $$
BEGIN
  PERFORM pipeline_lock_jobs(p_jobs);
  FOR i IN 1 .. cardinality(p_jobs) LOOP
    n := i;
    SELECT r.outcome, r.status, r.progress, r.seq INTO outcome, status, progress, seq
      FROM pipeline_progress(p_jobs[i], p_workers[i], p_tokens[i], p_progress[i]) r;
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;

-- ---- the lease moves as an upload starts (nothing a client sees changes: seq stays) ----

CREATE FUNCTION pipeline_touch(p_job uuid, p_worker uuid, p_token bytea) RETURNS text AS $$
BEGIN
  UPDATE pipeline_jobs SET heartbeat_at = now()
    WHERE id = p_job AND worker_id = p_worker AND claim_token_hash = p_token AND status IN ('claimed', 'running');
  RETURN CASE WHEN FOUND THEN 'ok' ELSE pipeline_refusal_of(p_job, p_worker, p_token) END;
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION pipeline_touch_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[])
    RETURNS TABLE (n int, outcome text) AS $$
BEGIN
  PERFORM pipeline_lock_jobs(p_jobs);
  FOR i IN 1 .. cardinality(p_jobs) LOOP
    n := i;
    outcome := pipeline_touch(p_jobs[i], p_workers[i], p_tokens[i]);
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;

-- ---- an uploaded output becomes the claim's pending output (previous: the one it replaces) ----

CREATE FUNCTION pipeline_record_output(p_job uuid, p_worker uuid, p_token bytea, p_version uuid, p_key text,
    p_mime text, p_ext text, p_size bigint, OUT outcome text, OUT previous text) AS $$
DECLARE
  j pipeline_jobs%ROWTYPE;
BEGIN
  SELECT * INTO j FROM pipeline_jobs WHERE id = p_job FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    outcome := 'job_not_found';
    RETURN;
  END IF;
  IF j.worker_id IS DISTINCT FROM p_worker OR j.claim_token_hash IS DISTINCT FROM p_token
      OR j.status NOT IN ('claimed', 'running') THEN
    outcome := pipeline_refusal(j.status, j.worker_id = p_worker AND j.claim_token_hash = p_token);
    RETURN;
  END IF;
  UPDATE pipeline_jobs SET output_version_id = p_version, output_storage_key = p_key, output_mime_type = p_mime,
      output_ext = p_ext, output_size = p_size, heartbeat_at = now(), seq = pipeline_jobs.seq + 1, updated_at = now()
    WHERE id = p_job;
  outcome := 'recorded';
  previous := j.output_storage_key;
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION pipeline_record_output_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[], p_versions uuid[],
    p_keys text[], p_mimes text[], p_exts text[], p_sizes bigint[])
    RETURNS TABLE (n int, outcome text, previous text) AS $$
BEGIN
  PERFORM pipeline_lock_jobs(p_jobs);
  FOR i IN 1 .. cardinality(p_jobs) LOOP
    n := i;
    SELECT r.outcome, r.previous INTO outcome, previous
      FROM pipeline_record_output(p_jobs[i], p_workers[i], p_tokens[i], p_versions[i], p_keys[i], p_mimes[i],
                                  p_exts[i], p_sizes[i]) r;
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;

-- ---- complete, optionally recording the output first (an in-process worker's small output) ----
-- A call with p_versions[i] NULL is a plain complete (pipeline_complete, V5). With an output, the
-- output is recorded first (the previous pending output, if any, comes back as `previous`); when the
-- claim does not hold, the outcome is the refusal and the caller deletes the bytes it stored.

CREATE FUNCTION pipeline_complete_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[], p_versions uuid[],
    p_keys text[], p_mimes text[], p_exts text[], p_sizes bigint[])
    RETURNS TABLE (n int, outcome text, seq bigint, version_id uuid, drop_key text, previous text) AS $$
DECLARE
  recorded text;
BEGIN
  PERFORM 1 FROM media_files WHERE id IN (SELECT file_id FROM pipeline_jobs WHERE id = ANY(p_jobs))
    ORDER BY id FOR UPDATE;
  PERFORM pipeline_lock_jobs(p_jobs);
  FOR i IN 1 .. cardinality(p_jobs) LOOP
    n := i;
    outcome := NULL; seq := NULL; version_id := NULL; drop_key := NULL; previous := NULL;
    IF p_versions[i] IS NOT NULL THEN
      SELECT r.outcome, r.previous INTO recorded, previous
        FROM pipeline_record_output(p_jobs[i], p_workers[i], p_tokens[i], p_versions[i], p_keys[i], p_mimes[i],
                                    p_exts[i], p_sizes[i]) r;
      IF recorded <> 'recorded' THEN
        outcome := recorded;
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    SELECT c.outcome, c.seq, c.version_id, c.drop_key INTO outcome, seq, version_id, drop_key
      FROM pipeline_complete(p_jobs[i], p_workers[i], p_tokens[i]) c;
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;

-- ---- release: queued again at once, the attempt given back, the claim and the output dropped ----

CREATE FUNCTION pipeline_release(p_job uuid, p_worker uuid, p_token bytea,
    OUT outcome text, OUT attempts int, OUT seq bigint, OUT previous text) AS $$
#variable_conflict use_column
DECLARE
  j pipeline_jobs%ROWTYPE;
BEGIN
  SELECT * INTO j FROM pipeline_jobs WHERE id = p_job FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    outcome := 'job_not_found';
    RETURN;
  END IF;
  IF j.worker_id IS DISTINCT FROM p_worker OR j.claim_token_hash IS DISTINCT FROM p_token
      OR j.status NOT IN ('claimed', 'running') THEN
    outcome := pipeline_refusal(j.status, j.worker_id = p_worker AND j.claim_token_hash = p_token);
    RETURN;
  END IF;
  UPDATE pipeline_jobs SET status = 'queued', attempts = greatest(pipeline_jobs.attempts - 1, 0), worker_id = NULL,
      claim_token_hash = NULL, heartbeat_at = NULL, run_after = now(), progress = 0,
      output_version_id = NULL, output_storage_key = NULL, output_mime_type = NULL, output_ext = NULL,
      output_size = NULL, seq = pipeline_jobs.seq + 1, updated_at = now()
    WHERE id = p_job
    RETURNING pipeline_jobs.attempts, pipeline_jobs.seq INTO attempts, seq;
  outcome := 'ok';
  previous := j.output_storage_key;
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION pipeline_release_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[])
    RETURNS TABLE (n int, outcome text, attempts int, seq bigint, previous text) AS $$
BEGIN
  PERFORM pipeline_lock_jobs(p_jobs);
  FOR i IN 1 .. cardinality(p_jobs) LOOP
    n := i;
    SELECT r.outcome, r.attempts, r.seq, r.previous INTO outcome, attempts, seq, previous
      FROM pipeline_release(p_jobs[i], p_workers[i], p_tokens[i]) r;
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;

-- ---- fail: back to the queue (backoff 30 s x attempts) while attempts remain and the error is
-- retryable; otherwise failed, keeping the claim so a late holder hears JOB_TERMINAL ----

CREATE FUNCTION pipeline_fail(p_job uuid, p_worker uuid, p_token bytea, p_retryable boolean, p_error text,
    OUT outcome text, OUT status text, OUT attempts int, OUT max_attempts int, OUT seq bigint, OUT previous text) AS $$
#variable_conflict use_column
DECLARE
  j pipeline_jobs%ROWTYPE;
  again boolean;
BEGIN
  SELECT * INTO j FROM pipeline_jobs WHERE id = p_job FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    outcome := 'job_not_found';
    RETURN;
  END IF;
  IF j.worker_id IS DISTINCT FROM p_worker OR j.claim_token_hash IS DISTINCT FROM p_token
      OR j.status NOT IN ('claimed', 'running') THEN
    outcome := pipeline_refusal(j.status, j.worker_id = p_worker AND j.claim_token_hash = p_token);
    RETURN;
  END IF;
  again := p_retryable AND j.attempts < j.max_attempts;
  UPDATE pipeline_jobs SET
      status = CASE WHEN again THEN 'queued' ELSE 'failed' END,
      worker_id = CASE WHEN again THEN NULL ELSE pipeline_jobs.worker_id END,
      claim_token_hash = CASE WHEN again THEN NULL ELSE pipeline_jobs.claim_token_hash END,
      run_after = CASE WHEN again THEN now() + make_interval(secs => 30 * pipeline_jobs.attempts)
                  ELSE pipeline_jobs.run_after END,
      finished_at = CASE WHEN again THEN NULL ELSE now() END,
      error = p_error, progress = CASE WHEN again THEN 0 ELSE pipeline_jobs.progress END,
      output_version_id = NULL, output_storage_key = NULL, output_mime_type = NULL, output_ext = NULL,
      output_size = NULL, seq = pipeline_jobs.seq + 1, updated_at = now()
    WHERE id = p_job
    RETURNING pipeline_jobs.status, pipeline_jobs.attempts, pipeline_jobs.max_attempts, pipeline_jobs.seq
      INTO status, attempts, max_attempts, seq;
  outcome := 'ok';
  previous := j.output_storage_key;
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION pipeline_fail_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[], p_retryable boolean[],
    p_errors text[])
    RETURNS TABLE (n int, outcome text, status text, attempts int, max_attempts int, seq bigint, previous text) AS $$
BEGIN
  PERFORM pipeline_lock_jobs(p_jobs);
  FOR i IN 1 .. cardinality(p_jobs) LOOP
    n := i;
    SELECT r.outcome, r.status, r.attempts, r.max_attempts, r.seq, r.previous
      INTO outcome, status, attempts, max_attempts, seq, previous
      FROM pipeline_fail(p_jobs[i], p_workers[i], p_tokens[i], p_retryable[i], p_errors[i]) r;
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;

-- ---- input (GET jobs/:id/input): a read; no lock, no commit to wait for ----
-- One row per call, in call order: the job's status and whether the caller holds an open claim,
-- and the file when it does.

CREATE FUNCTION pipeline_input_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[])
    RETURNS TABLE (n int, outcome text, storage_key text, name text, mime_type text, size bigint, trashed boolean) AS $$
  SELECT c.n::int,
         CASE WHEN j.id IS NULL THEN 'job_not_found'
              WHEN j.worker_id = c.worker AND j.claim_token_hash = c.token AND j.status IN ('claimed', 'running') THEN 'ok'
              ELSE pipeline_refusal(j.status, j.worker_id = c.worker AND j.claim_token_hash = c.token) END,
         f.storage_key, f.name, f.mime_type, f.size, f.trashed_at IS NOT NULL
    FROM unnest(p_jobs, p_workers, p_tokens) WITH ORDINALITY AS c(job, worker, token, n)
    LEFT JOIN pipeline_jobs j ON j.id = c.job
    LEFT JOIN media_files f ON f.id = j.file_id
   ORDER BY c.n
$$ LANGUAGE sql STABLE;
