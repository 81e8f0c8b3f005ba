// Command floor serves the bench floor handler (bench.Floor): a bare echo
// handler that parses a form and a JSON field and answers {"success":true}.
// Its first line on stdout is "floor listening on ADDR". The load generator
// runs it beside portald to give throughput figures a ceiling to compare with.
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

	"github.com/orgportal/portal-api/internal/bench"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen `address` (port 0 picks a free port)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	// The same server settings as portald, so that only the handler differs.
	srv := &http.Server{Handler: bench.Floor(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
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
