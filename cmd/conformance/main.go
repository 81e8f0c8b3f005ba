// Command conformance runs the conformance suite (package conformance)
// against a live portal, outside go test: it prints one line per test as it
// ends, a summary of what passed, failed and was not run, optionally writes
// JUnit XML, and exits non-zero when anything failed.
//
//	conformance -base-url https://portal.example.org/portal/sharing/rest -token T [-member-token M]
//	conformance -base-url URL -username admin -password secret -junit report.xml
//
// Without -version and -deployment it asks the portal what it is (its REST
// API's version and portals/self's isPortal) and prints what it found.
// With -client-id (and -client-secret) of an application registered in the
// organization it also runs the OAuth 2.0 flows that need one. With
// -ca-file it trusts the CA certificates of that PEM file besides the
// system's, for a portal whose certificate a private CA signed. A search for
// what the suite has just added waits for the portal's search index, which
// lags writes on ArcGIS portals, for at most -index-wait (default 30s).
//
// Every flag defaults to an environment variable (CONFORMANCE_BASE_URL,
// CONFORMANCE_TOKEN, ...), which keeps secrets off command lines in CI.
//
// Exit status: 0 when every test passed (or was not run), 1 when a test
// failed, 2 for a usage error, 130 when interrupted. A first interrupt
// (SIGINT, SIGTERM) lets the running test finish and the suite restore what
// it changed in the organization; a second one quits at once.
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orgportal/portal-api/conformance"
	"github.com/orgportal/portal-api/internal/buildinfo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// Config is the command's configuration.
type Config struct {
	Target  conformance.Target
	Run     string        // -run pattern
	JUnit   string        // JUnit XML output file; "" for none
	Verbose bool          // print every test's log, not only failures'
	Timeout time.Duration // per HTTP request
	// CAFile is the -ca-file given, "" for none; RootCAs is the system's
	// roots with its certificates, nil without it.
	CAFile  string
	RootCAs *x509.CertPool
}

type setting struct {
	flag, env, def, usage string
}

var settings = []setting{
	{"base-url", "CONFORMANCE_BASE_URL", "", "REST root of the portal under test, such as https://host/portal/sharing/rest (required)"},
	{"token", "CONFORMANCE_TOKEN", "", "`token` of an administrator of the organization (or give -username and -password)"},
	{"username", "CONFORMANCE_USERNAME", "", "administrator's user `name`, signed in with generateToken"},
	{"password", "CONFORMANCE_PASSWORD", "", "administrator's `password`"},
	{"member-token", "CONFORMANCE_MEMBER_TOKEN", "", "optional `token` of a member without administrative privileges, who owns the content the suite creates (the -user)"},
	{"portal-id", "CONFORMANCE_PORTAL_ID", "", "organization `id` (default: the administrator's organization)"},
	{"user", "CONFORMANCE_USER", "", "user `name` owning the content the suite creates: the member of -member-token, else the administrator"},
	{"version", "CONFORMANCE_VERSION", "", "the portal's `version`, such as 11.1: example pairs of later versions are not run (default: detected)"},
	{"deployment", "CONFORMANCE_DEPLOYMENT", "", "the portal's deployment, `enterprise` or online: example pairs of the other are not run (default: detected)"},
	{"client-id", "CONFORMANCE_CLIENT_ID", "", "optional client `id` of an application registered in the organization, for the OAuth 2.0 flows"},
	{"client-secret", "CONFORMANCE_CLIENT_SECRET", "", "the application's client `secret`, for client credentials"},
	{"redirect-uri", "CONFORMANCE_REDIRECT_URI", "", "a redirect `URI` the application registered, for the code flow (default http://127.0.0.1/callback; never opened)"},
	{"run", "CONFORMANCE_RUN", "", "run only the tests matching `regexp`, as go test -run: one expression per level, separated by /"},
	{"junit", "CONFORMANCE_JUNIT", "", "write JUnit XML to `file`"},
	{"ca-file", "CONFORMANCE_CA_FILE", "", "PEM `file` of CA certificates to trust besides the system's, for a portal whose certificate a private CA signed"},
}

// The flags that are no string setting: their environment variables.
const (
	verboseEnv   = "CONFORMANCE_VERBOSE"
	timeoutEnv   = "CONFORMANCE_TIMEOUT"
	indexWaitEnv = "CONFORMANCE_INDEX_WAIT"
)

