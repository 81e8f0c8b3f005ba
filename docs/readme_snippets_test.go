package docs_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// readmeAddr is the address README.md's commands reach portald at, that of
// `make run`; the tests rewrite it to the address of the portald they started
// on a free port, since 8080 may be taken on the machine running them.
const readmeAddr = "127.0.0.1:8080"

// readmeBlock is one fenced block of README.md.
type readmeBlock struct {
	heading string // the nearest heading above the block, without its #s
	index   int    // 1-based, among the blocks under that heading
	line    int    // of the opening fence
	lang    string
	body    string
}

func (b readmeBlock) key() string { return fmt.Sprintf("%s#%d", b.heading, b.index) }

// readmeBlocks returns every fenced block of md in order; a "#" line inside a
// block is no heading.
func readmeBlocks(md []byte) []readmeBlock {
	var out []readmeBlock
	var cur *readmeBlock
	heading := ""
	count := map[string]int{}
	for i, line := range strings.Split(string(md), "\n") {
		switch {
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		case strings.HasPrefix(line, "```"):
			count[heading]++
			cur = &readmeBlock{heading: heading, index: count[heading], line: i + 1, lang: strings.TrimPrefix(line, "```")}
		case strings.HasPrefix(line, "#"):
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
	}
	return out
}

// snippetPlan says what make test does with one block of README.md: run it
// (run), leave it to another test (elsewhere), or, for what cannot run on this
// machine, say why (notRun) and check what can be checked of it (check).
type snippetPlan struct {
	first     string // the block's first line, so that a block moved or replaced is noticed
	run       func(t *testing.T, s *snippetRun, body string)
	elsewhere string   // the test that runs the block
	targets   []string // the make targets of make test that run it (elsewhere) or what it names (notRun)
	notRun    string
	check     func(t *testing.T, s *snippetRun, body string)
}

// readmePlans maps each block of README.md, by heading and index, to its plan.
// Keep notRun entries few: a block that can run here, runs.
func readmePlans() map[string]snippetPlan {
	return map[string]snippetPlan{
		"Organization Portal Administration API#1": {first: "make run ", run: runMakeRunLines},
		"Try it#1": {first: "curl -s -X POST http://127.0.0.1:8080/emulator/reset", run: runSession},
		"Try it#2": {first: "B=http://127.0.0.1:8080/sharing/rest", run: runSession},
		"Try it#3": {first: "package main", run: runGoProgram},
		"Try it#4": {first: "# Back to the seed", run: runSession},
		"HTTPS#1":  {first: "curl --cacert portal-cert.pem ", run: runHTTPS},
		"Use the portal's own clients#1": {first: "mkdir portal-try && cd portal-try",
			elsewhere: "TestReadmeClientSnippets/JavaScript", targets: []string{"test-readme-clients"}},
		"Use the portal's own clients#2": {first: "import { ArcGISIdentityManager } ",
			elsewhere: "TestReadmeClientSnippets/JavaScript", targets: []string{"test-readme-clients"}},
		"From Python#1": {first: "PORTAL_TLS=true make run ", run: runTLSMakeRun},
		"From Python#2": {first: "podman run -d --name portald ", run: runPodmanTLS},
		"From Python#3": {first: "python3 -m venv ~/arcgis-venv ",
			elsewhere: "TestReadmeClientSnippets/Python (~/arcgis-venv the locked virtual environment of mk/python.mk, whose arcgis version it checks)",
			targets:   []string{"test-readme-clients"}},
		"From Python#4": {first: "import os",
			elsewhere: "TestReadmeClientSnippets/Python", targets: []string{"test-readme-clients"}},
		"Run in a container#1": {first: "make image", run: runContainerLines},
		"Run in a container#2": {first: "printf '[containers]",
			elsewhere: "TestReadmeClientSnippets/containers.conf", targets: []string{"test-readme-clients"}},
		"Run in a container#3": {first: "jobs:",
			notRun: "a GitHub Actions job: no GitHub runner here, and the image is pulled from ghcr.io",
			check:  checkServiceContainerYAML},
		"Testing your automation against the emulator#1": {first: "func TestNightlyBannerScript(", run: runNightlyTest},
		"Testing your automation against the emulator#2": {first: "E=http://127.0.0.1:8080; ", run: runEmulatorSession},
		"From Python: pip and pytest#1":                  {first: "import pytest", run: runWheelPytest},
		"From Node.js: npm and node:test#1":              {first: `import { after, before, beforeEach, test } from "node:test";`, run: runNpmNodeTest},
		"Several replicas on one PostgreSQL#1":           {first: "createdb portal ", run: runReplicas},
		"Conformance#1":                                  {first: "go run ./cmd/conformance -base-url http://127.0.0.1:8080/", run: runConformance},
		"Conformance#2":                                  {first: "target: ", run: runConformanceTarget},
		"Check your portal in CI#1": {first: "name: Portal conformance",
			notRun: "a GitHub Actions workflow: no GitHub runner here, and its first job needs a real portal",
			check:  checkConformanceWorkflow},
		"Generating a client in your language#1": {first: "make generate-go ",
			elsewhere: "make check (go generate ./gen/..., the generate-go recipe, then no diff) and make test-ts",
			targets:   []string{"check", "test-ts"}},
		"Reference documentation and breaking changes#1": {first: "make docs ",
			notRun: "make docs and make changelog-api write into the checkout (check-docs builds the page again in a temporary directory); " +
				"make test runs the other targets",
			targets: []string{"check-docs", "test-docs", "test-samples-ts", "test-samples-clients", "check-breaking"},
			check:   checkMakeTargets},
		"Reference documentation and breaking changes#2": {first: "# 1. set info.version in openapi.yaml to X.Y.Z",
			notRun:  "cutting a release writes api/released/ in the checkout, for a version X.Y.Z to choose; make test runs check-breaking",
			targets: []string{"check-breaking"}, check: checkMakeTargets},
		"Reliability#1": {first: "# a throwaway PostgreSQL for the PostgreSQL half",
			notRun: "make test-go runs these tests already (about a minute): the command's -run selects exactly the tests of the table above it, " +
				"and mk/with-postgres.sh is there",
			targets: []string{"test-go"}, check: checkReliabilityCommand},
	}
}

// TestReadmeSnippetsListed: every block of README.md has a plan, and every
// plan a block, so that a block added is run or said not to be.
func TestReadmeSnippetsListed(t *testing.T) {
	_, readme := readReadme(t)
	checkPlans(t, readmeBlocks(readme), readmePlans())
}

func checkPlans(t *testing.T, blocks []readmeBlock, plans map[string]snippetPlan) {
	t.Helper()
	seen := map[string]bool{}
	for _, b := range blocks {
		seen[b.key()] = true
		p, ok := plans[b.key()]
		if !ok {
			t.Errorf("README.md:%d, the block %q (```%s) has no runner and is in no list of blocks not run: add one to readmePlans", b.line, b.key(), b.lang)
			continue
		}
		if first, _, _ := strings.Cut(b.body, "\n"); !strings.HasPrefix(first, p.first) {
			t.Errorf("README.md:%d, the block %q starts %q, not %q: a block moved or was replaced", b.line, b.key(), first, p.first)
		}
		n := 0
		for _, set := range []bool{p.run != nil, p.elsewhere != "", p.notRun != ""} {
			if set {
				n++
			}
		}
		if n != 1 || (p.notRun != "" && p.check == nil) {
			t.Errorf("the plan of %q must run the block, name the test that does, or say why it cannot run and check it", b.key())
		}
	}
	for key := range plans {
		if !seen[key] {
			t.Errorf("readmePlans has %q, which is no block of README.md", key)
		}
	}
}

// README.md's snippets, run as a reader runs them, from temporary directories
// outside the checkout, against a portald built from it: `make run` is that
// binary started with the same environment in a directory of its own. Run by
// make test-readme-snippets (PORTAL_TEST_README_SNIPPETS=1), which builds the
// wheel and npm tarballs the package snippets install, makes sure of podman
// and sets PORTAL_TEST_POSTGRES.
func TestReadmeSnippets(t *testing.T) {
	if os.Getenv("PORTAL_TEST_README_SNIPPETS") != "1" {
		t.Skip("set PORTAL_TEST_README_SNIPPETS=1 to run README.md's snippets (make test-readme-snippets)")
	}
	root, readme := readReadme(t)
	blocks := readmeBlocks(readme)
	plans := readmePlans()
	checkPlans(t, blocks, plans)
	if t.Failed() {
		t.FailNow()
	}
	s := newSnippetRun(t, root, readme)
	for _, b := range blocks {
		p := plans[b.key()]
		t.Run(b.key(), func(t *testing.T) {
			for _, target := range p.targets {
				if !s.makeTargets[target] {
					t.Errorf("make test runs no target %s (TEST_TARGETS, check, lint)", target)
				}
			}
			switch {
			case p.run != nil:
				p.run(t, s, b.body)
			case p.elsewhere != "":
				t.Logf("run by %s (make %s)", p.elsewhere, strings.Join(p.targets, ", make "))
			default:
				t.Logf("not run: %s", p.notRun)
				p.check(t, s, b.body)
			}
		})
	}
}

// goBuild builds the checkout's package pkg into bin.
func goBuild(t *testing.T, root, bin, pkg string) {
	t.Helper()
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// readReadme returns the checkout's root and its README.md.
func readReadme(t *testing.T) (root string, readme []byte) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root = filepath.Dir(filepath.Dir(file))
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, readme
}

// readmeMakeTargets are the make targets README.md's blocks name, tried with
// make -n, which fails on a target that is not there; not test, whose
// recursive make would run even so (make test is what runs this test).
var readmeMakeTargets = []string{"run", "generate-go", "test-ts", "docs", "check-docs", "test-docs", "test-samples-ts",
	"test-samples-clients", "check-breaking", "changelog-api"}

// snippetRun is what the blocks share: the binaries built from the checkout,
// and the portald of `make run`.
type snippetRun struct {
	root        string
	readme      []byte
	bin         string          // portald
	conformance string          // the conformance command
	help        string          // portald -h
	makeTargets map[string]bool // what make test runs
	makeDryRun  string          // make -n of the targets README.md names
	addr        string          // of the `make run` portald
	startLine   string          // its start-up line
	runDir      string          // its directory
	tlsAddr     string          // of the `PORTAL_TLS=true make run` portald
	tlsDir      string          // its directory
	podmanEnv   []string        // the podman store and configuration of the test's own
	confOut     string          // what the conformance command printed
}

func newSnippetRun(t *testing.T, root string, readme []byte) *snippetRun {
	t.Helper()
	s := &snippetRun{root: root, readme: readme}
	bins := outsideCheckout(t, root)
	s.bin, s.conformance = filepath.Join(bins, "portald"), filepath.Join(bins, "conformance")
	goBuild(t, root, s.bin, "./cmd/portald")
	goBuild(t, root, s.conformance, "./cmd/conformance")
	help, _ := exec.Command(s.bin, "-h").CombinedOutput()
	s.help = string(help)

	// What make test runs: check and lint, then TEST_TARGETS.
	mk := exec.Command("make", append([]string{"--no-print-directory", "-n", "--eval",
		"readme-test-targets: ; @echo TEST_TARGETS=$(TEST_TARGETS)", "readme-test-targets"}, readmeMakeTargets...)...)
	mk.Dir = root
	out, err := mk.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", strings.Join(readmeMakeTargets, " "), err, out)
	}
	s.makeDryRun = string(out)
	s.makeTargets = map[string]bool{"check": true, "lint": true}
	for _, line := range strings.Split(s.makeDryRun, "\n") {
		if list, ok := strings.CutPrefix(line, "echo TEST_TARGETS="); ok {
			for _, target := range strings.Fields(list) {
				s.makeTargets[target] = true
			}
		}
	}

	// `make run` with the address the test can have: PORTAL_ADDR, as
	// README.md's second command gives it.
	s.runDir = outsideCheckout(t, root)
	s.startLine = startPortald(t, s.bin, s.runDir, "PORTAL_ADDR=127.0.0.1:0")
	s.addr = apiHost(t, s.startLine)
	s.startTLS(t)
	s.newPodman(t)
	return s
}

