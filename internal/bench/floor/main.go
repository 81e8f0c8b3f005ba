// Command floor serves the bench floor handler (bench.Floor): a bare echo
// handler that parses a form and a JSON field and answers {"success":true}.
// With -db it also sends settings/update's pipeline, and for a GET the
// settings read's select, to that PostgreSQL database, on a pool sized as
// portald's (bench.PGFloor). Its first line on stdout is "floor listening on
// ADDR". The load runs start it beside portald to give throughput figures a
// ceiling to compare with.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orgportal/portal-api/internal/bench"
	"github.com/orgportal/portal-api/server/sqlstore"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen `address` (port 0 picks a free port)")
	db := flag.String("db", "", "PostgreSQL `url` to send settings/update's and the settings read's statements to (none: no store)")
	org := flag.String("org", "0123456789ABCDEF", "the `organization` whose settings -db's statements read and write")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	h := bench.Floor()
	if *db != "" {
		cfg, err := pgxpool.ParseConfig(*db)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		cfg.MaxConns = int32(sqlstore.PGConns()) // portald's pool
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		defer pool.Close()
		h = bench.FloorWith(bench.PGFloor{Pool: pool, Org: *org})
	}
	// The same server settings as portald, so that only the handler differs.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Printf("floor listening on %s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
