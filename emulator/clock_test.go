package emulator_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgportal/portal-api/emulator"
)

// clockNow reads the clock through GET /emulator/clock.
func clockNow(t *testing.T, base string) emulator.ClockState {
	t.Helper()
	status, raw, _ := call(t, base, "GET", "/emulator/clock", "", nil)
	var st emulator.ClockState
	if err := json.Unmarshal(raw, &st); status != http.StatusOK || err != nil {
		t.Fatalf("GET /emulator/clock: HTTP %d %s", status, raw)
	}
	return st
}

// A change that would take the clock out of its range is refused with a
// detail naming the field, and changes nothing: the int64 offset never
// wraps (2562047h twice went back to 1733) and set never answers another
// time than asked (Time.Sub saturates at ±292 years).
func TestClockRefusesChangesOutOfRange(t *testing.T) {
	srv, hs := start(t, emulator.Options{})
	last := time.Date(2199, 12, 31, 23, 59, 59, 999999999, time.UTC)
	for _, c := range []struct{ body, detail string }{
		{`{"advance":"2562047h"}`, "advance: "},
		{`{"advance":"-2562047h"}`, "advance: "},
		{`{"advance":"-500000h"}`, "advance: "}, // 1969
		{`{"set":"9999-12-31T23:59:59Z"}`, "set: "},
		{`{"set":"0001-01-01T00:00:00Z"}`, "set: "},
		{`{"set":"1969-12-31T23:59:59.999999999Z"}`, "set: "},
		{`{"set":"2200-01-01T00:00:00Z"}`, "set: "},
	} {
		before := clockNow(t, hs.URL)
		status, raw, _ := call(t, hs.URL, "POST", "/emulator/clock", c.body, nil)
		if status != http.StatusBadRequest || !bytes.Contains(raw, []byte(`"`+c.detail)) {
			t.Errorf("%s: HTTP %d %s, want 400 with a detail starting %q", c.body, status, raw, c.detail)
		}
		if after := clockNow(t, hs.URL); after != before {
			t.Errorf("%s: the clock moved from %+v to %+v", c.body, before, after)
		}
	}
	// The bounds themselves are reachable, exactly.
	for _, at := range []time.Time{time.Unix(0, 0).UTC(), last} {
		body, _ := json.Marshal(emulator.ClockChange{Set: &at})
		status, raw, _ := call(t, hs.URL, "POST", "/emulator/clock", string(body), nil)
		var st emulator.ClockState
		if err := json.Unmarshal(raw, &st); status != http.StatusOK || err != nil || !st.Now.Equal(at) {
			t.Errorf("set %s: HTTP %d %s", at, status, raw)
		}
	}
	// At the last instant, any advance is refused, however large: the
	// check itself does not overflow.
	for _, body := range []string{`{"advance":"1ns"}`, `{"advance":"2562047h"}`} {
		if status, raw, _ := call(t, hs.URL, "POST", "/emulator/clock", body, nil); status != http.StatusBadRequest {
			t.Errorf("%s at %s: HTTP %d %s", body, last, status, raw)
		}
	}
	if now := srv.Now(); !now.Equal(last) {
		t.Errorf("now %s, want %s", now, last)
	}

	// The Go methods refuse the same changes.
	if err := srv.SetClock(epoch); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"AdvanceClock(MaxInt64)": srv.AdvanceClock(time.Duration(1<<63 - 1)),
		"AdvanceClock(MinInt64)": srv.AdvanceClock(time.Duration(-1 << 63)),
		"SetClock(year 1)":       srv.SetClock(time.Time{}),
		"SetClock(9999)":         srv.SetClock(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)),
		"SetClock(2200)":         srv.SetClock(last.Add(time.Nanosecond)),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if now := srv.Now(); !now.Equal(epoch) {
		t.Errorf("refused changes moved the clock to %s", now)
	}
}

// Concurrent advances cannot push the clock past its range together: each
// checks the offset it replaces.
func TestClockAdvancesRaceWithinRange(t *testing.T) {
	srv, _ := start(t, emulator.Options{})
	end := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := srv.SetClock(end.Add(-100 * time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range 1000 {
		wg.Go(func() {
			if srv.AdvanceClock(time.Nanosecond) == nil {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if n, now := ok.Load(), srv.Now(); n != 99 || !now.Equal(end.Add(-time.Nanosecond)) {
		t.Errorf("%d advances succeeded, now %s; want 99 and %s", n, now, end.Add(-time.Nanosecond))
	}
}
