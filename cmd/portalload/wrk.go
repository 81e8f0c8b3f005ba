package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orgportal/portal-api/internal/bench"
)

// Targets of the wrk comparison (settings/update against the floor), which
// the report states whether it meets; they are not asserted anywhere.
const (
	targetCPURatio        = 2.5 // server CPU per request, at most this many times the floor's
	targetThroughputRatio = 0.5 // requests per second, at least this share of the floor's
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// Target of the build-against-build comparison (-baseline): the new build
// keeps this share of the old one's throughput, and spends at most the
// inverse of it in CPU per request.
const targetBaselineRatio = 0.95

type wrkConfig struct {
	portald, floor string
	// baseline, when set, is a portald built before a change, measured in
	// the floor's place.
	baseline      string
	conns, rounds int
	duration      time.Duration
}

// wrkRun is one wrk run against one server.
type wrkRun struct {
	requests int64
	rate     float64       // requests per second, as wrk reports it
	cpu      time.Duration // the server's CPU time (user+system) over the run
}

func (r wrkRun) cpuPerRequest() time.Duration {
	if r.requests == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.requests)
}

// wrkServer is one of the two servers compared, and its runs.
type wrkServer struct {
	name string
	p    *proc
	runs []wrkRun
}

// runWrk measures settings/update on portald (its default flags, on a
// temporary SQLite file) against the floor server with wrk, which leaves the
// CPU to the servers: cfg.rounds rounds, the two servers taking turns, each
// run cfg.conns connections for cfg.duration. It reports each server's
// throughput and CPU per request, their ratios (the median round of each)
// and whether the targets are met. With cfg.baseline, the old build runs in
// the floor's place, on a SQLite file of its own, and the ratios are new
// over old, the median of the rounds' (the two runs of a round are
// neighbours in time, so that the machine's drift cancels in each).
// wrkSetUp finds wrk and makes the run's temporary directory (named from
// prefix), which the caller removes.
func wrkSetUp(prefix string) (wrk, dir string, err error) {
	if wrk, err = exec.LookPath("wrk"); err != nil {
		return "", "", errors.New("wrk is not installed (Debian package wrk)")
	}
	dir, err = os.MkdirTemp("", prefix)
	return wrk, dir, err
}

