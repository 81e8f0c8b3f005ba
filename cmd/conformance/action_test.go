package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/orgportal/portal-api/portaltest"
)

// actionRun is one run of action.sh, as the GitHub Action runs it: inputs
// as environment variables, the GitHub files it writes, in a workspace.
type actionRun struct {
	status          int
	stdout          string
	output, summary string // what it wrote to $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY
	workspace       string
}

func runAction(t *testing.T, inputs map[string]string) actionRun {
	t.Helper()
	dir := t.TempDir()
	r := actionRun{workspace: filepath.Join(dir, "workspace")}
	tmp := filepath.Join(dir, "runner-temp")
	for _, d := range []string{r.workspace, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	output, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	// The script finds the repository from its own path, wherever it runs.
	script, err := filepath.Abs("action.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = r.workspace
	// Nothing of the environment this test runs in (on GitHub, its own
	// GITHUB_* files) reaches the script but what it needs to build.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CONFORMANCE_") && !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary, "RUNNER_TEMP="+tmp)
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.status = exit.ExitCode()
	default:
		t.Fatalf("running action.sh: %v", err)
	}
	r.stdout = stdout.String() + stderr.String()
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(b)
	}
	r.output, r.summary = read(output), read(summary)
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("action.sh left %v in RUNNER_TEMP (%v)", left, err)
	}
	return r
}

// The action's script builds the CLI, passes the inputs on, and reports
// for GitHub: a portal that conforms passes.
func TestActionScriptPasses(t *testing.T) {
	p := portaltest.New(t)
	r := runAction(t, map[string]string{
		"CONFORMANCE_BASE_URL": p.URL, "CONFORMANCE_TOKEN": p.AdminToken,
		"CONFORMANCE_RUN": selection, "CONFORMANCE_JUNIT": "reports/conformance.xml",
	})
	if r.status != 0 {
		t.Fatalf("action.sh exit status %d against the reference server, want 0\n%s", r.status, r.stdout)
	}
	s := readJUnit(t, filepath.Join(r.workspace, "reports/conformance.xml"))
	if s.Tests == 0 || s.Failures != 0 {
		t.Errorf("JUnit: %d tests, %d failures; want some tests and no failure", s.Tests, s.Failures)
	}
	if r.output != "junit=reports/conformance.xml\n" {
		t.Errorf("GITHUB_OUTPUT holds %q", r.output)
	}
	if !strings.Contains(r.summary, "\nPASS: ") || strings.Contains(r.summary, "Failed:") {
		t.Errorf("step summary:\n%s", r.summary)
	}
}

// A portal that breaks the contract fails the step, and the report and the
// summary name the failed test.
func TestActionScriptFails(t *testing.T) {
	p, base := brokenPortal(t)
	r := runAction(t, map[string]string{
		"CONFORMANCE_BASE_URL": base, "CONFORMANCE_USERNAME": portaltest.Admin,
		"CONFORMANCE_PASSWORD": portaltest.AdminPassword, "CONFORMANCE_MEMBER_TOKEN": p.MemberToken, "CONFORMANCE_RUN": selection,
	})
	if r.status != 1 {
		t.Fatalf("action.sh exit status %d against a portal dropping moveItems errors, want 1\n%s", r.status, r.stdout)
	}
	s := readJUnit(t, filepath.Join(r.workspace, "conformance-junit.xml"))
	if c := findCase(s, "moveItems/mixedSuccessAndFailure"); c == nil || c.Failure == nil {
		t.Errorf("JUnit: moveItems/mixedSuccessAndFailure is not a failure: %+v", c)
	}
	if r.output != "junit=conformance-junit.xml\n" {
		t.Errorf("GITHUB_OUTPUT holds %q", r.output)
	}
	for _, want := range []string{"\nFAIL: ", "- `moveItems/mixedSuccessAndFailure`"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("step summary lacks %q:\n%s", want, r.summary)
		}
	}
}

// Without a token or a password the CLI refuses to start: the step fails
// with its usage error, and the summary says the suite did not run.
func TestActionScriptUsageError(t *testing.T) {
	r := runAction(t, map[string]string{"CONFORMANCE_BASE_URL": "http://127.0.0.1:1/sharing/rest"})
	if r.status != 2 || !strings.Contains(r.stdout, "give -token, or -username and -password") {
		t.Fatalf("action.sh exit status %d, want 2 and the usage error\n%s", r.status, r.stdout)
	}
	if !strings.Contains(r.summary, "did not run (exit status 2)") {
		t.Errorf("step summary:\n%s", r.summary)
	}
}

// action.yml passes each input to the CLI as one of its environment
// variables, and every input reaches it.
func TestActionInputsAreCLISettings(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 || !strings.Contains(action.Runs.Steps[0].Run, "cmd/conformance/action.sh") {
		t.Fatalf("action.yml is not one composite step running action.sh: %+v", action.Runs)
	}
	envs := map[string]bool{}
	for _, s := range settings {
		envs[s.env] = true
	}
	used := map[string]bool{}
	inputRE := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)
	for k, v := range action.Runs.Steps[0].Env {
		if !envs[k] {
			t.Errorf("action.yml sets %s, which the CLI does not read", k)
		}
		m := inputRE.FindStringSubmatch(v)
		if m == nil {
			t.Errorf("action.yml sets %s to %q, not to an input", k, v)
			continue
		}
		if _, ok := action.Inputs[m[1]]; !ok {
			t.Errorf("action.yml sets %s from an undeclared input %q", k, m[1])
		}
		used[m[1]] = true
	}
	for name, in := range action.Inputs {
		if !used[name] {
			t.Errorf("input %q reaches nothing", name)
		}
		if in.Required != (name == "url") {
			t.Errorf("input %q: required %v; only url is (token or username and password, the CLI checks)", name, in.Required)
		}
	}
}
