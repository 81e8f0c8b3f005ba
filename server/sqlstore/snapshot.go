package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/orgportal/portal-api/server"
)

// Snapshot names a saved copy of the whole store.
type Snapshot struct {
	Name    string
	Created time.Time
}

// SaveSnapshot copies every row of the store under name, replacing a
// snapshot of that name, in one transaction.
func (s *Store) SaveSnapshot(ctx context.Context, name string, at time.Time) error {
	return s.run(ctx, false, func(t *tx) error {
		if err := t.dropSnapshot(ctx, name); err != nil {
			return err
		}
		for _, tb := range dataTables {
			if _, err := t.exec(ctx, "INSERT INTO snapshot_"+tb.name+" (snapshot, "+tb.columns+") SELECT ?, "+tb.columns+" FROM "+tb.name, name); err != nil {
				return fmt.Errorf("sqlstore: snapshot %s: %w", tb.name, err)
			}
		}
		_, err := t.exec(ctx, "INSERT INTO snapshots (name, created_ms) VALUES (?, ?)", name, toMS(at))
		return err
	})
}

// RestoreSnapshot replaces every row of the store with the rows saved under
// name, in one transaction; server.ErrNotFound when there is no such
// snapshot.
func (s *Store) RestoreSnapshot(ctx context.Context, name string) error {
	restore := func(t *tx) error {
		if t.d == postgres {
			// As a reset: no write runs astride the restore.
			if _, err := t.exec(ctx, "LOCK TABLE "+lockOrder()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				return fmt.Errorf("sqlstore: restore: %w", err)
			}
		}
		var n int
		if err := t.queryRow(ctx, "SELECT COUNT(*) FROM snapshots WHERE name = ?", name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return errNotFound("snapshot", []string{name})
		}
		for _, tb := range dataTables {
			if _, err := t.exec(ctx, "DELETE FROM "+tb.name); err != nil {
				return fmt.Errorf("sqlstore: restore %s: %w", tb.name, err)
			}
			if _, err := t.exec(ctx, "INSERT INTO "+tb.name+" ("+tb.columns+") SELECT "+tb.columns+" FROM snapshot_"+tb.name+" WHERE snapshot = ?", name); err != nil {
				return fmt.Errorf("sqlstore: restore %s: %w", tb.name, err)
			}
		}
		return nil
	}
	if s.d == postgres {
		// The restored tokens replace the cached ones on every replica
		// before the restore answers.
		return s.resetPostgres(ctx, restore)
	}
	return s.run(ctx, false, restore)
}

// Snapshots lists the snapshots by name.
func (s *Store) Snapshots(ctx context.Context) ([]Snapshot, error) {
	var out []Snapshot
	err := s.run(ctx, true, func(t *tx) (err error) {
		out, err = queryAll(ctx, t, "snapshots", func(sc scanner) (Snapshot, error) {
			var sn Snapshot
			var ms int64
			err := sc.Scan(&sn.Name, &ms)
			sn.Created = fromMS(ms)
			return sn, err
		}, "SELECT name, created_ms FROM snapshots ORDER BY name COLLATE BINARY")
		return err
	})
	return out, err
}

// DeleteSnapshot removes the snapshot name; server.ErrNotFound when there
// is none.
func (s *Store) DeleteSnapshot(ctx context.Context, name string) error {
	return s.run(ctx, false, func(t *tx) error {
		res, err := t.exec(ctx, "DELETE FROM snapshots WHERE name = ?", name)
		if err := deleted(res, err, "snapshot", name); err != nil {
			return err
		}
		return t.dropSnapshot(ctx, name)
	})
}

func (t *tx) dropSnapshot(ctx context.Context, name string) error {
	if _, err := t.exec(ctx, "DELETE FROM snapshots WHERE name = ?", name); err != nil {
		return err
	}
	for _, tb := range dataTables {
		if _, err := t.exec(ctx, "DELETE FROM snapshot_"+tb.name+" WHERE snapshot = ?", name); err != nil {
			return fmt.Errorf("sqlstore: drop snapshot %s: %w", tb.name, err)
		}
	}
	return nil
}

// FolderOwner returns the owner of the folder id, whoever it is;
// server.ErrNotFound when there is none. Folder ids are unique across
// users, and creating an organization must not take one over.
func (t *tx) FolderOwner(ctx context.Context, id string) (string, error) {
	var owner string
	if err := t.queryRow(ctx, "SELECT owner FROM folders WHERE id = ?", id).Scan(&owner); err != nil {
		return "", notFound(err, "folder", id)
	}
	return owner, nil
}

// DeleteOrganization deletes an organization and everything it owns: its
// roles, settings, category schema, applications and their tokens, groups,
// members, their tokens, codes, group memberships, folders and items. server.ErrNotFound when there is no such organization.
func (t *tx) DeleteOrganization(ctx context.Context, id string) error {
	members := "(SELECT username FROM users WHERE org_id = ?)"
	for _, q := range []string{
		"DELETE FROM group_members WHERE group_id IN (SELECT id FROM portal_groups WHERE org_id = ?)",
		"DELETE FROM group_members WHERE username IN " + members,
		"DELETE FROM portal_groups WHERE org_id = ?",
		"DELETE FROM items WHERE owner IN " + members,
		"DELETE FROM folders WHERE owner IN " + members,
		"DELETE FROM tokens WHERE username IN " + members,
		"DELETE FROM refresh_tokens WHERE username IN " + members,
		"DELETE FROM oauth_codes WHERE username IN " + members,
		"DELETE FROM app_tokens WHERE client_id IN (SELECT client_id FROM apps WHERE org_id = ?)",
		"DELETE FROM apps WHERE org_id = ?",
		"DELETE FROM users WHERE org_id = ?",
		"DELETE FROM roles WHERE org_id = ?",
		"DELETE FROM settings WHERE org_id = ?",
		"DELETE FROM category_schemas WHERE org_id = ?",
	} {
		if _, err := t.exec(ctx, q, id); err != nil {
			return fmt.Errorf("sqlstore: delete organization: %w", err)
		}
	}
	res, err := t.exec(ctx, "DELETE FROM organizations WHERE id = ?", id)
	return deleted(res, err, "organization", id)
}

var _ server.Tx = (*tx)(nil)
