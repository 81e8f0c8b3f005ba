// Command portalload puts a bounded load on the portal API and reports
// requests per second and latency percentiles per operation.
//
// Against a running server, workers send one kind of request after another
// for a duration:
//
//	portalload -url http://127.0.0.1:8080/sharing/rest -ops settings/update,settings -workers 8 -duration 10s
//
// Operations: settings/update, settings, memberCategorySchema, userContent,
// floor (settings/update's form, for the floor server of internal/bench/floor)
// and moveItems:N (batches of N ids), which needs a portald started with the
// seed written by -write-seed.
//
// With -wrk (what make bench runs first), portalload starts portald with its
// default flags and the floor server, and compares settings/update on both
// with wrk: throughput and server CPU per request (from /proc/PID/stat),
// three rounds taking turns, and whether the targets are met. With -baseline,
// a portald built before a change takes the floor's place: the report gives
// the new build's throughput and CPU per request as ratios of the old's.
//
// With -signin (make bench-signin), portalload starts portald with its
// default flags and runs two wrk processes at once against it, eight
// connections signing in with the demo administrator's password and two
// sending settings/update, and reports whether the writes keep their share
// of the requests served and their p99 latency.
//
// With -report (what make bench runs next), portalload starts the programs
// itself: portald on a temporary SQLite file with the bench seed, and the
// floor server; it measures their throughput side by side, moveItems latency
// as the batch grows, portald's start-up time to its first answered request
// and its resident memory, and prints one table.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := realMain(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "portalload:", err)
		os.Exit(1)
	}
}

func realMain(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("portalload", flag.ContinueOnError)
	var (
		base      = fs.String("url", "", "API `base` URL, ending in /sharing/rest")
		ops       = fs.String("ops", "settings/update", "comma-separated `operations`: settings/update, settings, memberCategorySchema, userContent, floor, moveItems:N")
		token     = fs.String("token", "demo-admin-token", "`token` of the settings and schema operations")
		user      = fs.String("user", "jsmith", "`user` whose content userContent reads")
		userToken = fs.String("user-token", "demo-user-token", "`token` of userContent")
		workers   = fs.Int("workers", 8, "concurrent `workers` (with -report: of the read runs)")
		sweep     = fs.String("sweep", "8,32,64", "with -report: comma-separated client `counts` at which the floor and settings/update are compared")
		duration  = fs.Duration("duration", 5*time.Second, "`duration` of each operation's run")
		seedPath  = fs.String("write-seed", "", "write the bench seed (the items moveItems:N moves) to `file` and exit")
		report    = fs.Bool("report", false, "start portald and the floor server, measure them, print the report")
		portald   = fs.String("portald", "", "portald `binary` (with -report)")
		floor     = fs.String("floor", "", "floor server `binary` (with -report)")
		startups  = fs.Int("startups", 7, "start-up runs whose median is reported (with -report)")
		wrk       = fs.Bool("wrk", false, "start portald (default flags) and the floor server, compare settings/update on both with wrk, print the report")
		conns     = fs.Int("connections", 16, "with -wrk: wrk's `connections`")
		rounds    = fs.Int("rounds", 3, "with -wrk and -signin: `rounds` of one run per server")
		baseline  = fs.String("baseline", "", "with -wrk: a portald `binary` of the build before, compared with -portald in the place of the floor")
		signin    = fs.Bool("signin", false, "start portald (default flags), sign in with wrk beside settings/update on it, print the report")
		signins   = fs.Int("signin-connections", 8, "with -signin: wrk's `connections` signing in")
		writes    = fs.Int("write-connections", 2, "with -signin: wrk's `connections` sending settings/update")
	)
	fs.SetOutput(out)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *workers < 1 || *duration <= 0 {
		return errors.New("-workers and -duration must be positive")
	}
	switch {
	case *seedPath != "":
		return writeSeed(*seedPath)
	case *wrk:
		if *portald == "" || (*floor == "") == (*baseline == "") {
			return errors.New("-wrk needs -portald, and -floor or -baseline")
		}
		if *conns < 1 || *rounds < 1 {
			return errors.New("-connections and -rounds must be positive")
		}
		return runWrk(ctx, out, wrkConfig{portald: *portald, floor: *floor, baseline: *baseline, conns: *conns, rounds: *rounds, duration: *duration})
	case *signin:
		if *portald == "" {
			return errors.New("-signin needs -portald")
		}
		if *signins < 1 || *writes < 1 || *rounds < 1 {
			return errors.New("-signin-connections, -write-connections and -rounds must be positive")
		}
		return runSignin(ctx, out, signinConfig{portald: *portald, signins: *signins, writes: *writes, rounds: *rounds, duration: *duration})
	case *report:
		if *portald == "" || *floor == "" {
			return errors.New("-report needs -portald and -floor")
		}
		counts, err := parseCounts(*sweep)
		if err != nil {
			return fmt.Errorf("-sweep: %w", err)
		}
		return runReport(ctx, out, reportConfig{portald: *portald, floor: *floor, workers: *workers, sweep: counts, duration: *duration, startups: max(*startups, 1)})
	case *base == "":
		return errors.New("-url is required (or -wrk, -signin, -report, or -write-seed)")
	}
	var list []op
	for name := range strings.SplitSeq(*ops, ",") {
		o, err := opNamed(strings.TrimSpace(name), *token, *user, *userToken, *workers)
		if err != nil {
			return err
		}
		list = append(list, o)
	}
	hc := newHTTPClient(*workers)
	var results []result
	for _, o := range list {
		results = append(results, run(ctx, hc, strings.TrimRight(*base, "/"), o, *workers, *duration))
	}
	printResults(out, results)
	return firstError(results)
}

