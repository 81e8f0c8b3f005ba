// Command portald emulates an organization portal's REST API (the "sharing"
// API described by openapi.yaml) on a SQLite or PostgreSQL store, seeded with
// the built-in demo organizations or a seed file. Run portald -h for its flags.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/orgportal/portal-api/emulator"
	"github.com/orgportal/portal-api/internal/buildinfo"
	"github.com/orgportal/portal-api/server/seed"
	"github.com/orgportal/portal-api/tlscert"
)

// Server timeouts beside the configurable ones (Config.ReadHeaderTimeout and
// Config.IdleTimeout). Requests are small forms (at most 1 MiB) answered
// from the store, so anything slower than these is a stuck client.
const (
	readTimeout     = 30 * time.Second
	writeTimeout    = 60 * time.Second
	shutdownTimeout = 15 * time.Second
)

// defaultGCPercent replaces Go's GOGC=100 unless GOGC is set. The server's
// live heap is a few MiB and each request allocates tens of KiB, so at 100
// the collector ran every few hundred requests and took a fifth of the CPU
// under load; at 400 the heap peaks at a few tens of MiB.
const defaultGCPercent = 400

func main() {
	setGCPercent(os.Getenv)
	sigctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, a second one kills at once.
		<-sigctx.Done()
		stop()
	}()
	ctx, end := context.WithCancel(sigctx)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, func(cfg Config) {
		setMemoryLimit(cfg.MemoryLimit, os.Getenv)
		if cfg.ExitWithStdin {
			// The pipe closes when the process holding it ends, whatever
			// ends it: no orphan outlives a killed test run.
			go func() {
				_, _ = io.Copy(io.Discard, os.Stdin)
				end()
			}()
		}
	})
	end()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "portald:", err)
		os.Exit(1)
	}
}

// setGCPercent applies defaultGCPercent unless GOGC is set, and returns the
// GOGC in force.
func setGCPercent(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		// Read without changing it: the runtime has applied GOGC itself.
		prev := debug.SetGCPercent(100)
		debug.SetGCPercent(prev)
		return prev
	}
	debug.SetGCPercent(defaultGCPercent)
	return defaultGCPercent
}

// setMemoryLimit applies limit as the runtime's soft memory limit unless
// GOMEMLIMIT is set, and returns the limit in force.
func setMemoryLimit(limit int64, getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		// Read without changing it: the runtime has applied GOMEMLIMIT.
		return debug.SetMemoryLimit(-1)
	}
	debug.SetMemoryLimit(limit)
	return limit
}

// run starts the emulator and serves until ctx is cancelled, then stops
// accepting connections, lets requests in flight finish and closes the
// store. Its first line on stdout names the address it listens on. tune,
// when not nil, is given the configuration before anything starts: the
// settings of the whole process are main's, not those of a test calling run.
// With "healthcheck" first, it checks the server the other arguments
// describe instead.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, tune func(Config)) (err error) {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthcheck(ctx, args[1:], getenv, stdout)
	}
	if len(args) == 1 && args[0] == "version" {
		// -version is the portal's version emulated: the build's is a word.
		fmt.Fprintln(stdout, "portald", buildinfo.String())
		return nil
	}
	cfg, err := Load(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout, getenv)
		return nil
	}
	if err != nil {
		return err
	}
	if tune != nil {
		tune(cfg)
	}

	logOut := newLogWriter(os.Stderr)
	defer logOut.Flush() // last, after whatever the shutdown logs
	logger := slog.New(flushingHandler{slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.LogLevel}), logOut})
	slog.SetDefault(logger)

	// The seed is read even when the store already has data: a broken seed
	// file should stop start-up, not the first reset.
	seedFile, demo := seed.Demo(), cfg.Seed == ""
	if !demo {
		if seedFile, err = seed.ReadFile(cfg.Seed); err != nil {
			return err
		}
	}

	// Before the store opens: a certificate that cannot serve stops
	// start-up at once. TLS checks validity on the real clock, so does this.
	var tlsConfig *tls.Config
	var cert string
	if cfg.TLS {
		pair, generated, err := tlscert.LoadOrGenerate(cfg.TLSCert, cfg.TLSKey, tlscert.Hosts(cfg.Addr), time.Now())
		if err != nil {
			return fmt.Errorf("-tls: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		cert = certNote(cfg.TLSCert, generated)
	}

	emu, err := emulator.New(ctx, emulator.Options{
		DSN: cfg.DB, Seed: seedFile, Version: cfg.Version, Deployment: cfg.Deployment, Context: cfg.Context,
		Logger: logger, AllowRemoteAdmin: cfg.AllowRemoteAdmin, AdminHosts: cfg.AdminHosts, AdminToken: cfg.AdminToken,
		JournalSize: journalSize(cfg.JournalSize), TrustedProxies: cfg.TrustedProxies,
	})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := emu.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing store: %w", cerr))
		}
	}()

	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           emu,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// ServeTLS adds HTTP/2; the timeouts above bound the TLS handshake
		// too (the shortest of them) and every HTTP/2 stream.
		TLSConfig: tlsConfig,
	}
	served := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()

	fmt.Fprintln(stdout, startLine(cfg, ln.Addr().String(), seedFile, demo, emu.Seeded(), cert))
	logger.Info("serving", "addr", ln.Addr().String(), "tls", cfg.TLS, "version", cfg.Version, "deployment", cfg.Deployment, "build", buildinfo.String())

	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("requests still in flight at the shutdown deadline; closing their connections", "err", err)
		_ = srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}

// startLine is the start-up message: address, base URL, emulated portal,
// store, the HTTPS certificate (cert, from certNote) and the demo tokens
// when the demo seed is in use.
func startLine(cfg Config, addr string, f *seed.File, demo, seeded bool, cert string) string {
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	base := cfg.scheme() + "://" + net.JoinHostPort(host, port) + cfg.Context + "/sharing/rest"

	var data string
	switch {
	case !seeded:
		data = "existing data"
	case demo:
		data = "new, seeded with the demo organizations"
	default:
		data = "new, seeded from " + cfg.Seed
	}
	line := fmt.Sprintf("portald listening on %s, API at %s, portal %s %s, store %s (%s)",
		addr, base, cfg.Version, cfg.Deployment, emulator.DescribeStore(cfg.DB), data)
	if cert != "" {
		line += ", " + cert
	}
	if demo {
		var toks []string
		for _, o := range f.Organizations {
			for _, u := range o.Users {
				if len(u.Tokens) > 0 {
					toks = append(toks, u.Username+"="+u.Tokens[0])
				}
			}
		}
		line += ", demo tokens: " + strings.Join(toks, " ")
	}
	return line
}

// certNote tells where the HTTPS certificate is and how clients trust it:
// its absolute path, so that it can be pasted into a variable anywhere.
func certNote(file string, generated bool) string {
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	how := "trust it with GIS(..., ca_bundles=) of the ArcGIS API for Python, REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS or curl --cacert"
	if generated {
		how = "generated now; " + how
	}
	return fmt.Sprintf("HTTPS certificate %s (%s)", file, how)
}

// journalSize is the emulator's JournalSize for -journal-size: there, 0
// means the default and a negative number none.
func journalSize(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
