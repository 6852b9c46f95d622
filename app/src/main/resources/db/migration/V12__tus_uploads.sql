-- Resumable uploads (tus 1.0, docs/api.md -> Resumable uploads). One row per upload from its
-- creation until it expires. The partial bytes and their durable offset live on disk, in the media
-- folder's uploads/ (<id>.part and <id>.offset); upload_offset here mirrors the offset file after each
-- PATCH, for listings and the sweeper, and is never what decides where the next bytes go.
CREATE TABLE tus_uploads (
  id            uuid PRIMARY KEY,
  -- where the finished bytes go: 'library' (a file in folder_id). The id of what they become is
  -- fixed at creation (result_id), so finishing twice finds the first result instead of a second.
  target        text NOT NULL,
  owner_id      uuid NOT NULL,
  folder_id     uuid REFERENCES folders (id),
  file_name     text NOT NULL,
  mime_type     text NOT NULL,
  upload_length bigint NOT NULL CHECK (upload_length >= 0),
  upload_offset bigint NOT NULL DEFAULT 0 CHECK (upload_offset >= 0 AND upload_offset <= upload_length),
  result_id     uuid NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  completed_at  timestamptz
);
-- the sweeper's scan for abandoned uploads
CREATE INDEX tus_uploads_expiry ON tus_uploads (expires_at);
