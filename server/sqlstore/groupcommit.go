package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/orgportal/portal-api/server"
)

// maxGroup bounds a group: enough to absorb a burst of writers, few enough
// that the first job of a group does not wait long for the others' fns.
const maxGroup = 64

// errClosed answers an Update made, or still waiting, once Close is called.
var errClosed = errors.New("sqlstore: store closed")

// savepoint names the savepoint of the running job; jobs run one at a time
// and release theirs before the next begins, so one name serves them all.
const savepoint = "job"

// Job states: the caller may abandon a queued job, the committer takes it;
// whichever comes first decides, so that a job is answered exactly once or,
// when abandoned, never run.
const (
	queued int32 = iota
	taken
	abandoned
)

type job struct {
	ctx context.Context
	fn  func(server.Tx) error
	// verify, when not nil, checks what a COMMIT cannot tell (the SQLite
	// file still being the store's); it is run once for a group, after its
	// COMMIT, for all its jobs that have one.
	verify verifier
	state  atomic.Int32
	// res is written by the committer before done is closed.
	res  result
	done chan struct{}
}

// result is the outcome of one job's fn.
type result struct {
	err      error
	fnFailed bool // err is what fn returned
	panicked bool
	panicVal any // raised again in the caller
	goexit   bool
	verified error // what verify returned, after the group committed
}

// ok reports whether fn returned nil.
func (r *result) ok() bool { return r.err == nil && !r.panicked && !r.goexit }

// raised is the value fn's panic p is raised with again in its caller: p
// with the stack of the committer's goroutine at the panic, which would
// otherwise be lost (golang.org/x/sync/singleflight does the same).
func raised(p any) any {
	return &server.PanicError{Value: p, Stack: debug.Stack()}
}

// take claims j for the committer; false when its caller abandoned it.
func (j *job) take() bool { return j.state.CompareAndSwap(queued, taken) }

func (j *job) answer(r result) {
	j.res = r
	close(j.done)
}

// jobQueue holds the jobs waiting for the committer, in order.
type jobQueue struct {
	mu     sync.Mutex
	jobs   []*job
	closed bool
	wake   chan struct{} // holds a token when a job was queued or close called
	knobs  *knobs        // nil outside tests
}

func newJobQueue() *jobQueue { return &jobQueue{wake: make(chan struct{}, 1)} }

// push queues j at the back; errClosed once the queue is closed.
func (q *jobQueue) push(j *job) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errClosed
	}
	q.jobs = append(q.jobs, j)
	if k := q.knobs; k != nil && k.queued != nil {
		k.queued()
	}
	q.mu.Unlock()
	q.signal()
	return nil
}

func (q *jobQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop returns the next job to run, answering on the way those whose ctx is
// done; nil when none waits or the queue is closed.
func (q *jobQueue) pop() (j *job, closed bool) {
	for {
		q.mu.Lock()
		if q.closed || len(q.jobs) == 0 {
			closed = q.closed
			q.mu.Unlock()
			return nil, closed
		}
		j = q.jobs[0]
		q.jobs[0] = nil
		q.jobs = q.jobs[1:]
		q.mu.Unlock()
		if !j.take() {
			continue
		}
		if err := j.ctx.Err(); err != nil {
			j.answer(result{err: err})
			continue
		}
		return j, false
	}
}

// next waits for a job to run; nil once the queue is closed.
func (q *jobQueue) next() *job {
	for {
		if j, closed := q.pop(); j != nil || closed {
			return j
		}
		<-q.wake
	}
}

// close refuses further jobs and wakes the committer.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.closed = true
	if k := q.knobs; k != nil && k.closed != nil {
		k.closed()
	}
	q.mu.Unlock()
	q.signal()
}

// drain answers the jobs left once the queue is closed.
func (q *jobQueue) drain() {
	q.mu.Lock()
	jobs := q.jobs
	q.jobs = nil
	q.mu.Unlock()
	for _, j := range jobs {
		if j.take() {
			j.answer(result{err: errClosed})
		}
	}
}

// knobs are what tests change in a committer or wait on; production runs
// without (committer.knobs nil). Set them with setKnobs before the first
// Update. The functions run on the committer's goroutine or, for queued and
// closed, under the queue's lock: they must not block.
type knobs struct {
	max       int    // bounds a group instead of maxGroup when > 0
	queued    func() // a caller's job joined the queue
	closed    func() // close was called
	committed func() // a group's COMMIT succeeded
	lost      func() // a group's transaction ended under one of its jobs
}

