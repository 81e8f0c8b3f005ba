package conformance

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Status is the outcome of one test.
type Status int

const (
	Passed Status = iota
	Failed
	// NotRun: the test skipped itself, saying what the target lacks.
	NotRun
)

func (s Status) String() string {
	switch s {
	case Passed:
		return "PASS"
	case Failed:
		return "FAIL"
	default:
		return "NOT RUN"
	}
}

// MessageKind tells what a test said.
type MessageKind int

const (
	LogMessage MessageKind = iota
	ErrorMessage
	SkipMessage
)

// Message is one thing a test said, in order.
type Message struct {
	Kind MessageKind
	Text string
}

// Result is the outcome of one test and of its subtests.
type Result struct {
	// Name is the full name, levels joined by "/", such as
	// "conformance/examples/moveItems/toRoot".
	Name     string
	Status   Status
	Messages []Message
	Elapsed  time.Duration
	Subtests []*Result
}

// Errors returns the test's own failure messages.
func (r *Result) Errors() []string { return r.texts(ErrorMessage) }

// SkipReason returns why the test did not run, or "".
func (r *Result) SkipReason() string { return strings.Join(r.texts(SkipMessage), "; ") }

func (r *Result) texts(kind MessageKind) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Kind == kind {
			out = append(out, m.Text)
		}
	}
	return out
}

// Report is the outcome of a Runner's run.
type Report struct {
	Root    *Result
	Started time.Time
	Elapsed time.Duration
}

// Cases returns the tests that count: those without subtests, and those
// with subtests that failed or were not run on their own (a setup failure,
// say), in the order they ran.
func (r *Report) Cases() []*Result {
	var out []*Result
	var walk func(*Result)
	walk = func(res *Result) {
		for _, c := range res.Subtests {
			walk(c)
		}
		if len(res.Subtests) == 0 || len(res.Errors()) > 0 || res.SkipReason() != "" {
			out = append(out, res)
		}
	}
	if r.Root != nil {
		walk(r.Root)
	}
	return out
}

// Counts returns how many cases passed, failed and were not run.
func (r *Report) Counts() (passed, failed, notRun int) {
	for _, c := range r.Cases() {
		switch {
		case len(c.Subtests) > 0 && len(c.Errors()) > 0:
			failed++
		case len(c.Subtests) > 0:
			notRun++
		case c.Status == Passed:
			passed++
		case c.Status == Failed:
			failed++
		default:
			notRun++
		}
	}
	return passed, failed, notRun
}

// Failed reports whether any test failed.
func (r *Report) Failed() bool { return r.Root != nil && r.Root.Status == Failed }

// Runner runs the suite outside go test, as a command does, and collects the
// results.
type Runner struct {
	// Pattern selects tests as go test -run does: regular expressions
	// separated by "/", each matched against the test names at one level
	// below the top ("examples/moveItems" runs the moveItems examples).
	Pattern string
	// Progress, when set, is called as each test ends, in the runner's
	// goroutine order (never concurrently).
	Progress func(*Result)
	// Name is the top-level test's name; "conformance" when empty.
	Name string
	// Stop, when closed, stops the run early: the test running finishes,
	// tests not yet started are reported as not run, and cleanups still run,
	// so that the suite still restores what it changed.
	Stop <-chan struct{}
}

// Run runs the suite against target.
func (rn *Runner) Run(target Target) (*Report, error) {
	return rn.RunFunc(func(t TB) { RunTB(t, target) })
}

// RunFunc runs f as the top-level test, so that any body written against TB
// runs the same way as the suite.
func (rn *Runner) RunFunc(f func(TB)) (*Report, error) {
	var matchers []*regexp.Regexp
	if rn.Pattern != "" {
		for _, part := range strings.Split(rn.Pattern, "/") {
			re, err := regexp.Compile(part)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %w", rn.Pattern, err)
			}
			matchers = append(matchers, re)
		}
	}
	name := rn.Name
	if name == "" {
		name = "conformance"
	}
	rep := &Report{Started: time.Now()}
	root := &recorder{runner: rn, matchers: matchers, res: &Result{Name: name}}
	root.run(context.Background(), f)
	rep.Root = root.res
	rep.Elapsed = time.Since(rep.Started)
	return rep, nil
}

func (rn *Runner) stopped() bool {
	select {
	case <-rn.Stop:
		return true
	default:
		return false
	}
}

// recorder is the TB of one test run by a Runner.
type recorder struct {
	runner   *Runner
	matchers []*regexp.Regexp
	level    int // 0 for the top-level test
	res      *Result
	ctx      context.Context

	mu       sync.Mutex
	failed   bool
	skipped  bool
	cleanups []func()
}

var _ TB = (*recorder)(nil)

func (r *recorder) say(kind MessageKind, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Messages = append(r.res.Messages, Message{Kind: kind, Text: text})
	switch kind {
	case ErrorMessage:
		r.failed = true
	case SkipMessage:
		r.skipped = true
	}
}

func (r *recorder) Helper()                  {}
func (r *recorder) Name() string             { return r.res.Name }
func (r *recorder) Context() context.Context { return r.ctx }
func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}
func (r *recorder) Log(args ...any)                 { r.say(LogMessage, sprint(args...)) }
func (r *recorder) Logf(format string, args ...any) { r.say(LogMessage, fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)               { r.say(ErrorMessage, sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.say(ErrorMessage, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skip(args ...any) { r.say(SkipMessage, sprint(args...)); runtime.Goexit() }
func (r *recorder) Skipf(format string, args ...any) {
	r.say(SkipMessage, fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// sprint formats like testing's Log: operands separated by spaces.
func sprint(args ...any) string { return strings.TrimSuffix(fmt.Sprintln(args...), "\n") }

func (r *recorder) Run(name string, f func(TB)) bool {
	if r.level < len(r.matchers) && !r.matchers[r.level].MatchString(name) {
		return true
	}
	child := &recorder{runner: r.runner, matchers: r.matchers, level: r.level + 1,
		res: &Result{Name: r.res.Name + "/" + strings.ReplaceAll(name, " ", "_")}}
	if r.runner.stopped() {
		f = func(t TB) { t.Skip("interrupted") }
	}
	child.run(r.ctx, f)
	r.mu.Lock()
	r.res.Subtests = append(r.res.Subtests, child.res)
	if child.res.Status == Failed {
		r.failed = true
	}
	r.mu.Unlock()
	return child.res.Status != Failed
}

// run runs f in a goroutine of its own, as testing does, so that Fatal and
// Skip end the test with runtime.Goexit; a panic fails the test instead of
// the program. Cleanups run after f, last registered first.
func (r *recorder) run(parent context.Context, f func(TB)) {
	start := time.Now()
	ctx, cancel := context.WithCancel(parent)
	r.ctx = ctx
	protect(r, func() { f(r) })
	cancel()
	for {
		r.mu.Lock()
		n := len(r.cleanups)
		if n == 0 {
			r.mu.Unlock()
			break
		}
		c := r.cleanups[n-1]
		r.cleanups = r.cleanups[:n-1]
		r.mu.Unlock()
		protect(r, c)
	}
	r.res.Elapsed = time.Since(start)
	switch {
	case r.Failed():
		r.res.Status = Failed
	case r.skipped:
		r.res.Status = NotRun
	default:
		r.res.Status = Passed
	}
	if r.runner.Progress != nil {
		r.runner.Progress(r.res)
	}
}

// protect runs f on a goroutine of its own and waits for it, turning a panic
// into a failure of r.
func protect(r *recorder, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				r.say(ErrorMessage, fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
			}
		}()
		f()
	}()
	<-done
}
