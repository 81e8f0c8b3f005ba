package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orgportal/portal-api/server"
)

// pgTx is a PostgreSQL transaction run on the pgx connection under a pooled
// database/sql one, so that its BEGIN travels with its first statement (one
// round trip, not two) and a transaction that runs no statement costs none.
// Statements go through pgx's statement cache: prepared once per connection.
type pgTx struct {
	conn  *pgx.Conn
	begin string // the BEGIN statement, sent with the first statement
	begun bool
	// confirm is the token the transaction depends on (tx.ConfirmToken),
	// read between BEGIN and the first statement; tokenGone records that
	// it was not found, which fails the transaction whatever fn makes of
	// its first statement's error.
	confirm   *string
	tokenGone bool
	// pending are writes whose outcome fn does not wait for (see
	// deferWrite): sent with the next statement, or else with COMMIT.
	pending []pendingWrite
	// groups, when set, commits a transaction of pending writes alone with
	// others to the same row (writeGroups).
	groups *writeGroups
}

// pendingWrite is a statement queued by deferWrite; fail turns its error
// into the one the transaction reports. guarded, when not empty, is q
// confirming the token first (its first argument, then args), failing as
// confirmTokenPG does: sent in place of the confirmation and q when the
// transaction's first write, one statement instead of two.
//
// key names the row q writes, when that is one row: the transactions of
// pending writes to one row may commit together (writeGroups).
type pendingWrite struct {
	q, guarded, key string
	args            []any
	fail            func(error) error
}

// deferWrite queues q, a write whose result fn needs no more than its
// success, when it would be the transaction's first statement: it is then
// sent with BEGIN and the next statement, or, when none comes, the token
// confirmation and the pending writes are the whole transaction, sent as one
// pipeline (commitAlone): one round trip, and the rows it locks are held
// for no round trip at all. A failure fails the transaction (the statement
// must raise an error where it would otherwise do nothing). It reports false,
// having queued nothing, once the transaction has begun.
func (p *pgTx) deferWrite(w pendingWrite) bool {
	if p.begun {
		return false
	}
	p.pending = append(p.pending, w)
	return true
}

// guarded reports whether the first pending write confirms the token
// itself (pendingWrite.guarded).
func (p *pgTx) guarded() bool {
	return p.confirm != nil && len(p.pending) > 0 && p.pending[0].guarded != ""
}

// queueStart queues BEGIN (when begin), the token confirmation and the
// pending writes.
func (p *pgTx) queueStart(b *pgx.Batch, begin bool) {
	if begin {
		b.Queue(p.begin)
	}
	pending := p.pending
	switch {
	case p.guarded():
		w := pending[0]
		b.Queue(w.guarded, append([]any{*p.confirm}, w.args...)...)
		pending = pending[1:]
	case p.confirm != nil:
		b.Queue(confirmTokenPG, *p.confirm)
	}
	for _, w := range pending {
		b.Queue(w.q, w.args...)
	}
}

// tokenGoneErr reports whether err is confirmTokenPG's, or a guarded
// write's, failure for a token not found.
func tokenGoneErr(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22012" // division_by_zero
}