// committer runs the read-write transactions of a SQLite store, the Updates
// waiting at a time together: with synchronous(FULL) every COMMIT waits for
// an fsync, and committed one by one, concurrent Updates would queue behind
// each other's. One goroutine takes the first waiting job and, up to
// maxGroup, those waiting behind it (including those that arrive while the
// group runs, and those that arrive while it yields once before the COMMIT),
// runs them in one BEGIN IMMEDIATE transaction, each fn in a savepoint of
// its own, and ends the group with one COMMIT: one fsync.
//
// Guarantees, as with a transaction per Update:
//   - Serializable: jobs run one after another, each seeing the writes of
//     those before it; the serial order is the order they ran in. A View
//     sees the state after some group, never part of one.
//   - A job whose fn fails or panics is rolled back to its savepoint; the
//     others of its group are unaffected. Every fn runs once.
//   - A job's context ending never interrupts a statement (SQLite would
//     roll the whole transaction back, the others' writes with it): its
//     fn's next statement fails with the context's error instead (see
//     tx.stmtContext), and its savepoint is rolled back.
//   - Every job is answered once its group has ended, so none is
//     acknowledged before its COMMIT. If the COMMIT fails, every job of the
//     group gets its error, even one whose fn failed: that failure may rest
//     on writes that were never committed.
//   - SQLite still rolls the whole transaction back on some errors (a full
//     disk, an I/O error). The savepoint's RELEASE or ROLLBACK TO then
//     fails: the group is lost, and its jobs get that error, without
//     running again (see lose).
//   - A panic in fn is raised again in the caller's goroutine as a
//     *server.PanicError holding its value and fn's stack; runtime.Goexit in fn
//     (t.FailNow) ends the caller's goroutine, and another goroutine carries
//     on with the group.
//   - A job whose ctx is done before its turn is answered ctx.Err() without
//     running; once it runs, its caller waits for the real outcome.
//
// An Update made by fn itself would wait for ever for its own group: Update
// is not reentrant, and refuses one made with a request's context while
// another made with it is under way (server.EnterUpdate).
//
// On ":memory:" the pool's one connection is held for a group at a time, so
// Views run between groups.
type committer struct {
	db    *sql.DB
	stmts *stmtCache
	q     *jobQueue
	done  chan struct{} // closed when the committer has stopped

	// g is the open group, touched only by the goroutine running loop.
	g group

	knobs *knobs // nil outside tests
}

type group struct {
	conn *sql.Conn
	tx   *sql.Tx
	jobs []*job // jobs whose fn ran, their results to give at the end
	// t is the view of tx every job gets; its bound statements serve all.
	t *tx
}

func newCommitter(db *sql.DB, stmts *stmtCache) *committer {
	c := &committer{db: db, stmts: stmts, q: newJobQueue(), done: make(chan struct{})}
	go c.loop()
	return c
}

// setKnobs installs test knobs; call it before the first Update. The
// queue's lock orders it before the committer's next look at them.
func (c *committer) setKnobs(k *knobs) {
	c.q.mu.Lock()
	c.knobs, c.q.knobs = k, k
	c.q.mu.Unlock()
}

// max is how many jobs a group holds at most.
func (c *committer) max() int {
	if c.knobs != nil && c.knobs.max > 0 {
		return c.knobs.max
	}
	return maxGroup
}

// verifier is what a job's writes are checked with once committed.
type verifier interface{ gone() error }

// close answers the jobs still queued with errClosed after the group under
// way ends, and stops the committer.
func (c *committer) close() {
	c.q.close()
	<-c.done
}

// loop runs groups until the committer is closed. It is also how a group
// carries on in a new goroutine after a job's fn called runtime.Goexit.
func (c *committer) loop() {
	for {
		if c.g.tx == nil {
			first := c.q.next()
			if first == nil {
				c.q.drain()
				close(c.done)
				return
			}
			if err := c.begin(); err != nil {
				c.failWaiting(first, err)
				continue
			}
			c.run(first)
		}
		yielded := false
		for c.g.tx != nil && len(c.g.jobs) < c.max() {
			j, _ := c.q.pop()
			if j == nil && !yielded {
				// Before committing, let the goroutines that can run do
				// so once: under load, writers a few microseconds from
				// their Update join this group instead of each starting
				// one (groups of 5 instead of 1.3 under 16 writers on 2
				// cores). With nothing else to run, it returns at once.
				yielded = true
				runtime.Gosched()
				continue
			}
			if j == nil {
				break
			}
			c.run(j)
		}
		if c.g.tx != nil {
			c.commit()
		}
	}
}

