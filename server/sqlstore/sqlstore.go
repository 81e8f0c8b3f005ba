// Package sqlstore persists the portal (server.Store) in a SQL database
// through database/sql. It speaks two dialects from one schema and one set of
// queries: SQLite (modernc.org/sqlite, pure Go), the embedded default, and
// PostgreSQL (github.com/jackc/pgx/v5), for several servers sharing one
// database.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	sqlite3 "modernc.org/sqlite"       // also registers the "sqlite" driver
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/orgportal/portal-api/server"
)

var _ server.Store = (*Store)(nil)

// Store is a server.Store over a SQLite or PostgreSQL database.
type Store struct {
	db    *sql.DB
	d     dialect
	stmts *stmtCache // SQLite files only
	// gc runs every read-write transaction on SQLite (see committer), so
	// that concurrent Updates share a COMMIT and its fsync. SQLite has a
	// single writer anyway; queueing here rather than in SQLite's busy
	// handler (which polls with sleeps) keeps writers of this process in
	// order and leaves busy_timeout for other processes sharing the file.
	// nil on PostgreSQL.
	gc *committer
}

// Open opens the store named by dsn and applies any pending migration.
//
// dsn is one of:
//   - "postgres://..." or "postgresql://...": a PostgreSQL database, in the
//     URL form pgx accepts (e.g. "?search_path=s" to use schema s, which must
//     exist);
//   - ":memory:": a throwaway SQLite database that lives as long as the Store;
//   - anything else: a SQLite database file (created if missing), either a
//     path or a "file:" URI.
func Open(ctx context.Context, dsn string) (*Store, error) {
	var s *Store
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: open postgres: %w", err)
		}
		s = &Store{db: db, d: postgres}
	case dsn == ":memory:":
		db, err := sql.Open("sqlite", ":memory:?"+sqlitePragmas)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: open sqlite: %w", err)
		}
		// Each connection to ":memory:" is its own database, so the pool
		// must hold exactly one connection, for ever.
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
		s = &Store{db: db, d: sqlite}
	default:
		if dsn == "" {
			return nil, errors.New("sqlstore: empty dsn")
		}
		sep := "?"
		if strings.HasPrefix(dsn, "file:") && strings.Contains(dsn, "?") {
			sep = "&"
		}
		db, err := sql.Open("sqlite", dsn+sep+sqlitePragmas)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: open sqlite: %w", err)
		}
		if err := firstConnection(ctx, db); err != nil {
			db.Close()
			return nil, err
		}
		// database/sql keeps 2 idle connections by default: under more
		// concurrent requests than that, connections were closed and opened
		// again all the time, each open costing the pragmas and each
		// statement's preparation again. The number open stays unbounded:
		// stmtCache prepares on a connection of its own while the caller
		// holds one, which a bound could deadlock.
		db.SetMaxIdleConns(sqliteIdleConns)
		s = &Store{db: db, d: sqlite, stmts: newStmtCache(db)}
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	if s.d == sqlite {
		s.gc = newCommitter(s.db, s.stmts)
	}
	return s, nil
}

// sqliteIdleConns is how many connections to a SQLite file stay open between
// requests: more than the concurrent requests of a busy server usually hold.
const sqliteIdleConns = 32

// firstConnection connects to a SQLite file, retrying while another process
// or Store opening the same new file holds the lock needed to switch it to
// WAL: SQLite reports that conflict as SQLITE_BUSY without calling the busy
// handler. Once the file is in WAL mode, connections no longer need it.
func firstConnection(ctx context.Context, db *sql.DB) error {
	for attempt := 1; ; attempt++ {
		err := db.PingContext(ctx)
		var se *sqlite3.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3lib.SQLITE_BUSY || attempt == maxAttempts {
			if err != nil {
				return fmt.Errorf("sqlstore: connect: %w", err)
			}
			return nil
		}
		d := time.Duration(attempt) * 5 * time.Millisecond
		select {
		case <-ctx.Done():
			return fmt.Errorf("sqlstore: connect: %w (after: %w)", ctx.Err(), err)
		case <-time.After(d/2 + rand.N(d)):
		}
	}
}

// sqlitePragmas configures every SQLite connection:
//   - busy_timeout comes first so the other pragmas wait for a lock held by
//     another process instead of failing;
//   - WAL lets readers (View) run beside the one writer;
//   - synchronous(FULL) syncs the WAL at every commit, so a committed Update
//     survives a process kill and a power loss alike (NORMAL would survive
//     only the former); the Updates committed together by the committer
//     share one fsync;
//   - _txlock=immediate makes every read-write transaction BEGIN IMMEDIATE:
//     it takes the write lock up front, so transactions never upgrade a read
//     lock midway and never deadlock, which makes Update serializable
//     without retries. Read-only transactions stay deferred.
const sqlitePragmas = "_pragma=busy_timeout(10000)" +
	"&_pragma=journal_mode(WAL)" +
	"&_pragma=foreign_keys(1)" +
	"&_pragma=synchronous(FULL)" +
	"&_txlock=immediate"

