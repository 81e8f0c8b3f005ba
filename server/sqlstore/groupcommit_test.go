package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/orgportal/portal-api/server"
)

// interruptCancel is called by the SQL function sqlstore_test_cancel(), so
// that a test can end a context while a statement of its runs.
var interruptCancel atomic.Pointer[context.CancelFunc]

func init() {
	msqlite.MustRegisterScalarFunction("sqlstore_test_cancel", 0, func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error) {
		if cancel := interruptCancel.Load(); cancel != nil {
			(*cancel)()
		}
		return int64(0), nil
	})
}

var errFail = errors.New("fail")

// watched is a store whose writer reports to the test through knobs: it
// counts COMMITs, groups lost and queued jobs, and says when Close has
// begun. Tests wait on these events instead of polling.
type watched struct {
	*Store
	commits, losts, queued atomic.Int64
	changed                chan struct{} // holds a token after a job is queued
	closing                chan struct{} // closed once Close has begun
}

// watch installs the knobs on s, whose groups hold at most max jobs (0:
// maxGroup), before any Update.
func watch(s *Store, max int) *watched {
	w := &watched{Store: s, changed: make(chan struct{}, 1), closing: make(chan struct{})}
	s.w.setKnobs(&knobs{
		max: max,
		queued: func() {
			w.queued.Add(1)
			select {
			case w.changed <- struct{}{}:
			default:
			}
		},
		closed:    func() { close(w.closing) },
		committed: func() { w.commits.Add(1) },
		lost:      func() { w.losts.Add(1) },
	})
	return w
}

func openWatched(t *testing.T, dsn string) *watched { return watch(openT(t, dsn), 0) }

// enqueue runs f, which makes one Update, in a goroutine and returns once
// that Update is queued, so that jobs queue in the order of the calls.
func enqueue(w *watched, f func()) {
	want := w.queued.Load() + 1
	go f()
	for w.queued.Load() < want {
		<-w.changed
	}
}

// enqueueUpdate enqueues an Update of fn; its error arrives on the channel.
func enqueueUpdate(ctx context.Context, w *watched, fn func(tx server.Tx) error) <-chan error {
	ch := make(chan error, 1)
	enqueue(w, func() { ch <- w.Update(ctx, fn) })
	return ch
}

// blocker holds the writer's turn in a fn until released, so that the Updates
// queued meanwhile join its group.
type blocker struct {
	release chan struct{}
	done    chan error
	runs    atomic.Int32
}

// block starts an Update that puts token and waits for the release; it
// returns once its fn runs.
func block(t *testing.T, s server.Store, token string) *blocker {
	t.Helper()
	b := &blocker{release: make(chan struct{}), done: make(chan error, 1)}
	started := make(chan struct{})
	go func() {
		b.done <- s.Update(t.Context(), func(tx server.Tx) error {
			if b.runs.Add(1) == 1 {
				close(started)
			}
			<-b.release
			return tx.PutToken(t.Context(), server.Token{Token: token, Username: "u"})
		})
	}()
	<-started
	return b
}

func putToken(ctx context.Context, token string) func(tx server.Tx) error {
	return func(tx server.Tx) error { return tx.PutToken(ctx, server.Token{Token: token, Username: "u"}) }
}

