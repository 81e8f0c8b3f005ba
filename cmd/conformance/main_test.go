package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/conformance/faults"
	"github.com/orgportal/portal-api/portaltest"
)

// The test binary doubles as the command: with this variable set it runs
// main, so that tests see the real exit status.
const runMainEnv = "CONFORMANCE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// command runs the command with args and returns its exit status and
// output.
func command(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return commandEnv(t, nil, args...)
}

// commandEnv is command with more environment variables, as KEY=value.
func commandEnv(t *testing.T, more []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	env := []string{runMainEnv + "=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CONFORMANCE_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, more...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	default:
		t.Fatalf("running the command: %v", err)
		return 0, "", ""
	}
}

// readJUnit parses a JUnit file back.
func readJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s junitSuites
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, b)
	}
	tests, failures, skipped := 0, 0, 0
	for _, suite := range s.Suites {
		if suite.Tests != len(suite.Cases) {
			t.Errorf("testsuite %s: tests=%d, %d testcases", suite.Name, suite.Tests, len(suite.Cases))
		}
		tests += len(suite.Cases)
		for _, c := range suite.Cases {
			if c.Name == "" || c.Classname == "" {
				t.Errorf("testsuite %s: a testcase without name or classname: %+v", suite.Name, c)
			}
			if c.Failure != nil {
				failures++
			}
			if c.Skipped != nil {
				skipped++
			}
		}
	}
	if s.Tests != tests || s.Failures != failures || s.Skipped != skipped {
		t.Errorf("testsuites says %d tests, %d failures, %d skipped; the testcases hold %d, %d, %d",
			s.Tests, s.Failures, s.Skipped, tests, failures, skipped)
	}
	return s
}

func findCase(s junitSuites, name string) *junitCase {
	for _, suite := range s.Suites {
		for i, c := range suite.Cases {
			if c.Classname+"/"+c.Name == "conformance/"+name {
				return &suite.Cases[i]
			}
		}
	}
	return nil
}

// The selection keeps these tests about the command: the whole suite
// against the reference server is conformance's TestConformance.
const selection = "moveItems|memberCategorySchema|auth"

