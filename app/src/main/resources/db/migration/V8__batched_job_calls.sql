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
-- The *_batch functions take one array per argument (element i is call i) and lock every row the
-- batch touches up front, in one global order. A batch never names a job twice (the app keeps a
-- second call about a job for the next batch, so it sees what the first did). The calls the job
-- cycle makes (the output, complete) are judged and applied set-based, in one statement for the
-- whole batch; the rarer ones (progress, the start of an upload, release, fail) run a per-call
-- function in a loop.
--
-- Locks, everywhere in the pipeline: media_files rows before pipeline_jobs rows; within a table,
-- by id. Trashing a file locks the file, then its jobs; the sweeper and the claim skip locked jobs.
-- Two batches (two event loops, two nodes) therefore never wait on each other in opposite orders.

-- The holder check of every call about a job but complete: NULL when (p_worker, p_token) holds an
-- open claim on the job whose status, worker and claim-token hash are given (p_status NULL: no such
-- job), else the refusal.
CREATE FUNCTION pipeline_claim_check(p_status text, p_holder uuid, p_holder_token bytea, p_worker uuid, p_token bytea)
    RETURNS text AS $$
  SELECT CASE WHEN p_status IS NULL THEN 'job_not_found'
              WHEN p_holder = p_worker AND p_holder_token = p_token AND p_status IN ('claimed', 'running') THEN NULL
              WHEN p_holder = p_worker AND p_holder_token = p_token AND p_status IN ('done', 'failed', 'cancelled')
                THEN 'job_terminal'
              ELSE 'claim_stale' END
$$ LANGUAGE sql IMMUTABLE;

-- The refusal for a call on p_job by (p_worker, p_token) that matched no open claim, read from the
-- job as it is now.
CREATE FUNCTION pipeline_refusal_of(p_job uuid, p_worker uuid, p_token bytea) RETURNS text AS $$
  SELECT coalesce((SELECT pipeline_claim_check(j.status, j.worker_id, j.claim_token_hash, p_worker, p_token)
                   FROM pipeline_jobs j WHERE j.id = p_job), 'job_not_found')
$$ LANGUAGE sql STABLE;

-- Locks the jobs of a batch, by id.
CREATE FUNCTION pipeline_lock_jobs(p_jobs uuid[]) RETURNS void AS $$
BEGIN
  PERFORM 1 FROM pipeline_jobs WHERE id = ANY(p_jobs) ORDER BY id FOR UPDATE;
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

CREATE FUNCTION pipeline_record_output_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[], p_versions uuid[],
    p_keys text[], p_mimes text[], p_exts text[], p_sizes bigint[])
    RETURNS TABLE (n int, outcome text, previous text) AS $$
#variable_conflict use_column
BEGIN
  PERFORM pipeline_lock_jobs(p_jobs);
  RETURN QUERY
  WITH c AS (
    SELECT * FROM unnest(p_jobs, p_workers, p_tokens, p_versions, p_keys, p_mimes, p_exts, p_sizes)
      WITH ORDINALITY AS c(job, worker, token, version, key, mime, ext, size, n)),
  judged AS (
    SELECT c.*, j.output_storage_key AS old_key,
           coalesce(pipeline_claim_check(j.status, j.worker_id, j.claim_token_hash, c.worker, c.token),
                    'recorded') AS outcome
      FROM c LEFT JOIN pipeline_jobs j ON j.id = c.job),
  recorded AS (
    UPDATE pipeline_jobs j SET output_version_id = judged.version, output_storage_key = judged.key,
        output_mime_type = judged.mime, output_ext = judged.ext, output_size = judged.size, heartbeat_at = now(),
        seq = j.seq + 1, updated_at = now()
      FROM judged WHERE j.id = judged.job AND judged.outcome = 'recorded')
  SELECT judged.n::int, judged.outcome, CASE WHEN judged.outcome = 'recorded' THEN judged.old_key END
    FROM judged ORDER BY judged.n;
END
$$ LANGUAGE plpgsql;

