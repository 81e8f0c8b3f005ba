-- The portal schema. This file runs unchanged on SQLite and PostgreSQL, so it
-- sticks to TEXT and BIGINT. JSON values are stored as TEXT (NULL = unset)
-- and times as Unix milliseconds, 0 meaning the zero time.

CREATE TABLE organizations (
    id   TEXT PRIMARY KEY,
    name TEXT NOT NULL
);

CREATE TABLE roles (
    org_id     TEXT NOT NULL,
    id         TEXT NOT NULL,
    privileges TEXT NOT NULL,
    PRIMARY KEY (org_id, id)
);

CREATE TABLE users (
    username      TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL,
    full_name     TEXT NOT NULL,
    role          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    categories    TEXT NOT NULL
);

-- Users lists an organization's members by user name.
CREATE INDEX users_org_username ON users (org_id, username);

CREATE TABLE tokens (
    token      TEXT PRIMARY KEY,
    username   TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);

CREATE TABLE settings (
    org_id               TEXT PRIMARY KEY,
    anonymous_notice     TEXT,
    authenticated_notice TEXT,
    banner               TEXT,
    portal_config        TEXT
);

CREATE TABLE category_schemas (
    org_id TEXT PRIMARY KEY,
    schema TEXT NOT NULL
);

CREATE TABLE folders (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    title      TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

-- A user's folder titles are unique regardless of case. Both dialects accept
-- this expression index; note that SQLite's lower() folds ASCII only.
CREATE UNIQUE INDEX folders_owner_title ON folders (owner, lower(title));

-- Folders lists a user's folders by creation time, then id.
CREATE INDEX folders_owner_created ON folders (owner, created_ms, id);

CREATE TABLE items (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    folder_id   TEXT NOT NULL,
    title       TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL,
    tags        TEXT NOT NULL,
    created_ms  BIGINT NOT NULL,
    modified_ms BIGINT NOT NULL
);

-- Items lists a user's items in one folder by creation time, then id.
CREATE INDEX items_owner_folder ON items (owner, folder_id, created_ms, id);
