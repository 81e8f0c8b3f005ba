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

// pgTx is a PostgreSQL transaction run on a pooled pgx connection: its BEGIN
// travels with its first statement (one round trip, not two) and a
// transaction that runs no statement costs none. Statements go through
// pgx's statement cache: prepared once per connection.
type pgTx struct {
	conn  *pgx.Conn
	begin string // the BEGIN statement, sent with the first statement
	begun bool
	// confirm is the token the transaction depends on (tx.ConfirmToken),
	// read between BEGIN and the first statement.
	confirm *string
	// pending are writes whose outcome fn does not wait for (see
	// deferWrite): sent with the next statement, or else alone.
	pending []pendingWrite
	// failed is what the token's confirmation or a pending write found:
	// the transaction fails with it, whatever fn made of the error its
	// own statement got instead.
	failed error
}

// pendingWrite is a statement queued by deferWrite; check, when not nil,
// judges what it did by its command tag (rows affected).
type pendingWrite struct {
	q     string
	args  []any
	check func(pgconn.CommandTag) error
}

// deferWrite queues w, a write whose result fn needs no more than its
// success, as the transaction's first statement (before it has begun): it is
// sent with BEGIN and the next statement, or, when none comes, the pending
// writes are the whole transaction, sent as one pipeline (commitAlone): one
// round trip, and the rows it locks are held for no round trip at all. A
// token to confirm must be confirmed by w itself (confirm taken): a
// confirmation sent beside writes alone would not stop them.
func (p *pgTx) deferWrite(w pendingWrite) { p.pending = append(p.pending, w) }

// queueStart queues BEGIN (when begin), the token confirmation and the
// pending writes.
func (p *pgTx) queueStart(b *pgx.Batch, begin bool) {
	if begin {
		b.Queue(p.begin)
	}
	if p.confirm != nil {
		b.Queue(postgres.rebind(confirmTokenQuery), *p.confirm)
	}
	for _, w := range p.pending {
		b.Queue(w.q, w.args...)
	}
}

// readStart reads the results of what queueStart queued. A token not found,
// a statement that failed or a write found wrong by its check fails the
// transaction (failed); a connection that failed leaves its outcome to the
// caller.
func (p *pgTx) readStart(br pgx.BatchResults, begin bool) error {
	if begin {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	if p.confirm != nil {
		var one int
		err := br.QueryRow().Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			p.failed = server.ErrTokenRemoved
			return p.failed
		}
		if err != nil {
			if isPgError(err) {
				p.failed = fmt.Errorf("sqlstore: confirm token: %w", err)
				return p.failed
			}
			return err
		}
	}
	pending := p.pending
	p.pending = nil
	for _, w := range pending {
		tag, err := br.Exec()
		switch {
		case err != nil && !isPgError(err):
			return err
		case err != nil:
			p.failed = fmt.Errorf("sqlstore: write: %w", err)
		case w.check != nil:
			p.failed = w.check(tag)
		}
		if p.failed != nil {
			return p.failed
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

// end commits or, when fnErr is not nil, rolls back a transaction begun.
func (p *pgTx) end(ctx context.Context, fnErr error) error {
	if p.failed != nil {
		fnErr = p.failed
	}
	if !p.begun {
		if fnErr != nil || len(p.pending) == 0 {
			return fnErr
		}
		return p.commitAlone(ctx)
	}
	if fnErr != nil {
		p.rollback(ctx)
		return fnErr
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

// commitAlone runs a transaction of pending writes alone, in one round
// trip: the implicit transaction of one pipeline, which the server commits
// at its end (the Sync message) unless a statement failed, and then rolls
// back whole. Its isolation is the session's default, READ COMMITTED (see
// Open), as BEGIN would set.
func (p *pgTx) commitAlone(ctx context.Context) error {
	var b pgx.Batch
	p.queueStart(&b, false)
	br := p.conn.SendBatch(ctx, &b)
	p.begun = true
	err := p.readStart(br, false)
	// Close reads the pipeline's end: an error there is the commit's.
	cerr := br.Close()
	switch {
	case p.failed != nil:
		return p.failed // the server answered: nothing was written
	case err != nil:
		// The connection failed with the pipeline sent: whether it
		// committed is unknown.
		return &errCommit{err}
	case cerr != nil:
		return &errCommit{cerr}
	}
	return nil
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
	p := &pgTx{conn: conn.Conn(), begin: begin}
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
	err = p.end(ctx, fnErr)
	var u *unwritten
	if errors.As(err, &u) {
		return u.why(ctx, p.conn)
	}
	return err
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
