package docs_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/portaltest"
)

// fencedBlocks returns the bodies of the ```lang blocks of md, in order.
func fencedBlocks(md []byte, lang string) []string {
	var out []string
	for _, b := range regexp.MustCompile("(?ms)^```"+regexp.QuoteMeta(lang)+"\n(.*?)^```$").FindAllSubmatch(md, -1) {
		out = append(out, string(b[1]))
	}
	return out
}

// readmeSection returns the text of README.md's "## heading" up to the next
// "## " heading (its "###" subsections included).
func readmeSection(t *testing.T, readme []byte, heading string) []byte {
	t.Helper()
	_, after, ok := bytes.Cut(readme, []byte("\n## "+heading+"\n"))
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if i := bytes.Index(after, []byte("\n## ")); i >= 0 {
		after = after[:i]
	}
	return after
}

// README.md's Go example runs as shown against the reference server (its
// address rewritten to the test server's) and prints what README.md says,
// twice: a second time after the reset README.md gives.
func TestReadmeGoExample(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The program; the README's other Go block is a test, pinned by portaltest.
	var blocks []string
	for _, b := range fencedBlocks(readme, "go") {
		if strings.HasPrefix(b, "package main\n") {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("README.md has %d Go programs (package main), want 1", len(blocks))
	}
	if !strings.Contains(string(readme), "curl -s -X POST http://127.0.0.1:8080/emulator/reset") {
		t.Fatal("README.md does not say how to reset")
	}
	p := portaltest.New(t)
	src := strings.ReplaceAll(blocks[0], sampleBase, p.URL)
	dir, err := os.MkdirTemp(filepath.Dir(file), "readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "try")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("README.md's Go example does not compile: %v\n%s", err, out)
	}
	const want = "93b54c8930ae46d9a00a7820cb3ebbd1 moved\n2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8 not moved: Item already exists in target folder\n"
	for run := range 2 {
		out, err := exec.Command(bin).CombinedOutput()
		if err != nil || string(out) != want {
			t.Errorf("run %d: %v\n%s\nwant\n%s", run+1, err, out, want)
		}
		p.Reset(t)
	}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), "`"+line+"`") {
			t.Errorf("README.md does not show the output line %q", line)
		}
	}
}
