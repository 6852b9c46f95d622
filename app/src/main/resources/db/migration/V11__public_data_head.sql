-- The branch fence (docs/public-data.md -> The branch fence). The data branch's head as the git
-- writer last committed it: the writer locks this row (FOR UPDATE) in each write's transaction,
-- checks it against its state, sets it to the new commit and only moves the branch after the
-- transaction commits. Every node's replica follows this row, not the ref file, so a writer that
-- wakes from a freeze and finishes an old branch update moves nothing anybody believes: the next
-- writer puts the branch back where this row says.
CREATE TABLE public_data_head (
  branch     text PRIMARY KEY,                                   -- refs/heads/<SHOTSTASH_DATA_BRANCH>
  commit_id  text NOT NULL CHECK (commit_id ~ '^[0-9a-f]{40}$'),
  updated_at timestamptz NOT NULL DEFAULT now()
);
