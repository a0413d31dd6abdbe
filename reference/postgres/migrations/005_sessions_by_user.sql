-- A user's sessions are found by user: a password reset ends them all, and
-- a sign-in ends the oldest past the number one user may hold.
CREATE INDEX sessions_actor_urn ON sessions (actor_urn, created_at);
