package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/orgportal/portal-api/server"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgTx is a PostgreSQL transaction on a pooled pgx connection. Its BEGIN
// travels with its first statement in one pgx batch (Batch.BeginTx: one
// round trip, not two), and a transaction that runs no statement sends none.
// Statements go through pgx's statement cache: prepared once per connection.
type pgTx struct {
	conn *pgx.Conn
	opts pgx.TxOptions
	tx   pgx.Tx // nil until the first statement
}

// first sends BEGIN and q in one batch and returns the batch, BEGIN's result
// read: the caller reads q's result and closes the batch before the
// connection runs anything else.
func (p *pgTx) first(ctx context.Context, q string, args []any) (pgx.BatchResults, error) {
	var b pgx.Batch
	b.BeginTx(p.opts)
	b.Queue(q, args...)
	br := p.conn.SendBatch(ctx, &b)
	p.tx = br.Tx()
	if _, err := br.Exec(); err != nil {
		return nil, errors.Join(err, br.Close())
	}
	return br, nil
}

func (p *pgTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if p.tx != nil {
		tag, err := p.tx.Exec(ctx, q, args...)
		return tagResult(tag), err
	}
	br, err := p.first(ctx, q, args)
	if err != nil {
		return nil, err
	}
	tag, err := br.Exec()
	return tagResult(tag), errors.Join(err, br.Close())
}

func (p *pgTx) QueryContext(ctx context.Context, q string, args ...any) (rows, error) {
	if p.tx != nil {
		r, err := p.tx.Query(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		return pgRows{r, nil}, nil
	}
	br, err := p.first(ctx, q, args)
	if err != nil {
		return nil, err
	}
	r, err := br.Query()
	if err != nil {
		return nil, errors.Join(err, br.Close())
	}
	return pgRows{r, br}, nil
}

func (p *pgTx) QueryRowContext(ctx context.Context, q string, args ...any) scanner {
	if p.tx != nil {
		return p.tx.QueryRow(ctx, q, args...) // its ErrNoRows is sql.ErrNoRows too
	}
	rs, err := p.QueryContext(ctx, q, args...)
	if err != nil {
		return errRow{err}
	}
	return firstRow{rs}
}

// firstRow is the one row of a query, closed once scanned.
type firstRow struct{ rs rows }

func (r firstRow) Scan(dest ...any) error {
	defer r.rs.Close()
	if !r.rs.Next() {
		if err := r.rs.Close(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.rs.Scan(dest...); err != nil {
		return err
	}
	return r.rs.Close()
}

// end commits or, when fnErr is not nil, rolls back a transaction begun. A
// failed rollback closes the connection, which the pool then discards.
func (p *pgTx) end(ctx context.Context, fnErr error) error {
	switch {
	case p.tx == nil:
		return fnErr
	case fnErr != nil:
		_ = p.tx.Rollback(context.WithoutCancel(ctx))
		return fnErr
	}
	// A statement that failed while fn went on regardless leaves the
	// transaction rolled back: pgx.ErrTxCommitRollback.
	if err := p.tx.Commit(ctx); err != nil {
		return &errCommit{err}
	}
	return nil
}

// pgMaxAttempts bounds the attempts of one PostgreSQL transaction. Under READ
// COMMITTED with row locks, conflicts are rare (a deadlock, a unique key taken
// by a concurrent insert, a connection killed), so few attempts suffice.
const pgMaxAttempts = 10

// retryPG runs fn in one transaction (runPG), and again, whole, when the
// attempt failed without effect and running it again may succeed (see
// retryable), with a jittered backoff. A write runs at READ COMMITTED: each
// statement sees what committed before it, and the reads that decide the
// write lock their rows (tx.lock), which orders the transactions touching
// the same rows as their locks do. A read runs in one REPEATABLE READ READ
// ONLY snapshot: it sees one committed state, and never fails to serialize.
func (s *Store) retryPG(ctx context.Context, readOnly bool, fn func(server.Tx) error) error {
	opts := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
	if readOnly {
		opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	}
	for attempt := 1; ; attempt++ {
		err := s.runPG(ctx, opts, fn)
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

// runPG runs fn in one transaction of opts on a pooled connection, begun,
// run and ended here.
func (s *Store) runPG(ctx context.Context, opts pgx.TxOptions, fn func(server.Tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	// Release discards a connection closed or left in a transaction.
	defer conn.Release()
	p := &pgTx{conn: conn.Conn(), opts: opts}
	readOnly := opts.AccessMode == pgx.ReadOnly
	t := &tx{pg: p, d: postgres, readOnly: readOnly, lock: !readOnly}
	var fnErr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				_ = p.end(ctx, errors.New("panic"))
				panic(r)
			}
		}()
		fnErr = fn(t)
	}()
	return p.end(ctx, fnErr)
}

// tagResult is a command tag as a sql.Result.
type tagResult pgconn.CommandTag

func (r tagResult) LastInsertId() (int64, error) {
	return 0, errors.New("sqlstore: no insert id on PostgreSQL")
}
func (r tagResult) RowsAffected() (int64, error) { return pgconn.CommandTag(r).RowsAffected(), nil }

// rows is what a query returns: *sql.Rows or pgRows.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// pgRows are a pgx query's rows; those of a transaction's first statement
// close the batch that carried it (br) when closed.
type pgRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r pgRows) Close() error {
	r.Rows.Close()
	err := r.Rows.Err()
	if r.br != nil {
		err = errors.Join(err, r.br.Close())
	}
	return err
}
