-- OAuth 2.0 sign-in, and what the user resource needs: a user's creation
-- time; the applications an organization registers; the authorization codes
-- and refresh tokens the sign-in issues; and applications' own tokens
-- (client_credentials), which act for no user and so live apart from the
-- users' tokens. Each data table has its snapshot copy (0003).

ALTER TABLE users ADD COLUMN created_ms BIGINT NOT NULL DEFAULT 0;

ALTER TABLE snapshot_users ADD COLUMN created_ms BIGINT NOT NULL DEFAULT 0;

-- secret_hash is '' for a public client; redirect_uris a JSON array.
CREATE TABLE apps (
    client_id     TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL,
    secret_hash   TEXT NOT NULL,
    redirect_uris TEXT NOT NULL
);

-- challenge is '' without PKCE; refresh_minutes -1 never expires.
CREATE TABLE oauth_codes (
    code             TEXT PRIMARY KEY,
    client_id        TEXT NOT NULL,
    username         TEXT NOT NULL,
    redirect_uri     TEXT NOT NULL,
    challenge        TEXT NOT NULL,
    challenge_method TEXT NOT NULL,
    refresh_minutes  BIGINT NOT NULL,
    expires_ms       BIGINT NOT NULL
);

-- minutes is the token's lifetime, which exchanging it keeps (-1: never
-- expires, with expires_ms 0).
CREATE TABLE refresh_tokens (
    token      TEXT PRIMARY KEY,
    client_id  TEXT NOT NULL,
    username   TEXT NOT NULL,
    minutes    BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
);

CREATE TABLE app_tokens (
    token      TEXT PRIMARY KEY,
    client_id  TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);

CREATE TABLE snapshot_apps (
    snapshot      TEXT NOT NULL,
    client_id     TEXT NOT NULL,
    org_id        TEXT NOT NULL,
    secret_hash   TEXT NOT NULL,
    redirect_uris TEXT NOT NULL
);

CREATE TABLE snapshot_oauth_codes (
    snapshot         TEXT NOT NULL,
    code             TEXT NOT NULL,
    client_id        TEXT NOT NULL,
    username         TEXT NOT NULL,
    redirect_uri     TEXT NOT NULL,
    challenge        TEXT NOT NULL,
    challenge_method TEXT NOT NULL,
    refresh_minutes  BIGINT NOT NULL,
    expires_ms       BIGINT NOT NULL
);

CREATE TABLE snapshot_refresh_tokens (
    snapshot   TEXT NOT NULL,
    token      TEXT NOT NULL,
    client_id  TEXT NOT NULL,
    username   TEXT NOT NULL,
    minutes    BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
);

CREATE TABLE snapshot_app_tokens (
    snapshot   TEXT NOT NULL,
    token      TEXT NOT NULL,
    client_id  TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);
