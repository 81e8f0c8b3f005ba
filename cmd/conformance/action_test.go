package main

import (
	"bytes"
	"errors"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

// The action passes an HTTPS portal whose certificate it is given by the
// ca-file input, at every release and deployment the emulator has, the
// whole suite run (the token answers' ssl included).
func TestActionScriptOverTLS(t *testing.T) {
	for _, deployment := range []string{"enterprise", "online"} {
		for _, version := range []string{"10.8", "11.0", "11.1", "11.5"} {
			t.Run(deployment+"-"+version, func(t *testing.T) {
				p := portaltest.New(t, portaltest.WithTLS(), portaltest.WithVersion(version), portaltest.WithDeployment(deployment))
				r := runAction(t, map[string]string{
					"CONFORMANCE_BASE_URL": p.URL, "CONFORMANCE_TOKEN": p.AdminToken, "CONFORMANCE_MEMBER_TOKEN": p.MemberToken,
					"CONFORMANCE_CA_FILE": p.CertFile(t),
				})
				if r.status != 0 || !strings.Contains(r.stdout, "PASS    examples/generateToken/issued (") {
					t.Fatalf("action.sh exit status %d against portald over HTTPS with ca-file, want 0 and the token examples passed\n%s", r.status, r.stdout)
				}
				if !strings.Contains(r.summary, "\nPASS: ") {
					t.Errorf("step summary:\n%s", r.summary)
				}
			})
		}
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
	for _, want := range []string{"\nFAIL: ", "- `moveItems/mixedSuccessAndFailure`\n"} {
		if strings.Count(r.summary, want) != 1 {
			t.Errorf("step summary does not hold %q once:\n%s", want, r.summary)
		}
	}
	// Only failed tests, by name: no timing, no group failed for a test in
	// it (moveItems, conformance).
	for _, line := range strings.Split(r.summary, "\n") {
		if strings.HasPrefix(line, "- ") && (strings.Contains(line, "(") || line == "- `moveItems`" || line == "- `conformance`") {
			t.Errorf("step summary lists %q:\n%s", line, r.summary)
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

// actionYML is what the tests read of action.yml.
type actionYML struct {
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Env map[string]string `yaml:"env"`
			Run string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionYML {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action actionYML
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 || !strings.Contains(action.Runs.Steps[0].Run, "cmd/conformance/action.sh") {
		t.Fatalf("action.yml is not one composite step running action.sh: %+v", action.Runs)
	}
	return action
}

// action.yml has one input per flag of the CLI, and no other: each input
// is passed as the environment variable of one flag (the one its usage
// names), every flag has its input, and each input says what it is. Only
// url is required (token, or username and password, the CLI checks).
func TestActionInputsAreCLIFlags(t *testing.T) {
	action := readAction(t)
	_, fs, _ := Load(nil, func(string) string { return "" })
	envs := flagEnvs()
	flagOf := map[string]string{} // environment variable -> flag
	fs.VisitAll(func(f *flag.Flag) {
		env, ok := envs[f.Name]
		if !ok {
			t.Errorf("-%s has no environment variable", f.Name)
			return
		}
		if !strings.HasSuffix(f.Usage, "[$"+env+"]") {
			t.Errorf("-%s: its usage %q does not name %s", f.Name, f.Usage, env)
		}
		flagOf[env] = f.Name
	})
	if len(flagOf) < 15 {
		t.Fatalf("the CLI has %d flags: the flag set was not read", len(flagOf))
	}
	inputRE := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)
	inputOf := map[string]string{} // flag -> input
	for env, v := range action.Runs.Steps[0].Env {
		f, ok := flagOf[env]
		if !ok {
			t.Errorf("action.yml sets %s, which no flag of the CLI reads", env)
			continue
		}
		m := inputRE.FindStringSubmatch(v)
		if m == nil {
			t.Errorf("action.yml sets %s to %q, not to an input", env, v)
			continue
		}
		if _, ok := action.Inputs[m[1]]; !ok {
			t.Errorf("action.yml sets %s from an undeclared input %q", env, m[1])
		}
		inputOf[f] = m[1]
	}
	for _, f := range slices.Sorted(maps.Values(flagOf)) {
		if _, ok := inputOf[f]; !ok {
			t.Errorf("-%s (%s) has no input in action.yml", f, envs[f])
		}
	}
	used := map[string]int{}
	for _, in := range inputOf {
		used[in]++
	}
	for name, in := range action.Inputs {
		switch {
		case used[name] == 0:
			t.Errorf("input %q is no flag of the CLI", name)
		case used[name] > 1:
			t.Errorf("input %q gives %d flags", name, used[name])
		}
		if in.Required != (name == "url") {
			t.Errorf("input %q: required %v; only url is", name, in.Required)
		}
		if !in.Required && in.Default == nil {
			t.Errorf("input %q: no default", name)
		}
		if len(strings.Fields(in.Description)) < 4 {
			t.Errorf("input %q is not described: %q", name, in.Description)
		}
	}
	// An input's default is handed to the CLI as its variable: it must be
	// one the CLI takes.
	defaults := map[string]string{}
	for name, in := range action.Inputs {
		if in.Default != nil && *in.Default != "" {
			for f, i := range inputOf {
				if i == name {
					defaults[envs[f]] = *in.Default
				}
			}
		}
	}
	if _, _, err := Load([]string{"-base-url", "http://x/sharing/rest", "-token", "t"}, func(k string) string { return defaults[k] }); err != nil {
		t.Errorf("the inputs' defaults %v: %v", defaults, err)
	}
}

// The job summary names each failed test once, as the CLI's summary does:
// not the padded, timed lines printed as each test ends, and not the groups
// that failed only because a test in them did (examples, the top-level
// conformance). A group that failed on its own, as a setup that could not
// reach the portal, is named. The outputs are the CLI's, captured.
func TestJobSummary(t *testing.T) {
	cases := []struct {
		capture string
		status  int
		want    string
	}{
		{"testdata/failed-run.txt", 1, "### Portal API conformance\n\n" +
			"FAIL: 144 passed, 2 failed, 1 not run, in 5.283s, against https://127.0.0.1:38211/sharing/rest\n\n" +
			"Failed:\n\n- `examples/generateToken/issued`\n- `examples/oauthToken/appToken`\n"},
		{"testdata/untrusted-run.txt", 1, "### Portal API conformance\n\n" +
			"FAIL: 0 passed, 1 failed, 0 not run, in 137ms, against https://127.0.0.1:38211/sharing/rest\n\n" +
			"Failed:\n\n- `conformance`\n"},
		{"", 2, "### Portal API conformance\n\nThe suite did not run (exit status 2): see the step's log.\n"},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			cmd := exec.Command("bash", "summary.sh", strconv.Itoa(c.status))
			if c.capture != "" {
				f, err := os.Open(c.capture)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("summary.sh: %v", err)
			}
			if string(out) != c.want {
				t.Errorf("summary:\n%s\nwant:\n%s", out, c.want)
			}
		})
	}
}

// README's "Check your portal in CI" holds a complete workflow that uses the
// action with inputs it has (url among them, run documented), and a table
// naming every input.
func TestReadmeWorkflow(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Check your portal in CI\n")
	if !ok {
		t.Fatal("README.md has no section Check your portal in CI")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```yaml\n")
	if !ok {
		t.Fatal("the section holds no YAML block")
	}
	block, _, _ = strings.Cut(block, "\n```\n")
	var wf struct {
		Name string         `yaml:"name"`
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			RunsOn   string         `yaml:"runs-on"`
			Services map[string]any `yaml:"services"`
			Steps    []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
		t.Fatalf("the workflow does not parse: %v\n%s", err, block)
	}
	if wf.Name == "" || len(wf.On) == 0 || len(wf.Jobs) == 0 {
		t.Fatalf("the workflow lacks name, on or jobs:\n%s", block)
	}
	action := readAction(t)
	uses, services := 0, 0
	for name, job := range wf.Jobs {
		if job.RunsOn == "" {
			t.Errorf("job %s has no runs-on", name)
		}
		services += len(job.Services)
		for _, step := range job.Steps {
			if !strings.HasPrefix(step.Uses, "orgportal/portal-api@") {
				continue
			}
			uses++
			if step.With["url"] == "" {
				t.Errorf("job %s: the action without url", name)
			}
			for in := range step.With {
				if _, ok := action.Inputs[in]; !ok {
					t.Errorf("job %s: the action has no input %q", name, in)
				}
			}
			if _, ok := step.With["run"]; !ok {
				t.Errorf("job %s: the action's run input is not shown", name)
			}
		}
	}
	if uses == 0 || services == 0 {
		t.Errorf("the workflow runs the action %d times, with %d service containers; want the action and portald as a service", uses, services)
	}
	for in := range action.Inputs {
		if !regexp.MustCompile("(?m)^\\| [^|]*`" + regexp.QuoteMeta(in) + "`[^|]*\\| ").MatchString(section) {
			t.Errorf("the input table does not name %s", in)
		}
	}
	if !strings.Contains(section, "`run` selects tests") {
		t.Error("the run input is not described")
	}
}
