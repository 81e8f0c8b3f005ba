-- Groups and what the reads around them need: a group of an organization
-- (its owner a member, its access private, org or public), its members (owner,
-- admin or member), an item's access (private, org, public: who may find it
-- by search) and a user's email. Each data table has its snapshot copy (0003).
-- The table is portal_groups: GROUPS is a keyword of both dialects.

ALTER TABLE items ADD COLUMN access TEXT NOT NULL DEFAULT 'private';

ALTER TABLE snapshot_items ADD COLUMN access TEXT NOT NULL DEFAULT 'private';

ALTER TABLE users ADD COLUMN email TEXT NOT NULL DEFAULT '';

ALTER TABLE snapshot_users ADD COLUMN email TEXT NOT NULL DEFAULT '';

-- tags is a JSON array.
CREATE TABLE portal_groups (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL,
    owner       TEXT NOT NULL,
    title       TEXT NOT NULL,
    access      TEXT NOT NULL,
    description TEXT NOT NULL,
    tags        TEXT NOT NULL,
    created_ms  BIGINT NOT NULL,
    modified_ms BIGINT NOT NULL
);

-- member_type is owner, admin or member.
CREATE TABLE group_members (
    group_id    TEXT NOT NULL,
    username    TEXT NOT NULL,
    member_type TEXT NOT NULL,
    PRIMARY KEY (group_id, username)
);

-- A user's groups (the user document, the groups a caller may see).
CREATE INDEX group_members_username ON group_members (username, group_id);

CREATE TABLE snapshot_portal_groups (
    snapshot    TEXT NOT NULL,
    id          TEXT NOT NULL,
    org_id      TEXT NOT NULL,
    owner       TEXT NOT NULL,
    title       TEXT NOT NULL,
    access      TEXT NOT NULL,
    description TEXT NOT NULL,
    tags        TEXT NOT NULL,
    created_ms  BIGINT NOT NULL,
    modified_ms BIGINT NOT NULL
);

CREATE TABLE snapshot_group_members (
    snapshot    TEXT NOT NULL,
    group_id    TEXT NOT NULL,
    username    TEXT NOT NULL,
    member_type TEXT NOT NULL
);