// Update implements server.Store.
func (s *Store) Update(ctx context.Context, fn func(tx server.Tx) error) error {
	return s.run(ctx, false, func(t *tx) error { return fn(t) })
}

// View implements server.Store.
func (s *Store) View(ctx context.Context, fn func(tx server.Tx) error) error {
	return s.run(ctx, true, func(t *tx) error { return fn(t) })
}

// Ping implements server.Store.
func (s *Store) Ping(ctx context.Context) error {
	return s.db.PingContext(ctx)
}

// Close implements server.Store. Updates still waiting get an error; the
// group of Updates under way, if any, ends first.
func (s *Store) Close() error {
	if s.gc != nil {
		s.gc.close()
	}
	s.stmts.close()
	return s.db.Close()
}

// dataTables are the tables holding the portal's rows, with their columns in
// dump order and their primary key; schema_migrations is not data.
var dataTables = []struct {
	name, columns, key string
}{
	{"organizations", "id, name", "id"},
	{"roles", "org_id, id, privileges", "org_id, id"},
	{"users", "username, org_id, full_name, role, password_hash, categories", "username"},
	{"tokens", "token, username, expires_ms", "token"},
	{"settings", "org_id, anonymous_notice, authenticated_notice, banner, portal_config", "org_id"},
	{"category_schemas", "org_id, schema", "org_id"},
	{"folders", "id, owner, title, created_ms", "id"},
	{"items", "id, owner, folder_id, title, type, description, tags, created_ms, modified_ms", "id"},
}

// Reset implements server.Store: it deletes every row and keeps the schema.
func (s *Store) Reset(ctx context.Context) error {
	return s.run(ctx, false, func(t *tx) error {
		for _, tb := range dataTables {
			if _, err := t.exec(ctx, "DELETE FROM "+tb.name); err != nil {
				return fmt.Errorf("sqlstore: reset %s: %w", tb.name, err)
			}
		}
		return nil
	})
}

// Dump implements server.Store. It writes one line per row, table by table
// in a fixed order, rows in primary key order (byte order on every dialect),
// as `table col=value ...`, with strings quoted and NULL for SQL NULL.
func (s *Store) Dump(ctx context.Context, w io.Writer) error {
	// Buffer the whole dump so that a retried transaction cannot write a
	// partial dump twice.
	var b strings.Builder
	err := s.run(ctx, true, func(t *tx) error {
		b.Reset()
		for _, tb := range dataTables {
			if err := t.dumpTable(ctx, &b, tb.name, tb.columns, tb.key); err != nil {
				return fmt.Errorf("sqlstore: dump %s: %w", tb.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// maxAttempts bounds how often run tries a transaction that keeps failing on
// serialization conflicts. Every failed attempt lost to a transaction that
// committed, so the bound is reached only under sustained contention.
const maxAttempts = 32

// run runs fn in one transaction, read-only or read-write, committing when fn
// returns nil and retrying the whole of fn on a serialization conflict. On
// SQLite, read-write transactions go to the committer and never conflict.
func (s *Store) run(ctx context.Context, readOnly bool, fn func(t *tx) error) error {
	if !readOnly && s.gc != nil {
		return s.gc.do(ctx, fn)
	}
	for attempt := 1; ; attempt++ {
		err := s.runOnce(ctx, readOnly, fn)
		if err == nil || !s.d.retryable(err) || attempt == maxAttempts {
			return err
		}
		// Jitter spreads the retries of transactions that collided so they
		// do not collide again; the cap keeps the wait small.
		d := min(time.Millisecond<<min(attempt, 7), 100*time.Millisecond)
		timer := time.NewTimer(d/2 + rand.N(d))
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("%w (retrying after: %w)", ctx.Err(), err)
		case <-timer.C:
		}
	}
}

func (s *Store) runOnce(ctx context.Context, readOnly bool, fn func(t *tx) error) (err error) {
	opts := &sql.TxOptions{ReadOnly: readOnly}
	if s.d == postgres {
		// Read-only transactions are serializable too, so a View never
		// observes a state that no serial order of Updates produces.
		opts.Isolation = sql.LevelSerializable
	}
	sqlTx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(&tx{tx: sqlTx, d: s.d, readOnly: readOnly, stmts: s.stmts}); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

// dialect is what differs between the SQL databases.
type dialect int

const (
	sqlite dialect = iota
	postgres
)

// rebind turns a query written for SQLite into the dialect's: PostgreSQL
// numbers its placeholders ($1, $2, ...) and calls byte-order collation "C"
// where SQLite calls it BINARY. Queries hold no '?' other than placeholders.
func (d dialect) rebind(q string) string {
	if d != postgres {
		return q
	}
	q = strings.ReplaceAll(q, " COLLATE BINARY", ` COLLATE "C"`)
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// retryable reports whether err means the transaction lost a conflict and
// running it again may succeed. SQLite transactions never do: BEGIN IMMEDIATE
// serializes writers before they read anything.
func (d dialect) retryable(err error) bool {
	if d != postgres {
		return false
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "40001", // serialization_failure
		"40P01": // deadlock_detected
		return true
	}
	return false
}