// startPortald starts portald in dir with env added to the test's, kills it
// when the test ends, and returns its start-up line.
func startPortald(t *testing.T, bin, dir string, env ...string) string {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	return startCommand(t, cmd)
}

// startCommand starts cmd, which runs portald, kills it when the test ends,
// and returns portald's start-up line.
func startCommand(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// A portald that neither starts nor exits is killed, which ends the read.
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "portald listening on ") {
			timer.Stop()
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return sc.Text()
		}
	}
	t.Fatalf("%s did not print portald's start-up line\n%s", strings.Join(cmd.Args, " "), stderr.String())
	return ""
}

var apiAt = regexp.MustCompile(`API at https?://([^/\s]+)/sharing/rest\b`)

// apiHost is the host:port of the API a start-up line names.
func apiHost(t *testing.T, line string) string {
	t.Helper()
	m := apiAt.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no API address in the start-up line %q", line)
	}
	return m[1]
}

// reset puts the `make run` portald back to its seed, as README.md says to
// before running its examples again.
func (s *snippetRun) reset(t *testing.T) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+s.addr+"/emulator/reset", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /emulator/reset: %s", resp.Status)
	}
}

// startTLS starts `PORTAL_TLS=true make run` in a directory of its own.
func (s *snippetRun) startTLS(t *testing.T) {
	t.Helper()
	s.tlsDir = outsideCheckout(t, s.root)
	line := startPortald(t, s.bin, s.tlsDir, "PORTAL_TLS=true", "PORTAL_ADDR=127.0.0.1:0")
	s.tlsAddr = apiHost(t, line)
	if want := "HTTPS certificate " + filepath.Join(s.tlsDir, "portal-cert.pem") + " ("; !strings.Contains(line, want) {
		t.Errorf("the start-up line %q does not name %q", line, want)
	}
}