// wantTokens checks which tokens the store holds.
func wantTokens(t *testing.T, s server.Store, present, absent []string) {
	t.Helper()
	ctx := t.Context()
	err := s.View(ctx, func(tx server.Tx) error {
		for _, tok := range present {
			if _, err := tx.Token(ctx, tok); err != nil {
				t.Errorf("token %s: %v, want it stored", tok, err)
			}
		}
		for _, tok := range absent {
			if _, err := tx.Token(ctx, tok); !errors.Is(err, server.ErrNotFound) {
				t.Errorf("token %s: %v, want it not stored", tok, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
}

// wantCommits checks the COMMITs made since before.
func wantCommits(t *testing.T, s *watched, before, want int64) {
	t.Helper()
	if got := s.commits.Load() - before; got != want {
		t.Errorf("%d COMMITs, want %d", got, want)
	}
}

// TestGroupCommitNoLostUpdate runs many read-modify-write increments of one
// counter at once, every fifth failing after its write: the counter ends at
// the number of Updates that succeeded.
func TestGroupCommitNoLostUpdate(t *testing.T) {
	for _, dsn := range []string{"file", ":memory:"} {
		t.Run(dsn, func(t *testing.T) {
			if dsn == "file" {
				dsn = sqliteFile(t)
			}
			s := openWatched(t, dsn)
			ctx := t.Context()
			if err := s.Update(ctx, func(tx server.Tx) error {
				return tx.PutUser(ctx, server.User{Username: "counter", OrgID: "o1", FullName: "0", Role: server.RoleUser})
			}); err != nil {
				t.Fatal(err)
			}
			const goroutines, perGoroutine = 32, 25
			commits := s.commits.Load()
			var ok, failed atomic.Int64
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range perGoroutine {
						fail := (g*perGoroutine+i)%5 == 0
						err := s.Update(ctx, func(tx server.Tx) error {
							u, err := tx.User(ctx, "counter")
							if err != nil {
								return err
							}
							n, err := strconv.Atoi(u.FullName)
							if err != nil {
								return err
							}
							u.FullName = strconv.Itoa(n + 1)
							if err := tx.PutUser(ctx, u); err != nil {
								return err
							}
							if fail {
								return errFail
							}
							return nil
						})
						switch {
						case err == nil:
							ok.Add(1)
						case errors.Is(err, errFail):
							failed.Add(1)
						default:
							t.Errorf("Update: %v", err)
						}
					}
				})
			}
			wg.Wait()
			if want := int64(goroutines * perGoroutine / 5); failed.Load() != want {
				t.Errorf("%d Updates failed, want %d", failed.Load(), want)
			}
			var n string
			if err := s.View(ctx, func(tx server.Tx) error {
				u, err := tx.User(ctx, "counter")
				n = u.FullName
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if n != strconv.FormatInt(ok.Load(), 10) {
				t.Errorf("counter = %s after %d successful Updates", n, ok.Load())
			}
			t.Logf("%d successful Updates in %d COMMITs", ok.Load(), s.commits.Load()-commits)
		})
	}
}

// TestGroupCommitFailureInGroup: in a group, a failing fn's writes are undone
// while the others commit together, each seeing the writes of those before.
func TestGroupCommitFailureInGroup(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := t.Context()
	commits := s.commits.Load()
	b := block(t, s, "a")
	bErr := enqueueUpdate(ctx, s, putToken(ctx, "b"))
	cErr := enqueueUpdate(ctx, s, func(tx server.Tx) error {
		if err := tx.PutToken(ctx, server.Token{Token: "c", Username: "u"}); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", errFail)
	})
	var sawB, sawC bool
	dErr := enqueueUpdate(ctx, s, func(tx server.Tx) error {
		_, err := tx.Token(ctx, "b")
		sawB = err == nil
		_, err = tx.Token(ctx, "c")
		sawC = err == nil
		return tx.PutToken(ctx, server.Token{Token: "d", Username: "u"})
	})
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a: %v", err)
	}
	if err := <-bErr; err != nil {
		t.Errorf("b: %v", err)
	}
	if err := <-cErr; !errors.Is(err, errFail) {
		t.Errorf("c: %v, want fn's error", err)
	}
	if err := <-dErr; err != nil {
		t.Errorf("d: %v", err)
	}
	if !sawB || sawC {
		t.Errorf("d saw b: %v, c: %v; want b only", sawB, sawC)
	}
	wantTokens(t, s, []string{"a", "b", "d"}, []string{"c"})
	wantCommits(t, s, commits, 1)
}

// TestGroupCommitPanic: a panicking fn panics in its caller with its value
// and the stack where it panicked, its writes are undone, and the rest of
// its group commits.
func TestGroupCommitPanic(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := t.Context()
	commits := s.commits.Load()
	b := block(t, s, "a")
	bErr := enqueueUpdate(ctx, s, putToken(ctx, "b"))
	recovered := make(chan any, 1)
	enqueue(s, func() {
		defer func() { recovered <- recover() }()
		_ = s.Update(ctx, func(tx server.Tx) error {
			_ = tx.PutToken(ctx, server.Token{Token: "p", Username: "u"})
			panic("boom")
		})
	})
	dErr := enqueueUpdate(ctx, s, putToken(ctx, "d"))
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a: %v", err)
	}
	if err := <-bErr; err != nil {
		t.Errorf("b: %v", err)
	}
	if p := <-recovered; p != "boom" {
		t.Errorf("the caller recovered %v, want fn's panic", p)
	}
	if err := <-dErr; err != nil {
		t.Errorf("d: %v", err)
	}
	wantTokens(t, s, []string{"a", "b", "d"}, []string{"p"})
	wantCommits(t, s, commits, 1)
}

// TestGroupCommitPanicStack: a fn that panics with an error, as a bug does
// (an index out of range, a nil map), panics in its caller, on fn's own
// goroutine: the stack where it recovers still shows fn.
func TestGroupCommitPanicStack(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	var stack string
	recovered := func() (p any) {
		defer func() { p, stack = recover(), string(debug.Stack()) }()
		_ = s.Update(t.Context(), func(tx server.Tx) error {
			parts := strings.Split("one", ",")
			_ = parts[len(parts)] // panics with a runtime.Error
			return nil
		})
		return nil
	}()
	if _, ok := recovered.(runtime.Error); !ok || !strings.Contains(stack, "TestGroupCommitPanicStack.func") {
		t.Errorf("the caller recovered %v, want the runtime error, with fn on the stack:\n%s", recovered, stack)
	}
	if err := s.Update(t.Context(), putToken(t.Context(), "after")); err != nil {
		t.Errorf("Update after the panic: %v", err)
	}
}

// TestGroupCommitGoexit: runtime.Goexit in fn (t.FailNow does it) ends the
// caller's goroutine; the group carries on and commits.
func TestGroupCommitGoexit(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := t.Context()
	commits := s.commits.Load()
	b := block(t, s, "a")
	returned := make(chan bool, 1)
	enqueue(s, func() {
		ret := false
		defer func() { returned <- ret }()
		_ = s.Update(ctx, func(tx server.Tx) error {
			_ = tx.PutToken(ctx, server.Token{Token: "g", Username: "u"})
			runtime.Goexit()
			return nil
		})
		ret = true
	})
	dErr := enqueueUpdate(ctx, s, putToken(ctx, "d"))
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a: %v", err)
	}
	if <-returned {
		t.Errorf("Update returned after fn called runtime.Goexit")
	}
	if err := <-dErr; err != nil {
		t.Errorf("d: %v", err)
	}
	if err := s.Update(ctx, putToken(ctx, "e")); err != nil {
		t.Errorf("e, after the group: %v", err)
	}
	wantTokens(t, s, []string{"a", "d", "e"}, []string{"g"})
	wantCommits(t, s, commits, 2)
}

// TestGroupCommitNested: an Update made by an Update's fn with the
// request's context, or one derived from it, is refused at once (it would
// wait for the group that waits for fn); the outer one goes on and decides
// what to do with the error. Updates from other goroutines while a fn runs,
// with their own request's context or none, are not affected.
func TestGroupCommitNested(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := server.WithRequest(t.Context())
	type key struct{}
	withDeadline, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	for name, inner := range map[string]context.Context{
		"the request's": ctx, "with a value": context.WithValue(ctx, key{}, "v"), "with a deadline": withDeadline,
	} {
		var innerErr error
		err := s.Update(ctx, func(tx server.Tx) error {
			innerErr = s.Update(inner, putToken(inner, "inner"))
			return tx.PutToken(ctx, server.Token{Token: "outer", Username: "u"})
		})
		if err != nil {
			t.Errorf("%s: outer Update: %v", name, err)
		}
		if !errors.Is(innerErr, server.ErrNestedUpdate) {
			t.Errorf("%s: nested Update: %v, want ErrNestedUpdate", name, innerErr)
		}
	}
	// A Reset too would wait for the group.
	var resetErr error
	if err := s.Update(ctx, func(tx server.Tx) error {
		resetErr = s.Reset(ctx, nil)
		return nil
	}); err != nil {
		t.Errorf("outer Update of the Reset: %v", err)
	}
	if !errors.Is(resetErr, server.ErrNestedUpdate) {
		t.Errorf("nested Reset: %v, want ErrNestedUpdate", resetErr)
	}
	// Other requests' Updates queued while a fn runs join the group.
	b := block(t, s, "a")
	other := enqueueUpdate(server.WithRequest(t.Context()), s, putToken(t.Context(), "other"))
	unmarked := enqueueUpdate(t.Context(), s, putToken(t.Context(), "unmarked"))
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a: %v", err)
	}
	for name, ch := range map[string]<-chan error{"another request's": other, "unmarked": unmarked} {
		if err := <-ch; err != nil {
			t.Errorf("Update with %s context while a fn ran: %v", name, err)
		}
	}
	// The request's own Updates, one after another, are not nested.
	if err := s.Update(ctx, putToken(ctx, "after")); err != nil {
		t.Errorf("the request's next Update: %v", err)
	}
	wantTokens(t, s, []string{"outer", "a", "other", "unmarked", "after"}, []string{"inner"})
}

