-- GitHub sign-in: the sign-ins started with /api/auth/github/start and not yet finished by
-- /api/auth/github/callback. Kept in PostgreSQL so the callback may land on any node of a cluster.
-- Only the SHA-256 of the state is stored; a row counts for 10 minutes and only once (used_at).
-- The verifier is the PKCE code_verifier: it must be sent to GitHub as is, so it is kept as is;
-- without the code GitHub issues (single-use, sent only to our callback) it is worth nothing.
CREATE TABLE oauth_states (
  state_hash  bytea PRIMARY KEY,
  verifier    text NOT NULL,
  return_path text NOT NULL,            -- a same-origin path, checked before it is stored
  created_at  timestamptz NOT NULL DEFAULT now(),
  used_at     timestamptz
);
-- Expired rows are deleted by the next start; this keeps that delete a range scan.
CREATE INDEX oauth_states_created ON oauth_states (created_at);
