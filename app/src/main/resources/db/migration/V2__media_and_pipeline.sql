-- The media library and the processing pipeline (worker contract v1, PIPELINE.md).

CREATE TABLE folders (
  id         uuid PRIMARY KEY,
  name       text NOT NULL,
  parent_id  uuid REFERENCES folders (id),
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  trashed_at timestamptz
);

-- An original file. storage_key is built from the id only: no client text reaches the filesystem.
CREATE TABLE media_files (
  id          uuid PRIMARY KEY,
  folder_id   uuid REFERENCES folders (id),
  name        text NOT NULL,
  mime_type   text NOT NULL,
  size        bigint NOT NULL,
  storage_key text NOT NULL,
  status      text NOT NULL DEFAULT 'ready',
  created_by  uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  trashed_at  timestamptz
);
CREATE INDEX media_files_folder ON media_files (folder_id, created_at);

-- A worker's output once its job completed: next to the untouched original.
CREATE TABLE processed_versions (
  id          uuid PRIMARY KEY,
  file_id     uuid NOT NULL REFERENCES media_files (id),
  job_id      uuid NOT NULL,
  attempt     int NOT NULL,
  kind        text NOT NULL,
  mime_type   text NOT NULL,
  ext         text NOT NULL,
  size        bigint NOT NULL,
  storage_key text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processed_versions_file ON processed_versions (file_id, created_at);

-- Kinds exist once built in or registered by a worker; never deleted. accepts: MIME prefixes, or
-- NULL for every file. live: the liveness the sweeper saw last (to bump seq when it flips).
CREATE TABLE pipeline_kinds (
  name       text PRIMARY KEY,
  accepts    text[],
  builtin    boolean NOT NULL DEFAULT false,
  live       boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO pipeline_kinds (name, accepts, builtin) VALUES
  ('shotstash/proxy-720p', ARRAY['video/'], true),
  ('shotstash/heic-to-jpeg', ARRAY['image/heic', 'image/heif'], true);

-- One row per worker name. Only the SHA-256 of its token is kept.
CREATE TABLE pipeline_workers (
  id            uuid PRIMARY KEY,
  name          text NOT NULL UNIQUE,
  token_hash    bytea NOT NULL UNIQUE,
  version       text NOT NULL,
  kinds         text[] NOT NULL,
  contract      text NOT NULL,
  registered_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);

CREATE TABLE pipeline_jobs (
  id                 uuid PRIMARY KEY,
  file_id            uuid NOT NULL REFERENCES media_files (id),
  kind               text NOT NULL REFERENCES pipeline_kinds (name),
  params             jsonb NOT NULL DEFAULT '{}',
  status             text NOT NULL DEFAULT 'queued'
                     CHECK (status IN ('queued', 'claimed', 'running', 'done', 'failed', 'cancelled')),
  attempts           int NOT NULL DEFAULT 0,
  max_attempts       int NOT NULL DEFAULT 3,
  -- the claim: who holds it and the SHA-256 of its token; heartbeat_at is the only lease
  worker_id          uuid REFERENCES pipeline_workers (id) ON DELETE SET NULL,
  claim_token_hash   bytea,
  claimed_at         timestamptz,
  heartbeat_at       timestamptz,
  run_after          timestamptz NOT NULL DEFAULT now(),
  progress           int NOT NULL DEFAULT 0,
  seq                bigint NOT NULL DEFAULT 0,
  error              text,
  -- the pending output of the current claim, reserved at upload
  output_version_id  uuid,
  output_storage_key text,
  output_mime_type   text,
  output_ext         text,
  output_size        bigint,
  version_id         uuid,                     -- the processed version, once done
  created_by         uuid,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz
);
-- A file has at most one unfinished job per kind.
CREATE UNIQUE INDEX pipeline_jobs_one_open ON pipeline_jobs (file_id, kind)
  WHERE status IN ('queued', 'claimed', 'running');
-- Serves the claim: the oldest queued job of some kinds.
CREATE INDEX pipeline_jobs_claim ON pipeline_jobs (kind, created_at, id) WHERE status = 'queued';
-- Serves the sweeper: open claims by lease age.
CREATE INDEX pipeline_jobs_lease ON pipeline_jobs (heartbeat_at) WHERE status IN ('claimed', 'running');
CREATE INDEX pipeline_jobs_file ON pipeline_jobs (file_id, created_at);

-- Every node listens on this channel: a job became claimable (payload: kind and run_after as epoch
-- milliseconds). With it, a poll with nothing to do never reaches PostgreSQL.
CREATE FUNCTION pipeline_jobs_notify_queued() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('pipeline_queued',
    NEW.kind || ' ' || (floor(extract(epoch FROM NEW.run_after) * 1000))::bigint);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER pipeline_jobs_queued
  AFTER INSERT OR UPDATE OF status, run_after ON pipeline_jobs
  FOR EACH ROW WHEN (NEW.status = 'queued')
  EXECUTE FUNCTION pipeline_jobs_notify_queued();
