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
	"math/rand/v2"
	"net"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	sqlite3 "modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3lib "modernc.org/sqlite/lib"

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
	// gc runs every read-write transaction on SQLite (see committer), so
	// that concurrent Updates share a COMMIT and its fsync. SQLite has a
	// single writer anyway; queueing here rather than in SQLite's busy
	// handler (which polls with sleeps) keeps writers of this process in
	// order and leaves busy_timeout for other processes sharing the file.
	// nil on PostgreSQL.
	gc *committer
	// multiStatement holds the sites (see run) of the read-only functions
	// that ran more than one statement: they start in a transaction.
	multiStatement sync.Map
	// reads merges the identical one-statement reads that wait for a
	// round trip (PostgreSQL).
	reads coalescer
	// file is the SQLite file as opened, to notice it deleted or replaced
	// and commits failing; nil for PostgreSQL and ":memory:".
	file *fileIdentity
	// removals counts the removals of tokens (TokenRemovals),
	// from 1; SQLite only.
	removals atomic.Uint64
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
		// What a write sent as one pipeline without BEGIN runs at
		// (pgTx.commitAlone), whatever the server's default.
		cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: open postgres: %w", err)
		}
		// Requests run on pgx itself (runPG, poolRunner), without
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
		s.removals.Store(1)
		s.gc = newCommitter(s.db, s.stmts, &s.removals)
	}
	return s, nil
}

// TokenRemovals implements server.TokenRemovals on SQLite, where one
// process writes, one write at a time, through the committer: every method
// that removes tokens counts its removal (tx.removedTokens) before making it,
// so the count read in a later write includes it, committed or not (a
// removal rolled back counts all the same, which costs a confirmation, no
// more). Tokens go no other way: the schema has no cascades. PostgreSQL's
// tokens are removed by other processes too: it does not count.
func (s *Store) TokenRemovals() (uint64, bool) {
	if s.d != sqlite {
		return 0, false
	}
	return s.removals.Load(), true
}

var _ server.TokenRemovals = (*Store)(nil)

// PGConns sizes the pool of PostgreSQL connections for the machine: a few per
// core keep the server busy while some wait on the network or a row lock.
func PGConns() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

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
	return s.run(ctx, false, 0, func(t *tx) error { return fn(t) })
}

// View implements server.Store.
func (s *Store) View(ctx context.Context, fn func(tx server.Tx) error) error {
	return s.run(ctx, true, reflect.ValueOf(fn).Pointer(), func(t *tx) error { return fn(t) })
}

