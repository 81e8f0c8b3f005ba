-- The grant of an authorization code: the tokens issued from the code, and
-- those issued later from its refresh tokens, carry one id, so that a
-- replayed code revokes them all (RFC 6749 4.1.2). '' for other tokens.

ALTER TABLE tokens ADD COLUMN grant_id TEXT NOT NULL DEFAULT '';
ALTER TABLE refresh_tokens ADD COLUMN grant_id TEXT NOT NULL DEFAULT '';
ALTER TABLE snapshot_tokens ADD COLUMN grant_id TEXT NOT NULL DEFAULT '';
ALTER TABLE snapshot_refresh_tokens ADD COLUMN grant_id TEXT NOT NULL DEFAULT '';

CREATE INDEX tokens_grant_id ON tokens (grant_id);
CREATE INDEX refresh_tokens_grant_id ON refresh_tokens (grant_id);
