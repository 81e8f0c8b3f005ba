package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/orgportal/portal-api/server"
)

// maxGroup bounds a group: enough to absorb a burst of writers, few enough
// that the first job of a group does not wait long for the others' fns.
const maxGroup = 64

// errClosed answers an Update made, or still waiting, once Close is called.
var errClosed = errors.New("sqlstore: store closed")

// ErrNestedUpdate answers an Update made inside another Update's fn, with
// fn's context, on SQLite: the inner one would wait for the outer one's
// group to end, and that group waits for fn to return.
var ErrNestedUpdate = errors.New("sqlstore: Update called inside another Update's fn")

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
	fn  func(t *tx) error
	// verify, when not nil, checks what a COMMIT cannot tell (the SQLite
	// file still being the store's); it is run once for a group, after its
	// COMMIT, for all its jobs that have one.
	verify verifier
	state  atomic.Int32
	// aborts counts the groups rolled back under the job; committer only.
	aborts int
	// runs counts the times fn was started, and thread is the OS thread
	// its goroutine is pinned to while it runs (see committer.nested).
	runs   atomic.Uint32
	thread atomic.Uint64
	// res is written by the committer before done is closed.
	res  result
	done chan struct{}
}

// result is the outcome of one job's fn.
type result struct {
	err      error
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

// take claims j for the committer; false when its caller abandoned it. A job
// run again after its group was rolled back is already taken.
func (j *job) take() bool {
	return j.state.CompareAndSwap(queued, taken) || j.state.Load() == taken
}

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

// pushFront puts jobs back at the front, in order, ahead of every waiting job.
func (q *jobQueue) pushFront(jobs []*job) {
	q.mu.Lock()
	q.jobs = append(jobs, q.jobs...)
	q.mu.Unlock()
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
	aborted   func() // a group was rolled back as unusable
}

// committer runs the read-write transactions of a SQLite store, the Updates
// waiting at a time together: with synchronous(FULL) every COMMIT waits for
// an fsync, and committed one by one, concurrent Updates would queue behind
// each other's. One goroutine takes the first waiting job and, up to
// maxGroup, those waiting behind it (including those that arrive while the
// group runs, and those that arrive while it yields once before the COMMIT),
// runs them in one BEGIN IMMEDIATE transaction, each fn in a
// savepoint of its own, and ends the group with one COMMIT: one fsync.
//
// Guarantees, as with a transaction per Update:
//   - Serializable: jobs run one after another, each seeing the writes of
//     those before it; the serial order is the order they ran in. A View
//     sees the state after some group, never part of one.
//   - A job whose fn fails or panics is rolled back to its savepoint; the
//     others of its group are unaffected. The first job of a group has no
//     savepoint: its failure rolls back the group, which holds only it.
//   - Every job is answered once its group has ended, so none is
//     acknowledged before its COMMIT. If the COMMIT fails, every job of the
//     group gets its error, even one whose fn failed: that failure may rest
//     on writes that were never committed.
//   - SQLite rolls the whole transaction back on some errors (an
//     interrupted write, as when a job's ctx ends mid-statement; I/O
//     errors). The savepoint statement after the fn then fails: the group is
//     rolled back, that job gets its error, and the jobs that ran before it
//     run again, first in the queue, since what their fn saw is undone
//     (Update's contract allows running fn again). A job is given up after
//     maxAttempts such rollbacks.
//   - A panic in fn is raised again in the caller's goroutine as a
//     *server.PanicError holding its value and fn's stack; runtime.Goexit in fn
//     (t.FailNow) ends the caller's goroutine, and another goroutine carries
//     on with the group.
//   - A job whose ctx is done before its turn is answered ctx.Err() without
//     running; once it runs, its caller waits for the real outcome.
//   - An Update made by fn itself, with fn's context, would wait for ever
//     for its own group: it is answered ErrNestedUpdate (see nested).
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
	// gid is the id of the goroutine running loop, and running the job
	// whose fn it is running (nil between fns): an Update made on that
	// goroutine is nested in that fn. gid serves where the OS thread's id
	// cannot be read (see nested).
	gid     atomic.Uint64
	running atomic.Pointer[job]

	knobs *knobs // nil outside tests

	// removals is the store's count of statements deleting tokens, which
	// the group's tx keeps.
	removals *atomic.Uint64
}

