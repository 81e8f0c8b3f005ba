package sqlstore

import (
	"errors"
	"testing"

	"github.com/orgportal/portal-api/server"
)

// A commit the disk refuses (a full disk cannot be made without privileges,
// so the commit's failure is injected after SQLite's own commit): the write
// reports ErrUnhealthy, Ping reports it until a commit succeeds again, and
// Ping's own probe is what finds the disk writable again.
func TestSQLiteCommitFailure(t *testing.T) {
	s := openT(t, sqliteFile(t))
	ctx := t.Context()
	write := func() error {
		return s.Update(ctx, func(tx server.Tx) error {
			return tx.PutOrganization(ctx, server.Organization{ID: "o", Name: "O"})
		})
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping at start: %v", err)
	}
	full := errors.New("database or disk is full")
	s.commitFault = func() error { return full }
	if err := write(); !errors.Is(err, ErrUnhealthy) || !errors.Is(err, full) {
		t.Fatalf("write on a full disk: %v", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Ping on a full disk: %v", err)
	}
	// A request's own refusal is not the store's failure.
	s.commitFault = nil
	refused := errors.New("refused")
	if err := s.Update(ctx, func(server.Tx) error { return refused }); err != refused {
		t.Fatalf("refusing Update: %v", err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping once the disk has room again: %v", err)
	}
	if err := write(); err != nil {
		t.Fatalf("write once the disk has room again: %v", err)
	}
}
