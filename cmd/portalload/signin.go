package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orgportal/portal-api/internal/bench"
)

// Targets of the sign-in run, which the report states whether it meets.
const (
	// settings/update's share of the requests served, with 20% of the
	// connections: sign-ins, each a password hash and a token written,
	// must not starve the writes sharing the store with them.
	targetUpdateShare = 0.15
	targetUpdateP99   = 5 * time.Millisecond
)

// The demo seed's administrator (server/seed/demo.yaml): a right password,
// since wrong ones are throttled.
const (
	seedDemoAdmin         = "admin"
	seedDemoAdminPassword = "admin-password"
	signinReferer         = "https://bench.example.org"
)

type signinConfig struct {
	portald         string
	signins, writes int // wrk connections of each
	rounds          int
	duration        time.Duration
}

// signinForm is the sign-in each request of the run sends: the demo
// administrator, a token bound to a referer as a browser application asks.
func signinForm() string {
	return url.Values{
		"f": {"json"}, "username": {seedDemoAdmin}, "password": {seedDemoAdminPassword},
		"client": {"referer"}, "referer": {signinReferer},
	}.Encode()
}

// wrkSide is what one wrk process of a run measured.
type wrkSide struct {
	requests int64
	rate     float64
	p99      time.Duration
	// failed counts answers that were not a success (HTTP status or body);
	// socketErrors the connections' errors and timeouts.
	failed, socketErrors int64
	firstFailure         string
}

func (s wrkSide) errors() int64 { return s.failed + s.socketErrors }

// signinRound is one round: sign-ins and settings/update at once.
type signinRound struct {
	signin, update wrkSide
	cpu            time.Duration // the server's, over the round
	load           string
}

// updateShare is settings/update's share of all the requests served.
func (r signinRound) updateShare() float64 {
	total := r.signin.requests + r.update.requests
	if total == 0 {
		return 0
	}
	return float64(r.update.requests) / float64(total)
}

func (r signinRound) cpuPerRequest() time.Duration {
	total := r.signin.requests + r.update.requests
	if total == 0 {
		return 0
	}
	return r.cpu / time.Duration(total)
}