func runWrk(ctx context.Context, out io.Writer, cfg wrkConfig) error {
	wrk, dir, err := wrkSetUp("portalload-wrk-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var servers [2]wrkServer
	if cfg.baseline != "" {
		// Each build with its default flags, on a SQLite file of its own.
		n, b, err := startPair(ctx, []string{cfg.portald, "-db", filepath.Join(dir, "new.db")}, []string{cfg.baseline, "-db", filepath.Join(dir, "base.db")})
		if err != nil {
			return err
		}
		defer n.stop()
		defer b.stop()
		servers = [2]wrkServer{{name: "new", p: n}, {name: "base", p: b}}
	} else {
		p, f, err := startPair(ctx, []string{cfg.portald, "-db", filepath.Join(dir, "portal.db")}, []string{cfg.floor})
		if err != nil {
			return err
		}
		defer p.stop()
		defer f.stop()
		servers = [2]wrkServer{{name: "portald", p: p}, {name: "floor", p: f}}
	}
	// One form for both, as the Go benchmarks send: the same banner each
	// time, so that wrk sends a fixed request and spends no CPU on it.
	form := bench.SettingsForm(seedDemoAdminToken, 1).Encode()
	target := "/sharing/rest/portals/self/settings/update"
	for _, s := range servers {
		if err := checkSuccess(s.p.root+target, form); err != nil {
			return err
		}
	}
	script := filepath.Join(dir, "settings-update.lua")
	lua := fmt.Sprintf("wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nwrk.body = %q\n", form)
	if err := os.WriteFile(script, []byte(lua), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrk: settings/update, %d connections, %s per run, %d rounds, %s and %s taking turns\n", cfg.conns, cfg.duration, cfg.rounds, servers[0].name, servers[1].name)
	fmt.Fprintf(out, "%-8s %5s %9s %9s %14s  %s\n", "server", "round", "requests", "req/s", "CPU/request", "load average after")
	for round := range cfg.rounds {
		for i := range servers {
			// Alternate which goes first, so that neither always runs on a
			// machine warmed (or disturbed) by the other.
			s := &servers[(i+round)%len(servers)]
			r, err := wrkOnce(ctx, wrk, script, s.p, s.p.root+target, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			s.runs = append(s.runs, r)
			fmt.Fprintf(out, "%-8s %5d %9d %9.0f %11.1f µs  %s\n", s.name, round+1, r.requests, r.rate, micros(r.cpuPerRequest()), loadAverage())
		}
	}
	if cfg.baseline != "" {
		reportBaseline(out, servers[0].runs, servers[1].runs)
		return nil
	}
	pd, fl := median(servers[0].runs), median(servers[1].runs)
	cpuRatio := float64(pd.cpuPerRequest()) / float64(fl.cpuPerRequest())
	rateRatio := pd.rate / fl.rate
	fmt.Fprintf(out, "median of %d rounds: portald %.0f req/s, %.1f µs CPU/request; floor %.0f req/s, %.1f µs CPU/request\n",
		cfg.rounds, pd.rate, micros(pd.cpuPerRequest()), fl.rate, micros(fl.cpuPerRequest()))
	fmt.Fprintf(out, "CPU per request, portald ÷ floor: %.2f×  (target ≤ %.1f×: %s)\n", cpuRatio, targetCPURatio, met(cpuRatio <= targetCPURatio))
	fmt.Fprintf(out, "throughput, portald ÷ floor: %.2f  (target ≥ %.1f: %s)\n", rateRatio, targetThroughputRatio, met(rateRatio >= targetThroughputRatio))
	return nil
}

// baselineRatios is the new build's figures over the old one's, one of
// each per round, and their medians.
type baselineRatios struct {
	rate, cpu             []float64 // throughput, CPU per request
	medianRate, medianCPU float64
}

// compareBaseline pairs the rounds' runs of the new build and the old.
func compareBaseline(newRuns, baseRuns []wrkRun) baselineRatios {
	var r baselineRatios
	for i := range min(len(newRuns), len(baseRuns)) {
		n, b := newRuns[i], baseRuns[i]
		r.rate = append(r.rate, n.rate/b.rate)
		r.cpu = append(r.cpu, float64(n.cpuPerRequest())/float64(b.cpuPerRequest()))
	}
	r.medianRate, r.medianCPU = medianFloat(r.rate), medianFloat(r.cpu)
	return r
}

func reportBaseline(out io.Writer, newRuns, baseRuns []wrkRun) {
	r := compareBaseline(newRuns, baseRuns)
	n, b := median(newRuns), median(baseRuns)
	fmt.Fprintf(out, "median of %d rounds: new %.0f req/s, %.1f µs CPU/request; base %.0f req/s, %.1f µs CPU/request\n",
		len(newRuns), n.rate, micros(n.cpuPerRequest()), b.rate, micros(b.cpuPerRequest()))
	fmt.Fprintf(out, "the rounds' ratios, new ÷ base: throughput %s; CPU per request %s\n", ratios(r.rate), ratios(r.cpu))
	fmt.Fprintf(out, "throughput, new ÷ base (median of the rounds'): %.3f  (target ≥ %.2f: %s)\n",
		r.medianRate, targetBaselineRatio, verdict(r.medianRate >= targetBaselineRatio))
	fmt.Fprintf(out, "CPU per request, new ÷ base (median of the rounds'): %.3f×  (target ≤ %.3f×, base's ÷ new's ≥ %.2f: %s)\n",
		r.medianCPU, 1/targetBaselineRatio, targetBaselineRatio, verdict(r.medianCPU*targetBaselineRatio <= 1))
}

// ratios formats xs with two decimals, comma-separated.
func ratios(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(s, ", ")
}

// loadAverage is the machine's 1-, 5- and 15-minute load averages, which
// say how much else ran beside the servers (the figures above are CPU time
// per request, but a busy machine slows both servers); "?" where unknown.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// seedDemoAdminToken is the demo organization's administrator token, which
// portald's default seed holds.
const seedDemoAdminToken = "demo-admin-token"

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// median returns the run of median throughput.
func median(runs []wrkRun) wrkRun {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b wrkRun) int {
		switch {
		case a.rate < b.rate:
			return -1
		case a.rate > b.rate:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}

// checkSuccess posts form to target once and fails unless the answer is
// {"success":true}: wrk itself cannot tell the error envelope (HTTP 200)
// from a success.
func checkSuccess(target, form string) error {
	resp, err := http.Post(target, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v struct {
		Success bool `json:"success"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &v) != nil || !v.Success {
		return fmt.Errorf("%s: want {\"success\":true}, got %d %s", target, resp.StatusCode, b)
	}
	return nil
}

var (
	wrkTotal = regexp.MustCompile(`(\d+) requests in`)
	wrkRate  = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
)

// wrkOnce runs wrk against url and reads the server's CPU time around it.
func wrkOnce(ctx context.Context, wrk, script string, s *proc, url string, cfg wrkConfig) (wrkRun, error) {
	before, err := procCPU(s.cmd.Process.Pid)
	if err != nil {
		return wrkRun{}, err
	}
	cmd := exec.CommandContext(ctx, wrk, "-t", "2", "-c", strconv.Itoa(cfg.conns), "-d", cfg.duration.String(), "-s", script, url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return wrkRun{}, fmt.Errorf("wrk: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	after, err := procCPU(s.cmd.Process.Pid)
	if err != nil {
		return wrkRun{}, err
	}
	return parseWrk(stdout.String(), after-before)
}

// parseWrk reads wrk's summary; errors it reports (sockets, non-2xx) fail
// the run.
func parseWrk(text string, cpu time.Duration) (wrkRun, error) {
	total, rate := wrkTotal.FindStringSubmatch(text), wrkRate.FindStringSubmatch(text)
	if total == nil || rate == nil {
		return wrkRun{}, fmt.Errorf("cannot read wrk's output:\n%s", text)
	}
	if strings.Contains(text, "Non-2xx") || strings.Contains(text, "Socket errors") {
		return wrkRun{}, fmt.Errorf("wrk saw errors:\n%s", text)
	}
	r := wrkRun{cpu: cpu}
	r.requests, _ = strconv.ParseInt(total[1], 10, 64)
	r.rate, _ = strconv.ParseFloat(rate[1], 64)
	if r.requests == 0 {
		return r, fmt.Errorf("wrk sent no request:\n%s", text)
	}
	return r, nil
}

// procCPU is the CPU time (user and system) process pid has used, from
// /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStat(string(b))
}

// parseStat reads utime and stime (fields 14 and 15) of a /proc/PID/stat
// line; the command name, field 2, may hold spaces, so fields are counted
// after its closing parenthesis.
func parseStat(line string) (time.Duration, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat line")
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat line")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
