-- A user's folder titles are unique by a key computed in Go (server.TitleKey:
-- trimmed, NFKC, case folded, invisible characters dropped), so that SQLite
-- and PostgreSQL decide alike; the lower() of 0001 folds differently on each.
-- Rows stored before get a placeholder key, unique per row and never a real
-- key (real keys never start with a space), which the store replaces with
-- the computed key once migrated (titlekeys.go).
ALTER TABLE folders ADD COLUMN title_key TEXT NOT NULL DEFAULT '';

UPDATE folders SET title_key = ' ' || id;

DROP INDEX folders_owner_title;

CREATE UNIQUE INDEX folders_owner_title_key ON folders (owner, title_key);
