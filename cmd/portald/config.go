package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/orgportal/portal-api/internal/buildinfo"
	"github.com/orgportal/portal-api/server"
)

// Config is portald's configuration: flags, each defaulting to an
// environment variable.
type Config struct {
	Addr             string         // listen address; port 0 picks a free port
	TLS              bool           // serve HTTPS on Addr
	TLSCert, TLSKey  string         // PEM files of the HTTPS certificate and key; generated when neither exists
	Context          string         // "" or "/name": the segment before /sharing/rest
	DB               string         // SQLite file, ":memory:", or postgres://...
	Seed             string         // seed file; "" for the built-in demo organizations
	Version          string         // emulated portal version, major.minor
	Deployment       string         // "enterprise" or "online"
	AllowRemoteAdmin bool           // let clients other than loopback call /emulator/ endpoints
	AdminToken       string         // when set, /emulator/ calls need "Authorization: Bearer <AdminToken>"
	AdminHosts       []string       // host names, besides localhost, by which /emulator/ may be addressed
	TrustedProxies   []netip.Prefix // proxies whose Forwarded/X-Forwarded-* headers are believed
	JournalSize      int            // API calls the journal (GET /emulator/requests) keeps; 0 keeps none
	LogLevel         slog.Level
	// ReadHeaderTimeout bounds the time a client may take to send a
	// request's headers; IdleTimeout bounds how long a keep-alive connection
	// may wait for its next request. Both cut off clients that hold
	// connections open without using them.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// ExitWithStdin: main shuts portald down when standard input ends.
	ExitWithStdin bool
	// MemoryLimit is the Go runtime's soft memory limit in bytes
	// (debug.SetMemoryLimit), math.MaxInt64 for none; main applies it
	// unless GOMEMLIMIT is set.
	MemoryLimit int64
}

// setting is one flag and the environment variable that gives its default.
type setting struct {
	flag, env, def, usage string
}

var settings = []setting{
	{"addr", "PORTAL_ADDR", "127.0.0.1:8080", "listen `address` (host:port; port 0 picks a free port)"},
	{"tls", "PORTAL_TLS", "false", "serve HTTPS instead of HTTP"},
	{"tls-cert", "PORTAL_TLS_CERT", "portal-cert.pem", "HTTPS certificate `file` (PEM, the server's certificate first); with -tls-key, generated when neither exists: a pair for localhost, 127.0.0.1, ::1 and the -addr host, valid for a year, that clients trust through this file"},
	{"tls-key", "PORTAL_TLS_KEY", "portal-key.pem", "HTTPS private key `file` (PEM)"},
	{"context", "PORTAL_CONTEXT", "", "context `segment` before /sharing/rest, such as /portal"},
	{"db", "PORTAL_DB", "portal.db", "store: an SQLite `file`, :memory: for a throwaway store, or postgres://... for PostgreSQL"},
	{"seed", "PORTAL_SEED", "", "YAML or JSON seed `file` applied when the store is empty (default: the built-in demo organizations)"},
	{"version", "PORTAL_VERSION", "11.5", "portal `version` emulated (major.minor)"},
	{"deployment", "PORTAL_DEPLOYMENT", "enterprise", "deployment emulated: enterprise or online"},
	{"allow-remote-admin", "PORTAL_ALLOW_REMOTE_ADMIN", "false", "let clients other than loopback call the /emulator/ endpoints (requests from web pages are refused either way)"},
	{"allow-remote-reset", "PORTAL_ALLOW_REMOTE_RESET", "false", "the former name of -allow-remote-admin"},
	{"admin-token", "PORTAL_ADMIN_TOKEN", "", "when set, /emulator/ calls need the header Authorization: Bearer `token`"},
	{"admin-hosts", "PORTAL_ADMIN_HOSTS", "", "comma-separated host `names`, besides localhost and portald's addresses, by which clients address it (a compose service's name): the /emulator/ endpoints refuse other names, so that no web page on a DNS name pointed at portald can call them, and the URLs portald writes name it by the Host header only when it is one of these, localhost or one of its addresses (else by the listener's address)"},
	{"trusted-proxies", "PORTAL_TRUSTED_PROXIES", "", "comma-separated `CIDRs` (or addresses) of the proxies in front, whose Forwarded and X-Forwarded-* headers say the scheme, host and client the request came with; from any other peer those headers are ignored, and URLs take the listener's scheme and the Host header"},
	{"journal-size", "PORTAL_JOURNAL_SIZE", "10000", "API calls the journal (GET /emulator/requests) keeps, the oldest dropped; 0 keeps none"},
	{"log-level", "PORTAL_LOG_LEVEL", "info", "log `level`: debug, info, warn or error (stderr; info lines may wait 100 ms, the others are written at once)"},
	{"read-header-timeout", "PORTAL_READ_HEADER_TIMEOUT", "10s", "close a connection whose request headers take longer than this `duration` to arrive"},
	{"idle-timeout", "PORTAL_IDLE_TIMEOUT", "2m", "close a keep-alive connection idle for longer than this `duration`"},
	{"exit-with-stdin", "PORTAL_EXIT_WITH_STDIN", "false", "shut down, as on SIGTERM, when standard input reaches its end: a test helper holding a pipe to it stops portald by ending, however it ends (a signal, a crash, a CI timeout)"},
	{"memory-limit", "PORTAL_MEMORY_LIMIT", defaultMemoryLimit, "soft limit on the memory of the Go runtime, as GOMEMLIMIT spells it (`size` in B, KiB, MiB or GiB; off for none): near it the garbage collector runs more often; GOMEMLIMIT, when set, replaces it"},
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
		case "tls-cert":
			fs.StringVar(&c.TLSCert, s.flag, def, usage)
		case "tls-key":
			fs.StringVar(&c.TLSKey, s.flag, def, usage)
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
		case "allow-remote-admin", "tls", "exit-with-stdin":
			b, err := strconv.ParseBool(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a boolean (true or false)", s.flag, s.env, def)
			}
			p := map[string]*bool{"allow-remote-admin": &c.AllowRemoteAdmin, "tls": &c.TLS, "exit-with-stdin": &c.ExitWithStdin}[s.flag]
			fs.BoolVar(p, s.flag, b, usage)
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
		case "admin-hosts":
			c.AdminHosts = splitList(def)
			fs.Func(s.flag, usage, func(v string) error { c.AdminHosts = splitList(v); return nil })
		case "trusted-proxies":
			ps, err := parsePrefixes(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q: %w", s.flag, s.env, def, err)
			}
			c.TrustedProxies = ps
			fs.Func(s.flag, usage, func(v string) error {
				ps, err := parsePrefixes(v)
				c.TrustedProxies = ps
				return err
			})
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
		case "read-header-timeout", "idle-timeout":
			d, err := time.ParseDuration(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q is not a duration (such as 10s or 2m)", s.flag, s.env, def)
			}
			p := map[string]*time.Duration{"read-header-timeout": &c.ReadHeaderTimeout, "idle-timeout": &c.IdleTimeout}[s.flag]
			fs.DurationVar(p, s.flag, d, usage)
		case "memory-limit":
			n, err := parseMemoryLimit(def)
			if err != nil {
				envErrs[s.flag] = fmt.Errorf("-%s: %s=%q: %w", s.flag, s.env, def, err)
			}
			c.MemoryLimit = n
			fs.Var(&sizeFlag{p: &c.MemoryLimit, text: def}, s.flag, usage)
		default:
			panic("no flag for setting " + s.flag)
		}
	}
	return fs, envErrs
}