// run runs a shell script in dir, its output returned; the script fails the
// test if it fails or takes longer than two minutes.
func runScript(t *testing.T, dir string, env []string, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s\nstdout:\n%s\nstderr:\n%s", err, script, out, stderr.String())
	}
	return string(out)
}

// sessionStep is one command of a block and the output README.md shows for
// it, in a "# {...}" comment after it or at its end, if any.
type sessionStep struct {
	cmd, want string
}

var inlineShown = regexp.MustCompile(`\s+# ([{\[].*)$`)

// sessionSteps splits an sh block into its commands, each with the output
// shown for it.
func sessionSteps(body string) []sessionStep {
	var steps []sessionStep
	var cmd strings.Builder
	shown := false // the previous line was a comment showing output
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		if text, ok := strings.CutPrefix(trimmed, "#"); ok {
			switch {
			case len(steps) > 0 && (strings.HasPrefix(text, " {") || strings.HasPrefix(text, " [")):
				steps[len(steps)-1].want = strings.TrimSpace(text)
				shown = true
			case len(steps) > 0 && shown && strings.HasPrefix(text, "  "):
				steps[len(steps)-1].want += " " + strings.TrimSpace(text)
			default:
				shown = false
			}
			continue
		}
		shown = false
		if trimmed == "" {
			continue
		}
		cmd.WriteString(line + "\n")
		if strings.HasSuffix(trimmed, `\`) {
			continue
		}
		step := sessionStep{cmd: cmd.String()}
		if m := inlineShown.FindStringSubmatch(line); m != nil {
			step.want = m[1]
		}
		steps = append(steps, step)
		cmd.Reset()
	}
	return steps
}

// session runs an sh block in one shell in dir, README.md's address rewritten
// to addr, and compares each command's output with the output shown for it
// (JSON compared as values; "..." elides). An answer shown by no comment must
// not be the error envelope. It returns the outputs.
func session(t *testing.T, dir, addr string, env []string, body string) []string {
	t.Helper()
	steps := sessionSteps(strings.ReplaceAll(body, readmeAddr, addr))
	const mark = "\x1eREADME-STEP\n"
	var script strings.Builder
	for _, st := range steps {
		// A record separator after each command: where its output ends.
		fmt.Fprintf(&script, "%sprintf '\\n\\036README-STEP\\n'\n", st.cmd)
	}
	out := strings.Split(runScript(t, dir, env, script.String()), mark)
	if len(out) != len(steps)+1 {
		t.Fatalf("%d outputs for %d commands:\n%s", len(out)-1, len(steps), strings.Join(out, mark))
	}
	outs := make([]string, len(steps))
	for i, st := range steps {
		got := strings.TrimSpace(out[i])
		outs[i] = got
		if st.want == "" {
			var v map[string]any
			if json.Unmarshal([]byte(got), &v) == nil && v["error"] != nil {
				t.Errorf("%s answered an error README.md does not show: %s", strings.TrimSpace(st.cmd), got)
			}
			continue
		}
		for _, problem := range matchShown(st.want, got) {
			t.Errorf("%s\n  printed %s\n  README.md shows %s\n  %s", strings.TrimSpace(st.cmd), got, st.want, problem)
		}
	}
	return outs
}

var (
	elidedMembers = regexp.MustCompile(`,\s*\.\.\.\s*([,}])`)
	elidedValue   = regexp.MustCompile(`:\s*\{\.\.\.\}`)
)

// matchShown compares what a command printed with the JSON README.md shows
// for it, where "..." elides: `{...}` any value, `"..."` any string, `"6c5b..."`
// a string so begun, `,...` members not shown. A member not shown and not
// elided is a difference. Durations differ from run to run: a "durationMs"
// is any number.
func matchShown(shown, printed string) []string {
	pattern := elidedValue.ReplaceAllString(shown, `:"..."`)
	pattern = elidedMembers.ReplaceAllString(pattern, `,"...":true$1`)
	want, err := decodeNumbers(pattern)
	if err != nil {
		return []string{fmt.Sprintf("README.md's output is not JSON with elisions: %v (%s)", err, pattern)}
	}
	got, err := decodeNumbers(printed)
	if err != nil {
		return []string{fmt.Sprintf("the output is not JSON: %v", err)}
	}
	return matchValue(want, got, "$")
}

func decodeNumbers(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one value")
	}
	return v, nil
}

func matchValue(want, got any, path string) []string {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		switch prefix, elided := strings.CutSuffix(w, "..."); {
		case elided && prefix == "":
			return nil
		case elided && ok && strings.HasPrefix(g, prefix):
			return nil
		case !elided && ok && g == w:
			return nil
		}
	case json.Number:
		if g, ok := got.(json.Number); ok {
			wf, _ := w.Float64()
			gf, _ := g.Float64()
			if wf == gf || strings.HasSuffix(path, ".durationMs") {
				return nil
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		var problems []string
		for k, wv := range w {
			if k == "..." {
				continue
			}
			gv, ok := g[k]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s.%s: not in the output", path, k))
				continue
			}
			problems = append(problems, matchValue(wv, gv, path+"."+k)...)
		}
		if _, more := w["..."]; !more {
			for k := range g {
				if _, ok := w[k]; !ok {
					problems = append(problems, fmt.Sprintf("%s.%s: in the output, not shown", path, k))
				}
			}
		}
		slices.Sort(problems)
		return problems
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		var problems []string
		for i := range w {
			problems = append(problems, matchValue(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return problems
	default:
		if want == got {
			return nil
		}
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	return []string{fmt.Sprintf("%s: %s, shown %s", path, gj, wj)}
}

// The session's parts that decide what is compared: each command gets the
// output its comment shows, and that output is compared as JSON with the
// README's elisions, failing on a difference.
func TestReadmeSessionComparison(t *testing.T) {
	steps := sessionSteps(`B=http://127.0.0.1:8080/sharing/rest
# A prose comment.
curl -s $B/a \
  -d x=1
# {"results":[{"itemId":"a","success":true},
#             {"itemId":"b","success":false}]}
curl -s $B/b   # from loopback
curl -s $B/c   # {"status":"ok"}
# A day later.
curl -s $B/d
`)
	want := []sessionStep{
		{cmd: "B=http://127.0.0.1:8080/sharing/rest\n"},
		{cmd: "curl -s $B/a \\\n  -d x=1\n", want: `{"results":[{"itemId":"a","success":true}, {"itemId":"b","success":false}]}`},
		{cmd: "curl -s $B/b   # from loopback\n"},
		{cmd: "curl -s $B/c   # {\"status\":\"ok\"}\n", want: `{"status":"ok"}`},
		{cmd: "curl -s $B/d\n"},
	}
	if !slices.Equal(steps, want) {
		t.Errorf("sessionSteps:\n%q\nwant\n%q", steps, want)
	}

	const shown = `{"requests":[{"seq":1,"time":"...","folder":"6c5b...","rule":{...},"durationMs":0.744},{"seq":2,...,"fault":"f2",...}]}`
	for printed, ok := range map[string]bool{
		`{"requests":[{"seq":1,"time":"2026","folder":"6c5b4a","rule":{"a":[1]},"durationMs":3},{"seq":2,"x":1,"fault":"f2","y":2}]}`: true,
		`{"requests":[{"seq":1,"time":"2026","folder":"6c5b4a","rule":{},"durationMs":3},{"seq":2,"fault":"f2"}]}`:                    true,
		`{"requests":[{"seq":3,"time":"2026","folder":"6c5b4a","rule":{},"durationMs":3},{"seq":2,"fault":"f2"}]}`:                    false,
		`{"requests":[{"seq":1,"time":"2026","folder":"7c5b4a","rule":{},"durationMs":3},{"seq":2,"fault":"f2"}]}`:                    false,
		`{"requests":[{"seq":1,"time":"2026","folder":"6c5b4a","rule":{},"durationMs":3,"more":1},{"seq":2,"fault":"f2"}]}`:           false,
		`{"requests":[{"seq":1,"time":"2026","folder":"6c5b4a","rule":{},"durationMs":3},{"seq":2,"fault":"f3"}]}`:                    false,
		`{"requests":[{"seq":1,"time":"2026","folder":"6c5b4a","rule":{},"durationMs":3}]}`:                                           false,
		`{"requests":[{"seq":1,"folder":"6c5b4a","rule":{},"durationMs":3},{"seq":2,"fault":"f2"}]}`:                                  false,
		`{"requests":[]} {}`: false,
	} {
		if problems := matchShown(shown, printed); (len(problems) == 0) != ok {
			t.Errorf("%s against %s: %q, want a match: %v", printed, shown, problems, ok)
		}
	}
}

// runMakeRunLines: `make run` is `go run ./cmd/portald`, whose defaults are
// README.md's (127.0.0.1:8080, portal.db, the demo organization); the
// environment variable of the second line is how the test's own `make run`
// got its address. `make test` is what runs this test.
func runMakeRunLines(t *testing.T, s *snippetRun, body string) {
	want := []string{"make run", "PORTAL_ADDR=127.0.0.1:9090 make run", "make test"}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		got = append(got, strings.TrimSpace(cmd))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the commands are %q, want %q", got, want)
	}
	if !strings.Contains(s.makeDryRun, "\ngo run ./cmd/portald\n") {
		t.Errorf("make -n run does not print `go run ./cmd/portald`:\n%s", s.makeDryRun)
	}
	for _, def := range []string{`(env PORTAL_ADDR) (default "127.0.0.1:8080")`, `(env PORTAL_DB) (default "portal.db")`} {
		if !strings.Contains(s.help, def) {
			t.Errorf("portald -h does not say %s:\n%s", def, s.help)
		}
	}
	if want := "store SQLite file portal.db (new, seeded with the demo organizations)"; !strings.Contains(s.startLine, want) {
		t.Errorf("make run's start-up line %q does not say %q", s.startLine, want)
	}
	if _, err := os.Stat(filepath.Join(s.runDir, "portal.db")); err != nil {
		t.Error(err)
	}
}

// runSession runs an sh block against the `make run` portald, reset first.
func runSession(t *testing.T, s *snippetRun, body string) {
	s.reset(t)
	session(t, outsideCheckout(t, s.root), s.addr, nil, body)
}

// runGoProgram: the Go client example, built in a module of its own outside
// the checkout (README.md has it saved in the checkout, whose module a
// replace directive stands for), run twice against `make run` after a reset.
func runGoProgram(t *testing.T, s *snippetRun, body string) {
	bin := buildReadmeProgram(t, s.root, strings.ReplaceAll(body, readmeAddr, s.addr))
	for run := 1; run <= 2; run++ {
		s.reset(t)
		cmd := exec.Command(bin)
		cmd.Dir = outsideCheckout(t, s.root)
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != readmeGoOutput {
			t.Errorf("run %d: %v\n%s\nwant\n%s", run, err, out, readmeGoOutput)
		}
	}
}

// tempModule writes files into a new module outside the checkout that
// requires this one, replaced by the checkout, with its go.sum; the go
// command, run with -mod=mod, resolves the rest from the module cache.
func tempModule(t *testing.T, root string, files map[string]string) string {
	t.Helper()
	dir := outsideCheckout(t, root)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(gomod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = fmt.Sprintf("module example.com/readme\n\n%s\n\nrequire github.com/orgportal/portal-api v0.0.0\n\nreplace github.com/orgportal/portal-api => %s\n", goLine, root)
	files["go.sum"] = string(sum)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goInModule runs the go command in a module of tempModule.
func goInModule(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	return cmd
}

// runNightlyTest: the portaltest example, a test function, in a test file of
// a module of its own (the package clause and imports added: README.md shows
// the function alone).
func runNightlyTest(t *testing.T, s *snippetRun, body string) {
	const head = "package nightly_test\n\nimport (\n\t\"testing\"\n\t\"time\"\n\n" +
		"\t\"github.com/orgportal/portal-api/client\"\n\t\"github.com/orgportal/portal-api/portaltest\"\n)\n\n"
	name := regexp.MustCompile(`^func (Test\w+)\(t \*testing\.T\)`).FindStringSubmatch(body)
	if name == nil {
		t.Fatalf("the block is no test function:\n%s", body)
	}
	dir := tempModule(t, s.root, map[string]string{"nightly_test.go": head + body})
	out, err := goInModule(dir, "test", "-count=1", "-v", "-run", "^"+name[1]+"$", ".").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name[1]+" ") || strings.Contains(string(out), "--- SKIP") {
		t.Errorf("go test: %v\n%s", err, out)
	}
}

// runHTTPS: against `PORTAL_TLS=true make run`, from its directory (where the
// certificate is), curl with --cacert; then the export line, followed by
// Python's requests (the venv of mk/python.mk) and Node.js's fetch, which
// must trust the certificate through the variables it sets.
func runHTTPS(t *testing.T, s *snippetRun, body string) {
	python := filepath.Join(s.root, ".build", "python", "venv", "bin", "python")
	if !strings.Contains(body, "export REQUESTS_CA_BUNDLE=$PWD/portal-cert.pem NODE_EXTRA_CA_CERTS=$PWD/portal-cert.pem") {
		t.Fatalf("no export line of both variables:\n%s", body)
	}
	clients := body +
		`"$README_PYTHON" -c 'import requests, sys; print(requests.get(sys.argv[1]).text)' https://127.0.0.1:8080/health
# {"status":"ok"}
node -e 'fetch(process.argv[1]).then(r => r.text()).then(console.log)' https://127.0.0.1:8080/health
# {"status":"ok"}
`
	outs := session(t, s.tlsDir, s.tlsAddr, []string{"README_PYTHON=" + python}, clients)
	if outs[0] != `{"status":"ok"}` {
		t.Errorf("curl --cacert printed %q", outs[0])
	}
}

// runTLSMakeRun: `PORTAL_TLS=true make run` writes portal-cert.pem beside
// portal.db and serves HTTPS.
func runTLSMakeRun(t *testing.T, s *snippetRun, body string) {
	if cmd, _, _ := strings.Cut(strings.TrimSpace(body), "#"); strings.TrimSpace(cmd) != "PORTAL_TLS=true make run" {
		t.Fatalf("the command is %q", cmd)
	}
	for _, f := range []string{"portal.db", "portal-cert.pem", "portal-key.pem"} {
		if _, err := os.Stat(filepath.Join(s.tlsDir, f)); err != nil {
			t.Error(err)
		}
	}
	out := runScript(t, s.tlsDir, nil, "curl -s --cacert portal-cert.pem https://"+s.tlsAddr+"/sharing/rest?f=json")
	if !strings.Contains(out, `"currentVersion"`) {
		t.Errorf("the REST root over HTTPS: %s", out)
	}
}

// newPodman makes a podman store and configuration of the test's own, removed
// when the test ends, and builds the image into it with make image, as
// README.md does: its podman commands then run as written, their names
// (portald, portal-data) taking nothing of the machine's. Its containers get
// slirp4netns's network, as make test-image's do.
func (s *snippetRun) newPodman(t *testing.T) {
	t.Helper()
	dir := outsideCheckout(t, s.root)
	conf, storage := filepath.Join(dir, "containers.conf"), filepath.Join(dir, "storage.conf")
	// default_ulimits: README.md's containers.conf, for hosts that do not let
	// a container raise its limits.
	for file, text := range map[string]string{
		conf: fmt.Sprintf("[containers]\ndefault_ulimits = []\nnetns = \"slirp4netns\"\n[engine]\nruntime = \"runc\"\n"+
			"cgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\ntmp_dir = %q\nvolume_path = %q\n[network]\nnetwork_config_dir = %q\n",
			filepath.Join(dir, "tmp"), filepath.Join(dir, "volumes"), filepath.Join(dir, "networks")),
		storage: fmt.Sprintf("[storage]\ndriver = \"overlay\"\ngraphroot = %q\nrunroot = %q\n", filepath.Join(dir, "graph"), filepath.Join(dir, "run")),
	} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.podmanEnv = []string{"CONTAINERS_CONF=" + conf, "CONTAINERS_STORAGE_CONF=" + storage}
	t.Cleanup(func() {
		// Every container, mount and volume, before the directory goes.
		cmd := exec.Command("podman", "system", "reset", "--force")
		cmd.Env = append(cleanEnv(), s.podmanEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("podman system reset: %v\n%s", err, out)
		}
	})
	mk := exec.Command("make", "--no-print-directory", "-C", s.root, "image")
	mk.Env = append(cleanEnv(), s.podmanEnv...)
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
}

// podmanBlock runs a block's podman commands on the test's store: every
// container and volume is removed when the block ends, as a new reader's
// machine has none. After a `podman run -d --name NAME`, the next command
// waits for NAME's start-up line, as a reader sees it before going on.
func (s *snippetRun) podmanBlock(t *testing.T) (dir, port string, env []string) {
	t.Helper()
	env = append([]string{"HOME=" + outsideCheckout(t, s.root)}, s.podmanEnv...)
	t.Cleanup(func() {
		cmd := exec.Command("sh", "-c", "podman rm --all --force --time 0 && podman volume rm --all --force")
		cmd.Env = append(cleanEnv(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%v\n%s", err, out)
		}
	})
	return outsideCheckout(t, s.root), strconv.Itoa(freePort(t)), env
}

var podmanRunDetached = regexp.MustCompile(`(?m)^podman run -d --name (\S+) (?:[^\n]*\\\n)*[^\n]*\n`)

// waitForContainers adds, after each `podman run -d --name NAME` of body, a
// command that waits (a minute at most) for NAME's start-up line.
func waitForContainers(body string) string {
	return podmanRunDetached.ReplaceAllStringFunc(body, func(run string) string {
		name := podmanRunDetached.FindStringSubmatch(run)[1]
		return run + fmt.Sprintf(`i=0; until podman logs %[1]s 2>/dev/null | grep -q '^portald listening on '; do i=$((i+1)); `+
			`if [ $i -gt 600 ]; then podman logs %[1]s >&2; exit 1; fi; sleep 0.1; done`+"\n", name)
	})
}

var podmanEnv = regexp.MustCompile(`(?:-e|--env) (PORTAL_\w+)=(\S*)`)

// checkPodmanEnv: each variable a podman command sets is portald's.
func checkPodmanEnv(t *testing.T, s *snippetRun, body string) {
	t.Helper()
	for _, m := range podmanEnv.FindAllStringSubmatch(body, -1) {
		if !strings.Contains(s.help, "(env "+m[1]+")") {
			t.Errorf("podman sets %s, which portald -h does not name", m[1])
		}
	}
}

// runPodmanTLS: the image serving HTTPS with its pair in the volume, the
// certificate copied out to ~ (HOME a directory of the test's), which curl
// then trusts.
func runPodmanTLS(t *testing.T, s *snippetRun, body string) {
	checkPodmanEnv(t, s, body)
	dir, port, env := s.podmanBlock(t)
	addr := "127.0.0.1:" + port
	session(t, dir, addr, env, waitForContainers(body)+`curl -s --cacert ~/portal-cert.pem https://127.0.0.1:8080/health
# {"status":"ok"}
`)
}

// runContainerLines: the image, made by make image when the test's store
// was, run on a volume, answering the curl lines; then, the first container
// removed, with the version and deployment its variables give, in the
// foreground until stopped. The
// last command needs the database at db.example: only its variables are
// checked (make test-image runs the image on PostgreSQL).
func runContainerLines(t *testing.T, s *snippetRun, body string) {
	checkPodmanEnv(t, s, body)
	steps := sessionSteps(body)
	if len(steps) != 7 || steps[0].cmd != "make image\n" || !strings.HasPrefix(steps[4].cmd, "podman rm -f portald") ||
		!strings.HasPrefix(steps[5].cmd, "podman run --rm ") || !strings.Contains(steps[6].cmd, "PORTAL_DB=") {
		t.Fatalf("the block is no longer make image, podman run -d, two curls, podman rm, podman run --rm, one more on PostgreSQL:\n%s", body)
	}
	vars := map[string]string{}
	for _, m := range podmanEnv.FindAllStringSubmatch(steps[5].cmd, -1) {
		vars[m[1]] = m[2]
	}
	portal := fmt.Sprintf(" portal %s %s, ", cmp.Or(vars["PORTAL_VERSION"], "11.5"), cmp.Or(vars["PORTAL_DEPLOYMENT"], "enterprise"))
	dir, port, env := s.podmanBlock(t)
	addr := "127.0.0.1:" + port
	var first strings.Builder
	for _, st := range steps[1:5] {
		first.WriteString(st.cmd)
	}
	session(t, dir, addr, env, waitForContainers(first.String()))

	cmd := exec.Command("sh", "-c", "exec "+strings.ReplaceAll(steps[5].cmd, readmeAddr, addr))
	cmd.Dir, cmd.Env = dir, append(cleanEnv(), env...)
	if line := startCommand(t, cmd); !strings.Contains(line, portal) {
		t.Errorf("the start-up line %q does not say%s", line, strings.TrimSuffix(portal, ","))
	}
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// releaseImage checks that image is one the release publishes:
// ghcr.io/<owner>/portald, tagged latest or vX.Y.Z, as release.yml pushes it.
func releaseImage(t *testing.T, s *snippetRun, image string) {
	t.Helper()
	owner := strings.Split(strings.TrimPrefix(modulePath(t, s.root), "github.com/"), "/")[0]
	if !regexp.MustCompile(`^ghcr\.io/` + regexp.QuoteMeta(owner) + `/portald:(latest|vX\.Y\.Z)$`).MatchString(image) {
		t.Errorf("image: %s is not ghcr.io/%s/portald:latest or :vX.Y.Z", image, owner)
	}
	release := string(mustRead(t, filepath.Join(s.root, ".github", "workflows", "release.yml")))
	if !strings.Contains(release, `image="ghcr.io/${GITHUB_REPOSITORY_OWNER,,}/portald"`) || !strings.Contains(release, `"docker://$image:latest"`) {
		t.Error(".github/workflows/release.yml no longer publishes ghcr.io/OWNER/portald, tagged latest too")
	}
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mustRead(t, filepath.Join(root, "go.mod")))
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	return string(m[1])
}

type workflow struct {
	On   any `yaml:"on"`
	Jobs map[string]struct {
		RunsOn   string `yaml:"runs-on"`
		Services map[string]struct {
			Image string            `yaml:"image"`
			Ports []string          `yaml:"ports"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"services"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func parseWorkflow(t *testing.T, body string) workflow {
	t.Helper()
	var w workflow
	if err := yaml.Unmarshal([]byte(body), &w); err != nil {
		t.Fatalf("the YAML does not parse as a workflow's jobs: %v", err)
	}
	if len(w.Jobs) == 0 {
		t.Fatal("no jobs")
	}
	return w
}

// checkServices: each service's image is a published one, on port 8080, and
// its PORTAL_* variables are portald's.
func checkServices(t *testing.T, s *snippetRun, w workflow) {
	for name, job := range w.Jobs {
		for svc, c := range job.Services {
			releaseImage(t, s, c.Image)
			if !slices.Contains(c.Ports, "8080:8080") {
				t.Errorf("job %s, service %s: ports %q, without 8080:8080", name, svc, c.Ports)
			}
			for v := range c.Env {
				if !strings.Contains(s.help, "(env "+v+")") {
					t.Errorf("job %s, service %s sets %s, which portald -h does not name", name, svc, v)
				}
			}
		}
	}
}

// actionlint lints a workflow with the actionlint of make lint (mk/release.mk),
// in a directory outside the checkout.
func actionlint(t *testing.T, s *snippetRun, workflow string) {
	t.Helper()
	pin := regexp.MustCompile(`(?m)^ACTIONLINT := \$\(GO\) run (\S+@\S+)$`).FindSubmatch(mustRead(t, filepath.Join(s.root, "mk", "release.mk")))
	if pin == nil {
		t.Fatal("mk/release.mk has no ACTIONLINT := $(GO) run ...@version")
	}
	dir := outsideCheckout(t, s.root)
	file := filepath.Join(".github", "workflows", "readme.yml")
	if err := os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(workflow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", string(pin[1]), "-color=false", file)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// checkServiceContainerYAML: the jobs, under a name and a trigger of the
// test's (README.md shows the jobs alone), pass actionlint; the service is
// the published image.
func checkServiceContainerYAML(t *testing.T, s *snippetRun, body string) {
	actionlint(t, s, "name: README\non: push\n"+body)
	w := parseWorkflow(t, body)
	checkServices(t, s, w)
	if len(w.Jobs["test"].Services) != 1 {
		t.Error("the job test has no service container")
	}
}

// checkConformanceWorkflow: the workflow passes actionlint, every input a step
// gives the action is one of action.yml's, and the emulator's job runs the
// published image.
func checkConformanceWorkflow(t *testing.T, s *snippetRun, body string) {
	actionlint(t, s, body)
	w := parseWorkflow(t, body)
	if w.On == nil {
		t.Error("the workflow has no on:")
	}
	checkServices(t, s, w)
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(mustRead(t, filepath.Join(s.root, "action.yml")), &action); err != nil {
		t.Fatal(err)
	}
	repo := strings.TrimPrefix(modulePath(t, s.root), "github.com/")
	uses := 0
	for name, job := range w.Jobs {
		for _, step := range job.Steps {
			if !strings.HasPrefix(step.Uses, repo+"@") {
				continue
			}
			uses++
			for input := range step.With {
				if _, ok := action.Inputs[input]; !ok {
					t.Errorf("job %s gives %s the input %s, which action.yml does not have", name, step.Uses, input)
				}
			}
		}
	}
	if uses != 2 {
		t.Errorf("%d steps use %s@..., want one per job", uses, repo)
	}
}

// runEmulatorSession: the emulator's shell session against a portald just
// started as `make run` (the journal numbers calls from its start, resets
// included), ./my-archiving-script being a script that moves jsmith's Roads and
// Hydrants into Archive, twice: the session's journal shows its calls.
func runEmulatorSession(t *testing.T, s *snippetRun, body string) {
	if !strings.Contains(body, "\n./my-archiving-script\n") {
		t.Fatalf("the session runs no ./my-archiving-script:\n%s", body)
	}
	dir := outsideCheckout(t, s.root)
	addr := apiHost(t, startPortald(t, s.bin, dir, "PORTAL_ADDR=127.0.0.1:0"))
	script := fmt.Sprintf(`#!/bin/sh
# Archives jsmith's Roads and Hydrants; once more, as a job run again does.
for run in 1 2; do
  curl -s -o /dev/null http://%s/sharing/rest/content/users/jsmith/moveItems -d f=json -d token=demo-user-token \
    -d items=93b54c8930ae46d9a00a7820cb3ebbd1,7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3 -d folder=6c5b4a39281746e5b0a9f8e7d6c5b4a3
done
`, addr)
	if err := os.WriteFile(filepath.Join(dir, "my-archiving-script"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	session(t, dir, addr, nil, body)
}

// runWheelPytest: the pytest example in a new virtual environment holding the
// portald wheel (make wheel-host; pip, no index) and, through a .pth file, the
// packages of mk/python.mk's locked environment (arcgis, pytest), run by
// pytest from outside the checkout, passing, none skipped.
func runWheelPytest(t *testing.T, s *snippetRun, body string) {
	locked := filepath.Join(s.root, ".build", "python", "venv", "bin", "python")
	wheels := filepath.Join(s.root, "build", "packages", "python")
	if m, _ := filepath.Glob(filepath.Join(wheels, "portald-*.whl")); len(m) != 1 {
		t.Fatalf("%s holds %d portald wheels, want the host's (make wheel-host)", wheels, len(m))
	}
	dir := outsideCheckout(t, s.root)
	if err := os.WriteFile(filepath.Join(dir, "test_archiving.py"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	runScript(t, dir, []string{"LOCKED=" + locked, "WHEELS=" + wheels}, `
python3 -m venv --without-pip venv
site=$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$LOCKED" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/arcgis-lock.pth"
"$LOCKED" -m pip --python venv/bin/python install --disable-pip-version-check --quiet --no-index --no-deps --find-links "$WHEELS" portald
`)
	cmd := exec.Command(filepath.Join(dir, "venv", "bin", "python"), "-m", "pytest", "-p", "no:cacheprovider", "-rs",
		"-W", "ignore::DeprecationWarning", "test_archiving.py")
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^=+ 1 passed(, \d+ warnings?)? in `).Match(out) {
		t.Errorf("pytest: %v\n%s", err, out)
	}
}

// runNpmNodeTest: the node:test example in a directory of packages/npm/
// example's lock (ArcGIS REST JS), the packed tarballs installed (make
// npm-pack-host), run by node --test: one test, passed.
func runNpmNodeTest(t *testing.T, s *snippetRun, body string) {
	example := filepath.Join(s.root, "packages", "npm", "example")
	tarballs, _ := filepath.Glob(filepath.Join(s.root, "build", "packages", "npm", "*.tgz"))
	if len(tarballs) != 2 {
		t.Fatalf("build/packages/npm holds %d tarballs, want portald's and the host's (make npm-pack-host)", len(tarballs))
	}
	dir := outsideCheckout(t, s.root)
	for _, f := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), mustRead(t, filepath.Join(example, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "archiving.test.mjs"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runScript(t, dir, nil, `
npm ci --no-audit --no-fund --loglevel=error --prefer-offline >&2
npm install --no-save --no-audit --no-fund --loglevel=error --prefer-offline `+strings.Join(tarballs, " ")+` >&2
node --test`)
	// node --test reports in TAP when its output is no terminal, with the spec
	// reporter's "ℹ" on one.
	for _, want := range []string{"tests 1", "pass 1", "fail 0", "skipped 0", "cancelled 0"} {
		if !regexp.MustCompile(`(?m)^(#|ℹ) ` + want + `$`).MatchString(out) {
			t.Errorf("node --test did not report %q:\n%s", want, out)
		}
	}
}

// runReplicas: the loop, on a database of its own that the block's createdb
// makes on PORTAL_TEST_POSTGRES's server, its three ports free ones, the
// built binary as ./portald; each replica answers /health, then all are
// killed and the database dropped.
func runReplicas(t *testing.T, s *snippetRun, body string) {
	const readmeDSN = "postgres://postgres@127.0.0.1:5432/portal?sslmode=disable"
	const readmePorts = "8081 8082 8083"
	if !strings.Contains(body, "PORTAL_DB="+readmeDSN+" ") || !strings.Contains(body, "for port in "+readmePorts+";") {
		t.Fatalf("the block no longer has PORTAL_DB=%s and the ports %s:\n%s", readmeDSN, readmePorts, body)
	}
	server := os.Getenv("PORTAL_TEST_POSTGRES")
	if server == "" {
		t.Fatal("PORTAL_TEST_POSTGRES is not set: run under mk/with-postgres.sh (make test-readme-snippets does)")
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("readme_%d_%d", os.Getpid(), time.Now().UnixNano())
	dsn := *u
	dsn.Path = "/" + name
	pw, _ := u.User.Password()
	pgEnv := []string{"PGHOST=" + u.Hostname(), "PGPORT=" + u.Port(), "PGUSER=" + u.User.Username(), "PGPASSWORD=" + pw,
		"PGSSLMODE=" + u.Query().Get("sslmode"), "PGDATABASE=" + strings.TrimPrefix(u.Path, "/")}
	t.Cleanup(func() {
		cmd := exec.Command("dropdb", "--if-exists", "--force", name)
		cmd.Env = append(cleanEnv(), pgEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("dropdb %s: %v\n%s", name, err, out)
		}
	})

	var ports []string
	for range 3 {
		ports = append(ports, strconv.Itoa(freePort(t)))
	}
	script := strings.Replace(body, "createdb portal ", "createdb "+name+" ", 1)
	script = strings.Replace(script, readmeDSN, "'"+strings.ReplaceAll(dsn.String(), "'", `'\''`)+"'", 1)
	script = strings.Replace(script, readmePorts, strings.Join(ports, " "), 1)
	dir := outsideCheckout(t, s.root)
	if err := os.Symlink(s.bin, filepath.Join(dir, "portald")); err != nil {
		t.Fatal(err)
	}
	// The shell waits for the replicas it started; at the end they are killed
	// by their ids, then it.
	cmd := exec.Command("sh", "-e", "-c", script+"wait\n")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), pgEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		for _, pid := range descendants(t, cmd.Process.Pid) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
		// The shell reaps them and ends; killed first, it would leave them to
		// an init that may not.
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for _, port := range ports {
		for {
			resp, err := http.Get("http://127.0.0.1:" + port + "/health")
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"status":"ok"}` {
					t.Errorf("replica on %s: GET /health: %s %s", port, resp.Status, body)
				}
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("the replicas' shell exited (%v) before %s answered:\n%s", err, port, out.String())
			case <-time.After(50 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("the replica on %s did not answer within a minute:\n%s", port, out.String())
			}
		}
	}
	// One portal: a write on one replica is read on another.
	res, err := http.PostForm("http://127.0.0.1:"+ports[0]+"/sharing/rest/content/users/jsmith/moveItems", url.Values{
		"f": {"json"}, "token": {"demo-user-token"}, "items": {"93b54c8930ae46d9a00a7820cb3ebbd1"}, "folder": {"6c5b4a39281746e5b0a9f8e7d6c5b4a3"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	res, err = http.Get("http://127.0.0.1:" + ports[2] + "/sharing/rest/content/items/93b54c8930ae46d9a00a7820cb3ebbd1?f=json&token=demo-user-token")
	if err != nil {
		t.Fatal(err)
	}
	item, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(item), `"ownerFolder":"6c5b4a39281746e5b0a9f8e7d6c5b4a3"`) {
		t.Errorf("Roads moved on one replica, read on another: %s", item)
	}
}

// descendants returns the ids of the processes below pid, read from /proc.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := map[int]int{}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone since
		}
		// pid (comm) state ppid ...; comm may hold anything, up to the last ")".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		id, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil || len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		parent[id] = ppid
	}
	var out []int
	below := map[int]bool{pid: true}
	for changed := true; changed; {
		changed = false
		for id, ppid := range parent {
			if below[ppid] && !below[id] {
				below[id], changed = true, true
				out = append(out, id)
			}
		}
	}
	if len(out) == 0 {
		t.Errorf("no process below the shell %d in /proc", pid)
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runConformance: the first command against `make run`, reset first, the
// command built rather than run with go run (which would run it in the
// checkout); the second needs a real portal, so only its flags are checked
// against the command's.
func runConformance(t *testing.T, s *snippetRun, body string) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(body), "\\\n", ""), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d commands, want 2", len(lines))
	}
	const goRun = "go run ./cmd/conformance "
	s.reset(t)
	cmd, ok := strings.CutPrefix(strings.ReplaceAll(lines[0], readmeAddr, s.addr), goRun)
	if !ok {
		t.Fatalf("the first command is not %s...", goRun)
	}
	s.confOut = runScript(t, outsideCheckout(t, s.root), nil, "exec "+s.conformance+" "+cmd+" 2>&1")
	if !regexp.MustCompile(`(?m)^PASS: \d+ passed, 0 failed, `).MatchString(s.confOut) {
		t.Errorf("the conformance suite against portald:\n%s", s.confOut)
	}
	help, _ := exec.Command(s.conformance, "-h").CombinedOutput()
	for _, flag := range regexp.MustCompile(`(?:^| )-([a-z-]+) `).FindAllStringSubmatch(lines[1], -1) {
		if !strings.Contains(string(help), "\n  -"+flag[1]+" ") {
			t.Errorf("the second command gives -%s, which conformance -h does not have", flag[1])
		}
	}
}

// runConformanceTarget: the line shown is what the first command printed.
func runConformanceTarget(t *testing.T, s *snippetRun, body string) {
	if s.confOut == "" {
		t.Fatal("the conformance command did not run")
	}
	if !strings.Contains(s.confOut, "\n"+body) {
		t.Errorf("the conformance command printed no line %q:\n%s", strings.TrimSpace(body), s.confOut)
	}
}

// checkMakeTargets: each make command's targets exist (make -n of them
// passed when the test started).
func checkMakeTargets(t *testing.T, s *snippetRun, body string) {
	for _, line := range strings.Split(body, "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(cmd)
		if len(fields) == 0 || fields[0] != "make" {
			continue
		}
		for _, target := range fields[1:] {
			if !slices.Contains(readmeMakeTargets, target) {
				t.Errorf("make %s: the test's make -n does not try it; add it to readmeMakeTargets", target)
			}
		}
	}
}

// checkReliabilityCommand: the command's -run regexp selects, among the tests
// of internal/e2e, exactly those the table of the section names, and
// mk/with-postgres.sh is an executable there.
func checkReliabilityCommand(t *testing.T, s *snippetRun, body string) {
	m := regexp.MustCompile(`^mk/with-postgres\.sh go test -count=1 -v -run '([^']+)' \./internal/e2e/$`).FindStringSubmatch(strings.TrimSpace(lastLine(body)))
	if m == nil {
		t.Fatalf("the command is not mk/with-postgres.sh go test -count=1 -v -run '...' ./internal/e2e/:\n%s", body)
	}
	if fi, err := os.Stat(filepath.Join(s.root, "mk", "with-postgres.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("mk/with-postgres.sh is not an executable: %v", err)
	}
	run := regexp.MustCompile(m[1])
	var selected []string
	files, _ := filepath.Glob(filepath.Join(s.root, "internal", "e2e", "*_test.go"))
	for _, f := range files {
		for _, name := range regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`).FindAllSubmatch(mustRead(t, f), -1) {
			if run.Match(name[1]) {
				selected = append(selected, string(name[1]))
			}
		}
	}
	var listed []string
	for _, line := range strings.Split(string(readmeSection(t, s.readme, "Reliability")), "\n") {
		if first, ok := strings.CutPrefix(line, "| `Test"); ok {
			cell, _, _ := strings.Cut("`Test"+first, " |")
			for _, name := range regexp.MustCompile("`(Test\\w+)`").FindAllStringSubmatch(cell, -1) {
				listed = append(listed, name[1])
			}
		}
	}
	slices.Sort(selected)
	slices.Sort(listed)
	if len(listed) == 0 || !slices.Equal(selected, listed) {
		t.Errorf("-run '%s' selects %q; the table lists %q", m[1], selected, listed)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