// runSignin measures sign-ins beside writes on SQLite: portald (its default
// flags, a temporary SQLite file) with cfg.signins wrk connections signing
// in (generateToken) and, at the same time, cfg.writes sending
// settings/update, cfg.rounds rounds of cfg.duration. It reports each round,
// the medians and whether the targets are met; a missed target is no error,
// a failed request is.
func runSignin(ctx context.Context, out io.Writer, cfg signinConfig) error {
	wrk, dir, err := wrkSetUp("portalload-signin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := startServer(ctx, cfg.portald, "-db", filepath.Join(dir, "portal.db"))
	if err != nil {
		return err
	}
	defer p.stop()
	if _, err := p.waitHealthy(ctx, time.Now()); err != nil {
		return err
	}
	signinURL := p.root + "/sharing/rest/generateToken"
	updateURL := p.root + "/sharing/rest/portals/self/settings/update"
	updateForm := bench.SettingsForm(seedDemoAdminToken, 1).Encode()
	if err := checkToken(signinURL, signinForm()); err != nil {
		return err
	}
	if err := checkSuccess(updateURL, updateForm); err != nil {
		return err
	}
	signinScript := filepath.Join(dir, "signin.lua")
	updateScript := filepath.Join(dir, "update.lua")
	if err := os.WriteFile(signinScript, []byte(countingScript(signinForm(), `"token":"`)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(updateScript, []byte(countingScript(updateForm, `"success":true`)), 0o644); err != nil {
		return err
	}

	fmt.Fprintf(out, "sign-ins beside writes: portald (default flags, SQLite file), %d connections signing in (generateToken) and %d sending settings/update at once, %s per round, %d rounds\n",
		cfg.signins, cfg.writes, cfg.duration, cfg.rounds)
	fmt.Fprintf(out, "%5s %10s %9s %10s %9s %13s %12s %7s  %s\n", "round", "sign-ins/s", "p99", "updates/s", "p99", "update share", "CPU/request", "failed", "load average after")
	var rounds []signinRound
	for i := range cfg.rounds {
		before, err := procCPU(p.cmd.Process.Pid)
		if err != nil {
			return err
		}
		var (
			wg                   sync.WaitGroup
			signinOut, updateOut string
			signinErr, updateErr error
		)
		wg.Go(func() {
			signinOut, signinErr = wrkLatency(ctx, wrk, signinScript, signinURL, cfg.signins, cfg.duration)
		})
		wg.Go(func() { updateOut, updateErr = wrkLatency(ctx, wrk, updateScript, updateURL, cfg.writes, cfg.duration) })
		wg.Wait()
		if err := errors.Join(signinErr, updateErr); err != nil {
			return err
		}
		after, err := procCPU(p.cmd.Process.Pid)
		if err != nil {
			return err
		}
		r := signinRound{cpu: after - before, load: loadAverage()}
		if r.signin, err = parseWrkSide(signinOut); err != nil {
			return fmt.Errorf("sign-ins: %w", err)
		}
		if r.update, err = parseWrkSide(updateOut); err != nil {
			return fmt.Errorf("settings/update: %w", err)
		}
		rounds = append(rounds, r)
		fmt.Fprintf(out, "%5d %10.0f %9s %10.0f %9s %12.1f%% %9.1f µs %7d  %s\n", i+1, r.signin.rate, ms(r.signin.p99), r.update.rate, ms(r.update.p99),
			100*r.updateShare(), micros(r.cpuPerRequest()), r.signin.errors()+r.update.errors(), r.load)
	}

	m := medianRound(rounds)
	fmt.Fprintf(out, "median of %d rounds: sign-ins %.0f req/s, p99 %s; settings/update %.0f req/s, p99 %s; %.1f µs CPU/request\n",
		cfg.rounds, m.signin.rate, ms(m.signin.p99), m.update.rate, ms(m.update.p99), micros(m.cpuPerRequest))
	fmt.Fprintf(out, "settings/update's share of the requests served: %.1f%% with %.0f%% of the connections  (target ≥ %.0f%%: %s)\n",
		100*m.share, 100*float64(cfg.writes)/float64(cfg.writes+cfg.signins), 100*targetUpdateShare, verdict(m.share >= targetUpdateShare))
	fmt.Fprintf(out, "settings/update p99: %s  (target ≤ %s: %s)\n", ms(m.update.p99), ms(targetUpdateP99), verdict(m.update.p99 <= targetUpdateP99))
	var signinErrs, updateErrs int64
	var first string
	for _, r := range rounds {
		signinErrs += r.signin.errors()
		updateErrs += r.update.errors()
		first = cmp.Or(first, r.signin.firstFailure, r.update.firstFailure)
	}
	if signinErrs+updateErrs == 0 {
		fmt.Fprintln(out, "every answer a success: met")
		return nil
	}
	fmt.Fprintf(out, "\n*** REQUESTS FAILED: %d sign-ins and %d settings/update were not a success; the figures above are not those of a working server ***\n", signinErrs, updateErrs)
	if first != "" {
		fmt.Fprintf(out, "*** the first failure: %s ***\n", first)
	}
	return fmt.Errorf("%d requests failed", signinErrs+updateErrs)
}

// verdict is how the sign-in and the build-against-build runs state a
// target: loudly when it is missed.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// checkToken posts a sign-in once and fails unless the answer holds a token.
func checkToken(target, form string) error {
	resp, err := http.Post(target, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"token":"`)) {
		return fmt.Errorf("%s: want a token, got %d %s", target, resp.StatusCode, b)
	}
	return nil
}

// countingScript is a wrk script posting form and counting the answers that
// are not a success: an HTTP status other than 200, or a body without want
// (the API's error envelope comes with 200). Its done prints the counts, and
// the first failure, for parseWrkSide.
func countingScript(form, want string) string {
	return fmt.Sprintf(`wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = %q
local want = %q
local threads = {}
function setup(thread) table.insert(threads, thread) end
failed = 0
first = ""
function response(status, headers, body)
  if status ~= 200 or not string.find(body, want, 1, true) then
    failed = failed + 1
    if first == "" then first = status .. " " .. string.sub(body, 1, 200) end
  end
end
function done(summary, latency, requests)
  local n, sample = 0, ""
  for _, t in ipairs(threads) do
    n = n + t:get("failed")
    if sample == "" then sample = t:get("first") end
  end
  local e = summary.errors
  io.write(string.format("FAILED %%d\nSOCKET_ERRORS %%d\n", n, e.connect + e.read + e.write + e.timeout))
  if sample ~= "" then io.write("FIRST_FAILURE " .. (string.gsub(sample, "\n", " ")) .. "\n") end
end
`, form, want)
}

// wrkLatency runs wrk with one thread (the CPU is the server's), conns
// connections and --latency, and returns its output.
func wrkLatency(ctx context.Context, wrk, script, url string, conns int, d time.Duration) (string, error) {
	cmd := exec.CommandContext(ctx, wrk, "-t", "1", "-c", strconv.Itoa(conns), "-d", d.String(), "--timeout", "10s", "--latency", "-s", script, url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("wrk: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

var (
	wrkP99       = regexp.MustCompile(`(?m)^\s+99%\s+([0-9.]+)(us|ms|s|m|h)\s*$`)
	wrkFailed    = regexp.MustCompile(`(?m)^FAILED (\d+)$`)
	wrkSocketErr = regexp.MustCompile(`(?m)^SOCKET_ERRORS (\d+)$`)
	wrkFirst     = regexp.MustCompile(`(?m)^FIRST_FAILURE (.*)$`)
)

// parseWrkSide reads the output of a counting script's wrk run with
// --latency: requests, rate, p99 and the failures counted.
func parseWrkSide(text string) (wrkSide, error) {
	total, rate, p99 := wrkTotal.FindStringSubmatch(text), wrkRate.FindStringSubmatch(text), wrkP99.FindStringSubmatch(text)
	failed, sock := wrkFailed.FindStringSubmatch(text), wrkSocketErr.FindStringSubmatch(text)
	if total == nil || rate == nil || p99 == nil || failed == nil || sock == nil {
		return wrkSide{}, fmt.Errorf("cannot read wrk's output:\n%s", text)
	}
	var s wrkSide
	s.requests, _ = strconv.ParseInt(total[1], 10, 64)
	s.rate, _ = strconv.ParseFloat(rate[1], 64)
	s.failed, _ = strconv.ParseInt(failed[1], 10, 64)
	s.socketErrors, _ = strconv.ParseInt(sock[1], 10, 64)
	if f := wrkFirst.FindStringSubmatch(text); f != nil {
		s.firstFailure = f[1]
	}
	var err error
	if s.p99, err = wrkDuration(p99[1], p99[2]); err != nil {
		return wrkSide{}, err
	}
	return s, nil
}

// wrkDuration reads a latency as wrk prints it: a number and its unit.
func wrkDuration(v, unit string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("wrk latency %q: %w", v+unit, err)
	}
	scale := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	if scale == 0 {
		return 0, fmt.Errorf("wrk latency %q: unknown unit", v+unit)
	}
	return time.Duration(f * float64(scale)), nil
}

// signinMedian is each figure's median over the rounds.
type signinMedian struct {
	signin, update wrkSide // rate and p99
	share          float64
	cpuPerRequest  time.Duration
}

func medianRound(rounds []signinRound) signinMedian {
	of := func(f func(signinRound) float64) float64 {
		xs := make([]float64, len(rounds))
		for i, r := range rounds {
			xs[i] = f(r)
		}
		return medianFloat(xs)
	}
	var m signinMedian
	m.signin.rate = of(func(r signinRound) float64 { return r.signin.rate })
	m.signin.p99 = time.Duration(of(func(r signinRound) float64 { return float64(r.signin.p99) }))
	m.update.rate = of(func(r signinRound) float64 { return r.update.rate })
	m.update.p99 = time.Duration(of(func(r signinRound) float64 { return float64(r.update.p99) }))
	m.share = of(signinRound.updateShare)
	m.cpuPerRequest = time.Duration(of(func(r signinRound) float64 { return float64(r.cpuPerRequest()) }))
	return m
}

// medianFloat is the median of xs (the mean of the middle two for an even
// count); xs is not reordered.
func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