// lateCtx is a context that ends without its Done channel closing, so that
// its caller keeps waiting and finds it done at its turn.
type lateCtx struct {
	context.Context
	ended atomic.Bool
}

func (c *lateCtx) Done() <-chan struct{} { return nil }

func (c *lateCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return nil
}

// TestGroupCommitContext: a job whose ctx ends before its turn is answered
// ctx.Err() without running, whether its caller leaves at once or waits;
// a job whose ctx ends while it runs is answered its real outcome.
func TestGroupCommitContext(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := t.Context()
	b := block(t, s, "a")

	var ran atomic.Int32
	count := func(token string) func(tx server.Tx) error {
		return func(tx server.Tx) error {
			ran.Add(1)
			return tx.PutToken(ctx, server.Token{Token: token, Username: "u"})
		}
	}
	leaveCtx, cancel := context.WithCancel(ctx)
	leaveErr := enqueueUpdate(leaveCtx, s, count("left"))
	cancel()
	// The caller leaves while a still holds the turn.
	if err := <-leaveErr; !errors.Is(err, context.Canceled) {
		t.Errorf("Update whose ctx ended while queued: %v, want context.Canceled", err)
	}
	late := &lateCtx{Context: ctx}
	lateErr := enqueueUpdate(late, s, count("late"))
	late.ended.Store(true)
	cErr := enqueueUpdate(ctx, s, putToken(ctx, "c"))
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a: %v", err)
	}
	if err := <-lateErr; !errors.Is(err, context.Canceled) {
		t.Errorf("Update whose ctx ended before its turn: %v, want context.Canceled", err)
	}
	if err := <-cErr; err != nil {
		t.Errorf("c: %v", err)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d fns ran whose ctx ended before their turn", n)
	}
	wantTokens(t, s, []string{"a", "c"}, []string{"left", "late"})

	// The ctx ends while fn runs: the caller still gets fn's outcome.
	runCtx, cancelRun := context.WithCancel(ctx)
	started, canceled := make(chan struct{}), make(chan struct{})
	go func() {
		<-started
		cancelRun()
		close(canceled)
	}()
	err := s.Update(runCtx, func(tx server.Tx) error {
		close(started)
		<-canceled
		return tx.PutToken(ctx, server.Token{Token: "during", Username: "u"})
	})
	if err != nil {
		t.Errorf("Update whose ctx ended while fn ran: %v, want fn's outcome, nil", err)
	}
	wantTokens(t, s, []string{"during"}, nil)
}

