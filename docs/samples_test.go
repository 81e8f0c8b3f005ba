package docs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/portaltest"
)

// sampleBase is the REST root the samples are written for: portald as
// `make run` starts it.
const sampleBase = "http://127.0.0.1:8080/sharing/rest"

// codeSamples returns each operation's x-codeSamples source by language.
func codeSamples(t *testing.T) map[string]map[string]string {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			list, _ := op.Extensions["x-codeSamples"].([]any)
			bylang := map[string]string{}
			for _, v := range list {
				m, _ := v.(map[string]any)
				lang, _ := m["lang"].(string)
				src, _ := m["source"].(string)
				bylang[lang] = src
			}
			out[op.OperationID] = bylang
		}
	}
	return out
}

// Every operation has a curl, a TypeScript and a Go sample, written for the
// reference server that `make run` starts.
func TestCodeSamplesPresent(t *testing.T) {
	samples := codeSamples(t)
	if len(samples) < 18 {
		t.Fatalf("%d operations, want at least 18", len(samples))
	}
	for op, bylang := range samples {
		for _, lang := range []string{"Shell", "TypeScript", "Go"} {
			src := bylang[lang]
			if src == "" {
				t.Errorf("%s: no %s sample", op, lang)
				continue
			}
			if !strings.Contains(src, sampleBase) {
				t.Errorf("%s: the %s sample does not use %s", op, lang, sampleBase)
			}
		}
	}
}

// decodeAll reads the JSON values a sample printed, one after another.
func decodeAll(out []byte) ([]map[string]any, error) {
	var all []map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var v map[string]any
		err := dec.Decode(&v)
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, v)
	}
}

// failures lists the errors in an answer: the envelope, or a per-item one.
func failures(v map[string]any) []string {
	var out []string
	if e, ok := v["error"]; ok {
		out = append(out, fmt.Sprint(e))
	}
	if rs, ok := v["results"].([]any); ok {
		for _, r := range rs {
			if m, _ := r.(map[string]any); m["success"] != true {
				out = append(out, fmt.Sprint(m))
			}
		}
	}
	return out
}

// The curl samples run as shown against the reference server, each on a
// freshly reset demo organization, and every answer is a success.
func TestCurlSamples(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("sh is needed to run the curl samples")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed to run the curl samples")
	}
	samples := codeSamples(t)
	p := portaltest.New(t)
	for _, op := range sortedKeys(samples) {
		t.Run(op, func(t *testing.T) {
			p.Reset(t)
			src := strings.ReplaceAll(samples[op]["Shell"], sampleBase, p.URL)
			out, err := exec.Command(sh, "-e", "-c", src).Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			answers, err := decodeAll(out)
			if err != nil || len(answers) == 0 {
				t.Fatalf("the answer is not JSON (%v): %s", err, out)
			}
			for _, a := range answers {
				if f := failures(a); len(f) > 0 {
					t.Errorf("an error: %s\n%s", f, src)
				}
			}
		})
	}
}

// The Go samples compile as one program, each the body of a function, and
// run against the reference server, each on a freshly reset organization.
func TestGoSamples(t *testing.T) {
	samples := codeSamples(t)
	p := portaltest.New(t)
	_, file, _, _ := runtime.Caller(0)
	// Inside the module, so that the program builds against this tree.
	dir, err := os.MkdirTemp(filepath.Dir(file), "samples-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log\"\n\t\"os\"\n\t\"time\"\n\n\t\"github.com/orgportal/portal-api/client\"\n)\n\n")
	b.WriteString("var _, _, _ = fmt.Sprint, time.Second, context.Background\nvar _ = client.New\n\n")
	b.WriteString("var samples = map[string]func(){\n")
	ops := sortedKeys(samples)
	for _, op := range ops {
		// The address of `make run`, rewritten to the test server's.
		fmt.Fprintf(&b, "\t%q: func() {\n%s\n\t},\n", op, strings.ReplaceAll(samples[op]["Go"], sampleBase, p.URL))
	}
	b.WriteString("}\n\nfunc main() { samples[os.Args[1]]() }\n")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "samples")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the Go samples do not compile: %v\n%s", err, out)
	}
	for _, op := range ops {
		t.Run(op, func(t *testing.T) {
			p.Reset(t)
			out, err := exec.Command(bin, op).CombinedOutput()
			if err != nil {
				t.Errorf("%v: %s", err, out)
			}
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
