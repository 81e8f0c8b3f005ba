// Package sqlstore persists the portal (server.Store) in a SQL database. It
// speaks two dialects from one schema and one set of queries: SQLite
// (modernc.org/sqlite, pure Go, through database/sql), the embedded default,
// and PostgreSQL (github.com/jackc/pgx/v5, whose pool the requests use
// directly), for several servers sharing one database. Every Update is one
// transaction of its own.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/orgportal/portal-api/server"
)

var _ server.Store = (*Store)(nil)

// Store is a server.Store over a SQLite or PostgreSQL database.
type Store struct {
	db *sql.DB
	// pool holds the connections of a PostgreSQL store, db's among them;
	// nil on SQLite.
	pool  *pgxpool.Pool
	d     dialect
	stmts *stmtCache // SQLite only
	// w runs every read-write transaction on SQLite (see writer), so
	// that concurrent Updates share a COMMIT and its fsync. SQLite has a
	// single writer anyway; queueing here rather than in SQLite's busy
	// handler (which polls with sleeps) keeps writers of this process in
	// order and leaves busy_timeout for other processes sharing the file.
	// nil on PostgreSQL.
	w *writer
	// file is the SQLite file as opened, to notice it deleted or replaced
	// and commits failing; nil for PostgreSQL and ":memory:".
	file *fileIdentity
	// commitFault, set by tests, stands for a commit the disk refused.
	commitFault func() error
	// dsn, watch, stopWatch and watchDone serve WatchTokens (PostgreSQL).
	dsn       string
	watch     watcher
	stopWatch context.CancelFunc
	watchDone chan struct{}
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
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: open postgres: %w", err)
		}
		// A bounded pool that keeps its connections, each with its
		// prepared statements: a server runs best with a few backends per
		// core.
		cfg.MaxConns = int32(PGConns())
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: open postgres: %w", err)
		}
		// Requests run on pgx itself (runPG), without
		// database/sql's conversions; the rest shares the pool through it.
		s = &Store{db: stdlib.OpenDBFromPool(pool), pool: pool, d: postgres, dsn: dsn}
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
		s = &Store{db: db, d: sqlite, stmts: newLaterStmtCache(db)}
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
		if s.file, err = identify(sqlitePath(dsn)); err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		if s.pool != nil {
			s.pool.Close()
		}
		return nil, err
	}
	if s.d == sqlite {
		var verify func() error
		if s.file != nil {
			verify = s.file.gone
		}
		s.w = newWriter(s.db, s.stmts, verify)
	}
	return s, nil
}

// PGConns sizes the pool of PostgreSQL connections for the machine: a few per
// core keep the server busy while some wait on the network or a row lock.
func PGConns() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// View implements server.Store: fn runs in a read-only transaction of its
// own.
func (s *Store) View(ctx context.Context, fn func(tx server.Tx) error) error {
	if s.d == postgres {
		return s.retryPG(ctx, true, fn)
	}
	return s.view(ctx, fn)
}

// Close implements server.Store. Updates still waiting get an error; the
// group of Updates under way, if any, ends first.
func (s *Store) Close() error {
	if s.stopWatch != nil {
		s.stopWatch()
		<-s.watchDone
	}
	if s.w != nil {
		s.w.close()
	}
	s.stmts.close()
	err := s.db.Close()
	if s.pool != nil {
		s.pool.Close() // after db, whose connections it holds
	}
	return err
}

// dataTables are the tables holding the portal's rows, with their columns in
// dump order and their primary key; schema_migrations is not data.
var dataTables = []struct {
	name, columns, key string
}{
	{"organizations", "id, name", "id"},
	{"roles", "org_id, id, privileges", "org_id, id"},
	{"users", userColumns, "username"},
	{"tokens", "token, username, expires_ms, grant_id", "token"},
	{"apps", "client_id, org_id, secret_hash, redirect_uris", "client_id"},
	{"oauth_codes", "code, client_id, username, redirect_uri, challenge, challenge_method, refresh_minutes, expires_ms", "code"},
	{"refresh_tokens", "token, client_id, username, minutes, expires_ms, grant_id", "token"},
	{"app_tokens", "token, client_id, expires_ms", "token"},
	{"settings", "org_id, anonymous_notice, authenticated_notice, banner, portal_config", "org_id"},
	{"category_schemas", "org_id, schema", "org_id"},
	{"folders", "id, owner, title, title_key, created_ms", "id"},
	{"items", itemColumns, "id"},
	{"portal_groups", groupColumns, "id"},
	{"group_members", "group_id, username, member_type", "group_id, username"},
}