// TestGroupCommitClose: Close lets the group under way commit, answers the
// jobs still waiting with an error, and later Updates get one too.
func TestGroupCommitClose(t *testing.T) {
	path := sqliteFile(t)
	st, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := watch(st, 0)
	ctx := t.Context()
	b := block(t, s, "a")
	bErr := enqueueUpdate(ctx, s, putToken(ctx, "b"))
	cErr := enqueueUpdate(ctx, s, putToken(ctx, "c"))
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	<-s.closing
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a, under way at Close: %v", err)
	}
	for name, ch := range map[string]<-chan error{"b": bErr, "c": cErr} {
		if err := <-ch; !errors.Is(err, errClosed) {
			t.Errorf("%s, waiting at Close: %v, want errClosed", name, err)
		}
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Update(ctx, putToken(ctx, "after")); !errors.Is(err, errClosed) {
		t.Errorf("Update after Close: %v, want errClosed", err)
	}
	wantTokens(t, openT(t, path), []string{"a"}, []string{"b", "c", "after"})
}

// TestGroupCommitBound: a group holds at most maxGroup jobs.
func TestGroupCommitBound(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := t.Context()
	commits := s.commits.Load()
	b := block(t, s, "a")
	var errs []<-chan error
	var want []string
	for i := range maxGroup + 1 {
		tok := fmt.Sprintf("t%d", i)
		errs = append(errs, enqueueUpdate(ctx, s, putToken(ctx, tok)))
		want = append(want, tok)
	}
	close(b.release)
	if err := <-b.done; err != nil {
		t.Errorf("a: %v", err)
	}
	for i, ch := range errs {
		if err := <-ch; err != nil {
			t.Errorf("t%d: %v", i, err)
		}
	}
	wantTokens(t, s, want, nil)
	// a and maxGroup-1 others, then the last 2.
	wantCommits(t, s, commits, 2)
}

