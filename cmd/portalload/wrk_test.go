package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// The command name holds a space and a parenthesis; utime 250 and stime
	// 50 ticks are fields 14 and 15.
	line := "4242 (port ald)) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 9 0 100 1000000 5000 18446744073709551615"
	got, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; got != want {
		t.Errorf("parseStat = %v, want %v", got, want)
	}
	if _, err := parseStat("4242 (portald S 1"); err == nil {
		t.Error("a line without its closing parenthesis was read")
	}
}

const wrkOutput = `Running 10s test @ http://127.0.0.1:1234/sharing/rest/portals/self/settings/update
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.10ms  400.00us  10.00ms   80.00%
    Req/Sec     7.30k   300.00     8.00k    70.00%
  145678 requests in 10.00s, 20.00MB read
Requests/sec:  14567.80
Transfer/sec:      2.00MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkOutput, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.requests != 145678 || r.rate != 14567.80 {
		t.Errorf("got %d requests at %.2f/s", r.requests, r.rate)
	}
	if got := r.cpuPerRequest(); got < 13*time.Microsecond || got > 14*time.Microsecond {
		t.Errorf("CPU per request %v, want 2 s ÷ 145,678", got)
	}
	bad := strings.Replace(wrkOutput, "Requests/sec", "  Non-2xx or 3xx responses: 12\nRequests/sec", 1)
	if _, err := parseWrk(bad, time.Second); err == nil {
		t.Error("a run with non-2xx answers was accepted")
	}
	if _, err := parseWrk("wrk: connection refused", time.Second); err == nil {
		t.Error("output without a summary was accepted")
	}
}

func TestMedianRun(t *testing.T) {
	runs := []wrkRun{{rate: 30}, {rate: 10}, {rate: 20}}
	if m := median(runs); m.rate != 20 {
		t.Errorf("median = %v, want the 20 req/s run", m.rate)
	}
	if runs[0].rate != 30 {
		t.Error("median reordered its argument")
	}
}
