package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgportal/portal-api/internal/pgtest"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/storetest"
)

// openT opens a store for a test and closes it at the test's end.
func openT(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// get runs one lookup in a View.
func get[T any](t *testing.T, s server.Store, fn func(tx server.Tx) (T, error)) (T, error) {
	t.Helper()
	var v T
	err := s.View(t.Context(), func(tx server.Tx) error {
		var err error
		v, err = fn(tx)
		return err
	})
	return v, err
}

// must is get for a lookup that must succeed.
func must[T any](t *testing.T, s server.Store, fn func(tx server.Tx) (T, error)) T {
	t.Helper()
	v, err := get(t, s, fn)
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	return v
}

// dsnSchema is the schema a PostgreSQL dsn of postgresSchema uses.
func dsnSchema(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

func sqliteFile(t *testing.T) string {
	return filepath.Join(t.TempDir(), "portal.db")
}

func TestSQLiteFile(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store { return openT(t, sqliteFile(t)) })
}

func TestSQLiteMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store { return openT(t, ":memory:") })
}

// A read whose context ends under it fails with the context's error, which
// SQLite ("interrupted") and database/sql (sql.ErrTxDone, once it rolled the
// transaction back) do not name: the caller can tell a client that went away
// from a failure. (Writes on SQLite commit in the group committer, whose
// transactions no request's context ends.)
func TestSQLiteEndedContext(t *testing.T) {
	s := openT(t, ":memory:")
	putAlice(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	err := s.View(ctx, func(tx server.Tx) error {
		if _, err := tx.Organization(ctx, "o1"); err != nil {
			return err
		}
		cancel()
		// database/sql rolls the transaction back once it sees the
		// context ended: then its statements fail with sql.ErrTxDone.
		until(t, "the transaction to be rolled back", func() bool {
			_, err := tx.Organization(t.Context(), "o1")
			return errors.Is(err, sql.ErrTxDone)
		})
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a read whose context ended before its commit: %v, want context.Canceled", err)
	}
}

func TestPostgres(t *testing.T) {
	base := postgresURL(t)
	storetest.Run(t, func(t *testing.T) server.Store { return openT(t, postgresSchema(t, base)) })
}

// postgresURL and postgresSchema are pgtest's, named for this file's tests.
func postgresURL(t *testing.T) string { t.Helper(); return pgtest.URL(t) }

func postgresSchema(t *testing.T, base string) string { t.Helper(); return pgtest.Schema(t, base) }

func migrationCount(t *testing.T) int {
	t.Helper()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	return len(names)
}

// wantMigrated checks that every migration is recorded exactly once.
func wantMigrated(t *testing.T, s *Store) {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil {
		t.Fatalf("count schema_migrations: %v", err)
	}
	if want := migrationCount(t); n != want {
		t.Errorf("schema_migrations holds %d rows, want %d", n, want)
	}
}

func putAlice(t *testing.T, s server.Store) {
	t.Helper()
	err := s.Update(t.Context(), func(tx server.Tx) error {
		ctx := t.Context()
		return errors.Join(
			tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
			tx.PutUser(ctx, server.User{Username: "alice", OrgID: "o1", FullName: "Alice", Role: server.RoleAdmin}),
			tx.PatchSettings(ctx, "o1", server.Settings{InformationalBanner: &server.Banner{Text: new(string)}}, server.PartInformationalBanner),
			tx.PutItem(ctx, server.Item{ID: "i", Owner: "alice", Title: "I", Created: time.UnixMilli(5), Modified: time.UnixMilli(6)}),
		)
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func dumpString(t *testing.T, s server.Store) string {
	t.Helper()
	var b strings.Builder
	if err := s.Dump(t.Context(), &b); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	return b.String()
}

func TestSQLiteReopen(t *testing.T) {
	path := sqliteFile(t)
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	putAlice(t, s)
	before := dumpString(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s2 := openT(t, path)
	if after := dumpString(t, s2); after != before {
		t.Errorf("reopened store differs:\n%s\n---\n%s", before, after)
	}
	wantMigrated(t, s2)
	err = s2.View(t.Context(), func(tx server.Tx) error {
		u, err := tx.User(t.Context(), "alice")
		if err == nil && u.FullName != "Alice" {
			t.Errorf("User(alice) after reopening = %#v", u)
		}
		return err
	})
	if err != nil {
		t.Errorf("User(alice) after reopening: %v", err)
	}
}

// testConcurrentOpen opens one database from several goroutines at once:
// every Open succeeds and each migration is applied once.
func testConcurrentOpen(t *testing.T, dsn string) {
	const opens = 4
	stores := make([]*Store, opens)
	errs := make([]error, opens)
	var wg sync.WaitGroup
	for i := range opens {
		wg.Go(func() { stores[i], errs[i] = Open(t.Context(), dsn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
			continue
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if t.Failed() {
		return
	}
	wantMigrated(t, stores[0])
	putAlice(t, stores[1])
	if a, b := dumpString(t, stores[0]), dumpString(t, stores[opens-1]); a != b || a == "" {
		t.Errorf("stores of one database dump differently:\n%s\n---\n%s", a, b)
	}
}

func TestSQLiteConcurrentOpen(t *testing.T) {
	testConcurrentOpen(t, sqliteFile(t))
}

func TestPostgresConcurrentOpen(t *testing.T) {
	testConcurrentOpen(t, postgresSchema(t, postgresURL(t)))
}

// TestPostgresReadLocks: a user read in an Update locks the row until the
// transaction ends, so a concurrent read-modify-write of the same user waits
// for it instead of losing its increment (the transactions run at READ
// COMMITTED, where a plain read would let both read the same value).
func TestPostgresReadLocks(t *testing.T) {
	dsn := postgresSchema(t, postgresURL(t))
	s := openT(t, dsn)
	ctx := t.Context()
	putAlice(t, s)
	increment := func(tx server.Tx) error {
		u, err := tx.User(ctx, "alice")
		if err != nil {
			return err
		}
		u.FullName += "+"
		return tx.PutUser(ctx, u)
	}
	admin, err := sql.Open("pgx", postgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := dsnSchema(t, dsn)

	read, otherDone := make(chan struct{}), make(chan struct{})
	var otherErr error
	go func() {
		defer close(otherDone)
		<-read
		otherErr = s.Update(ctx, increment)
	}()
	attempts := 0
	err = s.Update(ctx, func(tx server.Tx) error {
		attempts++
		u, err := tx.User(ctx, "alice")
		if err != nil {
			return err
		}
		if attempts == 1 {
			close(read)
			// The other transaction reads alice too, and must wait for
			// this one: wait until PostgreSQL shows it waiting on a lock.
			for waiting := 0; waiting == 0; {
				select {
				case <-otherDone:
					t.Fatal("the other Update ran through: the read took no lock")
				default:
				}
				if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE wait_event_type = 'Lock' AND query LIKE '%FROM users WHERE username%'
					AND pid IN (SELECT pid FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
						JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1)`, schema).Scan(&waiting); err != nil {
					return err
				}
				runtime.Gosched()
			}
		}
		u.FullName += "+"
		return tx.PutUser(ctx, u)
	})
	<-otherDone
	if err != nil || otherErr != nil {
		t.Fatalf("Updates: %v; %v", err, otherErr)
	}
	if attempts != 1 {
		t.Errorf("fn ran %d times, want 1: the lock orders the two, no conflict to retry", attempts)
	}
	err = s.View(ctx, func(tx server.Tx) error {
		u, err := tx.User(ctx, "alice")
		if err == nil && u.FullName != "Alice++" {
			t.Errorf("FullName = %q, want Alice++: an increment was lost", u.FullName)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresKilledConnection: a transaction whose backend is terminated
// (pg_terminate_backend) midway is run again on a fresh connection, and
// commits once.
func TestPostgresKilledConnection(t *testing.T) {
	s := openT(t, postgresSchema(t, postgresURL(t)))
	ctx := t.Context()
	putAlice(t, s)
	admin, err := sql.Open("pgx", postgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	attempts := 0
	err = s.Update(ctx, func(stx server.Tx) error {
		attempts++
		u, err := stx.User(ctx, "alice")
		if err != nil {
			return err
		}
		if attempts == 1 {
			var pid int
			if err := stx.(*tx).queryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				return err
			}
			var ok bool
			if err := admin.QueryRowContext(ctx, "SELECT pg_terminate_backend($1, 10000)", pid).Scan(&ok); err != nil || !ok {
				t.Fatalf("pg_terminate_backend: %v, %v", ok, err)
			}
		}
		u.FullName += "+"
		return stx.PutUser(ctx, u)
	})
	if err != nil {
		t.Fatalf("Update after its backend was terminated: %v", err)
	}
	if attempts != 2 {
		t.Errorf("fn ran %d times, want 2", attempts)
	}
	u := must(t, s, func(tx server.Tx) (server.User, error) { return tx.User(ctx, "alice") })
	if u.FullName != "Alice+" {
		t.Errorf("FullName = %q, want Alice+: one commit", u.FullName)
	}
}

// testFolderTitles checks the schema's case-insensitive uniqueness of a
// user's folder titles.
func testFolderTitles(t *testing.T, s server.Store) {
	put := func(f server.Folder) error {
		return s.Update(t.Context(), func(tx server.Tx) error { return tx.PutFolder(t.Context(), f) })
	}
	if err := put(server.Folder{ID: "f1", Owner: "alice", Title: "Maps"}); err != nil {
		t.Fatalf("PutFolder: %v", err)
	}
	if err := put(server.Folder{ID: "f2", Owner: "alice", Title: "MAPS"}); err == nil {
		t.Errorf("a second folder titled MAPS for alice was stored")
	}
	if err := put(server.Folder{ID: "f3", Owner: "bob", Title: "maps"}); err != nil {
		t.Errorf("bob's folder maps: %v", err)
	}
	if err := put(server.Folder{ID: "f1", Owner: "alice", Title: "MAPS"}); err != nil {
		t.Errorf("renaming alice's folder to MAPS: %v", err)
	}
}

func TestSQLiteFolderTitles(t *testing.T) {
	testFolderTitles(t, openT(t, sqliteFile(t)))
}

func TestPostgresFolderTitles(t *testing.T) {
	testFolderTitles(t, openT(t, postgresSchema(t, postgresURL(t))))
}

func TestRebind(t *testing.T) {
	q := "SELECT a FROM t WHERE b = ? AND c = ? ORDER BY a COLLATE BINARY, b COLLATE BINARY"
	if got := sqlite.rebind(q); got != q {
		t.Errorf("sqlite.rebind changed the query: %s", got)
	}
	want := `SELECT a FROM t WHERE b = $1 AND c = $2 ORDER BY a COLLATE "C", b COLLATE "C"`
	if got := postgres.rebind(q); got != want {
		t.Errorf("postgres.rebind:\n got %s\nwant %s", got, want)
	}
}

func TestSplitStatements(t *testing.T) {
	src := "-- a comment; with a semicolon\nCREATE TABLE a (x TEXT);\n\n  -- indented comment\nCREATE INDEX i ON a (x);\n"
	want := []string{"CREATE TABLE a (x TEXT)", "CREATE INDEX i ON a (x)"}
	if got := splitStatements(src); !reflect.DeepEqual(got, want) {
		t.Errorf("splitStatements = %q, want %q", got, want)
	}
}

// TestPostgresAbortedCommit: a statement that failed aborts the PostgreSQL
// transaction, which then cannot commit; an Update whose fn went on
// regardless reports it, and nothing of it is stored.
func TestPostgresAbortedCommit(t *testing.T) {
	s := openT(t, postgresSchema(t, postgresURL(t)))
	ctx := t.Context()
	err := s.Update(ctx, func(stx server.Tx) error {
		if err := stx.PutOrganization(ctx, server.Organization{ID: "o", Name: "O"}); err != nil {
			return err
		}
		if _, err := stx.(*tx).exec(ctx, "SELECT 1/0"); err == nil {
			t.Error("1/0 did not fail")
		}
		return nil
	})
	if err == nil {
		t.Fatal("an Update whose statement failed committed")
	}
	if _, err := get(t, s, func(tx server.Tx) (server.Organization, error) { return tx.Organization(ctx, "o") }); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("organization after the failed Update: %v", err)
	}
}

// postgresWithAlice is a PostgreSQL store holding alice of o1 and her token
// "tok".
func postgresWithAlice(t *testing.T) *Store {
	s := openT(t, postgresSchema(t, postgresURL(t)))
	putAlice(t, s)
	if err := s.Update(t.Context(), func(tx server.Tx) error {
		return tx.PutToken(t.Context(), server.Token{Token: "tok", Username: "alice"})
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A settings patch after its token's confirmation commits when the token
// exists, changes nothing when it is gone or the organization is unknown, and
// a statement after it in the transaction sees it.
func TestPostgresPatchWithCommit(t *testing.T) {
	s := postgresWithAlice(t)
	ctx := t.Context()
	banner := func(text string) server.Settings {
		return server.Settings{InformationalBanner: &server.Banner{Text: &text}}
	}
	patch := func(token, org, text string, more func(tx server.Tx) error) error {
		return s.Update(ctx, func(tx server.Tx) error {
			if err := tx.ConfirmToken(ctx, token); err != nil {
				return err
			}
			if err := tx.PatchSettings(ctx, org, banner(text), server.PartInformationalBanner); err != nil {
				return err
			}
			if more != nil {
				return more(tx)
			}
			return nil
		})
	}
	stored := func() string {
		st := must(t, s, func(tx server.Tx) (server.Settings, error) {
			return tx.Settings(ctx, "o1", server.AllSettingsParts)
		})
		if st.InformationalBanner == nil || st.InformationalBanner.Text == nil {
			return ""
		}
		return *st.InformationalBanner.Text
	}
	if err := patch("tok", "o1", "one", nil); err != nil {
		t.Fatalf("patch with an existing token: %v", err)
	}
	if got := stored(); got != "one" {
		t.Errorf("banner after the patch = %q, want one", got)
	}
	if err := patch("gone", "o1", "two", nil); !errors.Is(err, server.ErrTokenRemoved) {
		t.Errorf("patch with a removed token = %v, want ErrTokenRemoved", err)
	}
	if err := patch("tok", "nope", "two", nil); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("patch of an unknown organization = %v, want ErrNotFound", err)
	}
	// The same, with a statement after it.
	read := func(tx server.Tx) error {
		_, err := tx.Settings(ctx, "o1", server.PartInformationalBanner)
		return err
	}
	if err := patch("gone", "o1", "two", read); !errors.Is(err, server.ErrTokenRemoved) {
		t.Errorf("patch and read with a removed token = %v, want ErrTokenRemoved", err)
	}
	if err := patch("tok", "nope", "two", read); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("patch and read of an unknown organization = %v, want ErrNotFound", err)
	}
	// A token removed whose organization went too: the token is named.
	if err := patch("gone", "nope", "two", nil); !errors.Is(err, server.ErrTokenRemoved) {
		t.Errorf("patch with a removed token of an unknown organization = %v, want ErrTokenRemoved", err)
	}
	// Without a token to confirm, an unknown organization is told by the
	// write alone.
	if err := s.Update(ctx, func(tx server.Tx) error {
		return tx.PatchSettings(ctx, "nope", banner("two"), server.PartInformationalBanner)
	}); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("patch of an unknown organization without a token = %v, want ErrNotFound", err)
	}
	if got := stored(); got != "one" {
		t.Errorf("banner after the failed patches = %q, want one", got)
	}
	// A statement after the patch is sent with it and sees it.
	var seen string
	if err := patch("tok", "o1", "three", func(tx server.Tx) error {
		st, err := tx.Settings(ctx, "o1", server.PartInformationalBanner)
		if err == nil && st.InformationalBanner != nil && st.InformationalBanner.Text != nil {
			seen = *st.InformationalBanner.Text
		}
		return err
	}); err != nil {
		t.Fatalf("patch and read: %v", err)
	}
	if seen != "three" {
		t.Errorf("read after the patch in its transaction = %q, want three", seen)
	}
	// A failure after the patch undoes it.
	if err := patch("tok", "o1", "four", func(tx server.Tx) error { return errors.New("undo") }); err == nil {
		t.Error("a failing Update succeeded")
	}
	if got := stored(); got != "three" {
		t.Errorf("banner after the failed Update = %q, want three", got)
	}
}

// until waits for cond, failing the test when it does not come true in 20 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}