// scheme is the one the server is reached by: https with -tls.
func (c Config) scheme() string {
	if c.TLS {
		return "https"
	}
	return "http"
}

func (c Config) validate() error {
	var errs []error
	bad := func(flag, env, format string, args ...any) {
		errs = append(errs, fmt.Errorf("-%s (%s): %s", flag, env, fmt.Sprintf(format, args...)))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("addr", "PORTAL_ADDR", "%q is not host:port", c.Addr)
	}
	if c.TLS {
		if c.TLSCert == "" {
			bad("tls-cert", "PORTAL_TLS_CERT", "must not be empty with -tls")
		}
		if c.TLSKey == "" {
			bad("tls-key", "PORTAL_TLS_KEY", "must not be empty with -tls")
		}
		if c.TLSCert != "" && filepath.Clean(c.TLSCert) == filepath.Clean(c.TLSKey) {
			bad("tls-key", "PORTAL_TLS_KEY", "%q is also -tls-cert: the certificate and the key are two files", c.TLSKey)
		}
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
	// Below the few MiB a server lives in, the collector would run all the
	// time.
	if c.MemoryLimit < minMemoryLimit {
		bad("memory-limit", "PORTAL_MEMORY_LIMIT", "%d bytes is under the least, %d MiB", c.MemoryLimit, minMemoryLimit>>20)
	}
	return errors.Join(errs...)
}

// parsePrefixes reads a comma-separated list of CIDRs; a bare address is
// a prefix of that one address.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range splitList(list) {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR (such as 10.0.0.0/8) or an address", v)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
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
	fmt.Fprintf(w, "Usage: portald [flags]\n       portald healthcheck [flags]\n       portald version\n\n"+
		"portald %s emulates an organization portal's REST API at http://ADDR[CONTEXT]/sharing/rest (https:// with -tls).\n"+
		"portald healthcheck exits 0 when the server the same flags describe answers GET /health with 200.\n"+
		"portald version prints the build's version (-version is the portal's version emulated).\n\nFlags:\n", buildinfo.String())
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nGOGC, when set, replaces portald's default of %d; GOMEMLIMIT, when set, replaces -memory-limit.\n", defaultGCPercent)
}

// defaultMemoryLimit is portald's soft memory limit unless told otherwise.
// The bodies in flight are bounded (16 MiB, api.DefaultBodyBytesInFlight),
// and so is what the requests keep, but at GOGC=400 the collector lets the
// garbage of a fast flood of large bodies grow to several hundred MiB
// before collecting it; with the limit, it collects sooner instead. A busy
// server's live heap is a few tens of MiB: the limit leaves it room.
const defaultMemoryLimit = "100MiB"

// minMemoryLimit is the least -memory-limit accepted.
const minMemoryLimit = 16 << 20

// sizeFlag is a flag holding a size (parseMemoryLimit), shown as given.
type sizeFlag struct {
	p    *int64
	text string
}

func (f *sizeFlag) String() string { return f.text }

func (f *sizeFlag) Set(v string) error {
	n, err := parseMemoryLimit(v)
	if err != nil {
		return err
	}
	*f.p, f.text = n, v
	return nil
}

// parseMemoryLimit reads a size as GOMEMLIMIT does: a number of bytes with
// an optional unit (B, KiB, MiB, GiB, TiB), or "off" for no limit
// (math.MaxInt64).
func parseMemoryLimit(s string) (int64, error) {
	if s == "off" {
		return math.MaxInt64, nil
	}
	num, unit := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		num, unit = s[:i], s[i:]
	}
	shift, ok := map[string]uint{"": 0, "B": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is not a size such as 100MiB (B, KiB, MiB, GiB, TiB) or off", s)
	}
	return n << shift, nil
}

// splitList reads a comma-separated list, entries trimmed, empty ones
// dropped.
func splitList(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
