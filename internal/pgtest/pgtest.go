// Package pgtest gives tests a PostgreSQL schema of their own in the
// database named by PORTAL_TEST_POSTGRES, dropped when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Env is the variable naming the test database; `make test` sets it.
const Env = "PORTAL_TEST_POSTGRES"

// URL returns the test database. A set but unreachable database fails the
// test; only an unset variable skips it, with a message saying how to run it.
func URL(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Skip(Env + " is not set: set it to a PostgreSQL URL " +
			"(e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run the PostgreSQL tests; make test sets it")
	}
	return dsn
}

// Schema creates a schema of its own for the test in the database at base,
// drops it when the test ends, and returns base set to use it.
func Schema(t testing.TB, base string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	t.Cleanup(func() { admin.Close() })
	if err := admin.PingContext(context.Background()); err != nil {
		t.Fatalf("%s is set but the database does not answer: %v", Env, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema := "portal_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// DSN is Schema(t, URL(t)): a fresh schema in the test database.
func DSN(t testing.TB) string {
	t.Helper()
	return Schema(t, URL(t))
}