// flagEnvs maps each of the command's flags to the environment variable
// that gives its default.
func flagEnvs() map[string]string {
	m := map[string]string{"v": verboseEnv, "timeout": timeoutEnv, "index-wait": indexWaitEnv}
	for _, s := range settings {
		m[s.flag] = s.env
	}
	return m
}

// Load reads the configuration from args, with defaults from getenv.
func Load(args []string, getenv func(string) string) (Config, *flag.FlagSet, error) {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := map[string]*string{}
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		vals[s.flag] = fs.String(s.flag, def, s.usage+" [$"+s.env+"]")
	}
	verboseDef, timeoutDef, indexWaitDef := false, 60*time.Second, 30*time.Second
	var envErr error
	if v := getenv(verboseEnv); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			envErr = fmt.Errorf("CONFORMANCE_VERBOSE: %q is not a boolean", v)
		}
		verboseDef = b
	}
	for _, e := range []struct {
		env string
		def *time.Duration
	}{{timeoutEnv, &timeoutDef}, {indexWaitEnv, &indexWaitDef}} {
		if v := getenv(e.env); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				envErr = fmt.Errorf("%s: %q is not a duration", e.env, v)
			}
			*e.def = d
		}
	}
	verbose := fs.Bool("v", verboseDef, "print the log of every test, not only of failed ones [$"+verboseEnv+"]")
	timeout := fs.Duration("timeout", timeoutDef, "time limit of each HTTP `request` [$"+timeoutEnv+"]")
	indexWait := fs.Duration("index-wait", indexWaitDef, "a search for what the suite has just added waits for the portal's search index, which may lag writes, at most this `duration` after the write [$"+indexWaitEnv+"]")
	if err := fs.Parse(args); err != nil {
		return Config{}, fs, err
	}
	if envErr != nil {
		return Config{}, fs, envErr
	}
	if fs.NArg() > 0 {
		return Config{}, fs, fmt.Errorf("unexpected argument %q: conformance takes flags only", fs.Arg(0))
	}
	c := Config{
		Target: conformance.Target{
			BaseURL:      *vals["base-url"],
			AdminToken:   *vals["token"],
			Username:     *vals["username"],
			Password:     *vals["password"],
			MemberToken:  *vals["member-token"],
			PortalID:     *vals["portal-id"],
			User:         *vals["user"],
			Version:      *vals["version"],
			Deployment:   *vals["deployment"],
			ClientID:     *vals["client-id"],
			ClientSecret: *vals["client-secret"],
			RedirectURI:  *vals["redirect-uri"],
			IndexWait:    *indexWait,
		},
		Run:     *vals["run"],
		JUnit:   *vals["junit"],
		Verbose: *verbose,
		Timeout: *timeout,
		CAFile:  *vals["ca-file"],
	}
	if c.Timeout <= 0 {
		return Config{}, fs, fmt.Errorf("-timeout: %s is not a positive duration", c.Timeout)
	}
	if c.Target.IndexWait <= 0 {
		return Config{}, fs, fmt.Errorf("-index-wait: %s is not a positive duration", c.Target.IndexWait)
	}
	if c.Target.BaseURL == "" {
		return Config{}, fs, errors.New("-base-url is required")
	}
	if c.Target.AdminToken == "" && (c.Target.Username == "" || c.Target.Password == "") {
		return Config{}, fs, errors.New("give -token, or -username and -password")
	}
	if c.Target.AdminToken != "" && c.Target.Password != "" {
		return Config{}, fs, errors.New("give -token or -password, not both")
	}
	if c.Target.ClientID == "" && (c.Target.ClientSecret != "" || c.Target.RedirectURI != "") {
		return Config{}, fs, errors.New("-client-secret and -redirect-uri belong to an application: give -client-id too")
	}
	if c.CAFile != "" {
		pool, err := rootCAs(c.CAFile)
		if err != nil {
			return Config{}, fs, err
		}
		c.RootCAs = pool
	}
	return c, fs, nil
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: conformance -base-url URL (-token T | -username U -password P) [flags]")
	fmt.Fprintln(w, "Runs the portal API conformance suite against a live portal.")
	fmt.Fprintf(w, "conformance %s\n", buildinfo.String())
	fmt.Fprintln(w)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// run is main without the exit, for tests.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, fs, err := Load(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout, fs)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n\n", err)
		usage(stderr, fs)
		return 2
	}
	cfg.Target.HTTPClient = httpClient(cfg)

	fmt.Fprintf(stdout, "conformance: checking %s\n", cfg.Target.BaseURL)
	describe(stdout, cfg.Target)
	runner := &conformance.Runner{Pattern: cfg.Run, Progress: func(r *conformance.Result) { progress(stdout, r, cfg.Verbose) }}
	// A first interrupt lets the suite restore what it changed in the
	// organization; a second one ends the program at once.
	stop := make(chan struct{})
	runner.Stop = stop
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer close(signals)
	defer signal.Stop(signals)
	go func() {
		if _, ok := <-signals; !ok {
			return
		}
		fmt.Fprintln(stderr, "conformance: interrupted: finishing the current test and restoring the organization (interrupt again to quit now)")
		close(stop)
		if _, ok := <-signals; ok {
			os.Exit(130)
		}
	}()
	rep, err := runner.Run(cfg.Target)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return 2
	}
	summary(stdout, rep, cfg.Target.BaseURL)
	if cfg.JUnit != "" {
		if err := writeJUnitFile(cfg.JUnit, rep); err != nil {
			fmt.Fprintf(stderr, "conformance: %v\n", err)
			return 1
		}
	}
	select {
	case <-stop:
		fmt.Fprintln(stderr, "conformance: interrupted")
		return 130
	default:
	}
	if rep.Failed() {
		return 1
	}
	return 0
}

