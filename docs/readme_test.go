package docs_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// readmeGoOutput is what README.md's Go example prints against the seed.
const readmeGoOutput = "93b54c8930ae46d9a00a7820cb3ebbd1 moved\n2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8 not moved: Item already exists in target folder\n"

// README.md's Go example runs as shown against the reference server (its
// address rewritten to the test server's) and prints what README.md says,
// twice: a second time after the reset README.md gives.
func TestReadmeGoExample(t *testing.T) {
	root, readme := readReadme(t)
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
	bin := buildReadmeProgram(t, root, strings.ReplaceAll(blocks[0], sampleBase, p.URL))
	for run := range 2 {
		cmd := exec.Command(bin)
		cmd.Dir = outsideCheckout(t, root)
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != readmeGoOutput {
			t.Errorf("run %d: %v\n%s\nwant\n%s", run+1, err, out, readmeGoOutput)
		}
		p.Reset(t)
	}
	for _, line := range strings.Split(strings.TrimSpace(readmeGoOutput), "\n") {
		if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), "`"+line+"`") {
			t.Errorf("README.md does not show the output line %q", line)
		}
	}
}

// buildReadmeProgram builds a Go program of README.md in a module of its own
// outside the checkout (tempModule), and returns the binary.
func buildReadmeProgram(t *testing.T, root, src string) string {
	t.Helper()
	dir := tempModule(t, root, map[string]string{"main.go": src})
	bin := filepath.Join(t.TempDir(), "try")
	if out, err := goInModule(dir, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("README.md's Go example does not compile: %v\n%s", err, out)
	}
	return bin
}

// Each package's README (the wheel's long description, the npm package's
// page) shows a test that make test-wheel or make test-npm runs as it is:
// the README's one code block is that file's text.
func TestPackageReadmeSnippets(t *testing.T) {
	for _, c := range []struct{ readme, lang, file string }{
		{"../packages/python/README.md", "python", "../packages/python/example/test_readme.py"},
		{"../packages/npm/portald/README.md", "js", "../packages/npm/example/test/readme.test.mjs"},
	} {
		readme, err := os.ReadFile(c.readme)
		if err != nil {
			t.Fatal(err)
		}
		blocks := fencedBlocks(readme, c.lang)
		if len(blocks) != 1 {
			t.Fatalf("%s has %d %s blocks, want 1", c.readme, len(blocks), c.lang)
		}
		file, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if blocks[0] != string(file) {
			t.Errorf("%s's %s block and %s differ:\n%s\n---\n%s", c.readme, c.lang, c.file, blocks[0], file)
		}
	}
}