// begin opens a group: BEGIN IMMEDIATE (the pool's _txlock) on a connection
// held until the group ends. Its context is not any job's, so that no job's
// ctx ending rolls the group back.
func (c *committer) begin() error {
	ctx := context.Background()
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	t, err := conn.BeginTx(ctx, nil)
	if err != nil {
		release(conn, true)
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	c.g = group{conn: conn, tx: t, t: &tx{tx: t, d: sqlite, stmts: c.stmts, bound: map[*sql.Stmt]*sql.Stmt{}}}
	return nil
}

// failWaiting answers first, and the jobs waiting with it up to a group, with
// err: the group they would have made could not begin.
func (c *committer) failWaiting(first *job, err error) {
	first.answer(result{err: err})
	for range c.max() - 1 {
		j, _ := c.q.pop()
		if j == nil {
			return
		}
		j.answer(result{err: err})
	}
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

// exec runs one of the committer's own statements (savepoints) through the
// group's tx, so that they are prepared once like the jobs' statements: two
// of them run for every Update.
func (c *committer) exec(q string) error {
	_, err := c.g.t.exec(context.Background(), q)
	return err
}

// run runs one job's fn in a savepoint of the open group.
func (c *committer) run(j *job) {
	if err := c.exec("SAVEPOINT " + savepoint); err != nil {
		c.g.jobs = append(c.g.jobs, j)
		c.lose(fmt.Errorf("sqlstore: savepoint: %w", err))
		return
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		if p := recover(); p != nil {
			c.settle(j, result{panicked: true, panicVal: raised(p)})
			return
		}
		// runtime.Goexit: this goroutine ends whatever is done here, so
		// another one carries on with the group.
		c.settle(j, result{goexit: true})
		go c.loop()
	}()
	err := j.fn(c.g.t)
	returned = true
	c.settle(j, result{err: err, fnFailed: err != nil})
}

// settle keeps the job's writes when fn succeeded and undoes them otherwise,
// then holds its result until the group ends. A savepoint statement that
// fails means that SQLite ended the transaction: the group is lost.
func (c *committer) settle(j *job, r result) {
	var err error
	if r.ok() {
		err = c.exec("RELEASE " + savepoint)
	} else if err = c.exec("ROLLBACK TO " + savepoint); err == nil {
		err = c.exec("RELEASE " + savepoint)
	}
	j.res = r
	c.g.jobs = append(c.g.jobs, j)
	if err != nil {
		c.lose(fmt.Errorf("sqlstore: transaction lost: %w", err))
	}
}

// lose ends the open group, whose transaction SQLite ended under one of its
// jobs: nothing of it is committed, and every job of it is answered err (but
// those that panicked or exited, whose callers get that). None runs again:
// what each fn saw is gone, and running it twice would be the caller's
// call, not the store's.
func (c *committer) lose(err error) {
	g := c.g
	c.g = group{}
	// It fails when SQLite has already rolled back, as it has here.
	_ = g.tx.Rollback()
	release(g.conn, true)
	if c.knobs != nil && c.knobs.lost != nil {
		c.knobs.lost()
	}
	for _, j := range g.jobs {
		if !j.res.panicked && !j.res.goexit {
			j.res = result{err: err}
		}
		j.answer(j.res)
	}
}

// commit ends the open group with one COMMIT, or a ROLLBACK when no fn
// succeeded, and answers its jobs.
func (c *committer) commit() {
	g := c.g
	c.g = group{}
	kept := false
	for _, j := range g.jobs {
		kept = kept || j.res.ok()
	}
	var err, rerr error
	if kept {
		if err = g.tx.Commit(); err != nil {
			err = fmt.Errorf("sqlstore: commit: %w", err)
		} else if c.knobs != nil && c.knobs.committed != nil {
			c.knobs.committed()
		}
	} else {
		// A failed ROLLBACK affects no job, only the connection.
		rerr = g.tx.Rollback()
	}
	release(g.conn, err != nil || rerr != nil)
	var verified error
	checked := false
	for _, j := range g.jobs {
		if err != nil && !j.res.panicked && !j.res.goexit {
			j.res = result{err: err}
		}
		if kept && err == nil && j.res.ok() && j.verify != nil {
			// One check serves the group: its jobs committed together.
			if !checked {
				verified, checked = j.verify.gone(), true
			}
			j.res.verified = verified
		}
		j.answer(j.res)
	}
}
