package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/orgportal/portal-api/server"
)

// A write on behalf of a principal resolved before its token was removed
// answers 498 and changes nothing, however the token went (a reset, its
// organization removed, a snapshot restored) and whether or not the store
// counts removals (SQLite does, PostgreSQL confirms the token every time);
// with its token still there, the same write succeeds.
func TestServiceWriteAfterTokenRemoval(t *testing.T) {
	stores := []struct {
		name   string
		dsn    func(t *testing.T) string
		counts bool
	}{
		{"file", sqliteFile, true},
		{"memory", func(*testing.T) string { return ":memory:" }, true},
		{"postgres", func(t *testing.T) string { return postgresSchema(t, postgresURL(t)) }, false},
	}
	removals := []struct {
		name   string
		remove func(ctx context.Context, s *Store) error
	}{
		{"nothing", nil},
		{"reset", func(ctx context.Context, s *Store) error {
			return s.Reset(ctx, func(tx server.Tx) error { return putOrgAndAlice(ctx, tx) })
		}},
		{"organization removed", func(ctx context.Context, s *Store) error {
			return s.Update(ctx, func(stx server.Tx) error { return stx.(*tx).DeleteOrganization(ctx, "o1") })
		}},
		{"snapshot restored", func(ctx context.Context, s *Store) error { return s.RestoreSnapshot(ctx, "before") }},
	}
	for _, st := range stores {
		for _, rm := range removals {
			t.Run(st.name+"/"+rm.name, func(t *testing.T) {
				ctx := t.Context()
				s := openT(t, st.dsn(t))
				if err := s.Update(ctx, func(tx server.Tx) error { return putOrgAndAlice(ctx, tx) }); err != nil {
					t.Fatal(err)
				}
				if err := s.SaveSnapshot(ctx, "before", time.UnixMilli(1)); err != nil {
					t.Fatal(err)
				}
				if err := s.Update(ctx, func(tx server.Tx) error {
					return tx.PutToken(ctx, server.Token{Token: "tok", Username: "alice"})
				}); err != nil {
					t.Fatal(err)
				}
				before, counts := s.TokenRemovals()
				if counts != st.counts || (counts && before == 0) {
					t.Fatalf("TokenRemovals() = %d, %v; want a count from 1: %v", before, counts, st.counts)
				}
				svc := server.NewService(s, server.Gates{})
				p, err := svc.Authenticate(ctx, "tok")
				if err != nil {
					t.Fatalf("Authenticate: %v", err)
				}
				if rm.remove != nil {
					if err := rm.remove(ctx, s); err != nil {
						t.Fatalf("removing the token: %v", err)
					}
				}
				if after, _ := s.TokenRemovals(); counts && (after == before) != (rm.remove == nil) {
					t.Errorf("TokenRemovals() went from %d to %d after %s", before, after, rm.name)
				}
				_, err = svc.CreateFolder(ctx, p, "alice", "F")
				if rm.remove == nil {
					if err != nil {
						t.Fatalf("a write with its token still there: %v", err)
					}
					return
				}
				if !errors.Is(err, server.ErrInvalidToken) {
					t.Errorf("a write after its token was removed (%s) = %v, want the invalid token error", rm.name, err)
				}
				folders, err := get(t, s, func(tx server.Tx) ([]server.Folder, error) { return tx.Folders(ctx, "alice") })
				if err != nil && !errors.Is(err, server.ErrNotFound) {
					t.Fatal(err)
				}
				if len(folders) != 0 {
					t.Errorf("the refused write left folders %+v", folders)
				}
			})
		}
	}
}

func putOrgAndAlice(ctx context.Context, tx server.Tx) error {
	return errors.Join(
		tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
		tx.PutUser(ctx, server.User{Username: "alice", OrgID: "o1", FullName: "Alice", Role: server.RoleAdmin}),
	)
}