// parseCounts parses a comma-separated list of positive counts.
func parseCounts(list string) ([]int, error) {
	var counts []int
	for f := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", f)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func opNamed(name, token, user, userToken string, workers int) (op, error) {
	switch name {
	case "settings/update":
		return settingsUpdate(token), nil
	case "settings":
		return read("settings", "/portals/self/settings", token), nil
	case "memberCategorySchema":
		return read("memberCategorySchema", "/portals/self/memberCategorySchema", token), nil
	case "userContent":
		return read("userContent", "/content/users/"+user, userToken), nil
	case "floor":
		return floorOp(), nil
	}
	if n, ok := strings.CutPrefix(name, "moveItems:"); ok {
		size, err := strconv.Atoi(n)
		if err != nil {
			return op{}, fmt.Errorf("operation %q: want moveItems:N", name)
		}
		return moveOp(size, workers)
	}
	return op{}, fmt.Errorf("unknown operation %q", name)
}

// newHTTPClient keeps one connection per worker alive, as a pool of API
// clients would.
func newHTTPClient(workers int) *http.Client {
	return &http.Client{
		Timeout:   time.Minute,
		Transport: &http.Transport{MaxIdleConns: workers, MaxIdleConnsPerHost: workers, IdleConnTimeout: time.Minute},
	}
}

func printResults(out io.Writer, results []result) {
	fmt.Fprintf(out, "%-28s %7s %9s %9s %10s %10s %6s\n", "operation", "workers", "requests", "req/s", "p50", "p99", "errors")
	for _, r := range results {
		fmt.Fprintf(out, "%-28s %7d %9d %9.0f %10s %10s %6d\n", r.op, r.workers, r.requests, r.rate(), ms(r.percentile(50)), ms(r.percentile(99)), r.errors)
	}
}

func firstError(results []result) error {
	for _, r := range results {
		if r.firstErr != nil {
			return fmt.Errorf("%s: %d failed requests, the first: %w", r.op, r.errors, r.firstErr)
		}
	}
	return nil
}

// ms formats d in milliseconds with a precision that suits its size.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v < 1:
		return fmt.Sprintf("%.2f ms", v)
	case v < 100:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}
