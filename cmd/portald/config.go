package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/orgportal/portal-api/internal/buildinfo"
	"github.com/orgportal/portal-api/internal/busypoll"
	"github.com/orgportal/portal-api/server"
)

// Config is portald's configuration: flags, each defaulting to an
// environment variable.
type Config struct {
	Addr             string // listen address; port 0 picks a free port
	Context          string // "" or "/name": the segment before /sharing/rest
	DB               string // SQLite file, ":memory:", or postgres://...
	Seed             string // seed file; "" for the built-in demo organizations
	Version          string // emulated portal version, major.minor
	Deployment       string // "enterprise" or "online"
	AllowRemoteAdmin bool   // let clients other than loopback call /emulator/ endpoints
	AdminToken       string // when set, /emulator/ calls need "Authorization: Bearer <AdminToken>"
	JournalSize      int    // API calls the journal (GET /emulator/requests) keeps; 0 keeps none
	LogLevel         slog.Level
	// ReadHeaderTimeout bounds the time a client may take to send a
	// request's headers; IdleTimeout bounds how long a keep-alive connection
	// may wait for its next request. Both cut off clients that hold
	// connections open without using them.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// BusyPoll is how long a read polls before sleeping while one client
	// connection is open (internal/busypoll); 0 never polls.
	BusyPoll time.Duration
}

// setting is one flag and the environment variable that gives its default.
type setting struct {
	flag, env, def, usage string
}

var settings = []setting{
	{"addr", "PORTAL_ADDR", "127.0.0.1:8080", "listen `address` (host:port; port 0 picks a free port)"},
	{"context", "PORTAL_CONTEXT", "", "context `segment` before /sharing/rest, such as /portal"},
	{"db", "PORTAL_DB", "portal.db", "store: an SQLite `file`, :memory: for a throwaway store, or postgres://... for PostgreSQL"},
	{"seed", "PORTAL_SEED", "", "YAML or JSON seed `file` applied when the store is empty (default: the built-in demo organizations)"},
	{"version", "PORTAL_VERSION", "11.5", "portal `version` emulated (major.minor)"},
	{"deployment", "PORTAL_DEPLOYMENT", "enterprise", "deployment emulated: enterprise or online"},
	{"allow-remote-admin", "PORTAL_ALLOW_REMOTE_ADMIN", "false", "let clients other than loopback call the /emulator/ endpoints (requests from web pages are refused either way)"},
	{"allow-remote-reset", "PORTAL_ALLOW_REMOTE_RESET", "false", "the former name of -allow-remote-admin"},
	{"admin-token", "PORTAL_ADMIN_TOKEN", "", "when set, /emulator/ calls need the header Authorization: Bearer `token`"},
	{"journal-size", "PORTAL_JOURNAL_SIZE", "10000", "API calls the journal (GET /emulator/requests) keeps, the oldest dropped; 0 keeps none"},
	{"log-level", "PORTAL_LOG_LEVEL", "info", "log `level`: debug, info, warn or error (stderr; info lines may wait 100 ms, the others are written at once)"},
	{"read-header-timeout", "PORTAL_READ_HEADER_TIMEOUT", "10s", "close a connection whose request headers take longer than this `duration` to arrive"},
	{"idle-timeout", "PORTAL_IDLE_TIMEOUT", "2m", "close a keep-alive connection idle for longer than this `duration`"},
	{"busy-poll", "PORTAL_BUSY_POLL", busypoll.Default.String(), "with one client connection open, wait for its next request and for PostgreSQL's answer by polling for up to this `duration` before sleeping, and run on one thread: a lone client waits less, for the CPU of the wait; 0 never polls"},
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// Load reads the configuration from args (without the program name), with
// defaults from getenv. A flag given on the command line beats its
// environment variable. -h or -help yields flag.ErrHelp.
func Load(args []string, getenv func(string) string) (Config, error) {
	var c Config
	fs, envErrs := newFlagSet(&c, getenv)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q: portald takes flags only", fs.Arg(0))
	}
	// An unusable environment value matters only when no flag replaced it.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, s := range settings {
		if err := envErrs[s.flag]; err != nil && !given[s.flag] {
			return Config{}, err
		}
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// newFlagSet defines the flags on c with their defaults taken from getenv,
// and returns the environment values that did not parse, by flag name.
func newFlagSet(c *Config, getenv func(string) string) (*flag.FlagSet, map[string]error) {
	fs := flag.NewFlagSet("portald", flag.ContinueOnError)
	envErrs := map[string]error{}
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		usage := s.usage + " (env " + s.env + ")"
		switch s.flag {
		case "addr":
			fs.StringVar(&c.Addr, s.flag, def, usage)
		case "context":
			fs.StringVar(&c.Context, s.flag, def, usage)
		case "db":
			fs.StringVar(&c.DB, s.flag, def, usage)
		case "seed":
			fs.StringVar(&c.Seed, s.flag, def, usage)
		case "version":
			fs.StringVar(&c.Version, s.flag, def, usage)
		case "deployment":
			fs.StringVar(&c.Deployment, s.flag, def, usage)
		case "allow-remote-admin":
			b, err := strconv.ParseBool(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a boolean (true or false)", s.flag, s.env, def)
			}
			fs.BoolVar(&c.AllowRemoteAdmin, s.flag, b, usage)
		case "allow-remote-reset":
			// An alias: it sets AllowRemoteAdmin, and its environment
			// variable allows as the new one does. Its own default must
			// not overwrite the value -allow-remote-admin's gave.
			b, err := strconv.ParseBool(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a boolean (true or false)", s.flag, s.env, def)
			}
			c.AllowRemoteAdmin = c.AllowRemoteAdmin || b
			fs.Var(boolAlias{&c.AllowRemoteAdmin}, s.flag, usage)
		case "admin-token":
			fs.StringVar(&c.AdminToken, s.flag, def, usage)
		case "journal-size":
			n, err := strconv.Atoi(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a number", s.flag, s.env, def)
			}
			fs.IntVar(&c.JournalSize, s.flag, n, usage)
		case "log-level":
			var l slog.Level
			if err := l.UnmarshalText([]byte(def)); err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a log level (debug, info, warn or error)", s.flag, s.env, def)
			}
			fs.TextVar(&c.LogLevel, s.flag, l, usage)
		case "read-header-timeout", "idle-timeout", "busy-poll":
			d, err := time.ParseDuration(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a duration (such as 10s or 2m)", s.flag, s.env, def)
			}
			p := map[string]*time.Duration{"read-header-timeout": &c.ReadHeaderTimeout, "idle-timeout": &c.IdleTimeout, "busy-poll": &c.BusyPoll}[s.flag]
			fs.DurationVar(p, s.flag, d, usage)
		default:
			panic("no flag for setting " + s.flag)
		}
	}
	return fs, envErrs
}

