package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// maxGroup bounds a group: enough to absorb a burst of writers, few enough
// that the first Update of a group does not wait long for the others' fns.
const maxGroup = 64

// errClosed answers an Update made, or still waiting, once Close is called.
var errClosed = errors.New("sqlstore: store closed")

// savepoint names the savepoint of the running fn; fns run one at a time
// and release theirs before the next begins, so one name serves them all.
const savepoint = "job"

// writer runs the read-write transactions of a SQLite store, the Updates
// waiting at a time together: with synchronous(FULL) every COMMIT waits for
// an fsync, and committed one by one, concurrent Updates would queue behind
// each other's. Updates take turns, in the order they came, each on its
// caller's goroutine; a turn runs its fn in a savepoint of the open group (a
// BEGIN IMMEDIATE transaction, begun by the first) and then, while others
// wait and the group holds fewer than maxGroup, hands the group to the next
// and waits for its end. The turn that finds no one waiting, even after
// yielding once, ends the group with one COMMIT: one fsync.
//
// Guarantees, as with a transaction per Update:
//   - Serializable: fns run one after another, each seeing the writes of
//     those before it; the serial order is the order they ran in. A View
//     sees the state after some group, never part of one.
//   - A fn that fails, panics or calls runtime.Goexit is rolled back to its
//     savepoint, and its panic or Goexit goes on in its caller; the others
//     of its group are unaffected. Every fn runs once.
//   - A context ending never interrupts a statement (SQLite would roll the
//     whole transaction back, the others' writes with it): its fn's next
//     statement fails with the context's error instead (see
//     tx.stmtContext), and its savepoint is rolled back.
//   - Every Update returns once its group has ended, so none is
//     acknowledged before its COMMIT. If the COMMIT fails, every Update of
//     the group gets its error, even one whose fn failed: that failure may
//     rest on writes that were never committed.
//   - SQLite still rolls the whole transaction back on some errors (a full
//     disk, an I/O error). The savepoint's RELEASE or ROLLBACK TO then
//     fails: the group is lost, and its Updates get that error, without
//     running again (see lose).
//   - An Update whose ctx ends while it waits for its turn returns
//     ctx.Err() without running; once it runs, it waits for the real
//     outcome.
//
// An Update made by fn itself would wait for ever for its own turn: Update
// is not reentrant, and refuses one made with a request's context while
// another made with it is under way (server.EnterUpdate).
//
// On ":memory:" the pool's one connection is held for a group at a time, so
// Views run between groups.
type writer struct {
	db    *sql.DB
	stmts *stmtCache
	// verify, when not nil, checks what a COMMIT cannot tell (the SQLite
	// file still being the store's), once per group after its COMMIT.
	verify func() error

	mu      sync.Mutex
	busy    bool            // an Update holds the turn
	waiting []chan struct{} // the Updates waiting for it, in order; closed to hand it over
	closed  bool

	// g is the open group, touched only by the Update holding the turn.
	g *group

	knobs *knobs // nil outside tests
}

// group is one transaction of the Updates that ran in it.
type group struct {
	conn *sql.Conn
	tx   *sql.Tx
	// t is the view of tx every fn gets; its bound statements serve all.
	t    *tx
	n    int  // fns run in it
	kept bool // some fn succeeded
	// done is closed when the group has ended, with err its COMMIT's or its
	// loss's error, and verified what verify found.
	done     chan struct{}
	err      error
	verified error
}

// knobs are what tests change in a writer or wait on; production runs
// without (writer.knobs nil). Set them with setKnobs before the first
// Update. The functions run under the writer's lock or on the goroutine
// holding the turn: they must not block.
type knobs struct {
	max       int    // bounds a group instead of maxGroup when > 0
	queued    func() // an Update came for its turn
	closed    func() // close was called
	committed func() // a group's COMMIT succeeded
	lost      func() // a group's transaction ended under one of its fns
}

func newWriter(db *sql.DB, stmts *stmtCache, verify func() error) *writer {
	return &writer{db: db, stmts: stmts, verify: verify}
}

// setKnobs installs test knobs; call it before the first Update.
func (w *writer) setKnobs(k *knobs) {
	w.mu.Lock()
	w.knobs = k
	w.mu.Unlock()
}

func (w *writer) max() int {
	if w.knobs != nil && w.knobs.max > 0 {
		return w.knobs.max
	}
	return maxGroup
}

// take waits for the caller's turn and opens a savepoint for its fn in the
// open group, beginning one if none is. On an error the turn is passed on.
func (w *writer) take(ctx context.Context) (*group, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errClosed
	}
	if k := w.knobs; k != nil && k.queued != nil {
		k.queued()
	}
	if !w.busy {
		w.busy = true
		w.mu.Unlock()
	} else {
		turn := make(chan struct{})
		w.waiting = append(w.waiting, turn)
		w.mu.Unlock()
		select {
		case <-turn:
		case <-ctx.Done():
			w.mu.Lock()
			if i := slices.Index(w.waiting, turn); i >= 0 {
				w.waiting = slices.Delete(w.waiting, i, i+1)
				w.mu.Unlock()
				return nil, ctx.Err()
			}
			w.mu.Unlock()
			<-turn // handed over meanwhile: pass it on below
		}
	}
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	err := ctx.Err()
	if closed {
		err = errClosed
	}
	if err == nil && w.g == nil {
		err = w.begin()
	}
	if err == nil {
		if _, err = w.g.t.exec(context.Background(), "SAVEPOINT "+savepoint); err != nil {
			w.lose(fmt.Errorf("sqlstore: savepoint: %w", err))
		}
	}
	if err != nil {
		w.finish()
		return nil, err
	}
	w.g.n++
	return w.g, nil
}

