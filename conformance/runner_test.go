package conformance_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/conformance"
)

func runFunc(t *testing.T, pattern string, f func(conformance.TB)) (*conformance.Report, []string) {
	t.Helper()
	var progress []string
	rn := &conformance.Runner{Pattern: pattern, Progress: func(r *conformance.Result) {
		progress = append(progress, r.Status.String()+" "+r.Name)
	}}
	rep, err := rn.RunFunc(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep, progress
}

func TestRunnerOutcomes(t *testing.T) {
	var order []string
	rep, progress := runFunc(t, "", func(tb conformance.TB) {
		tb.Cleanup(func() { order = append(order, "top cleanup") })
		tb.Run("pass", func(tb conformance.TB) {
			tb.Logf("hello %d", 1)
			tb.Cleanup(func() { order = append(order, "pass cleanup 1") })
			tb.Cleanup(func() { order = append(order, "pass cleanup 2") })
		})
		tb.Run("fatal", func(tb conformance.TB) {
			tb.Fatalf("stop %s", "here")
			order = append(order, "after Fatal")
		})
		tb.Run("skip", func(tb conformance.TB) {
			tb.Skipf("needs %s", "a member")
			order = append(order, "after Skip")
		})
		tb.Run("panic", func(tb conformance.TB) { panic("boom") })
		tb.Run("group", func(tb conformance.TB) {
			ok := tb.Run("inner", func(tb conformance.TB) { tb.Error("inner failed") })
			if ok {
				order = append(order, "inner reported as passing")
			}
			if !tb.Failed() {
				order = append(order, "group not failed after a failed subtest")
			}
		})
		tb.Run("cleanupFails", func(tb conformance.TB) {
			tb.Cleanup(func() { tb.Fatal("cleanup failed") })
		})
		order = append(order, "top body done")
	})

	wantOrder := []string{"pass cleanup 2", "pass cleanup 1", "top body done", "top cleanup"}
	if !reflect.DeepEqual(order, wantOrder) {
		t.Errorf("order %q, want %q", order, wantOrder)
	}
	status := map[string]conformance.Status{}
	for _, r := range rep.Cases() {
		status[strings.TrimPrefix(r.Name, "conformance/")] = r.Status
	}
	want := map[string]conformance.Status{
		"pass": conformance.Passed, "fatal": conformance.Failed, "skip": conformance.NotRun,
		"panic": conformance.Failed, "group/inner": conformance.Failed, "cleanupFails": conformance.Failed,
	}
	if !reflect.DeepEqual(status, want) {
		t.Errorf("cases %v, want %v", status, want)
	}
	if p, f, n := rep.Counts(); p != 1 || f != 4 || n != 1 {
		t.Errorf("counts %d passed %d failed %d not run, want 1 4 1", p, f, n)
	}
	if !rep.Failed() || rep.Root.Status != conformance.Failed {
		t.Errorf("the top-level test is %s, want FAIL", rep.Root.Status)
	}
	for _, r := range rep.Root.Subtests {
		switch r.Name {
		case "conformance/fatal":
			if !reflect.DeepEqual(r.Errors(), []string{"stop here"}) {
				t.Errorf("fatal: errors %q", r.Errors())
			}
		case "conformance/skip":
			if r.SkipReason() != "needs a member" {
				t.Errorf("skip: reason %q", r.SkipReason())
			}
		case "conformance/panic":
			if len(r.Errors()) != 1 || !strings.HasPrefix(r.Errors()[0], "panic: boom") {
				t.Errorf("panic: errors %q", r.Errors())
			}
		case "conformance/pass":
			if len(r.Messages) != 1 || r.Messages[0].Text != "hello 1" || r.Messages[0].Kind != conformance.LogMessage {
				t.Errorf("pass: messages %+v", r.Messages)
			}
		}
	}
	wantProgress := []string{"PASS conformance/pass", "FAIL conformance/fatal", "NOT RUN conformance/skip", "FAIL conformance/panic",
		"FAIL conformance/group/inner", "FAIL conformance/group", "FAIL conformance/cleanupFails", "FAIL conformance"}
	if !reflect.DeepEqual(progress, wantProgress) {
		t.Errorf("progress %q, want %q", progress, wantProgress)
	}
}

func TestRunnerPattern(t *testing.T) {
	body := func(tb conformance.TB) {
		for _, g := range []string{"examples", "auth"} {
			tb.Run(g, func(tb conformance.TB) {
				for _, n := range []string{"moveItems", "updateSettings"} {
					tb.Run(n, func(tb conformance.TB) {})
				}
			})
		}
	}
	for pattern, want := range map[string][]string{
		"":                   {"examples/moveItems", "examples/updateSettings", "auth/moveItems", "auth/updateSettings"},
		"examples":           {"examples/moveItems", "examples/updateSettings"},
		"examples/move":      {"examples/moveItems"},
		"/^updateSettings$":  {"examples/updateSettings", "auth/updateSettings"},
		"auth|examples/Move": nil,
	} {
		rep, _ := runFunc(t, pattern, body)
		var got []string
		for _, r := range rep.Cases() {
			if len(r.Subtests) == 0 && r != rep.Root && strings.Count(r.Name, "/") == 2 {
				got = append(got, strings.TrimPrefix(r.Name, "conformance/"))
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pattern %q ran %q, want %q", pattern, got, want)
		}
	}
	if _, err := (&conformance.Runner{Pattern: "a/("}).RunFunc(body); err == nil {
		t.Error("a bad pattern was accepted")
	}
}

// The context of a test is cancelled when its body ends, before its
// cleanups, as with testing.T.
func TestRunnerContext(t *testing.T) {
	var live, afterBody bool
	runFunc(t, "", func(tb conformance.TB) {
		tb.Cleanup(func() { afterBody = tb.Context().Err() != nil })
		live = tb.Context().Err() == nil
	})
	if !live || !afterBody {
		t.Errorf("context live in the body: %t, cancelled in cleanups: %t", live, afterBody)
	}
}

// Once Stop is closed, tests not yet started are reported as not run, and
// cleanups still run.
func TestRunnerStop(t *testing.T) {
	stop := make(chan struct{})
	var ran []string
	rep, err := (&conformance.Runner{Stop: stop}).RunFunc(func(tb conformance.TB) {
		tb.Cleanup(func() { ran = append(ran, "cleanup") })
		tb.Run("first", func(tb conformance.TB) { ran = append(ran, "first"); close(stop) })
		tb.Run("second", func(tb conformance.TB) { ran = append(ran, "second") })
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ran, []string{"first", "cleanup"}) {
		t.Errorf("ran %q, want first and the cleanup", ran)
	}
	second := rep.Root.Subtests[1]
	if second.Status != conformance.NotRun || second.SkipReason() != "interrupted" {
		t.Errorf("second: %s %q, want NOT RUN interrupted", second.Status, second.SkipReason())
	}
}
