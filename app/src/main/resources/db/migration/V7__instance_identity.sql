-- Which Shotstash instance this database belongs to. The data repository records the same id in
-- .shotstash/instance.toml on its branch; a start that finds two different ids (or a database with
-- people beside an empty repository) refuses (docs/public-data.md: One database, one data repository).
-- One row at most: the primary key can only be true.
CREATE TABLE instance_identity (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  instance_id uuid NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
