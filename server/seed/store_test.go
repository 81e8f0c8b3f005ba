package seed_test

import (
	"testing"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/sqlstore"
)

// newStore returns an empty in-memory SQLite store.
func newStore(t *testing.T) server.Store {
	t.Helper()
	s, err := sqlstore.Open(t.Context(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}