// Close implements server.Store. Updates still waiting get an error; the
// group of Updates under way, if any, ends first.
func (s *Store) Close() error {
	if s.stopWatch != nil {
		s.stopWatch()
		<-s.watchDone
	}
	if s.gc != nil {
		s.gc.close()
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
	{"tokens", "token, username, expires_ms", "token"},
	{"apps", "client_id, org_id, secret_hash, redirect_uris", "client_id"},
	{"oauth_codes", "code, client_id, username, redirect_uri, challenge, challenge_method, refresh_minutes, expires_ms", "code"},
	{"refresh_tokens", "token, client_id, username, minutes, expires_ms", "token"},
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
		t.removedTokens()
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
	return s.run(ctx, false, 0, del)
}

// Dump implements server.Store. It writes one line per row, table by table
// in a fixed order, rows in primary key order (byte order on every dialect),
// as `table col=value ...`, with strings quoted and NULL for SQL NULL.
func (s *Store) Dump(ctx context.Context, w io.Writer) error {
	// Buffer the whole dump so that a retried transaction cannot write a
	// partial dump twice.
	var b strings.Builder
	err := s.run(ctx, true, 0, func(t *tx) error {
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

// maxAttempts bounds how often firstConnection tries a SQLite file that
// another connection is switching to WAL.
const maxAttempts = 32

// pgMaxAttempts bounds the attempts of one PostgreSQL transaction. Under READ
// COMMITTED with row locks, conflicts are rare (a deadlock, a unique key taken
// by a concurrent insert, a connection killed), so few attempts suffice.
const pgMaxAttempts = 10

// run runs fn in one transaction, read-only or read-write, committing when fn
// returns nil and retrying the whole of fn when the attempt failed without
// effect and running it again may succeed (see retryable). On SQLite,
// read-write transactions go to the committer and never conflict.
//
// site identifies the code of fn (the function, not the closure's values;
// 0 for none): on PostgreSQL a read-only fn first runs without BEGIN, its one
// statement alone; a fn found to need more is run again in a transaction, and
// its site remembered so that it starts in one from then on.
func (s *Store) run(ctx context.Context, readOnly bool, site uintptr, fn func(t *tx) error) error {
	if !readOnly {
		if err := server.EnterUpdate(ctx); err != nil {
			return err
		}
		defer server.LeaveUpdate(ctx)
		if s.gc != nil {
			return s.update(ctx, fn)
		}
	}
	for attempt := 1; ; attempt++ {
		err := s.runOnce(ctx, readOnly, site, fn)
		if err == nil || !s.d.retryable(err, readOnly) || attempt == pgMaxAttempts {
			return err
		}
		// Jitter spreads the retries of transactions that collided so they
		// do not collide again; the cap keeps the wait small.
		d := min(time.Millisecond<<min(attempt, 5), 20*time.Millisecond)
		timer := time.NewTimer(d/2 + rand.N(d))
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("%w (retrying after: %w)", ctx.Err(), err)
		case <-timer.C:
		}
	}
}

// errNeedsTx stops a read-only fn running without a transaction at its
// second statement, which must see the same snapshot as the first.
var errNeedsTx = errors.New("sqlstore: more than one statement outside a transaction")

// errCommit marks a failed COMMIT. Whether the transaction committed is
// unknown, unless the COMMIT never left or the server answered it with an
// error: only then is it run again (see retryable).
type errCommit struct{ err error }

func (e *errCommit) Error() string { return "sqlstore: commit: " + e.err.Error() }
func (e *errCommit) Unwrap() error { return e.err }

func (s *Store) runOnce(ctx context.Context, readOnly bool, site uintptr, fn func(t *tx) error) (err error) {
	if s.d == postgres {
		if !readOnly {
			// Each statement sees what committed before it; the reads that
			// decide a write lock their rows (tx.lock), which orders the
			// transactions touching the same rows as their locks do.
			return s.runPG(ctx, "begin isolation level read committed", false, fn)
		}
		if _, many := s.multiStatement.Load(site); !many && site != 0 {
			t := &tx{pool: s.pool, reads: &s.reads, d: s.d, readOnly: true}
			// fn may have kept the error its second statement got (a
			// lookup that may fail), so the count decides.
			if err := fn(t); t.ran <= 1 {
				return err
			}
			s.multiStatement.Store(site, true)
		}
		// One snapshot for all the statements: a read-only transaction that
		// sees one committed state, and never fails to serialize.
		return s.runPG(ctx, "begin isolation level repeatable read read only", true, fn)
	}
	sqlTx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", ended(ctx, err))
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(&tx{tx: sqlTx, d: s.d, readOnly: readOnly, stmts: s.stmts}); err != nil {
		_ = sqlTx.Rollback()
		return ended(ctx, err)
	}
	if err := sqlTx.Commit(); err != nil {
		return &errCommit{ended(ctx, err)}
	}
	return nil
}

// ended is err, a failure of a transaction, naming ctx's error too when ctx
// ended: SQLite reports a statement its context interrupted as "interrupted
// (9)", and database/sql a transaction it rolled back for its context as
// sql.ErrTxDone, neither saying why.
func ended(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
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
// lost before COMMIT was sent (a killed backend rolls its transaction back);
// and a write that wrote nothing for want of rows that a read then finds
// (errChanged). A COMMIT whose outcome is unknown is never run again. SQLite transactions
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
	if errors.Is(err, errChanged) {
		return true
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