// begin opens a group: BEGIN IMMEDIATE (the pool's _txlock) on a connection
// held until the group ends. Its context is not any caller's, so that no
// caller's ctx ending rolls the group back.
func (w *writer) begin() error {
	ctx := context.Background()
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	t, err := conn.BeginTx(ctx, nil)
	if err != nil {
		release(conn, true)
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	w.g = &group{conn: conn, tx: t, done: make(chan struct{}),
		t: &tx{tx: t, d: sqlite, stmts: w.stmts, bound: map[*sql.Stmt]*sql.Stmt{}}}
	return nil
}

// settle keeps the writes of the fn that ran in g when it succeeded and
// undoes them otherwise, ends the turn (finish) and returns g's outcome once
// g has ended. A savepoint statement that fails means that SQLite ended the
// transaction: the group is lost.
func (w *writer) settle(g *group, ok bool) error {
	var err error
	if ok {
		_, err = g.t.exec(context.Background(), "RELEASE "+savepoint)
		g.kept = true
	} else if _, err = g.t.exec(context.Background(), "ROLLBACK TO "+savepoint); err == nil {
		_, err = g.t.exec(context.Background(), "RELEASE "+savepoint)
	}
	if err != nil {
		w.lose(fmt.Errorf("sqlstore: transaction lost: %w", err))
	}
	w.finish()
	<-g.done
	return g.err
}

// finish ends a turn: the open group, if any, goes with the turn to the next
// Update waiting while it holds fewer than maxGroup, or ends with a COMMIT
// and the turn goes on alone.
func (w *writer) finish() {
	if g := w.g; g != nil {
		if g.n < w.max() && w.handOver() {
			return
		}
		w.commit()
	}
	w.end()
}

// handOver gives the turn, with the open group, to the next Update waiting,
// yielding once first when none is: under load, writers a few microseconds
// from their Update join this group instead of each starting one (groups
// of 5 instead of 1.3 under 16 writers on 2 cores). With nothing else to
// run, it returns at once. Never once the writer is closed.
func (w *writer) handOver() bool {
	for yielded := false; ; yielded = true {
		w.mu.Lock()
		if w.closed || len(w.waiting) > 0 || yielded {
			break
		}
		w.mu.Unlock()
		runtime.Gosched()
	}
	defer w.mu.Unlock()
	if w.closed || len(w.waiting) == 0 {
		return false
	}
	w.next()
	return true
}

// next hands the turn to the first Update waiting; under w.mu.
func (w *writer) next() {
	turn := w.waiting[0]
	w.waiting = slices.Delete(w.waiting, 0, 1)
	close(turn)
}

// end ends the turn: the next Update waiting takes it, or it is free.
func (w *writer) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.waiting) > 0 {
		w.next()
		return
	}
	w.busy = false
}

// release gives a group's connection back to the pool. After a failure it
// first ends any transaction the failure left open, so that the connection
// can begin the next one; the ROLLBACK fails harmlessly when none is open.
// (Dropping the connection instead would drop a ":memory:" database.)
func release(conn *sql.Conn, failed bool) {
	if failed {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
	}
	_ = conn.Close()
}

// lose ends the open group, whose transaction SQLite ended under one of its
// fns: nothing of it is committed, and every Update of it gets err. None
// runs again: what each fn saw is gone, and running it twice would be the
// caller's call, not the store's.
func (w *writer) lose(err error) {
	g := w.g
	w.g = nil
	// It fails when SQLite has already rolled back, as it has here.
	_ = g.tx.Rollback()
	release(g.conn, true)
	if w.knobs != nil && w.knobs.lost != nil {
		w.knobs.lost()
	}
	g.err = err
	close(g.done)
}

// commit ends the open group with one COMMIT, or a ROLLBACK when no fn
// succeeded, and verifies what it committed.
func (w *writer) commit() {
	g := w.g
	w.g = nil
	var rerr error
	if g.kept {
		if err := g.tx.Commit(); err != nil {
			g.err = fmt.Errorf("sqlstore: commit: %w", err)
		} else if w.knobs != nil && w.knobs.committed != nil {
			w.knobs.committed()
		}
	} else {
		// A failed ROLLBACK affects no Update, only the connection.
		rerr = g.tx.Rollback()
	}
	release(g.conn, g.err != nil || rerr != nil)
	if g.kept && g.err == nil && w.verify != nil {
		g.verified = w.verify()
	}
	close(g.done)
}

// close refuses further Updates, lets the group under way end, and answers
// the Updates still waiting with errClosed. Closing again does nothing.
func (w *writer) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	if k := w.knobs; k != nil && k.closed != nil {
		k.closed()
	}
	turn := make(chan struct{})
	if w.busy {
		w.waiting = append(w.waiting, turn)
	} else {
		w.busy = true
		close(turn)
	}
	w.mu.Unlock()
	// Every Update before this turn has seen closed and ended its group.
	<-turn
}