type group struct {
	conn *sql.Conn
	tx   *sql.Tx
	jobs []*job // jobs whose fn ran, their results to give at the end
	// t is the view of tx every job gets; its bound statements serve all.
	t *tx
	// bare: the group's first job ran without a savepoint (see run);
	// probed: the transaction was found still open after it.
	bare, probed bool
}

func newCommitter(db *sql.DB, stmts *stmtCache, removals *atomic.Uint64) *committer {
	c := &committer{db: db, stmts: stmts, q: newJobQueue(), done: make(chan struct{}), removals: removals}
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

// do runs fn in the next group and returns its outcome, raising fn's panic
// again in this goroutine, and, when fn's writes were committed and verify
// is not nil, what verify reported after the COMMIT.
func (c *committer) do(ctx context.Context, fn func(t *tx) error, verify verifier) (err, verified error) {
	if err := ctx.Err(); err != nil {
		return err, nil
	}
	if c.nested(ctx) {
		return ErrNestedUpdate, nil
	}
	j := &job{ctx: ctx, fn: fn, verify: verify, done: make(chan struct{})}
	if err := c.q.push(j); err != nil {
		return err, nil
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		if j.state.CompareAndSwap(queued, abandoned) {
			return ctx.Err(), nil
		}
		// It runs or has run: its outcome is the truth, whatever ctx says.
		<-j.done
	}
	switch {
	case j.res.panicked:
		panic(j.res.panicVal)
	case j.res.goexit:
		runtime.Goexit()
	}
	return j.res.err, j.res.verified
}

// nested reports whether an Update with ctx is made by the fn running now,
// on the committer's goroutine. On Linux that goroutine is pinned to its OS
// thread while fn runs (run): the Update is nested when it is made on that
// thread, during that run of fn, whatever its context. Reading the thread id
// is one system call, made only while a fn runs. Elsewhere the goroutine id
// would cost a stack trace (microseconds), so it is read only for an Update
// with the running fn's own context, and a nested Update with another
// context waits for ever.
func (c *committer) nested(ctx context.Context) bool {
	r := c.running.Load()
	if r == nil {
		return false
	}
	if n, pinned := r.runs.Load(), r.thread.Load(); pinned != 0 {
		id, _ := thisThread()
		// The same run of the same fn before and after reading the id:
		// the thread was pinned to the committer all along, and no other
		// goroutine could run on it.
		return id == pinned && c.running.Load() == r && r.runs.Load() == n
	}
	return sameContext(ctx, r.ctx) && goroutineID() == c.gid.Load()
}

// sameContext reports whether a and b are one context value; false when
// their type cannot be compared (== would panic).
func sameContext(a, b context.Context) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Comparable() && va.Equal(vb)
}

// goroutineID is the id of the calling goroutine, read from the first line
// of its stack ("goroutine 42 [running]:"), which the runtime exposes
// nowhere else.
func goroutineID() uint64 {
	var buf [32]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	var id uint64
	for _, d := range b {
		if d < '0' || d > '9' {
			break
		}
		id = id*10 + uint64(d-'0')
	}
	return id
}

// close answers the jobs still queued with errClosed after the group under
// way ends, and stops the committer.
func (c *committer) close() {
	c.q.close()
	<-c.done
}

