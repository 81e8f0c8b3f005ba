package main

import (
	"strings"
	"testing"
	"time"
)

// The output of wrk --latency with countingScript's done.
const wrkLatencyOutput = `Running 10s test @ http://127.0.0.1:1234/sharing/rest/generateToken
  1 threads and 8 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     9.10ms    4.00ms  80.00ms   80.00%
    Req/Sec   876.00    100.00     1.00k    70.00%
  Latency Distribution
     50%    8.00ms
     75%   10.00ms
     90%   14.00ms
     99%   52.60ms
  8760 requests in 10.00s, 2.00MB read
Requests/sec:    876.00
Transfer/sec:    200.00KB
FAILED 3
SOCKET_ERRORS 1
FIRST_FAILURE 200 {"error":{"code":400,"message":"Unable to generate token."}}
`

func TestParseWrkSide(t *testing.T) {
	s, err := parseWrkSide(wrkLatencyOutput)
	if err != nil {
		t.Fatal(err)
	}
	if s.requests != 8760 || s.rate != 876 {
		t.Errorf("got %d requests at %.2f/s", s.requests, s.rate)
	}
	if s.p99 != 52600*time.Microsecond {
		t.Errorf("p99 = %v, want 52.6ms", s.p99)
	}
	if s.failed != 3 || s.socketErrors != 1 || s.errors() != 4 {
		t.Errorf("failed %d, socket errors %d", s.failed, s.socketErrors)
	}
	if !strings.HasPrefix(s.firstFailure, `200 {"error"`) {
		t.Errorf("first failure %q", s.firstFailure)
	}
	// Without the script's counts, failures would go unseen: refused.
	if _, err := parseWrkSide(strings.Split(wrkLatencyOutput, "FAILED")[0]); err == nil {
		t.Error("output without the failure counts was accepted")
	}
	// Without --latency there is no p99.
	if _, err := parseWrkSide(strings.Replace(wrkLatencyOutput, "99%", "98%", 1)); err == nil {
		t.Error("output without a p99 was accepted")
	}
}

func TestWrkDuration(t *testing.T) {
	for in, want := range map[[2]string]time.Duration{
		{"262.00", "us"}: 262 * time.Microsecond,
		{"1.06", "ms"}:   1060 * time.Microsecond,
		{"2.50", "s"}:    2500 * time.Millisecond,
		{"1.00", "m"}:    time.Minute,
	} {
		got, err := wrkDuration(in[0], in[1])
		if err != nil || got != want {
			t.Errorf("wrkDuration(%s%s) = %v, %v; want %v", in[0], in[1], got, err, want)
		}
	}
	if _, err := wrkDuration("1", "ns"); err == nil {
		t.Error("an unknown unit was accepted")
	}
}

func TestUpdateShare(t *testing.T) {
	r := signinRound{signin: wrkSide{requests: 850}, update: wrkSide{requests: 150}, cpu: time.Second}
	if got := r.updateShare(); got != 0.15 {
		t.Errorf("share = %v, want 0.15", got)
	}
	if got := r.cpuPerRequest(); got != time.Millisecond {
		t.Errorf("CPU per request = %v, want 1ms", got)
	}
	if got := (signinRound{}).updateShare(); got != 0 {
		t.Errorf("share of no request = %v", got)
	}
}

func TestMedianRound(t *testing.T) {
	rounds := []signinRound{
		{signin: wrkSide{requests: 900, rate: 90, p99: 30 * time.Millisecond}, update: wrkSide{requests: 100, rate: 10, p99: 9 * time.Millisecond}},
		{signin: wrkSide{requests: 800, rate: 80, p99: 10 * time.Millisecond}, update: wrkSide{requests: 200, rate: 20, p99: 3 * time.Millisecond}},
		{signin: wrkSide{requests: 700, rate: 70, p99: 20 * time.Millisecond}, update: wrkSide{requests: 300, rate: 30, p99: 5 * time.Millisecond}},
	}
	m := medianRound(rounds)
	if m.signin.rate != 80 || m.update.rate != 20 || m.signin.p99 != 20*time.Millisecond || m.update.p99 != 5*time.Millisecond || m.share != 0.2 {
		t.Errorf("medians: %+v", m)
	}
	if got := medianFloat([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median of an even count = %v, want 2.5", got)
	}
}

func TestCompareBaseline(t *testing.T) {
	newRuns := []wrkRun{{requests: 100, rate: 96, cpu: 100 * time.Millisecond}, {requests: 100, rate: 90, cpu: 100 * time.Millisecond}, {requests: 100, rate: 110, cpu: 100 * time.Millisecond}}
	baseRuns := []wrkRun{{requests: 100, rate: 100, cpu: 80 * time.Millisecond}, {requests: 100, rate: 100, cpu: 100 * time.Millisecond}, {requests: 100, rate: 100, cpu: 125 * time.Millisecond}}
	r := compareBaseline(newRuns, baseRuns)
	// Ratios of each round's pair, not of the medians: 0.96, 0.90, 1.10.
	if r.medianRate != 0.96 {
		t.Errorf("median throughput ratio %v, want 0.96 (rounds %v)", r.medianRate, r.rate)
	}
	if r.medianCPU != 1 {
		t.Errorf("median CPU ratio %v, want 1 (rounds %v)", r.medianCPU, r.cpu)
	}
}