// outcome is what a group a, b, x, d came to: each one's error, and how
// many times the fns of a, b and d ran.
type outcome struct {
	a, b, x, d error
	runs       [3]int32
}

// groupOf runs a group a, b, x, d whose x runs xfn with x's context, which
// sqlstore_test_cancel() ends.
func groupOf(t *testing.T, s *watched, xfn func(ctx context.Context, t *tx) error) outcome {
	ctx := t.Context()
	a := block(t, s, "a")
	var bRuns, dRuns atomic.Int32
	bCh := enqueueUpdate(ctx, s, func(tx server.Tx) error {
		bRuns.Add(1)
		return tx.PutToken(ctx, server.Token{Token: "b", Username: "u"})
	})
	xCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	interruptCancel.Store(&cancel)
	defer interruptCancel.Store(nil)
	xCh := enqueueUpdate(xCtx, s, func(stx server.Tx) error {
		if err := stx.PutToken(xCtx, server.Token{Token: "x", Username: "u"}); err != nil {
			return err
		}
		return xfn(xCtx, stx.(*tx))
	})
	dCh := enqueueUpdate(ctx, s, func(tx server.Tx) error {
		dRuns.Add(1)
		return tx.PutToken(ctx, server.Token{Token: "d", Username: "u"})
	})
	close(a.release)
	return outcome{<-a.done, <-bCh, <-xCh, <-dCh, [3]int32{a.runs.Load(), bRuns.Load(), dRuns.Load()}}
}

// TestGroupCommitCancelledJob: x's context ends while its statement runs.
// The statement is not interrupted (SQLite would roll the whole
// transaction back); x's next statement fails with the context's error,
// x's savepoint is rolled back, and the others commit in the same group,
// each fn run once.
func TestGroupCommitCancelledJob(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	commits, losts := s.commits.Load(), s.losts.Load()
	o := groupOf(t, s, func(ctx context.Context, t *tx) error {
		// sqlstore_test_cancel() ends ctx while this statement runs.
		if _, err := t.exec(ctx, `INSERT INTO tokens (token, username, expires_ms)
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
			SELECT 'many' || i, 'u', sqlstore_test_cancel() FROM n`); err != nil {
			return err
		}
		return t.PutToken(ctx, server.Token{Token: "x2", Username: "u"})
	})
	for name, err := range map[string]error{"a": o.a, "b": o.b, "d": o.d} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !errors.Is(o.x, context.Canceled) {
		t.Errorf("x: %v, want context.Canceled", o.x)
	}
	if o.runs != [3]int32{1, 1, 1} {
		t.Errorf("fns a, b, d ran %v times; want once each", o.runs)
	}
	wantTokens(t, s, []string{"a", "b", "d"}, []string{"x", "many1", "many1000", "x2"})
	wantCommits(t, s, commits, 1)
	if n := s.losts.Load() - losts; n != 0 {
		t.Errorf("%d groups lost, want none", n)
	}
}

