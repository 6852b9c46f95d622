-- Worker heartbeats in batches (issue #17), as the job calls of V8: the heartbeats that arrive
-- while the previous one is in flight go out together as one statement and one commit. A batch
-- never carries two heartbeats of the same worker (the app keeps the second for the next batch).
--
-- p_calls is a JSON array with one object per heartbeat, in the order of the callers:
--   {"worker": uuid, "version": text, "kinds": [text, ...], "jobs": [uuid, ...]}
-- The answer is one row per heartbeat, n being its 1-based position: the ids of the listed jobs the
-- worker still holds open (their lease moved); the app answers the other listed ids as lostJobIds.
--
-- Locks, in the order the claim takes them (PipelineSql.CLAIM_BATCH: workers, then jobs) and every
-- V8 batch takes jobs (by id): the batch's workers by id, then its jobs by id, then the new kinds by
-- name, so two heartbeat batches, a claim and a batch of job calls never wait on each other in
-- opposite orders.
CREATE FUNCTION pipeline_heartbeat_batch(p_calls jsonb) RETURNS TABLE (n int, held uuid[]) AS $$
DECLARE
  c jsonb;
  v_worker uuid;
BEGIN
  PERFORM 1 FROM pipeline_workers
    WHERE id IN (SELECT (e ->> 'worker')::uuid FROM jsonb_array_elements(p_calls) e)
    ORDER BY id FOR NO KEY UPDATE;
  PERFORM pipeline_lock_jobs(ARRAY(
    SELECT j::uuid FROM jsonb_array_elements(p_calls) e, jsonb_array_elements_text(e -> 'jobs') j));
  INSERT INTO pipeline_kinds (name)
    SELECT DISTINCT k FROM jsonb_array_elements(p_calls) e, jsonb_array_elements_text(e -> 'kinds') k ORDER BY k
    ON CONFLICT (name) DO NOTHING;
  FOR i IN 0 .. jsonb_array_length(p_calls) - 1 LOOP
    c := p_calls -> i;
    v_worker := (c ->> 'worker')::uuid;
    -- a revoked worker's heartbeat moves nothing of its own (it cannot authenticate anyway)
    UPDATE pipeline_workers SET last_seen_at = now(), version = c ->> 'version',
        kinds = ARRAY(SELECT jsonb_array_elements_text(c -> 'kinds'))
      WHERE id = v_worker AND revoked_at IS NULL;
    n := i + 1;
    WITH moved AS (
      UPDATE pipeline_jobs SET heartbeat_at = now()
        WHERE id IN (SELECT j::uuid FROM jsonb_array_elements_text(c -> 'jobs') j)
          AND worker_id = v_worker AND status IN ('claimed', 'running')
        RETURNING id)
    SELECT coalesce(array_agg(id), '{}') INTO held FROM moved;
    RETURN NEXT;
  END LOOP;
END
$$ LANGUAGE plpgsql;
