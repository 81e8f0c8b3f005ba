package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/internal/bench"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
	"github.com/orgportal/portal-api/server/seed"
	"github.com/orgportal/portal-api/server/sqlstore"
)

func TestPercentile(t *testing.T) {
	r := result{}
	for i := 1; i <= 100; i++ {
		r.latencies = append(r.latencies, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 1: time.Millisecond} {
		if got := r.percentile(p); got != want {
			t.Errorf("percentile(%v) = %v, want %v", p, got, want)
		}
	}
	if got := (result{latencies: []time.Duration{7}}).percentile(99); got != 7 {
		t.Errorf("percentile of one sample = %v", got)
	}
	if got := (result{}).percentile(50); got != 0 {
		t.Errorf("percentile of none = %v", got)
	}
}

// benchPortal serves the API in-process on an in-memory store holding the
// bench seed, as the report's portald does.
func benchPortal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seed.json")
	if err := writeSeed(path); err != nil {
		t.Fatal(err)
	}
	f, err := seed.ReadFile(path)
	if err != nil {
		t.Fatalf("the bench seed does not read: %v", err)
	}
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Update(ctx, func(tx server.Tx) error { return f.Apply(ctx, tx, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	h, err := api.New(api.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/sharing/rest"
}

// Every operation of the report runs without a failed request against the
// bench seed, and moveItems runs again from wherever the last run left the
// items.
func TestOperationsAgainstBenchSeed(t *testing.T) {
	base := benchPortal(t)
	hc := newHTTPClient(2)
	ops := []string{"settings/update", "settings", "memberCategorySchema", "moveItems:10", "moveItems:1000", "moveItems:10"}
	for _, name := range ops {
		o, err := opNamed(name, seedAdminToken, seedUser, seedUserToken, 2)
		if err != nil {
			t.Fatal(err)
		}
		r := run(t.Context(), hc, base, o, 2, 200*time.Millisecond)
		if r.firstErr != nil || r.errors != 0 {
			t.Errorf("%s: %d errors, the first: %v", name, r.errors, r.firstErr)
		}
		if r.requests == 0 || len(r.latencies) != r.requests {
			t.Errorf("%s: %d requests, %d latencies", name, r.requests, len(r.latencies))
		}
	}
}

// A failed request counts as an error, with its answer in the message.
func TestRunCountsErrors(t *testing.T) {
	base := benchPortal(t)
	r := run(t.Context(), newHTTPClient(1), base, settingsUpdate("no-such-token"), 1, 50*time.Millisecond)
	if r.errors == 0 || r.errors != r.requests || r.firstErr == nil || !strings.Contains(r.firstErr.Error(), "498") {
		t.Fatalf("%d errors of %d requests, first %v; want every request to fail with 498", r.errors, r.requests, r.firstErr)
	}
}

func TestFloorOp(t *testing.T) {
	srv := httptest.NewServer(bench.Floor())
	defer srv.Close()
	r := run(t.Context(), newHTTPClient(2), srv.URL+"/sharing/rest", floorOp(), 2, 100*time.Millisecond)
	if r.errors != 0 || r.requests == 0 {
		t.Fatalf("floor: %d requests, %d errors, first %v", r.requests, r.errors, r.firstErr)
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-report"},
		{"-url", "http://127.0.0.1:1/sharing/rest", "-ops", "frobnicate"},
		{"-url", "http://127.0.0.1:1/sharing/rest", "-ops", "moveItems:x"},
		{"-url", "http://127.0.0.1:1/sharing/rest", "-ops", "moveItems:1000", "-workers", "3"},
		{"-workers", "0", "-url", "http://127.0.0.1:1/sharing/rest"},
		{"-report", "-portald", "x", "-floor", "y", "-sweep", "8,none"},
		{"-report", "-portald", "x", "-floor", "y", "-sweep", "0"},
		{"extra"},
	} {
		var out bytes.Buffer
		if err := realMain(t.Context(), args, &out); err == nil {
			t.Errorf("portalload %q: no error", args)
		}
	}
}

func TestParseCounts(t *testing.T) {
	got, err := parseCounts("8, 32,64")
	if err != nil || len(got) != 3 || got[0] != 8 || got[1] != 32 || got[2] != 64 {
		t.Errorf("parseCounts(8, 32,64) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "8,", "-1", "x", "8,0"} {
		if got, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) = %v, want an error", bad, got)
		}
	}
}

func TestBetter(t *testing.T) {
	slow := result{requests: 10, elapsed: time.Second}
	fast := result{requests: 20, elapsed: time.Second}
	if better(result{}, slow).requests != 10 || better(slow, fast).requests != 20 || better(fast, slow).requests != 20 {
		t.Errorf("better does not keep the higher rate")
	}
}
