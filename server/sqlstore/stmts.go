package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCacheMax bounds the statements kept; the batch methods make one per
// IN-list length, which is why there is a bound at all.
const stmtCacheMax = 256

// stmtCache keeps each query prepared once per database, so that SQLite does
// not parse it again for every request: parsing was a quarter of the CPU of
// a small write. Transactions use the statements through Tx.StmtContext,
// which reuses the statement already prepared on their connection.
type stmtCache struct {
	db *sql.DB
	// later: prepare in the background (see newLaterStmtCache).
	later   bool
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool // being prepared in the background
	closed  bool
	wg      sync.WaitGroup // the background preparations, for tests
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: make(map[string]*sql.Stmt)}
}

// newLaterStmtCache is the cache of a pool of one connection (":memory:"):
// a statement is prepared on the pool's connection, which its caller holds,
// so it cannot be prepared while the caller waits. The first use of a query
// runs it unprepared and prepares it in the background, once the
// connection is free; later uses find it prepared on their connection.
func newLaterStmtCache(db *sql.DB) *stmtCache {
	c := newStmtCache(db)
	c.later, c.pending = true, make(map[string]bool)
	return c
}

// get returns the prepared statement of q, or nil when it cannot be had
// (the cache is full, preparing failed, or the statement is being prepared
// in the background: the caller then runs q as it is, which reports any
// error in q itself).
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st
	}
	if c.closed || len(c.m)+len(c.pending) >= stmtCacheMax {
		return nil
	}
	if c.later {
		if !c.pending[q] {
			c.pending[q] = true
			c.wg.Add(1)
			go c.prepare(q)
		}
		return nil
	}
	// Prepared on a connection of its own from the pool, not the caller's
	// transaction.
	st, err := c.db.PrepareContext(context.WithoutCancel(ctx), q)
	if err != nil {
		return nil
	}
	c.m[q] = st
	return st
}

// prepare prepares q in the background for a later cache. It waits for the
// pool's connection, or fails once the pool is closed.
func (c *stmtCache) prepare(q string) {
	defer c.wg.Done()
	st, err := c.db.PrepareContext(context.Background(), q)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, q)
	switch {
	case err != nil:
		// Not cached: each use runs q unprepared, and the next prepares it
		// again; a query that cannot be prepared reports its error there.
	case c.closed:
		_ = st.Close()
	default:
		c.m[q] = st
	}
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
}