// TestGroupCommitTransactionLost: x's fn ends the transaction (as SQLite
// does on a full disk or an I/O error) and returns nil all the same. Its
// savepoint's RELEASE fails: the group is lost, a, b and x are answered
// its error, and no fn runs again; d, which had not run, commits in the
// next group.
func TestGroupCommitTransactionLost(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	commits, losts := s.commits.Load(), s.losts.Load()
	o := groupOf(t, s, func(ctx context.Context, t *tx) error {
		_, err := t.tx.ExecContext(ctx, "ROLLBACK")
		return err
	})
	for name, err := range map[string]error{"a": o.a, "b": o.b, "x": o.x} {
		if err == nil || !strings.Contains(err.Error(), "transaction lost") {
			t.Errorf("%s: %v, want the transaction lost", name, err)
		}
	}
	if o.d != nil {
		t.Errorf("d: %v", o.d)
	}
	if o.runs != [3]int32{1, 1, 1} {
		t.Errorf("fns a, b, d ran %v times; want once each", o.runs)
	}
	wantTokens(t, s, []string{"d"}, []string{"a", "b", "x"})
	wantCommits(t, s, commits, 1)
	if n := s.losts.Load() - losts; n != 1 {
		t.Errorf("%d groups lost, want 1", n)
	}
}

// TestGroupCommitCommitFails: when the COMMIT fails, every job of the group
// gets its error, including one whose fn failed, and nothing is stored.
func TestGroupCommitCommitFails(t *testing.T) {
	s := openWatched(t, sqliteFile(t))
	ctx := t.Context()
	// A deferred foreign key is checked at COMMIT only.
	for _, q := range []string{
		"CREATE TABLE parents (id TEXT PRIMARY KEY)",
		"CREATE TABLE children (id TEXT PRIMARY KEY, parent TEXT REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	commits := s.commits.Load()
	a := block(t, s, "a")
	errs := map[string]<-chan error{
		"b": enqueueUpdate(ctx, s, putToken(ctx, "b")),
		"c": enqueueUpdate(ctx, s, func(tx server.Tx) error { return errFail }),
		"orphan": enqueueUpdate(ctx, s, func(stx server.Tx) error {
			_, err := stx.(*tx).exec(ctx, "INSERT INTO children (id, parent) VALUES ('k', 'nobody')")
			return err
		}),
	}
	close(a.release)
	if err := <-a.done; err == nil || !strings.Contains(err.Error(), "commit") {
		t.Errorf("a: %v, want the COMMIT's error", err)
	}
	for name, ch := range errs {
		if err := <-ch; err == nil || errors.Is(err, errFail) || !strings.Contains(err.Error(), "commit") {
			t.Errorf("%s: %v, want the COMMIT's error", name, err)
		}
	}
	wantCommits(t, s, commits, 0)
	wantTokens(t, s, nil, []string{"a", "b"})
	// The store goes on.
	if err := s.Update(ctx, putToken(ctx, "e")); err != nil {
		t.Errorf("Update after a failed COMMIT: %v", err)
	}
	wantTokens(t, s, []string{"e"}, nil)
}

// BenchmarkUpdateParallel makes small durable Updates from many goroutines
// on a SQLite file: group=1 commits each alone (one fsync each, as without
// group commit), group=64 is the store as it runs.
func BenchmarkUpdateParallel(b *testing.B) {
	for _, group := range []int{1, maxGroup} {
		for _, par := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("group=%d/goroutines=%dxGOMAXPROCS", group, par), func(b *testing.B) {
				st, err := Open(b.Context(), filepath.Join(b.TempDir(), "portal.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				s := watch(st, group)
				var n atomic.Int64
				commits := s.commits.Load()
				b.SetParallelism(par)
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					ctx := b.Context()
					for pb.Next() {
						tk := server.Token{Token: "t" + strconv.FormatInt(n.Add(1), 10), Username: "u", Expires: time.UnixMilli(1)}
						if err := s.Update(ctx, func(tx server.Tx) error { return tx.PutToken(ctx, tk) }); err != nil {
							b.Error(err)
							return
						}
					}
				})
				if c := s.commits.Load() - commits; c > 0 {
					b.ReportMetric(float64(n.Load())/float64(c), "updates/commit")
				}
			})
		}
	}
}