// lockOrder lists the data tables in the order Reset locks them: tokens
// first, then the others.
func lockOrder() string {
	names := []string{"tokens"}
	for _, tb := range dataTables {
		if tb.name != "tokens" {
			names = append(names, tb.name)
		}
	}
	return strings.Join(names, ", ")
}

// Reset implements server.Store: it deletes every row, keeps the schema and
// runs seed, in one transaction. On PostgreSQL it returns once every process
// watching the store's tokens (WatchTokens) has forgotten them.
func (s *Store) Reset(ctx context.Context, seed func(tx server.Tx) error) error {
	del := func(t *tx) error {
		if t.d == postgres {
			// Every transaction reading or writing these tables holds a lock
			// that this one waits for, and later ones wait for it: none runs
			// astride the reset, such as a write deciding on a user that the
			// reset then deletes before the write inserts the user's item.
			// The tokens table comes first: a write's first statement reads
			// its token (ConfirmToken), and one that has read it must not
			// then wait for a table this transaction took meanwhile.
			if _, err := t.exec(ctx, "LOCK TABLE "+lockOrder()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				return fmt.Errorf("sqlstore: reset: %w", err)
			}
		}
		for _, tb := range dataTables {
			if _, err := t.exec(ctx, "DELETE FROM "+tb.name); err != nil {
				return fmt.Errorf("sqlstore: reset %s: %w", tb.name, err)
			}
		}
		if seed == nil {
			return nil
		}
		if err := seed(t); err != nil {
			return fmt.Errorf("sqlstore: reset: seed: %w", err)
		}
		return nil
	}
	if s.d == postgres {
		return s.resetPostgres(ctx, del)
	}
	return s.run(ctx, false, del)
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

// run is View (readOnly) or Update for the store's own transactions, which
// use tx's unexported methods.
func (s *Store) run(ctx context.Context, readOnly bool, fn func(t *tx) error) error {
	own := func(t server.Tx) error { return fn(t.(*tx)) }
	if readOnly {
		return s.View(ctx, own)
	}
	return s.Update(ctx, own)
}

// errCommit marks a failed COMMIT. Whether the transaction committed is
// unknown, unless the COMMIT never left or the server answered it with an
// error: only then is it run again (see retryable).
type errCommit struct{ err error }

func (e *errCommit) Error() string { return "sqlstore: commit: " + e.err.Error() }
func (e *errCommit) Unwrap() error { return e.err }

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
	// Every statement of every request is rebound: the queries are a
	// bounded set (an IN list has at most the largest batch's placeholders).
	if pq, ok := rebound.Load(q); ok {
		return pq.(string)
	}
	pq := rebindPG(q)
	rebound.Store(q, pq)
	return pq
}

// rebound caches rebind's PostgreSQL queries.
var rebound sync.Map

func rebindPG(q string) string {
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

// retryable reports whether the attempt that failed with err changed
// nothing and running it again may succeed: on PostgreSQL, a serialization
// failure or a deadlock (the server rolled the transaction back), a unique key
// taken by a concurrent insert that a READ COMMITTED check could not see (the
// next attempt sees it and answers as a serial order would), or a connection
// lost before COMMIT was sent (a killed backend rolls its transaction back).
// A COMMIT whose outcome is unknown is never run again. SQLite transactions
// never conflict: BEGIN IMMEDIATE serializes writers before they read
// anything.
func (d dialect) retryable(err error, readOnly bool) bool {
	if d != postgres {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "40001", // serialization_failure
			"40P01": // deadlock_detected
			return true
		case "23505": // unique_violation
			return !readOnly
		}
	}
	var ce *errCommit
	if errors.As(err, &ce) {
		return pgconn.SafeToRetry(err) || (pgErr != nil && connLost(err))
	}
	return connLost(err)
}

// connLost reports whether err says the connection to the server failed: the
// transaction it carried, if any, is gone with it.
func connLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57P01-57P03: the backend was
		// terminated (pg_terminate_backend, shutdown) or cannot start.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P0")
	}
	var netErr net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		pgconn.SafeToRetry(err) || errors.As(err, &netErr) ||
		strings.Contains(err.Error(), "conn closed")
}
