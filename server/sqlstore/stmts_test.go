package sqlstore

import (
	"testing"

	"github.com/orgportal/portal-api/server"
)

// TestMemoryStatementCache: on ":memory:", whose pool has one connection, a
// query is first run unprepared and prepared in the background once the
// connection is free; later transactions use the prepared statement, Views
// and Updates alike, and see the same data.
func TestMemoryStatementCache(t *testing.T) {
	s := openT(t, ":memory:")
	ctx := t.Context()
	put := func(token string) error {
		return s.Update(ctx, func(tx server.Tx) error {
			return tx.PutToken(ctx, server.Token{Token: token, Username: "u"})
		})
	}
	if err := put("a"); err != nil {
		t.Fatal(err)
	}
	s.stmts.wg.Wait()
	s.stmts.mu.Lock()
	prepared, pending := len(s.stmts.m), len(s.stmts.pending)
	s.stmts.mu.Unlock()
	if prepared == 0 || pending != 0 {
		t.Fatalf("%d statements prepared, %d pending after the first Update; want some prepared, none pending", prepared, pending)
	}
	if err := put("b"); err != nil {
		t.Fatal(err)
	}
	wantTokens(t, s, []string{"a", "b"}, []string{"c"})
	s.stmts.wg.Wait()
	wantTokens(t, s, []string{"a", "b"}, []string{"c"})
}

// TestMemoryStatementCacheClosed: a statement whose background preparation
// ends after Close is not kept, and Close does not wait for it.
func TestMemoryStatementCacheClosed(t *testing.T) {
	s, err := Open(t.Context(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	// Hold the connection, so that the preparation waits for it.
	conn, err := s.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st := s.stmts.get(t.Context(), "SELECT 42"); st != nil {
		t.Fatal("a statement prepared while its connection was held")
	}
	_ = conn.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s.stmts.wg.Wait()
	if n := len(s.stmts.m); n != 0 {
		t.Errorf("%d statements kept after Close", n)
	}
}
