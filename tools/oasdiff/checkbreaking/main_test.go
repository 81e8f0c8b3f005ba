package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The contract the cases edit; its own version does not matter, each case
// sets one.
const contract = "../../../openapi.yaml"

// added is a new operation, an additive change.
const added = `
/gateTest/ping:
  get:
    operationId: gateTestPing
    summary: Answer
    responses:
      '200':
        description: An answer
`

// edit is a copy of the contract to change.
type edit struct {
	t    *testing.T
	root yaml.Node
}

func contractCopy(t *testing.T) *edit {
	t.Helper()
	data, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	e := &edit{t: t}
	if err := yaml.Unmarshal(data, &e.root); err != nil {
		t.Fatal(err)
	}
	return e
}

// child is the value of key in mapping m.
func (e *edit) child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	e.t.Fatalf("no %q in the contract", key)
	return nil
}

func (e *edit) version(v string) *edit {
	e.child(e.child(e.root.Content[0], "info"), "version").Value = v
	return e
}

// removeFirstPath drops the first path of the contract and returns it.
func (e *edit) removeFirstPath() string {
	paths := e.child(e.root.Content[0], "paths")
	if len(paths.Content) < 2 {
		e.t.Fatal("the contract has no path")
	}
	removed := paths.Content[0].Value
	paths.Content = paths.Content[2:]
	return removed
}

func (e *edit) addPath() *edit {
	var item yaml.Node
	if err := yaml.Unmarshal([]byte(added), &item); err != nil {
		e.t.Fatal(err)
	}
	paths := e.child(e.root.Content[0], "paths")
	paths.Content = append(paths.Content, item.Content[0].Content...)
	return e
}

func (e *edit) write(path string) string {
	data, err := yaml.Marshal(&e.root)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// gateRun runs the gate on spec against the releases in dir.
func gateRun(t *testing.T, dir, spec string) (code int, out string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code = run([]string{"-released", dir, spec}, &stdout, &stderr)
	out = stdout.String() + stderr.String()
	t.Logf("exit %d\n%s", code, out)
	return code, out
}

func TestGate(t *testing.T) {
	// Each case writes release 1.0.0 (the contract) and a revision of it.
	cases := []struct {
		name     string
		revise   func(e *edit) (want string) // edits the revision; want is text the output must contain
		wantCode int
	}{
		{"unchanged", func(e *edit) string { e.version("1.0.0"); return "no breaking change" }, exitPass},
		{"operation removed", func(e *edit) string {
			p := e.removeFirstPath()
			e.version("1.0.0")
			return p
		}, exitFail},
		{"operation removed, minor bump", func(e *edit) string {
			p := e.removeFirstPath()
			e.version("1.1.0")
			return p
		}, exitFail},
		{"operation removed, major bump", func(e *edit) string {
			p := e.removeFirstPath()
			e.version("2.0.0")
			return p
		}, exitPass},
		{"operation added", func(e *edit) string { e.addPath().version("1.1.0"); return "/gateTest/ping" }, exitPass},
		{"operation added, version unchanged", func(e *edit) string { e.addPath().version("1.0.0"); return "/gateTest/ping" }, exitPass},
		{"version lower than the release", func(e *edit) string { e.version("0.9.0"); return "lower than the last release" }, exitFail},
		{"version not semver", func(e *edit) string { e.version("2024-01"); return "not a semantic version" }, exitError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			released := filepath.Join(dir, "released")
			if err := os.Mkdir(released, 0o755); err != nil {
				t.Fatal(err)
			}
			contractCopy(t).version("1.0.0").write(filepath.Join(released, "openapi-1.0.0.yaml"))
			rev := contractCopy(t)
			want := c.revise(rev)
			code, out := gateRun(t, released, rev.write(filepath.Join(dir, "openapi.yaml")))
			if code != c.wantCode {
				t.Errorf("exit %d, want %d", code, c.wantCode)
			}
			if !strings.Contains(out, want) {
				t.Errorf("output does not mention %q", want)
			}
		})
	}
}

// The gate compares with the highest release by semver, not by file name:
// 1.10.0 removed an operation that 1.2.0 had (a mistake of the past), and
// the spec is 1.10.0 unchanged, so only a comparison with 1.2.0 would fail.
func TestGateComparesWithLastRelease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	released := filepath.Join(dir, "released")
	if err := os.Mkdir(released, 0o755); err != nil {
		t.Fatal(err)
	}
	contractCopy(t).addPath().version("1.2.0").write(filepath.Join(released, "openapi-1.2.0.yaml"))
	contractCopy(t).version("1.10.0").write(filepath.Join(released, "openapi-1.10.0.yaml"))
	spec := contractCopy(t).version("1.10.0").write(filepath.Join(dir, "openapi.yaml"))
	if code, out := gateRun(t, released, spec); code != exitPass || !strings.Contains(out, "against release 1.10.0") {
		t.Errorf("exit %d, want %d against release 1.10.0", code, exitPass)
	}
}

// A release whose info.version is not the one its name carries was cut
// wrongly; the gate refuses to judge against it.
func TestGateRejectsMisnamedRelease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	released := filepath.Join(dir, "released")
	if err := os.Mkdir(released, 0o755); err != nil {
		t.Fatal(err)
	}
	contractCopy(t).version("1.0.0").write(filepath.Join(released, "openapi-1.1.0.yaml"))
	spec := contractCopy(t).version("1.1.0").write(filepath.Join(dir, "openapi.yaml"))
	if code, out := gateRun(t, released, spec); code != exitError || !strings.Contains(out, "the file name says 1.1.0") {
		t.Errorf("exit %d, want %d for a misnamed release", code, exitError)
	}
}

func TestGateWritesChangelog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	released := filepath.Join(dir, "released")
	if err := os.Mkdir(released, 0o755); err != nil {
		t.Fatal(err)
	}
	contractCopy(t).version("1.0.0").write(filepath.Join(released, "openapi-1.0.0.yaml"))
	spec := contractCopy(t).addPath().version("1.1.0").write(filepath.Join(dir, "openapi.yaml"))
	changelog := filepath.Join(dir, "CHANGELOG-api.md")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-released", released, "-changelog", changelog, spec}, &stdout, &stderr); code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(changelog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "# API Changelog 1.0.0 vs. 1.1.0") || !strings.Contains(string(data), "/gateTest/ping") {
		t.Errorf("changelog does not name the versions and the new operation:\n%s", data)
	}
}