// readStart reads the results of what queueStart queued. After an error the
// server skipped the rest of the batch, so the transaction failed.
func (p *pgTx) readStart(br pgx.BatchResults, begin bool) error {
	if begin {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	guarded := p.guarded()
	if p.confirm != nil && !guarded {
		var one int
		if err := br.QueryRow().Scan(&one); err != nil {
			if tokenGoneErr(err) {
				p.tokenGone = true
				return server.ErrTokenRemoved
			}
			return fmt.Errorf("sqlstore: confirm token: %w", err)
		}
	}
	pending := p.pending
	p.pending = nil
	for i, w := range pending {
		if _, err := br.Exec(); err != nil {
			if i == 0 && guarded && tokenGoneErr(err) {
				p.tokenGone = true
				return server.ErrTokenRemoved
			}
			return w.fail(err)
		}
	}
	return nil
}

// first sends BEGIN, what comes with it (queueStart) and q together; use
// reads q's result and must be done before the connection runs anything else.
func (p *pgTx) first(ctx context.Context, q string, args []any, use func(br pgx.BatchResults) error) error {
	var b pgx.Batch
	p.queueStart(&b, true)
	b.Queue(q, args...)
	br := p.conn.SendBatch(ctx, &b)
	p.begun = true
	if err := p.readStart(br, true); err != nil {
		_ = br.Close()
		return err
	}
	err := use(br)
	return errors.Join(err, br.Close())
}

func (p *pgTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if p.begun {
		tag, err := p.conn.Exec(ctx, q, args...)
		return tagResult(tag), err
	}
	var tag pgconn.CommandTag
	err := p.first(ctx, q, args, func(br pgx.BatchResults) (err error) {
		tag, err = br.Exec()
		return err
	})
	return tagResult(tag), err
}

func (p *pgTx) QueryContext(ctx context.Context, q string, args ...any) (rows, error) {
	if p.begun {
		r, err := p.conn.Query(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		return pgRows{r}, nil
	}
	// The first statement's rows are read whole, for the batch must be
	// closed before the connection is used again.
	var buf bufferedRows
	err := p.first(ctx, q, args, func(br pgx.BatchResults) error {
		r, err := br.Query()
		if err != nil {
			return err
		}
		defer r.Close()
		for r.Next() {
			vals, err := r.Values()
			if err != nil {
				return err
			}
			buf.rows = append(buf.rows, vals)
		}
		return r.Err()
	})
	if err != nil {
		return nil, err
	}
	buf.i = -1
	return &buf, nil
}

func (p *pgTx) QueryRowContext(ctx context.Context, q string, args ...any) scanner {
	if p.begun {
		return p.conn.QueryRow(ctx, q, args...) // its ErrNoRows is sql.ErrNoRows too
	}
	return firstRow{p, ctx, q, args}
}

// firstRow is the row of the transaction's first statement, run when scanned.
type firstRow struct {
	p    *pgTx
	ctx  context.Context
	q    string
	args []any
}

func (r firstRow) Scan(dest ...any) error {
	rs, err := r.p.QueryContext(r.ctx, r.q, r.args...)
	if err != nil {
		return err
	}
	if !rs.Next() {
		return sql.ErrNoRows
	}
	return rs.Scan(dest...)
}

// confirmTokenPG is confirmTokenQuery failing, rather than returning no row,
// when the token is gone: the statements sent with it, COMMIT included, are
// then skipped.
const confirmTokenPG = "SELECT 1 / count(*)::int FROM tokens WHERE token = $1"

// end commits or, when fnErr is not nil, rolls back a transaction begun.
func (p *pgTx) end(ctx context.Context, fnErr error) error {
	if !p.begun && (fnErr != nil || len(p.pending) == 0) {
		return fnErr
	}
	if fnErr != nil {
		p.rollback(ctx)
		return fnErr
	}
	if !p.begun {
		if p.groups != nil {
			return p.groups.commit(ctx, p)
		}
		return p.commitAlone(ctx)
	}
	tag, err := p.conn.Exec(ctx, "commit")
	if err != nil {
		return &errCommit{err}
	}
	if tag.String() != "COMMIT" {
		// A statement failed and fn went on regardless: PostgreSQL
		// rolled the transaction back.
		return &errCommit{fmt.Errorf("the transaction was rolled back (%s)", tag)}
	}
	return nil
}

// rollback ends a transaction that failed.
func (p *pgTx) rollback(ctx context.Context) {
	if _, err := p.conn.Exec(context.WithoutCancel(ctx), "rollback"); err != nil {
		// The connection is in an unknown state: close it, and the
		// pool discards it.
		_ = p.conn.Close(context.WithoutCancel(ctx))
	}
}

// commitAlone runs a transaction of pending writes alone: the token
// confirmation and the writes in one round trip, as the implicit transaction
// of one pipeline, which the server commits at its end (the Sync message)
// unless a statement failed, and then rolls back whole. Its isolation is
// the session's default, READ COMMITTED (see Open), as BEGIN would set.
func (p *pgTx) commitAlone(ctx context.Context) error {
	var b pgx.Batch
	p.queueStart(&b, false)
	br := p.conn.SendBatch(ctx, &b)
	p.begun = true
	err := p.readStart(br, false)
	if err != nil && !p.tokenGone && !isPgError(err) {
		// The connection failed with the pipeline sent: whether it
		// committed is unknown.
		err = &errCommit{err}
	}
	// Close reads the pipeline's end: an error there is the commit's.
	if cerr := br.Close(); err == nil && cerr != nil {
		err = &errCommit{cerr}
	}
	return err
}

// isPgError reports whether err is an error the server answered.
func isPgError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

// runPG runs fn in one transaction opened by begin on a pooled connection.
func (s *Store) runPG(ctx context.Context, begin string, readOnly bool, fn func(t *tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	// Release discards a connection closed or left in a transaction.
	defer conn.Release()
	return func() error {
		p := &pgTx{conn: conn.Conn(), begin: begin, groups: &s.writes}
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
		if p.tokenGone {
			fnErr = server.ErrTokenRemoved
		}
		return p.end(ctx, fnErr)
	}()
}

// tagResult is a command tag as a sql.Result.
type tagResult pgconn.CommandTag

func (r tagResult) LastInsertId() (int64, error) {
	return 0, errors.New("sqlstore: no insert id on PostgreSQL")
}
func (r tagResult) RowsAffected() (int64, error) { return pgconn.CommandTag(r).RowsAffected(), nil }

// rows is what a query returns: *sql.Rows or its pgx equivalents.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

type pgRows struct{ pgx.Rows }

// poolRunner runs the one statement of a read-only tx without a transaction,
// on a connection of the pool for that statement alone; a one-row read joins
// an identical one about to be sent (reads).
type poolRunner struct {
	pool  *pgxpool.Pool
	reads *coalescer
}

func (r poolRunner) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	tag, err := r.pool.Exec(ctx, q, args...)
	return tagResult(tag), err
}

func (r poolRunner) QueryContext(ctx context.Context, q string, args ...any) (rows, error) {
	rs, err := r.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgRows{rs}, nil
}

func (r poolRunner) QueryRowContext(ctx context.Context, q string, args ...any) scanner {
	return r.reads.queryRow(ctx, r.pool, q, args)
}

func (r pgRows) Close() error { r.Rows.Close(); return r.Rows.Err() }

// bufferedRows are rows read ahead, scanned as database/sql would.
type bufferedRows struct {
	rows [][]any
	i    int
}

func (b *bufferedRows) Next() bool { b.i++; return b.i < len(b.rows) }
func (b *bufferedRows) Err() error { return nil }
func (b *bufferedRows) Close() error {
	b.i = len(b.rows)
	return nil
}

func (b *bufferedRows) Scan(dest ...any) error {
	row := b.rows[b.i]
	if len(dest) != len(row) {
		return fmt.Errorf("sqlstore: %d columns scanned into %d values", len(row), len(dest))
	}
	for i, v := range row {
		if err := convertAssign(dest[i], v); err != nil {
			return fmt.Errorf("sqlstore: column %d: %w", i, err)
		}
	}
	return nil
}

// convertAssign stores v, a value pgx decoded, in dest: the types the store
// scans into.
func convertAssign(dest, v any) error {
	switch d := dest.(type) {
	case *any:
		*d = v
		return nil
	case sql.Scanner:
		return d.Scan(v)
	case *string:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%T is not a string", v)
		}
		*d = s
		return nil
	case *int64:
		switch n := v.(type) {
		case int64:
			*d = n
		case int32:
			*d = int64(n)
		default:
			return fmt.Errorf("%T is not an integer", v)
		}
		return nil
	case *int:
		switch n := v.(type) {
		case int64:
			*d = int(n)
		case int32:
			*d = int(n)
		default:
			return fmt.Errorf("%T is not an integer", v)
		}
		return nil
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%T is not a bool", v)
		}
		*d = b
		return nil
	}
	return fmt.Errorf("cannot scan into %T", dest)
}
