-- The jobs dashboard's last hour (issue #19): one row per minute, written once by whichever node
-- samples first (pipeline/MinuteSampler: INSERT ... ON CONFLICT (minute) DO NOTHING), so a reload
-- or another node shows the same history. Rows older than a day are deleted by the sampler.
--   finished     jobs that became done in the minute (by finished_at)
--   failed       jobs that became failed in the minute (by finished_at; a retry is a new job)
--   queue_depth  open jobs (queued, claimed or running) when the sample was taken, just after the
--                minute ended
CREATE TABLE pipeline_minutes (
  minute      timestamptz PRIMARY KEY,
  finished    int NOT NULL,
  failed      int NOT NULL,
  queue_depth int NOT NULL,
  sampled_at  timestamptz NOT NULL DEFAULT now()
);

-- The sample counts the jobs that finished in one minute: without this it would read every job
-- ever finished. finished_at is set once, in the statement that makes a job final (which already
-- changes the indexed status), so lease moves stay in-place (HOT) updates (V6).
CREATE INDEX pipeline_jobs_finished ON pipeline_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- The jobs table (pipelineJobs) lists newest first and pages: without a filter it reads this
-- index from its end. created_at and id never change, so no update pays for it.
CREATE INDEX pipeline_jobs_newest ON pipeline_jobs (created_at, id);
