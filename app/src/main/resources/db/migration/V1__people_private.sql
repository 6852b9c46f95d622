-- Private data of people. Nothing here ever goes into the public git repository.
-- Every table is keyed by the person's id (the UUIDv7 of their public people record).

-- The private profile: contact and third-party facts staff see and the public never does.
CREATE TABLE private_profiles (
  person_id         uuid PRIMARY KEY,
  email             text,                 -- lower-cased at write time
  github            jsonb,                -- {login, accountCreatedAt, publicRepos, followers, status, checkedAt}
  last_slack_sso_at timestamptz,
  email_bounce      jsonb,                -- {type, at}; stored once, never cleared
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX private_profiles_email ON private_profiles (email) WHERE email IS NOT NULL;

-- One password hash per person (bcrypt, through a maintained library).
CREATE TABLE password_credentials (
  person_id  uuid PRIMARY KEY,
  hash       text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per session issued. The JWT carries the id; every request checks the row, so logout and
-- revocation take effect at once. lastLoginAt and signInCount are read from here.
CREATE TABLE sessions (
  id         uuid PRIMARY KEY,
  person_id  uuid NOT NULL,
  issued_at  timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  user_agent text,
  method     text NOT NULL DEFAULT 'password'   -- password | github
);
CREATE INDEX sessions_person ON sessions (person_id, issued_at DESC);

-- Agent grants: scoped bearer tokens for agent accounts. Only the SHA-256 of the token is kept.
CREATE TABLE agent_grants (
  id              uuid PRIMARY KEY,
  agent_person_id uuid NOT NULL,
  token_hash      bytea NOT NULL UNIQUE,
  scopes          text[] NOT NULL,
  created_by      uuid NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz,
  revoked_at      timestamptz
);
CREATE INDEX agent_grants_agent ON agent_grants (agent_person_id);
