// Command pg is the driver of `make bench-pg` (and of `make bench-ab`'s
// PostgreSQL half, with -baseline: ab.go): portald on PostgreSQL beside
// pgbench running the single statement each operation amounts to, on the
// same database, at several client counts, alternating, in rounds whose
// medians are printed as ratios, beside the floor server sending the same
// statements with nothing around them (what Go, echo and pgx cost alone, one
// statement per request); then two portald replicas behind a round-robin
// client; then each target, measured and met or not, in one table.
// The HTTP load comes from wrk (one thread, so that the CPU is left to the
// server); the server's CPU per request is read from /proc.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/orgportal/portal-api/internal/bench"
)

const (
	orgID = "0123456789ABCDEF"
	token = "demo-admin-token"
)

// Targets: a ratio is portald's requests per second over the floor's, or
// over pgbench's transactions per second, at the same client count.
const (
	minFloorRatio   = 0.8  // settings/update over the floor's, at 1 and 16 clients
	minUpsertRatio  = 0.5  // settings/update over pgbench's upsert, at 16 clients
	minReadRatio    = 0.25 // the settings read over pgbench's select, at 16 clients
	targetedClients = 16   // the client count of the targets but the floor's at 1
)

// target is one target of the run and how it fared.
type target struct {
	what, measured string
	met            bool
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-pg:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		db       = flag.String("db", os.Getenv("PORTAL_TEST_POSTGRES"), "PostgreSQL `url` to bench in (a schema of its own is made and dropped)")
		portald  = flag.String("portald", "", "portald `binary`")
		floor    = flag.String("floor", "", "floor server `binary` (internal/bench/floor)")
		clients  = flag.String("clients", "", "comma-separated client `counts` (default 1,16,64; with -baseline 1,16)")
		duration = flag.Duration("duration", 5*time.Second, "`length` of each run")
		nrounds  = flag.Int("rounds", 3, "`rounds` of runs, whose medians are printed")
		baseline = flag.String("baseline", "", "a portald `binary` of the build before: compare -portald with it on settings/update instead")
	)
	flag.Parse()
	if *db == "" || *portald == "" || (*floor == "" && *baseline == "") {
		return errors.New("-db (or PORTAL_TEST_POSTGRES), -portald and -floor (or -baseline) are required")
	}
	if *nrounds < 1 {
		return errors.New("-rounds must be at least 1")
	}
	if *clients == "" {
		*clients = "1,16,64"
		if *baseline != "" {
			*clients = "1,16"
		}
	}
	counts, err := parseCounts(*clients)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if *baseline != "" {
		return runBaseline(ctx, abConfig{db: *db, portald: *portald, baseline: *baseline, counts: counts, d: *duration, rounds: *nrounds})
	}
	schema, dsn, drop, err := makeSchema(ctx, *db)
	if err != nil {
		return err
	}
	defer drop()
	dir, err := os.MkdirTemp("", "bench-pg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pgbenchDB, err := withOptions(*db, "-csearch_path="+schema)
	if err != nil {
		return err
	}
	s := &runner{dir: dir, db: pgbenchDB, d: *duration}
	if err := s.scripts(); err != nil {
		return err
	}

	a, err := startPortald(ctx, *portald, dsn)
	if err != nil {
		return err
	}
	defer a.stop()
	f, err := startServer(ctx, listeningFloor, *floor, "-db", dsn, "-org", orgID)
	if err != nil {
		return err
	}
	defer f.stop()
	fmt.Printf("portald on PostgreSQL beside pgbench (prepared statements) on one database; %v per run, runs alternating;\n", *duration)
	fmt.Printf("each figure the median of %d rounds (a ratio: of the rounds' ratios)\n\n", *nrounds)
	all := make([][]round, len(counts))
	for k := 0; k < *nrounds; k++ {
		for i, n := range counts {
			rd, err := s.round(a, f, n)
			if err != nil {
				return err
			}
			all[i] = append(all[i], rd)
		}
	}
	fmt.Println("| clients | settings/update req/s | p99 | CPU/req | errors | pgbench upsert tps | ratio | settings read req/s | p99 | CPU/req | errors | pgbench select tps | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var targets []target
	errs := 0
	for i, n := range counts {
		rs := all[i]
		u, up, r, sel := medianOf(rs, updateRun), medianOf(rs, upsertRun), medianOf(rs, readRun), medianOf(rs, selectRun)
		uRatio := median(rs, func(rd round) float64 { return rd.u.rps / rd.up.rps })
		rRatio := median(rs, func(rd round) float64 { return rd.r.rps / rd.sel.rps })
		fRatio := median(rs, func(rd round) float64 { return rd.u.rps / rd.fl.rps })
		fmt.Printf("| %d | %.0f | %s | %s | %d | %.0f | %.2f | %.0f | %s | %s | %d | %.0f | %.2f |\n",
			n, u.rps, ms(u.p99), us(u.cpu), u.errors, up.rps, uRatio, r.rps, ms(r.p99), us(r.cpu), r.errors, sel.rps, rRatio)
		if n == 1 || n == targetedClients {
			targets = append(targets, target{fmt.Sprintf("settings/update at %s ≥ %.1f of the floor's", clientsOf(n), minFloorRatio),
				fmt.Sprintf("%.2f (%.0f ÷ %.0f req/s)", fRatio, u.rps, medianOf(rs, floorUpdateRun).rps), fRatio >= minFloorRatio})
		}
		if n == targetedClients {
			targets = append(targets,
				target{fmt.Sprintf("settings/update at %d clients ≥ %.1f of pgbench's hot-row upsert", n, minUpsertRatio),
					fmt.Sprintf("%.2f (%.0f ÷ %.0f)", uRatio, u.rps, up.rps), uRatio >= minUpsertRatio},
				target{fmt.Sprintf("settings/update p99 at %d clients ≤ pgbench's own", n),
					fmt.Sprintf("%s (pgbench %s)", ms(u.p99), ms(up.p99)), u.p99 <= up.p99},
				target{fmt.Sprintf("settings read at %d clients ≥ %.2f of pgbench's point select", n, minReadRatio),
					fmt.Sprintf("%.2f (%.0f ÷ %.0f)", rRatio, r.rps, sel.rps), rRatio >= minReadRatio})
		}
		errs += u.errors + r.errors
	}

	fmt.Println("\nWhat the platform does alone, in the same rounds: pgbench's upsert latency, and the floor server, echo sending the")
	fmt.Println("same statements through pgx and nothing else (internal/bench/floor -db): no validation, no token, no journal;")
	fmt.Println("one statement per request, each its own transaction, as portald's settings/update; its reads are not merged:")
	fmt.Println()
	fmt.Println("| clients | pgbench upsert p99 | floor update req/s | p99 | CPU/req | ÷ pgbench | portald ÷ floor | floor read req/s | CPU/req | ÷ pgbench | portald ÷ floor |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for i, n := range counts {
		rs := all[i]
		up, fl, flr := medianOf(rs, upsertRun), medianOf(rs, floorUpdateRun), medianOf(rs, floorReadRun)
		fmt.Printf("| %d | %s | %.0f | %s | %s | %.2f | %.2f | %.0f | %s | %.2f | %.2f |\n", n, ms(up.p99),
			fl.rps, ms(fl.p99), us(fl.cpu),
			median(rs, func(rd round) float64 { return rd.fl.rps / rd.up.rps }),
			median(rs, func(rd round) float64 { return rd.u.rps / rd.fl.rps }),
			flr.rps, us(flr.cpu),
			median(rs, func(rd round) float64 { return rd.flr.rps / rd.sel.rps }),
			median(rs, func(rd round) float64 { return rd.r.rps / rd.flr.rps }))
	}
	if *nrounds > 1 {
		fmt.Println("\nThe rounds' ratios, settings/update ÷ pgbench upsert and settings read ÷ pgbench select:")
		fmt.Println()
		for i, n := range counts {
			var updates, reads []string
			for _, rd := range all[i] {
				updates = append(updates, fmt.Sprintf("%.2f", rd.u.rps/rd.up.rps))
				reads = append(reads, fmt.Sprintf("%.2f", rd.r.rps/rd.sel.rps))
			}
			fmt.Printf("- %s: update %s; read %s\n", clientsOf(n), strings.Join(updates, ", "), strings.Join(reads, ", "))
		}
	}

	b, err := startPortald(ctx, *portald, dsn)
	if err != nil {
		return err
	}
	defer b.stop()
	fmt.Println("\nTwo replicas, each sent half the clients (round robin by connection):")
	fmt.Println()
	fmt.Println("| clients | settings/update req/s | p99 | errors | settings read req/s | p99 | errors |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, n := range counts {
		if n < 2 {
			continue
		}
		u, err := s.wrk([]*server{a, b}, "update.lua", n)
		if err != nil {
			return err
		}
		r, err := s.wrk([]*server{a, b}, "read.lua", n)
		if err != nil {
			return err
		}
		fmt.Printf("| %d | %.0f | %s | %d | %.0f | %s | %d |\n", n, u.rps, ms(u.p99), u.errors, r.rps, ms(r.p99), r.errors)
		errs += u.errors + r.errors
	}
	targets = append(targets, target{"no request fails", fmt.Sprintf("%d errors", errs), errs == 0})
	if !slices.Contains(counts, 1) || !slices.Contains(counts, targetedClients) {
		fmt.Printf("\n(the targets are at 1 and %d clients: not all measured in this run)\n", targetedClients)
	}
	fmt.Println("\nTargets:")
	fmt.Println()
	fmt.Println("| target | measured | |")
	fmt.Println("|---|---|---|")
	missed := 0
	for _, tg := range targets {
		verdict := "met"
		if !tg.met {
			verdict, missed = "**not met**", missed+1
		}
		fmt.Printf("| %s | %s | %s |\n", tg.what, tg.measured, verdict)
	}
	fmt.Println()
	if missed > 0 {
		return fmt.Errorf("%d targets missed (on a machine shared with other work, run it again quiet)", missed)
	}
	fmt.Println("all targets met")
	return nil
}

// clientsOf is "1 client" or "n clients".
func clientsOf(n int) string {
	if n == 1 {
		return "1 client"
	}
	return strconv.Itoa(n) + " clients"
}

func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("client count %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

// withOptions returns the PostgreSQL URL base with libpq's options
// parameter set (pgbench has no search_path of its own).
func withOptions(base, options string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("options", options)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// makeSchema creates a schema of its own in the database at base and returns
// base set to use it, and how to drop it.
func makeSchema(ctx context.Context, base string) (schema, dsn string, drop func(), err error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", "", nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema = "portal_bench_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		return "", "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop = func() {
		_, _ = admin.ExecContext(context.WithoutCancel(ctx), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return schema, u.String(), drop, nil
}

// runner runs the load: pgbench, and wrk against the servers.
type runner struct {
	dir, db string // db with the bench's schema as search_path
	d       time.Duration
}

// scripts writes the pgbench scripts (the statement portald runs for each
// operation, with the values of one request) and the wrk scripts.
func (s *runner) scripts() error {
	files := map[string]string{
		// Tx.PatchSettings' upsert of the banner, its values bound as
		// portald binds them (pgbench -D sets :org and :banner).
		"upsert.sql": strings.NewReplacer("$1", ":org", "$2", ":banner").Replace(bench.PGUpsertBanner) + ";\n",
		// Tx.Settings.
		"select.sql": strings.ReplaceAll(bench.PGSelectSettings, "$1", ":org") + ";\n",
		"update.lua": `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
local n = 0
request = function()
  n = n + 1
  local body = "f=json&token=` + token + `&informationalBanner=" ..
    "%7B%22text%22%3A%22Maintenance%20window%20" .. n .. "%22%2C%22bgColor%22%3A%22%23003366%22%2C%22fontColor%22%3A%22white%22%2C%22enabled%22%3Atrue%7D"
  return wrk.format(nil, wrk.path .. "/portals/self/settings/update", nil, body)
end
` + wrkCounting,
		"read.lua": `request = function()
  return wrk.format("GET", wrk.path .. "/portals/self/settings?f=json&token=` + token + `")
end
` + wrkCounting,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// wrkCounting counts the answers that are not a success: HTTP errors, and
// the API's error envelope, which comes with HTTP 200.
const wrkCounting = `local threads = {}
setup = function(thread) table.insert(threads, thread) end
errors = 0
response = function(status, headers, body)
  if status ~= 200 or string.find(body, '"error"', 1, true) then errors = errors + 1 end
end
done = function(summary, latency, requests)
  local e = 0
  for _, t in ipairs(threads) do e = e + t:get("errors") end
  io.write(string.format("ERRORS %d\n", e + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
  io.write(string.format("P99US %d\n", latency:percentile(99)))
end
`

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbench runs a script at n clients and returns its transactions per
// second and the 99th percentile of their latencies (from its log, -l).
func (s *runner) pgbench(script string, n int) (result, error) {
	prefix := filepath.Join(s.dir, "pgbench_log")
	out, err := exec.Command("pgbench", "-n", "-M", "prepared", "-c", strconv.Itoa(n), "-j", strconv.Itoa(min(n, 2)),
		"-T", strconv.Itoa(max(1, int(s.d.Seconds()))), "-f", filepath.Join(s.dir, script), "-l", "--log-prefix", prefix,
		"-D", "org="+orgID, "-D", `banner={"text":"Maintenance window 1","bgColor":"#003366","fontColor":"white","enabled":true}`, s.db).CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("pgbench %s: %v\n%s", script, err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return result{}, fmt.Errorf("pgbench %s: no tps in\n%s", script, out)
	}
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return result{}, err
	}
	p99, err := logP99(prefix)
	if err != nil {
		return result{}, fmt.Errorf("pgbench %s: %w", script, err)
	}
	return result{rps: tps, p99: p99}, nil
}

// logP99 reads and removes pgbench's transaction logs (prefix.PID, one per
// thread), whose third field is each transaction's latency in
// microseconds, and returns their 99th percentile.
func logP99(prefix string) (time.Duration, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("no transaction log at %s.*", prefix)
	}
	var lat []time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		_ = os.Remove(f)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("transaction log line %q", line)
			}
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
	}
	if len(lat) == 0 {
		return 0, errors.New("empty transaction log")
	}
	slices.Sort(lat)
	return lat[len(lat)*99/100], nil
}

// round is one round's runs at one client count, in the order they ran.
type round struct{ up, u, fl, sel, r, flr result }

// The runs of a round, for medianOf.
var (
	upsertRun      = func(rd round) result { return rd.up }
	updateRun      = func(rd round) result { return rd.u }
	floorUpdateRun = func(rd round) result { return rd.fl }
	selectRun      = func(rd round) result { return rd.sel }
	readRun        = func(rd round) result { return rd.r }
	floorReadRun   = func(rd round) result { return rd.flr }
)

// round runs, at n clients: pgbench's upsert, settings/update on portald
// then on the floor, pgbench's select, the settings read on portald then on
// the floor.
func (s *runner) round(portald, floor *server, n int) (rd round, err error) {
	steps := []struct {
		dst    *result
		srv    *server
		script string
	}{{&rd.up, nil, "upsert.sql"}, {&rd.u, portald, "update.lua"}, {&rd.fl, floor, "update.lua"},
		{&rd.sel, nil, "select.sql"}, {&rd.r, portald, "read.lua"}, {&rd.flr, floor, "read.lua"}}
	for _, st := range steps {
		if st.srv == nil {
			*st.dst, err = s.pgbench(st.script, n)
		} else {
			*st.dst, err = s.wrk([]*server{st.srv}, st.script, n)
		}
		if err != nil {
			return rd, err
		}
	}
	if e := rd.fl.errors + rd.flr.errors; e > 0 {
		return rd, fmt.Errorf("the floor server failed %d requests at %d clients", e, n)
	}
	return rd, nil
}

// median is the median of f over the rounds.
func median[R any](rs []R, f func(R) float64) float64 {
	xs := make([]float64, len(rs))
	for i, rd := range rs {
		xs[i] = f(rd)
	}
	slices.Sort(xs)
	if len(xs)%2 == 0 {
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return xs[len(xs)/2]
}

// medianOf is one run's figures, each the median of the rounds', but errors,
// which add up.
func medianOf[R any](rs []R, run func(R) result) result {
	var res result
	res.rps = median(rs, func(rd R) float64 { return run(rd).rps })
	res.p99 = time.Duration(median(rs, func(rd R) float64 { return float64(run(rd).p99) }))
	res.cpu = time.Duration(median(rs, func(rd R) float64 { return float64(run(rd).cpu) }))
	for _, rd := range rs {
		res.errors += run(rd).errors
	}
	return res
}

type result struct {
	rps    float64
	p99    time.Duration
	cpu    time.Duration // the servers' CPU per request
	errors int
}

var (
	rpsLine = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	errLine = regexp.MustCompile(`ERRORS (\d+)`)
	p99Line = regexp.MustCompile(`P99US (\d+)`)
)

// wrk sends n connections' load, split over the servers, and sums what they
// answered; p99 is the worst server's.
func (s *runner) wrk(servers []*server, script string, n int) (result, error) {
	var res result
	cpu0 := make([]time.Duration, len(servers))
	for i, sv := range servers {
		cpu0[i] = sv.cpu()
	}
	cmds := make([]*exec.Cmd, len(servers))
	outs := make([]*strings.Builder, len(servers))
	for i, sv := range servers {
		conns := n / len(servers)
		if i < n%len(servers) {
			conns++
		}
		outs[i] = &strings.Builder{}
		cmds[i] = exec.Command("wrk", "-t", "1", "-c", strconv.Itoa(conns), "--timeout", "10s", "-d", fmt.Sprintf("%ds", max(1, int(s.d.Seconds()))),
			"-s", filepath.Join(s.dir, script), sv.api)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			return res, fmt.Errorf("wrk: %w", err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			return res, fmt.Errorf("wrk: %v\n%s", err, outs[i])
		}
	}
	var cpu time.Duration
	for i, sv := range servers {
		cpu += sv.cpu() - cpu0[i]
		out := outs[i].String()
		m, e, p := rpsLine.FindStringSubmatch(out), errLine.FindStringSubmatch(out), p99Line.FindStringSubmatch(out)
		if m == nil || e == nil || p == nil {
			return res, fmt.Errorf("wrk: unexpected output\n%s", out)
		}
		rps, _ := strconv.ParseFloat(m[1], 64)
		errs, _ := strconv.Atoi(e[1])
		p99, _ := strconv.Atoi(p[1])
		res.rps += rps
		res.errors += errs
		res.p99 = max(res.p99, time.Duration(p99)*time.Microsecond)
	}
	if total := res.rps * s.d.Seconds(); total > 0 {
		res.cpu = time.Duration(float64(cpu) / total)
	}
	return res, nil
}

// server is a running portald.
type server struct {
	cmd *exec.Cmd
	api string // base URL ending in /sharing/rest
}

// What portald and the floor print once they listen: the API's base URL,
// or the address (the floor answers any path).
var (
	listeningPortald = regexp.MustCompile(`API at (http://\S+/sharing/rest)`)
	listeningFloor   = regexp.MustCompile(`floor listening on (\S+)`)
)

func startPortald(ctx context.Context, bin, dsn string) (*server, error) {
	return startServer(ctx, listeningPortald, bin, "-addr", "127.0.0.1:0", "-log-level", "warn", "-db", dsn)
}

// startServer starts bin with args and waits for the line that listening
// matches on its standard output.
func startServer(ctx context.Context, listening *regexp.Regexp, bin string, args ...string) (*server, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-lines:
		if !strings.HasPrefix(u, "http://") {
			u = "http://" + u + "/sharing/rest"
		}
		return &server{cmd: cmd, api: u}, nil
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("%s did not start within a minute", filepath.Base(bin))
	}
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

// cpu is the process's user and system CPU time so far, from /proc.
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}
