-- Resumable uploads of a worker's output (issue #20, item 2; docs/worker-contract.md -> Resumable
-- outputs). The upload itself is a tus_uploads row like any other (target 'job-output', owner_id the
-- worker, file_name 'output.<ext>', mime_type the output's media type, result_id the version id the
-- output is recorded under); this row says which job and which claim it belongs to. The claim is the
-- one the upload was created under: once that claim is over (requeued, released, cancelled, done),
-- the upload is over too, whatever claim the worker holds now.
CREATE TABLE tus_output_uploads (
  upload_id        uuid PRIMARY KEY REFERENCES tus_uploads (id) ON DELETE CASCADE,
  job_id           uuid NOT NULL,
  -- SHA-256 of the claim token, as pipeline_jobs.claim_token_hash; never the token
  claim_token_hash bytea NOT NULL
);
-- a job's uploads (operators looking for what a job left behind)
CREATE INDEX tus_output_uploads_job ON tus_output_uploads (job_id);
