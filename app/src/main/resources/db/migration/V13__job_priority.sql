-- Job priority (issue #20, item 4): a person's single-file job (enqueueJob, retryJob) runs ahead of
-- a folder's backlog (enqueueFolder). Lower runs first: 0 a person asked for this file (the default,
-- so every job queued before this migration and every other way of queueing keeps its place), 1 a
-- folder's backlog. The claim takes the queued jobs in the order (priority, created_at, id).
--
-- This migration runs outside a transaction (V13__job_priority.sql.conf: executeInTransaction=false),
-- each statement on its own, because the indexes are built CONCURRENTLY: a plain CREATE INDEX holds
-- a SHARE lock on the table for the whole scan, which stops every claim, enqueue and lease move of a
-- node still running the previous version while a large pipeline_jobs is read. CONCURRENTLY lets them
-- run, and waits for the transactions already open on the table before it finishes. Every statement
-- is written to run again: if a build is cancelled (or the disk fills) PostgreSQL leaves an INVALID
-- index behind and Flyway records the migration as failed; after `flyway repair` (or deleting the
-- failed row of flyway_schema_history) the next start drops the leftover and builds it again.

-- Adding a column with a constant default only writes the catalog (no table rewrite), under a
-- short ACCESS EXCLUSIVE lock.
ALTER TABLE pipeline_jobs ADD COLUMN IF NOT EXISTS priority smallint NOT NULL DEFAULT 0;

-- The claim order: the queued jobs by priority, then age. It replaces V4's (created_at, id), which
-- it serves as well (a queue of one priority reads it in the same order), so a claim still reads
-- from the head of the queue.
DROP INDEX CONCURRENTLY IF EXISTS pipeline_jobs_claim_priority;
CREATE INDEX CONCURRENTLY pipeline_jobs_claim_priority ON pipeline_jobs (priority, created_at, id)
  WHERE status = 'queued';
DROP INDEX CONCURRENTLY IF EXISTS pipeline_jobs_claim_order;

-- enqueueFolder walks a folder's live files in id order, a bounded batch per transaction (keyset:
-- id > the last one of the previous batch). With only (folder_id, created_at), every batch read
-- and sorted the whole folder; this hands out the next batch from where the last one stopped.
DROP INDEX CONCURRENTLY IF EXISTS media_files_folder_live;
CREATE INDEX CONCURRENTLY media_files_folder_live ON media_files (folder_id, id) WHERE trashed_at IS NULL;
