package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// coalescer merges identical one-statement reads run outside a transaction
// on PostgreSQL (poolRunner): a read whose statement and arguments match one
// waiting to be sent joins it, and all get its row. It is query
// consolidation as Vitess does it, with one difference that keeps every read
// as fresh as if it ran alone: a read never joins a query already sent,
// whose snapshot could predate the read's arrival, only the one to be sent
// next, once the one in flight returns. Each read thus sees a state from
// between its arrival and its answer, and at most one copy of a statement
// is in flight per process.
//
// Under concurrent reads of one organization's settings this turns many
// round trips, each a wake-up of portald and of a PostgreSQL backend, into
// one; a lone read runs as it would without it, in its own goroutine.
type coalescer struct {
	mu    sync.Mutex
	slots map[string]*slot
}

// slot is one statement with its arguments: whether a query of it is in
// flight, and the flight that waits for it to return.
type slot struct {
	flying bool
	next   *flight
}

// flight is one query run for all the reads that joined it.
type flight struct {
	q    string
	args []any
	done chan struct{}
	row  []any // nil: no row
	err  error
	// waiting counts the reads waiting for the answer (guarded by the
	// coalescer's mu); cancel, once the query is sent by a goroutine of its
	// own, stops it when the last gives up.
	waiting int
	cancel  context.CancelFunc
}

// coalesceKey is q with its arguments, or false when an argument is of a
// type the key cannot spell exactly.
func coalesceKey(q string, args []any) (string, bool) {
	var b strings.Builder
	b.Grow(len(q) + 16*len(args))
	b.WriteString(q)
	for _, a := range args {
		b.WriteByte(0)
		switch v := a.(type) {
		case string:
			b.WriteByte('s')
			b.WriteString(strconv.Itoa(len(v)))
			b.WriteByte(':')
			b.WriteString(v)
		case int64:
			b.WriteByte('i')
			b.WriteString(strconv.FormatInt(v, 10))
		case int:
			b.WriteByte('i')
			b.WriteString(strconv.Itoa(v))
		case bool:
			b.WriteByte('b')
			b.WriteString(strconv.FormatBool(v))
		default:
			return "", false
		}
	}
	return b.String(), true
}

// queryRow runs q on pool, or joins the query of it waiting to be sent.
func (c *coalescer) queryRow(ctx context.Context, pool *pgxpool.Pool, q string, args []any) scanner {
	key, ok := coalesceKey(q, args)
	if !ok {
		return pool.QueryRow(ctx, q, args...)
	}
	c.mu.Lock()
	if c.slots == nil {
		c.slots = map[string]*slot{}
	}
	s := c.slots[key]
	if s == nil {
		s = &slot{}
		c.slots[key] = s
	}
	f := s.next
	switch {
	case f != nil:
		f.waiting++
	case s.flying:
		f = &flight{q: q, args: args, done: make(chan struct{}), waiting: 1}
		s.next = f
	default:
		// Nothing in flight: the read runs its query itself, on its own
		// context, for no other read can join a query sent.
		s.flying = true
		c.mu.Unlock()
		f = &flight{q: q, args: args, done: make(chan struct{})}
		f.run(ctx, pool)
		c.land(pool, key, s)
		return f.result()
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.result()
	case <-ctx.Done():
		c.leave(s, f)
		return errRow{ctx.Err()}
	}
}

// land ends a slot's flight: the next query, if reads wait for one, is sent
// by a goroutine of its own, else the slot is dropped.
func (c *coalescer) land(pool *pgxpool.Pool, key string, s *slot) {
	c.mu.Lock()
	next := s.next
	s.next = nil
	if next == nil {
		s.flying = false
		delete(c.slots, key)
		c.mu.Unlock()
		return
	}
	// Its readers are now all it will have; when they all give up,
	// cancel stops the query.
	var ctx context.Context
	ctx, next.cancel = context.WithCancel(context.Background())
	c.mu.Unlock()
	go func() {
		next.run(ctx, pool)
		next.cancel()
		c.land(pool, key, s)
	}()
}

// leave withdraws a read from f, which it no longer waits for: a query not
// yet sent that no read waits for is not sent, one sent is cancelled.
func (c *coalescer) leave(s *slot, f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.waiting--; f.waiting > 0 {
		return
	}
	if s.next == f {
		s.next = nil
	} else if f.cancel != nil {
		f.cancel()
	}
}

func (f *flight) run(ctx context.Context, pool *pgxpool.Pool) {
	defer close(f.done)
	rs, err := pool.Query(ctx, f.q, f.args...)
	if err != nil {
		f.err = err
		return
	}
	defer rs.Close()
	if rs.Next() {
		// TEXT arrives as a string, BIGINT as an int64: values the reads
		// can share, for convertAssign copies them out.
		f.row, f.err = rs.Values()
	}
	rs.Close()
	if f.err == nil {
		f.err = rs.Err()
	}
}

func (f *flight) result() scanner {
	if f.err != nil {
		return errRow{f.err}
	}
	if f.row == nil {
		return errRow{sql.ErrNoRows}
	}
	return sharedRow(f.row)
}

// sharedRow is a row the reads of one flight scan, each into its own values.
type sharedRow []any

func (r sharedRow) Scan(dest ...any) error {
	b := bufferedRows{rows: [][]any{r}}
	return b.Scan(dest...)
}
