package conformance

import (
	"context"
	"testing"
)

// TB is what the suite reports to: the part of testing.TB it uses, plus Run
// for subtests. WrapT adapts a *testing.T; Runner implements it outside go
// test, so that the suite's failures can be collected instead of failing the
// caller.
type TB interface {
	Helper()
	Name() string
	Context() context.Context
	Cleanup(func())
	Log(args ...any)
	Logf(format string, args ...any)
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	// Skip and Skipf mark the test as not run; the suite uses them only with
	// a message saying what the target lacks.
	Skip(args ...any)
	Skipf(format string, args ...any)
	Failed() bool
	// Run runs f as a subtest named name and reports whether it passed.
	Run(name string, f func(TB)) bool
}

// WrapT returns t as a TB.
func WrapT(t *testing.T) TB { return testingT{t} }

type testingT struct{ *testing.T }

func (t testingT) Run(name string, f func(TB)) bool {
	t.T.Helper()
	return t.T.Run(name, func(t *testing.T) { f(testingT{t}) })
}
