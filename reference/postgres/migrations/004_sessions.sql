-- Browser sessions: the frontend's sign-in opens one, signing out deletes
-- it. Only the session token's id (its hash with the salt) is kept, never
-- the token. Not cached: every replica reads it here, so a session ended
-- through one is refused by all at once.
CREATE TABLE sessions (
    id         text        PRIMARY KEY,
    actor_urn  text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- MANAGE_USER_CREDENTIALS is new: the root user's boot policy, which holds
-- every platform privilege, gets it too, unless an operator has changed
-- what that policy grants.
UPDATE aspects
SET value = jsonb_set(value, '{privileges}', (value -> 'privileges') || '["MANAGE_USER_CREDENTIALS"]'::jsonb)
WHERE urn = 'urn:li:dataHubPolicy:0' AND aspect = 'dataHubPolicyInfo'
  AND (value -> 'privileges') @> '["GENERATE_PERSONAL_ACCESS_TOKENS", "MANAGE_ACCESS_TOKENS", "MANAGE_POLICIES", "CREATE_TAGS", "MANAGE_TAGS"]'::jsonb
  AND NOT (value -> 'privileges') @> '["MANAGE_USER_CREDENTIALS"]'::jsonb;
