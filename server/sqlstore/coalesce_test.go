package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// probeRead reads probe's value and draws from a sequence, so that the reads
// that shared a query show the same number; it waits for advisory lock 7,
// which the test holds to keep a query in flight.
const probeRead = `SELECT v, nextval('probe_n') FROM probe,
  LATERAL (SELECT pg_advisory_xact_lock_shared(7)) l WHERE id = $1`

func probePool(t *testing.T) (*pgxpool.Pool, *pgxpool.Conn) {
	t.Helper()
	ctx := t.Context()
	pool, err := pgxpool.New(ctx, postgresSchema(t, postgresURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE probe (id int PRIMARY KEY, v text);
		INSERT INTO probe VALUES (1, 'old'), (2, 'two'); CREATE SEQUENCE probe_n`); err != nil {
		t.Fatal(err)
	}
	holder, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(holder.Release)
	return pool, holder
}

type probeAnswer struct {
	v   string
	n   int64
	err error
}

func readProbe(ctx context.Context, c *coalescer, pool *pgxpool.Pool) probeAnswer {
	return readProbeRow(ctx, c, pool, 1)
}

func readProbeRow(ctx context.Context, c *coalescer, pool *pgxpool.Pool, id int) probeAnswer {
	var a probeAnswer
	a.err = c.queryRow(ctx, pool, probeRead, []any{id}).Scan(&a.v, &a.n)
	return a
}

// until polls cond, which a goroutine of the test makes true within
// milliseconds, for up to 20 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// blocked reports whether want queries wait for advisory lock 7.
func blocked(t *testing.T, pool *pgxpool.Pool, want int) func() bool {
	return func() bool {
		var n int
		err := pool.QueryRow(t.Context(), "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7 AND NOT granted").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n == want
	}
}

// waitingNext is how many reads wait for the query of probeRead to be sent next.
func (c *coalescer) waitingNext() int {
	key, _ := coalesceKey(probeRead, []any{1})
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.slots[key]; s != nil && s.next != nil {
		return s.next.waiting
	}
	return 0
}

// heldRead starts a read of row 1 whose query holder keeps in flight (advisory
// lock 7) until released, and returns once the query is sent.
func heldRead(t *testing.T, c *coalescer, pool *pgxpool.Pool, holder *pgxpool.Conn) <-chan probeAnswer {
	t.Helper()
	if _, err := holder.Exec(t.Context(), "SELECT pg_advisory_lock(7)"); err != nil {
		t.Fatal(err)
	}
	first := make(chan probeAnswer)
	go func() { first <- readProbe(t.Context(), c, pool) }()
	until(t, "the first read's query to be sent", blocked(t, pool, 1))
	return first
}

// Reads arriving while an identical query is in flight share the next one,
// which is sent once the first returns: they see a write that committed
// after that first query was sent, and the first read does not.
func TestCoalescedReadsAreFresh(t *testing.T) {
	pool, holder := probePool(t)
	ctx := t.Context()
	var c coalescer
	first := heldRead(t, &c, pool, holder)
	if _, err := pool.Exec(ctx, "UPDATE probe SET v = 'new'"); err != nil {
		t.Fatal(err)
	}
	const joiners = 4
	later := make(chan probeAnswer, joiners)
	for range joiners {
		go func() { later <- readProbe(ctx, &c, pool) }()
	}
	until(t, "the later reads to wait for the next query", func() bool { return c.waitingNext() == joiners })
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock(7)"); err != nil {
		t.Fatal(err)
	}
	if a := <-first; a.err != nil || a.v != "old" || a.n != 1 {
		t.Errorf("first read = %+v, want old, query 1", a)
	}
	for range joiners {
		if a := <-later; a.err != nil || a.v != "new" || a.n != 2 {
			t.Errorf("later read = %+v, want new, all from query 2", a)
		}
	}
	c.mu.Lock()
	left := len(c.slots)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d slots left once no read waits", left)
	}
}

// A read that gives up while waiting for the next query gets its context's
// error; when no other read waits, that query is never sent. Reads with
// other arguments are not merged.
func TestCoalescedReadGivesUp(t *testing.T) {
	pool, holder := probePool(t)
	ctx := t.Context()
	var c coalescer
	first := heldRead(t, &c, pool, holder)

	quit, cancel := context.WithCancel(ctx)
	gaveUp := make(chan probeAnswer)
	go func() { gaveUp <- readProbe(quit, &c, pool) }()
	until(t, "the second read to wait", func() bool { return c.waitingNext() == 1 })
	cancel()
	if a := <-gaveUp; !errors.Is(a.err, context.Canceled) {
		t.Errorf("read whose context ended = %+v, want context.Canceled", a)
	}
	if n := c.waitingNext(); n != 0 {
		t.Errorf("%d reads wait for the next query, want none", n)
	}

	// Another row is another query, in flight beside the first.
	other := make(chan probeAnswer)
	go func() { other <- readProbeRow(ctx, &c, pool, 2) }()
	until(t, "the other row's query to be sent", blocked(t, pool, 2))
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock(7)"); err != nil {
		t.Fatal(err)
	}
	a, b := <-first, <-other
	if a.err != nil || b.err != nil || a.v != "old" || b.v != "two" || a.n+b.n != 3 {
		t.Errorf("reads of rows 1 and 2 = %+v, %+v, want old and two, queries 1 and 2", a, b)
	}
	if a := readProbe(ctx, &c, pool); a.err != nil || a.n != 3 {
		t.Errorf("read after = %+v, want query 3: the abandoned one was never sent", a)
	}
	var none string
	if err := c.queryRow(ctx, pool, probeRead, []any{3}).Scan(&none, new(int64)); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("read of a missing row: %v, want sql.ErrNoRows", err)
	}
}
