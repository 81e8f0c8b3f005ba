package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

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
}

// first sends BEGIN and q together; use reads q's result and must be done
// before the connection runs anything else.
func (p *pgTx) first(ctx context.Context, q string, args []any, use func(br pgx.BatchResults) error) error {
	var b pgx.Batch
	b.Queue(p.begin)
	if p.confirm != nil {
		b.Queue(confirmTokenPG, *p.confirm)
	}
	b.Queue(q, args...)
	br := p.conn.SendBatch(ctx, &b)
	p.begun = true
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return err
	}
	if p.confirm != nil {
		var one int
		if err := br.QueryRow().Scan(&one); err != nil {
			_ = br.Close()
			if errors.Is(err, pgx.ErrNoRows) {
				p.tokenGone = true
				return server.ErrTokenRemoved
			}
			return fmt.Errorf("sqlstore: confirm token: %w", err)
		}
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

var confirmTokenPG = postgres.rebind(confirmTokenQuery)

// end commits or, when fnErr is not nil, rolls back a transaction begun.
func (p *pgTx) end(ctx context.Context, fnErr error) error {
	if !p.begun {
		return fnErr
	}
	if fnErr != nil {
		if _, err := p.conn.Exec(context.WithoutCancel(ctx), "rollback"); err != nil {
			// The connection is in an unknown state: close it, and the
			// pool discards it.
			_ = p.conn.Close(context.WithoutCancel(ctx))
		}
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

// runPG runs fn in one transaction opened by begin on a pooled connection.
func (s *Store) runPG(ctx context.Context, begin string, readOnly bool, fn func(t *tx) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		p := &pgTx{conn: dc.(*stdlib.Conn).Conn(), begin: begin}
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
	})
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
