-- A lease move (progress, a recorded output, a heartbeat listing the job) sets heartbeat_at. With an
-- index on heartbeat_at (pipeline_jobs_lease), every such update changed an indexed column, so
-- PostgreSQL could not update the row in place (HOT) and wrote a new entry into each of the table's
-- six indexes. The sweeper only needs the open jobs, and they are few (one per job a worker holds):
-- it now reads them through a partial index on a column a lease move never changes, and filters on
-- heartbeat_at. The same index serves "jobs a worker holds" (the worker list, pruning). Pages keep a
-- fifth free so that the in-place updates find room next to the row.
DROP INDEX pipeline_jobs_lease;
CREATE INDEX pipeline_jobs_open ON pipeline_jobs (worker_id) WHERE status IN ('claimed', 'running');
ALTER TABLE pipeline_jobs SET (fillfactor = 80);
