package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	sqlite3 "modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/orgportal/portal-api/server"
)

// The SQLite store: one file (or ":memory:") of one process. Reads run in
// transactions of their own (view); writes run one at a time, each on its
// caller's goroutine, grouped (Update, groupcommit.go).

// sqlitePragmas configures every SQLite connection:
//   - busy_timeout comes first so the other pragmas wait for a lock held by
//     another process instead of failing;
//   - WAL lets readers (View) run beside the one writer;
//   - synchronous(FULL) syncs the WAL at every commit, so a committed Update
//     survives a process kill and a power loss alike (NORMAL would survive
//     only the former); the Updates committed together by the writer
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

// sqliteIdleConns is how many connections to a SQLite file stay open between
// requests: more than the concurrent requests of a busy server usually hold.
const sqliteIdleConns = 32

// maxAttempts bounds how often firstConnection tries a SQLite file that
// another connection is switching to WAL.
const maxAttempts = 32

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

// Update implements server.Store: on SQLite fn runs on the caller's
// goroutine in the writer's open group (groupcommit.go), on PostgreSQL in a
// transaction of its own (retryPG). Update vouches for a SQLite write: one
// whose file is no longer the store's is reported failed although SQLite
// committed it, for nothing will read it again; a commit that failed marks
// the store failing until one succeeds.
func (s *Store) Update(ctx context.Context, fn func(tx server.Tx) error) error {
	if err := server.EnterUpdate(ctx); err != nil {
		return err
	}
	defer server.LeaveUpdate(ctx)
	if s.d == postgres {
		return s.retryPG(ctx, false, fn)
	}
	g, err := s.w.take(ctx)
	if err != nil {
		return err
	}
	returned := false
	defer func() {
		if !returned { // fn panicked or called runtime.Goexit, which goes on
			_ = s.w.settle(g, false)
		}
	}()
	fnErr := fn(g.t)
	returned = true
	err = s.w.settle(g, fnErr == nil)
	if err == nil && fnErr == nil && s.commitFault != nil {
		err = s.commitFault()
	}
	switch {
	case s.file == nil || fnErr != nil && err == nil:
		return cmp.Or(err, fnErr)
	case err != nil:
		s.file.committed(err)
		return fmt.Errorf("%w: %w", ErrUnhealthy, err)
	}
	s.file.committed(nil)
	return g.verified
}

// view runs fn in a read-only transaction of its own: WAL lets it run
// beside the writer's group, and it sees the state after some group.
func (s *Store) view(ctx context.Context, fn func(server.Tx) error) error {
	sqlTx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", ended(ctx, err))
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(&tx{tx: sqlTx, d: sqlite, readOnly: true, stmts: s.stmts}); err != nil {
		_ = sqlTx.Rollback()
		return ended(ctx, err)
	}
	// Nothing to keep: a read-only transaction's COMMIT only ends it.
	if err := sqlTx.Commit(); err != nil {
		return ended(ctx, err)
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