// loop runs groups until the committer is closed. It is also how a group
// carries on in a new goroutine after a job's fn called runtime.Goexit.
func (c *committer) loop() {
	c.gid.Store(goroutineID())
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
	c.g = group{conn: conn, tx: t, t: &tx{tx: t, d: sqlite, stmts: c.stmts, bound: map[*sql.Stmt]*sql.Stmt{}, removals: c.removals}}
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

// run runs one job's fn in a savepoint of the open group. The group's first
// job runs without one when no other job waits, as under light load, where
// most groups are one job: its failure rolls the whole transaction back,
// which holds nothing else, and ends the group (settle). Two statements
// fewer per Update. Jobs that arrive meanwhile join after a probe.
func (c *committer) run(j *job) {
	j.res = result{}
	if len(c.g.jobs) == 0 && c.q.empty() {
		c.g.bare = true
	} else {
		if c.g.bare && !c.g.probed {
			if err := c.probe(); err != nil {
				c.abort(err, append(c.g.jobs, j))
				return
			}
			c.g.probed = true
		}
		if err := c.exec("SAVEPOINT " + savepoint); err != nil {
			// The job has not run: it runs again with the others.
			c.abort(fmt.Errorf("sqlstore: savepoint: %w", err), append(c.g.jobs, j))
			return
		}
	}
	returned := false
	j.runs.Add(1)
	if id, ok := pinThread(); ok {
		j.thread.Store(id)
	}
	c.running.Store(j)
	defer func() {
		c.running.Store(nil)
		unpinThread()
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
	c.settle(j, result{err: err})
}

// settle keeps the job's writes when fn succeeded and undoes them otherwise,
// then holds its result until the group ends. A savepoint statement that
// fails means the transaction is no longer usable: the group is rolled back.
// The first job has no savepoint: when it fails, the group ends with a
// ROLLBACK.
func (c *committer) settle(j *job, r result) {
	if len(c.g.jobs) == 0 && c.g.bare {
		j.res = r
		c.g.jobs = append(c.g.jobs, j)
		if !r.ok() {
			c.commit()
		}
		return
	}
	var err error
	if r.ok() {
		err = c.exec("RELEASE " + savepoint)
	} else if err = c.exec("ROLLBACK TO " + savepoint); err == nil {
		err = c.exec("RELEASE " + savepoint)
	}
	j.res = r
	if err != nil {
		if r.ok() {
			j.res.err = fmt.Errorf("sqlstore: transaction lost: %w", err)
		}
		c.abort(fmt.Errorf("sqlstore: transaction lost: %w", err), c.g.jobs)
		j.answer(j.res)
		return
	}
	c.g.jobs = append(c.g.jobs, j)
}

// probe checks that the transaction the first job ran in, without a
// savepoint, is still open before another job joins it: SQLite rolls a
// transaction back on some errors, and a first fn that returned nil all the
// same would otherwise be answered as committed, its writes undone, while
// the next SAVEPOINT began a new transaction. BEGIN fails inside a
// transaction and nowhere else.
func (c *committer) probe() error {
	err := c.exec("BEGIN")
	if err == nil {
		return errors.New("sqlstore: transaction lost: it ended under the group's first job")
	}
	if !strings.Contains(err.Error(), "within a transaction") {
		return fmt.Errorf("sqlstore: transaction lost: %w", err)
	}
	return nil
}

// abort rolls the open group back after it became unusable. Panicked and
// exited jobs are answered; the others in again run again, in order, ahead
// of every waiting job, unless the group was rolled back under them
// maxAttempts times, in which case they get err.
func (c *committer) abort(err error, again []*job) {
	g := c.g
	c.g = group{}
	// It fails when SQLite has already rolled back, as it does for most of
	// the errors that lead here.
	_ = g.tx.Rollback()
	release(g.conn, true)
	if c.knobs != nil && c.knobs.aborted != nil {
		c.knobs.aborted()
	}
	var rerun []*job
	for _, j := range again {
		switch j.aborts++; {
		case j.res.panicked || j.res.goexit:
			j.answer(j.res)
		case j.aborts >= maxAttempts:
			j.answer(result{err: err})
		default:
			rerun = append(rerun, j)
		}
	}
	if len(rerun) > 0 {
		c.q.pushFront(rerun)
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

// empty reports whether no job waits.
func (q *jobQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.jobs) == 0
}