func (c Config) validate() error {
	var errs []error
	bad := func(flag, env, format string, args ...any) {
		errs = append(errs, fmt.Errorf("-%s (%s): %s", flag, env, fmt.Sprintf(format, args...)))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("addr", "PORTAL_ADDR", "%q is not host:port", c.Addr)
	}
	if c.Context != "" && (!strings.HasPrefix(c.Context, "/") || strings.HasSuffix(c.Context, "/")) {
		bad("context", "PORTAL_CONTEXT", "%q must start with / and not end with / (such as /portal), or be empty", c.Context)
	}
	if c.DB == "" {
		bad("db", "PORTAL_DB", "must not be empty")
	}
	if _, err := server.ParseVersion(c.Version); err != nil || !versionRE.MatchString(c.Version) {
		bad("version", "PORTAL_VERSION", "%q is not a version such as 11.5 (major.minor)", c.Version)
	}
	if c.Deployment != server.DeploymentEnterprise && c.Deployment != server.DeploymentOnline {
		bad("deployment", "PORTAL_DEPLOYMENT", "%q is neither enterprise nor online", c.Deployment)
	}
	// Zero would mean no limit at all in net/http: a client could then hold
	// a connection for ever.
	if c.ReadHeaderTimeout <= 0 {
		bad("read-header-timeout", "PORTAL_READ_HEADER_TIMEOUT", "%s must be positive", c.ReadHeaderTimeout)
	}
	if c.JournalSize < 0 {
		bad("journal-size", "PORTAL_JOURNAL_SIZE", "%d must be 0 or more", c.JournalSize)
	}
	if c.IdleTimeout <= 0 {
		bad("idle-timeout", "PORTAL_IDLE_TIMEOUT", "%s must be positive", c.IdleTimeout)
	}
	// Beyond a few milliseconds a round trip is not worth a core's wait.
	if c.BusyPoll < 0 || c.BusyPoll > 10*time.Millisecond {
		bad("busy-poll", "PORTAL_BUSY_POLL", "%s is not between 0 and 10ms", c.BusyPoll)
	}
	return errors.Join(errs...)
}

// boolAlias is a second name of a boolean flag.
type boolAlias struct{ p *bool }

func (a boolAlias) String() string {
	if a.p == nil {
		return "false"
	}
	return strconv.FormatBool(*a.p)
}

func (a boolAlias) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	*a.p = b
	return nil
}

func (a boolAlias) IsBoolFlag() bool { return true }

// usage writes the flags and their environment variables to w.
func usage(w io.Writer, getenv func(string) string) {
	fs, _ := newFlagSet(new(Config), getenv)
	fs.SetOutput(w)
	fmt.Fprintf(w, "Usage: portald [flags]\n       portald healthcheck [flags]\n\n"+
		"portald %s emulates an organization portal's REST API at http://ADDR[CONTEXT]/sharing/rest.\n"+
		"portald healthcheck exits 0 when the server the same flags describe answers GET /health with 200.\n\nFlags:\n", buildinfo.String())
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nGOGC, when set, replaces portald's default of %d.\n", defaultGCPercent)
}