func TestGoodPortal(t *testing.T) {
	p := portaltest.New(t)
	junit := filepath.Join(t.TempDir(), "good.xml")
	code, out, errOut := command(t, "-base-url", p.URL, "-token", p.AdminToken, "-run", selection, "-junit", junit)
	if code != 0 {
		t.Fatalf("exit status %d against the reference server, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"PASS    moveItems/slashIsRoot (", "NOT RUN auth/memberWithoutPrivilege (", "\nPASS: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "examples/") {
		t.Errorf("-run %s ran examples:\n%s", selection, out)
	}
	s := readJUnit(t, junit)
	if s.Failures != 0 || s.Tests == 0 {
		t.Errorf("JUnit: %d tests, %d failures; want some tests and no failure", s.Tests, s.Failures)
	}
	if c := findCase(s, "auth/memberWithoutPrivilege"); c == nil || c.Skipped == nil || !strings.Contains(c.Skipped.Message, "MemberToken") {
		t.Errorf("JUnit: auth/memberWithoutPrivilege is not a skipped testcase saying why: %+v", c)
	}
	if c := findCase(s, "moveItems/slashIsRoot"); c == nil || c.Failure != nil || c.Skipped != nil {
		t.Errorf("JUnit: moveItems/slashIsRoot is not a passed testcase: %+v", c)
	}
}

// brokenPortal is the reference server behind a proxy that drops moveItems'
// per-item errors; it returns the proxy's API base.
func brokenPortal(t *testing.T) (*portaltest.Portal, string) {
	t.Helper()
	p := portaltest.New(t)
	root, err := url.Parse(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(faults.DropItemErrors(root))
	t.Cleanup(proxy.Close)
	return p, proxy.URL + strings.TrimPrefix(p.URL, p.Root)
}

func TestBrokenPortal(t *testing.T) {
	p, base := brokenPortal(t)
	junit := filepath.Join(t.TempDir(), "broken.xml")

	code, out, _ := command(t, "-base-url", base, "-token", p.AdminToken, "-member-token", p.MemberToken, "-run", selection, "-junit", junit)
	if code != 1 {
		t.Fatalf("exit status %d against a portal dropping moveItems errors, want 1\n%s", code, out)
	}
	for _, want := range []string{"FAIL    moveItems/mixedSuccessAndFailure (", "\nFAIL moveItems/mixedSuccessAndFailure\n",
		"has success:false but no error object", "\nFAIL: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	s := readJUnit(t, junit)
	c := findCase(s, "moveItems/mixedSuccessAndFailure")
	if c == nil || c.Failure == nil || !strings.Contains(c.Failure.Text, "no error object") {
		t.Errorf("JUnit: moveItems/mixedSuccessAndFailure is not a failure saying why: %+v", c)
	}
	if c := findCase(s, "memberCategorySchema/threeLevelsAccepted"); c == nil || c.Failure != nil {
		t.Errorf("JUnit: memberCategorySchema/threeLevelsAccepted should pass: %+v", c)
	}
}

// A portal that cannot be reached fails at setup, with the reason.
func TestUnreachablePortal(t *testing.T) {
	srv := httptest.NewServer(nil)
	base := srv.URL + "/sharing/rest"
	srv.Close()
	code, out, _ := command(t, "-base-url", base, "-token", "t", "-timeout", "5s")
	if code != 1 || !strings.Contains(out, "FAIL conformance\n") || !strings.Contains(out, "connection refused") {
		t.Errorf("exit status %d, want 1 with the setup failure in the summary:\n%s", code, out)
	}
}

func TestUsage(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string
	}{
		{"help", []string{"-h"}, nil, 0, "usage: conformance"},
		{"no base URL", []string{"-token", "t"}, nil, 2, "-base-url is required"},
		{"no credentials", []string{"-base-url", "http://x/sharing/rest"}, nil, 2, "give -token, or -username and -password"},
		{"token and password", []string{"-base-url", "http://x/sharing/rest", "-token", "t", "-username", "u", "-password", "p"}, nil, 2, "not both"},
		{"bad timeout", []string{"-base-url", "http://x/sharing/rest", "-token", "t", "-timeout", "soon"}, nil, 2, "-timeout"},
		{"bad index wait", []string{"-base-url", "http://x/sharing/rest", "-token", "t", "-index-wait", "soon"}, nil, 2, "-index-wait"},
		{"zero index wait", []string{"-base-url", "http://x/sharing/rest", "-token", "t", "-index-wait", "0s"}, nil, 2, "-index-wait: 0s is not a positive duration"},
		{"bad index wait environment", []string{"-base-url", "http://x/sharing/rest", "-token", "t"}, map[string]string{"CONFORMANCE_INDEX_WAIT": "later"}, 2, "CONFORMANCE_INDEX_WAIT"},
		{"argument", []string{"-base-url", "http://x/sharing/rest", "-token", "t", "extra"}, nil, 2, `unexpected argument "extra"`},
		{"bad environment", []string{"-base-url", "http://x/sharing/rest", "-token", "t"}, map[string]string{"CONFORMANCE_VERBOSE": "maybe"}, 2, "CONFORMANCE_VERBOSE"},
		{"bad pattern", []string{"-token", "t", "-run", "("}, map[string]string{"CONFORMANCE_BASE_URL": "http://x/sharing/rest"}, 2, "pattern"},
		{"secret without client", []string{"-base-url", "http://x/sharing/rest", "-token", "t", "-client-secret", "s"}, nil, 2, "give -client-id too"},
		{"missing CA file", []string{"-base-url", "https://x/sharing/rest", "-token", "t", "-ca-file", "/nonexistent/ca.pem"}, nil, 2, "-ca-file: open /nonexistent/ca.pem"},
		{"CA file without certificates", []string{"-base-url", "https://x/sharing/rest", "-token", "t"}, map[string]string{"CONFORMANCE_CA_FILE": "main_test.go"}, 2, "-ca-file main_test.go: no PEM certificate in it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(c.args, env(c.env), &stdout, &stderr); code != c.code {
				t.Errorf("exit status %d, want %d\n%s%s", code, c.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String()+stderr.String(), c.want) {
				t.Errorf("output lacks %q:\n%s%s", c.want, stdout.String(), stderr.String())
			}
		})
	}
}

func TestLoadEnvironment(t *testing.T) {
	env := map[string]string{"CONFORMANCE_BASE_URL": "http://env/sharing/rest", "CONFORMANCE_TOKEN": "env-token",
		"CONFORMANCE_MEMBER_TOKEN": "m", "CONFORMANCE_USER": "mary", "CONFORMANCE_VERBOSE": "true", "CONFORMANCE_TIMEOUT": "3s", "CONFORMANCE_INDEX_WAIT": "5s",
		"CONFORMANCE_CLIENT_ID": "app", "CONFORMANCE_CLIENT_SECRET": "app-secret", "CONFORMANCE_REDIRECT_URI": "http://127.0.0.1/cb"}
	c, _, err := Load([]string{"-base-url", "http://flag/sharing/rest", "-portal-id", "ORG", "-client-secret", "flag-secret"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Target
	if tg.BaseURL != "http://flag/sharing/rest" || tg.AdminToken != "env-token" || tg.MemberToken != "m" || tg.User != "mary" ||
		tg.PortalID != "ORG" || !c.Verbose || c.Timeout.String() != "3s" || tg.IndexWait.String() != "5s" ||
		tg.ClientID != "app" || tg.ClientSecret != "flag-secret" || tg.RedirectURI != "http://127.0.0.1/cb" {
		t.Errorf("Load = %+v", c)
	}
}

// An interrupt stops the run early, and the organization is still restored.
func TestInterrupt(t *testing.T) {
	p := portaltest.New(t)
	get := func(path string) string {
		req, _ := http.NewRequest("GET", p.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+p.AdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	state := func() string {
		return get("/portals/self/settings") + get("/portals/self/memberCategorySchema") + get("/content/users/jsmith?num=100")
	}
	before := state()

	cmd := exec.Command(os.Args[0], "-base-url", p.URL, "-token", p.AdminToken, "-member-token", p.MemberToken)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the settings examples, which change the organization,
	// have run.
	var lines []string
	sc := bufio.NewScanner(out)
	signalled := false
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if !signalled && strings.Contains(sc.Text(), "examples/updateSettings/noticesAndBanner") {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			signalled = true
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v, want status 130\n%s", err, stderr.String())
	}
	text := strings.Join(lines, "\n")
	if !signalled || !strings.Contains(text, "(0s): interrupted") || strings.Contains(text, "PASS    client (") {
		t.Errorf("the tests after the interrupt are not reported as not run:\n%s", text)
	}
	if after := state(); after != before {
		t.Errorf("the organization was not restored after the interrupt:\nbefore %s\nafter  %s", before, after)
	}
}

// restVersions is getRoot's x-rest-versions: release -> REST version.
func restVersions(t *testing.T) map[string]string {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	table, err := portalapi.RESTVersions(doc)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// Without -version and -deployment, the command tells each emulated
// release and deployment from what the portal answers, says so, and checks
// it as that (its discovery scenarios hold the portal to its release's REST
// version).
func TestDetection(t *testing.T) {
	rest := restVersions(t)
	for _, deployment := range []string{"enterprise", "online"} {
		for _, version := range []string{"10.8", "11.0", "11.1", "11.5"} {
			t.Run(deployment+"-"+version, func(t *testing.T) {
				p := portaltest.New(t, portaltest.WithVersion(version), portaltest.WithDeployment(deployment))
				code, out, errOut := command(t, "-base-url", p.URL, "-token", p.AdminToken, "-member-token", p.MemberToken, "-run", "^discovery$")
				want := fmt.Sprintf("target: ArcGIS Enterprise %s (REST %s), detected; give -version/-deployment to override\n", version, rest[version])
				if deployment == "online" {
					want = fmt.Sprintf("target: ArcGIS Online (REST %s, checked as release %s), detected; give -version/-deployment to override\n", rest[version], version)
				}
				if code != 0 || !strings.Contains(out, want) {
					t.Errorf("exit status %d; want 0 and the line %q:\n%s%s", code, want, out, errOut)
				}
				if !strings.Contains(out, "PASS    discovery/root (") {
					t.Errorf("the discovery scenarios did not pass:\n%s", out)
				}
			})
		}
	}
	// Given, they are taken as they are; half given, the other half is
	// detected.
	p := portaltest.New(t, portaltest.WithVersion("11.1"), portaltest.WithDeployment("online"))
	_, out, _ := command(t, "-base-url", p.URL, "-token", p.AdminToken, "-run", "^discovery$/^root$", "-version", "11.0", "-deployment", "online")
	if !strings.Contains(out, "target: release 11.0, online deployment, as given\n") {
		t.Errorf("-version and -deployment given:\n%s", out)
	}
	_, out, _ = command(t, "-base-url", p.URL, "-token", p.AdminToken, "-run", "^discovery$/^root$", "-version", "11.0")
	if !strings.Contains(out, "checked as release 11.0 (given), online deployment (detected)\n") {
		t.Errorf("-version given:\n%s", out)
	}
}

// A whole run without -version and -deployment passes against the emulated
// portal the examples fit least (hosted, the oldest release): what does not
// apply to it is reported as not run, by name, as with the flags.
func TestWithoutFlags(t *testing.T) {
	p := portaltest.New(t, portaltest.WithVersion("10.8"), portaltest.WithDeployment("online"))
	code, out, errOut := command(t, "-base-url", p.URL, "-token", p.AdminToken, "-member-token", p.MemberToken)
	if code != 0 {
		t.Fatalf("exit status %d against the emulator, online at 10.8, without -version and -deployment, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"target: ArcGIS Online (REST 8.1, checked as release 10.8), detected",
		"NOT RUN examples/getPortal/self (", "x-deployments", "NOT RUN examples/getSettings/afterUpdate (", "x-introduced-in",
		"PASS    examples/getPortal/selfOnline (", "PASS    signIn/codePKCE (", "\nPASS: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// A portal newer than every release openapi.yaml lists (its currentVersion
// past the table's last) passes discovery without -version: what the
// command detected is not held against it as if it had been given.
func TestNewerPortalDetected(t *testing.T) {
	p := portaltest.New(t)
	api, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: api.Scheme, Host: api.Host})
	proxy.ModifyResponse = func(resp *http.Response) error {
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if path := strings.TrimSuffix(resp.Request.URL.Path, "/"); strings.HasSuffix(path, "/sharing/rest") {
			raw = bytes.Replace(raw, []byte(`"currentVersion":"2025.1"`), []byte(`"currentVersion":"2025.3"`), 1)
			raw = bytes.Replace(raw, []byte(`"enterpriseVersion":"11.5.0"`), []byte(`"enterpriseVersion":"11.6.0"`), 1)
		}
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		resp.ContentLength = int64(len(raw))
		resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
		return nil
	}
	newer := httptest.NewServer(proxy)
	t.Cleanup(newer.Close)
	base := newer.URL + api.Path
	code, out, errOut := command(t, "-base-url", base, "-token", p.AdminToken, "-member-token", p.MemberToken, "-run", "^discovery$/^root$")
	if code != 0 || !strings.Contains(out, "target: ArcGIS Enterprise 11.5 (REST 2025.3), newer than every release") ||
		!strings.Contains(out, "PASS    discovery/root (") {
		t.Errorf("exit status %d; want 0, the newer release detected and discovery/root passed:\n%s%s", code, out, errOut)
	}
}

// A portal whose certificate a private CA signed: with -ca-file naming the
// CA's certificate (or CONFORMANCE_CA_FILE) the suite runs over HTTPS and
// passes; without it, or with another CA's, it fails at setup saying the
// certificate is not trusted and what to give.
func TestCAFile(t *testing.T) {
	p := portaltest.New(t, portaltest.WithTLS())
	caFile := p.CertFile(t)

	code, out, errOut := command(t, "-base-url", p.URL, "-token", p.AdminToken, "-member-token", p.MemberToken, "-run", selection, "-ca-file", caFile)
	if code != 0 || !strings.Contains(out, "PASS    moveItems/slashIsRoot (") || !strings.Contains(out, "\nPASS: ") {
		t.Errorf("-ca-file %s: exit status %d, want 0 and the tests passed\n%s%s", caFile, code, out, errOut)
	}
	code, out, errOut = commandEnv(t, []string{"CONFORMANCE_CA_FILE=" + caFile}, "-base-url", p.URL, "-token", p.AdminToken, "-run", "^discovery$/^root$")
	if code != 0 || !strings.Contains(out, "PASS    discovery/root (") {
		t.Errorf("CONFORMANCE_CA_FILE=%s: exit status %d, want 0\n%s%s", caFile, code, out, errOut)
	}

	code, out, _ = command(t, "-base-url", p.URL, "-token", p.AdminToken, "-run", selection)
	for _, want := range []string{"target: not reached (", "FAIL conformance\n", "x509: certificate signed by unknown authority",
		"the portal's certificate is not trusted: give -ca-file"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("without -ca-file: exit status %d, want 1 and %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "PASS    ") {
		t.Errorf("without -ca-file a test passed:\n%s", out)
	}

	other := portaltest.New(t, portaltest.WithTLS()).CertFile(t)
	code, out, _ = command(t, "-base-url", p.URL, "-token", p.AdminToken, "-run", selection, "-ca-file", other)
	if want := "trusted neither by the system nor by -ca-file " + other; code != 1 || !strings.Contains(out, want) {
		t.Errorf("-ca-file of another CA: exit status %d, want 1 and %q:\n%s", code, want, out)
	}
}