-- ---- complete, optionally bringing its output (an in-process worker's small output) ----
-- The rules of pipeline_complete (V5), in its order, for the whole batch at once: no such job
-- (job_not_found), not the holder (claim_stale), final (file_gone when cancelled by a trash, else
-- job_terminal), the file in the Trash (output_dropped: the pending output is forgotten and drop_key
-- names its bytes), no output (output_missing), else done: the version is inserted and the job
-- finished. A call that brings its output (p_versions[i] not NULL) completes with that output,
-- replacing any recorded one (previous names the replaced bytes); when it is refused, nothing
-- recorded it and the caller deletes the bytes it stored.

CREATE FUNCTION pipeline_complete_batch(p_jobs uuid[], p_workers uuid[], p_tokens bytea[], p_versions uuid[],
    p_keys text[], p_mimes text[], p_exts text[], p_sizes bigint[])
    RETURNS TABLE (n int, outcome text, seq bigint, version_id uuid, drop_key text, previous text) AS $$
#variable_conflict use_column
BEGIN
  PERFORM 1 FROM media_files WHERE id IN (SELECT file_id FROM pipeline_jobs WHERE id = ANY(p_jobs))
    ORDER BY id FOR UPDATE;
  PERFORM pipeline_lock_jobs(p_jobs);
  RETURN QUERY
  WITH c AS (
    SELECT * FROM unnest(p_jobs, p_workers, p_tokens, p_versions, p_keys, p_mimes, p_exts, p_sizes)
      WITH ORDINALITY AS c(job, worker, token, version, key, mime, ext, size, n)),
  judged AS (
    SELECT c.n, c.job, j.file_id, j.kind, j.attempts,
           c.version IS NOT NULL AS brought,
           j.output_storage_key AS old_key,
           coalesce(c.version, j.output_version_id) AS v_id,
           CASE WHEN c.version IS NOT NULL THEN c.key ELSE j.output_storage_key END AS v_key,
           CASE WHEN c.version IS NOT NULL THEN c.mime ELSE j.output_mime_type END AS v_mime,
           CASE WHEN c.version IS NOT NULL THEN c.ext ELSE j.output_ext END AS v_ext,
           CASE WHEN c.version IS NOT NULL THEN c.size ELSE j.output_size END AS v_size,
           CASE WHEN j.id IS NULL THEN 'job_not_found'
                WHEN j.worker_id IS DISTINCT FROM c.worker OR j.claim_token_hash IS DISTINCT FROM c.token THEN 'claim_stale'
                WHEN j.status IN ('done', 'failed', 'cancelled') THEN
                  CASE WHEN j.status = 'cancelled' AND j.error = 'file trashed' THEN 'file_gone' ELSE 'job_terminal' END
                WHEN f.trashed_at IS NOT NULL THEN 'output_dropped'
                WHEN coalesce(c.version, j.output_version_id) IS NULL THEN 'output_missing'
                ELSE 'done' END AS outcome
      FROM c LEFT JOIN pipeline_jobs j ON j.id = c.job LEFT JOIN media_files f ON f.id = j.file_id),
  versions AS (
    INSERT INTO processed_versions (id, file_id, job_id, attempt, kind, mime_type, ext, size, storage_key)
      SELECT v_id, file_id, job, attempts, kind, v_mime, v_ext, v_size, v_key FROM judged WHERE outcome = 'done'),
  finished AS (
    UPDATE pipeline_jobs j SET
        status = CASE WHEN judged.outcome = 'done' THEN 'done' ELSE j.status END,
        progress = CASE WHEN judged.outcome = 'done' THEN 100 ELSE j.progress END,
        version_id = CASE WHEN judged.outcome = 'done' THEN judged.v_id ELSE j.version_id END,
        finished_at = CASE WHEN judged.outcome = 'done' THEN now() ELSE j.finished_at END,
        output_version_id = CASE WHEN judged.outcome = 'done' THEN judged.v_id END,
        output_mime_type = CASE WHEN judged.outcome = 'done' THEN judged.v_mime END,
        output_ext = CASE WHEN judged.outcome = 'done' THEN judged.v_ext END,
        output_size = CASE WHEN judged.outcome = 'done' THEN judged.v_size END,
        output_storage_key = NULL, seq = j.seq + 1, updated_at = now()
      FROM judged WHERE j.id = judged.job AND judged.outcome IN ('done', 'output_dropped')
      RETURNING j.id, j.seq)
  SELECT judged.n::int, judged.outcome, finished.seq,
         CASE WHEN judged.outcome = 'done' THEN judged.v_id END,
         CASE WHEN judged.outcome = 'output_dropped' THEN judged.v_key END,
         CASE WHEN judged.brought AND judged.outcome IN ('done', 'output_dropped') THEN judged.old_key END
    FROM judged LEFT JOIN finished ON finished.id = judged.job ORDER BY judged.n;
END
$$ LANGUAGE plpgsql;

-- ---- release: queued again at once, the attempt given back, the claim and the output dropped ----

CREATE FUNCTION pipeline_release(p_job uuid, p_worker uuid, p_token bytea,
    OUT outcome text, OUT attempts int, OUT seq bigint, OUT previous text) AS $$
#variable_conflict use_column
DECLARE
  j pipeline_jobs%ROWTYPE;
BEGIN
  SELECT * INTO j FROM pipeline_jobs WHERE id = p_job FOR NO KEY UPDATE; -- not found: every field NULL
  outcome := pipeline_claim_check(j.status, j.worker_id, j.claim_token_hash, p_worker, p_token);
  IF outcome IS NOT NULL THEN
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
  SELECT * INTO j FROM pipeline_jobs WHERE id = p_job FOR NO KEY UPDATE; -- not found: every field NULL
  outcome := pipeline_claim_check(j.status, j.worker_id, j.claim_token_hash, p_worker, p_token);
  IF outcome IS NOT NULL THEN
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
         coalesce(pipeline_claim_check(j.status, j.worker_id, j.claim_token_hash, c.worker, c.token), 'ok'),
         f.storage_key, f.name, f.mime_type, f.size, f.trashed_at IS NOT NULL
    FROM unnest(p_jobs, p_workers, p_tokens) WITH ORDINALITY AS c(job, worker, token, n)
    LEFT JOIN pipeline_jobs j ON j.id = c.job
    LEFT JOIN media_files f ON f.id = j.file_id
   ORDER BY c.n
$$ LANGUAGE sql STABLE;
