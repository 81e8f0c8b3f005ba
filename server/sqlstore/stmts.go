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
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: make(map[string]*sql.Stmt)}
}

// get returns the prepared statement of q, or nil when it cannot be had
// (the cache is full, or preparing failed: the caller then runs q as it is,
// which reports any error in q itself).
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st
	}
	if len(c.m) >= stmtCacheMax {
		return nil
	}
	// Prepared on a connection of its own from the pool, not the caller's
	// transaction; hence no cache on ":memory:", whose pool has one connection.
	st, err := c.db.PrepareContext(context.WithoutCancel(ctx), q)
	if err != nil {
		return nil
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
}
