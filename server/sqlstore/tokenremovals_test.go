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
// organization removed, a snapshot restored, revoked) and whether or not the store
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
		{"token revoked", func(ctx context.Context, s *Store) error {
			return s.Update(ctx, func(tx server.Tx) error { return tx.DeleteToken(ctx, "tok") })
		}},
	}
	text := "closed"
	// The writes: a folder (the token confirmed in its own statement), and
	// settings/update's banner (on PostgreSQL one statement confirming the
	// token before it reads the organization, which may be gone too).
	writes := []struct {
		name  string
		write func(ctx context.Context, svc *server.Service, p server.Principal) error
		left  func(ctx context.Context, t *testing.T, s *Store) bool
	}{
		{"folder", func(ctx context.Context, svc *server.Service, p server.Principal) error {
			_, err := svc.CreateFolder(ctx, p, "alice", "F")
			return err
		}, func(ctx context.Context, t *testing.T, s *Store) bool {
			folders, err := get(t, s, func(tx server.Tx) ([]server.Folder, error) { return tx.Folders(ctx, "alice") })
			if err != nil && !errors.Is(err, server.ErrNotFound) {
				t.Fatal(err)
			}
			return len(folders) != 0
		}},
		{"banner", func(ctx context.Context, svc *server.Service, p server.Principal) error {
			return svc.UpdateSettings(ctx, p, "self", server.SettingsUpdate{InformationalBanner: &server.Banner{Text: &text}})
		}, func(ctx context.Context, t *testing.T, s *Store) bool {
			got, err := get(t, s, func(tx server.Tx) (server.Settings, error) { return tx.Settings(ctx, "o1", server.AllSettingsParts) })
			if err != nil {
				t.Fatal(err)
			}
			return got.InformationalBanner != nil
		}},
	}
	for _, st := range stores {
		for _, rm := range removals {
			for _, w := range writes {
				t.Run(st.name+"/"+rm.name+"/"+w.name, func(t *testing.T) {
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
					err = w.write(ctx, svc, p)
					if rm.remove == nil {
						if err != nil {
							t.Fatalf("a write with its token still there: %v", err)
						}
						if !w.left(ctx, t, s) {
							t.Error("the write left nothing")
						}
						return
					}
					if !errors.Is(err, server.ErrInvalidToken) {
						t.Errorf("a write after its token was removed (%s) = %v, want the invalid token error", rm.name, err)
					}
					if w.left(ctx, t, s) {
						t.Error("the refused write left what it wrote")
					}
				})
			}
		}
	}
}

func putOrgAndAlice(ctx context.Context, tx server.Tx) error {
	return errors.Join(
		tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
		tx.PutUser(ctx, server.User{Username: "alice", OrgID: "o1", FullName: "Alice", Role: server.RoleAdmin}),
	)
}