// describe prints what the target is, detecting what -version and
// -deployment do not say. It leaves the target as given: the suite detects
// the rest itself, and holds a portal only to what was given (a release
// newer than every one listed is checked as the newest, not held to its REST
// version). When the target cannot tell, the suite fails its setup with the
// reason.
func describe(w io.Writer, target conformance.Target) {
	if target.Version != "" && target.Deployment != "" {
		fmt.Fprintf(w, "target: release %s, %s deployment, as given\n", target.Version, target.Deployment)
		return
	}
	d, err := conformance.Detect(context.Background(), target)
	if err != nil && untrusted(err) {
		// Neither -version nor -deployment would help: the suite fails at
		// its first request with the same error.
		fmt.Fprintf(w, "target: not reached (%v)\n", err)
		return
	}
	if err != nil {
		fmt.Fprintf(w, "target: not detected (%v); give -version and -deployment\n", err)
		return
	}
	switch {
	case target.Version == "" && target.Deployment == "":
		fmt.Fprintf(w, "target: %s, detected; give -version/-deployment to override\n", d)
	case target.Version == "":
		fmt.Fprintf(w, "target: %s, detected; checked as release %s (detected), %s deployment (given)\n", d, d.Version, target.Deployment)
	default:
		fmt.Fprintf(w, "target: %s, detected; checked as release %s (given), %s deployment (detected)\n", d, target.Version, d.Deployment)
	}
}

// shortName drops the top-level test's name, which every test shares.
func shortName(r *conformance.Result) string {
	if _, rest, ok := strings.Cut(r.Name, "/"); ok {
		return rest
	}
	return r.Name
}

func progress(w io.Writer, r *conformance.Result, verbose bool) {
	line := fmt.Sprintf("%-7s %s (%s)", r.Status, shortName(r), r.Elapsed.Round(time.Millisecond))
	if r.Status == conformance.NotRun {
		line += ": " + r.SkipReason()
	}
	fmt.Fprintln(w, line)
	if verbose {
		for _, m := range r.Messages {
			if m.Kind == conformance.LogMessage {
				fmt.Fprintln(w, indent(m.Text, "        "))
			}
		}
	}
}

func summary(w io.Writer, rep *conformance.Report, base string) {
	passed, failed, notRun := rep.Counts()
	for _, c := range rep.Cases() {
		if errs := c.Errors(); len(errs) > 0 {
			fmt.Fprintf(w, "\nFAIL %s\n", shortName(c))
			for _, e := range errs {
				fmt.Fprintln(w, indent(e, "    "))
			}
		}
	}
	first := true
	for _, c := range rep.Cases() {
		if c.Status == conformance.NotRun {
			if first {
				fmt.Fprintln(w)
				first = false
			}
			fmt.Fprintf(w, "NOT RUN %s: %s\n", shortName(c), c.SkipReason())
		}
	}
	verdict := "PASS"
	if rep.Failed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: %d passed, %d failed, %d not run, in %s, against %s\n",
		verdict, passed, failed, notRun, rep.Elapsed.Round(time.Millisecond), base)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
