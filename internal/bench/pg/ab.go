package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// minBaselineRatio is the target of -baseline: the new build's
// settings/update keeps this share of the old build's requests per second.
const minBaselineRatio = 0.95

type abConfig struct {
	db, portald, baseline string
	counts                []int
	d                     time.Duration
	rounds                int
}

// abRound is one round's runs at one client count: pgbench's upsert, and
// settings/update on the new build and on the old.
type abRound struct{ up, n, b result }

func (rd abRound) rateRatio() float64 { return rd.n.rps / rd.b.rps }

func (rd abRound) cpuRatio() float64 {
	if rd.b.cpu == 0 {
		return 0
	}
	return float64(rd.n.cpu) / float64(rd.b.cpu)
}

// runBaseline compares two portald builds on PostgreSQL: each on a schema
// of its own, made fresh, in the same database, settings/update at each
// client count, the two taking turns (which goes first alternates from one
// run to the next), beside pgbench's upsert on the new build's schema for
// its p99. Missed targets are reported, not returned; failed requests are
// an error.
func runBaseline(ctx context.Context, cfg abConfig) error {
	newSchema, newDSN, dropNew, err := makeSchema(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer dropNew()
	_, baseDSN, dropBase, err := makeSchema(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer dropBase()
	dir, err := os.MkdirTemp("", "bench-pg-ab-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pgbenchDB, err := withOptions(cfg.db, "-csearch_path="+newSchema)
	if err != nil {
		return err
	}
	s := &runner{dir: dir, db: pgbenchDB, d: cfg.d}
	if err := s.scripts(); err != nil {
		return err
	}
	n, err := startPortald(ctx, cfg.portald, newDSN)
	if err != nil {
		return err
	}
	defer n.stop()
	b, err := startPortald(ctx, cfg.baseline, baseDSN)
	if err != nil {
		return err
	}
	defer b.stop()

	fmt.Printf("settings/update on PostgreSQL, portald new (-portald) against base (-baseline), each on a fresh schema of one database;\n")
	fmt.Printf("%v per run, the two taking turns, beside pgbench's upsert; each figure the median of %d rounds (a ratio: of the rounds' ratios)\n\n", cfg.d, cfg.rounds)
	all := make([][]abRound, len(cfg.counts))
	for k := range cfg.rounds {
		for i, c := range cfg.counts {
			rd, err := s.abRound(n, b, c, (k+i)%2 == 1)
			if err != nil {
				return err
			}
			all[i] = append(all[i], rd)
		}
	}
	fmt.Println("| clients | new req/s | base req/s | new ÷ base | new p99 | base p99 | pgbench upsert p99 | new CPU/req | base CPU/req | CPU new ÷ base | errors new/base |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	var targets []target
	errs := 0
	for i, c := range cfg.counts {
		rs := all[i]
		nw, bs, up := medianOf(rs, func(rd abRound) result { return rd.n }), medianOf(rs, func(rd abRound) result { return rd.b }), medianOf(rs, func(rd abRound) result { return rd.up })
		rate, cpu := median(rs, abRound.rateRatio), median(rs, abRound.cpuRatio)
		fmt.Printf("| %d | %.0f | %.0f | %.3f | %s | %s | %s | %s | %s | %.3f | %d/%d |\n",
			c, nw.rps, bs.rps, rate, ms(nw.p99), ms(bs.p99), ms(up.p99), us(nw.cpu), us(bs.cpu), cpu, nw.errors, bs.errors)
		targets = append(targets, target{fmt.Sprintf("settings/update at %s, new ≥ %.2f of base", clientsOf(c), minBaselineRatio),
			fmt.Sprintf("%.3f (%.0f ÷ %.0f req/s)", rate, nw.rps, bs.rps), rate >= minBaselineRatio})
		if c == targetedClients {
			targets = append(targets, target{fmt.Sprintf("settings/update p99 at %d clients (new) ≤ pgbench's upsert's", c),
				fmt.Sprintf("%s (pgbench %s)", ms(nw.p99), ms(up.p99)), nw.p99 <= up.p99})
		}
		errs += nw.errors + bs.errors
	}
	if cfg.rounds > 1 {
		fmt.Println("\nThe rounds' ratios, new ÷ base, of settings/update's requests per second:")
		fmt.Println()
		for i, c := range cfg.counts {
			var xs []string
			for _, rd := range all[i] {
				xs = append(xs, strconv.FormatFloat(rd.rateRatio(), 'f', 2, 64))
			}
			fmt.Printf("- %s: %s\n", clientsOf(c), strings.Join(xs, ", "))
		}
	}
	targets = append(targets, target{"no request fails", fmt.Sprintf("%d errors", errs), errs == 0})
	fmt.Println("\nTargets:")
	fmt.Println()
	fmt.Println("| target | measured | |")
	fmt.Println("|---|---|---|")
	for _, tg := range targets {
		verdict := "met"
		if !tg.met {
			verdict = "**NOT met**"
		}
		fmt.Printf("| %s | %s | %s |\n", tg.what, tg.measured, verdict)
	}
	fmt.Println()
	if errs > 0 {
		return fmt.Errorf("%d requests failed: the figures above are not those of working servers", errs)
	}
	return nil
}

// abRound runs, at c clients, pgbench's upsert, then settings/update on
// the new build and on the old, the old first when baseFirst.
func (s *runner) abRound(n, b *server, c int, baseFirst bool) (rd abRound, err error) {
	if rd.up, err = s.pgbench("upsert.sql", c); err != nil {
		return rd, err
	}
	order := []struct {
		dst *result
		srv *server
	}{{&rd.n, n}, {&rd.b, b}}
	if baseFirst {
		order[0], order[1] = order[1], order[0]
	}
	for _, o := range order {
		if *o.dst, err = s.wrk([]*server{o.srv}, "update.lua", c); err != nil {
			return rd, err
		}
	}
	return rd, nil
}
