-- Named snapshots of the whole store, for the emulator: a copy of every data
-- table's rows under the snapshot's name. They live in the store so that
-- they survive a restart and replicas on one PostgreSQL database share them.
-- No index: a store holds a few snapshots, and every store opened, one per
-- test in a test suite, pays for each statement here.

CREATE TABLE snapshots (
    name       TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL
);

CREATE TABLE snapshot_organizations (
    snapshot TEXT NOT NULL,
    id       TEXT NOT NULL,
    name     TEXT NOT NULL
);

CREATE TABLE snapshot_roles (
    snapshot   TEXT NOT NULL,
    org_id     TEXT NOT NULL,
    id         TEXT NOT NULL,
    privileges TEXT NOT NULL
);

CREATE TABLE snapshot_users (
    snapshot      TEXT NOT NULL,
    username      TEXT NOT NULL,
    org_id        TEXT NOT NULL,
    full_name     TEXT NOT NULL,
    role          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    categories    TEXT NOT NULL
);

CREATE TABLE snapshot_tokens (
    snapshot   TEXT NOT NULL,
    token      TEXT NOT NULL,
    username   TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);

CREATE TABLE snapshot_settings (
    snapshot             TEXT NOT NULL,
    org_id               TEXT NOT NULL,
    anonymous_notice     TEXT,
    authenticated_notice TEXT,
    banner               TEXT,
    portal_config        TEXT
);

CREATE TABLE snapshot_category_schemas (
    snapshot TEXT NOT NULL,
    org_id   TEXT NOT NULL,
    schema   TEXT NOT NULL
);

CREATE TABLE snapshot_folders (
    snapshot   TEXT NOT NULL,
    id         TEXT NOT NULL,
    owner      TEXT NOT NULL,
    title      TEXT NOT NULL,
    title_key  TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE snapshot_items (
    snapshot    TEXT NOT NULL,
    id          TEXT NOT NULL,
    owner       TEXT NOT NULL,
    folder_id   TEXT NOT NULL,
    title       TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL,
    tags        TEXT NOT NULL,
    created_ms  BIGINT NOT NULL,
    modified_ms BIGINT NOT NULL
);
