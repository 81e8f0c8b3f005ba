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

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/portaltest"
)

// sampleRoot is the server the samples are written for: portald as `make
// run` starts it. The portal's samples use its REST root, sampleBase; the
// emulator's, the root itself.
const (
	sampleRoot = "http://127.0.0.1:8080"
	sampleBase = sampleRoot + "/sharing/rest"
	// sampleTLSRoot is the address of `PORTAL_TLS=true make run`: the ArcGIS
	// API for Python, which speaks HTTPS only, is written for it.
	sampleTLSRoot = "https://127.0.0.1:8080"
)

// contract is one of the OpenAPI documents whose operations carry samples.
type contract struct {
	name string // the file, such as openapi.yaml
	doc  *openapi3.T
	// base is what every sample addresses.
	base string
}

func contracts(t *testing.T) []contract {
	t.Helper()
	portal, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	emu, err := openapi3.NewLoader().LoadFromData(portalapi.EmulatorYAML)
	if err != nil {
		t.Fatal(err)
	}
	return []contract{{"openapi.yaml", portal, sampleBase}, {"emulator.yaml", emu, sampleRoot}}
}

// codeSamples returns each operation's x-codeSamples source by language.
func codeSamples(doc *openapi3.T) map[string]map[string]string {
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

// allSamples is every contract's samples, keyed "file/operationId".
func allSamples(t *testing.T) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, c := range contracts(t) {
		for op, bylang := range codeSamples(c.doc) {
			out[c.name+"/"+op] = bylang
		}
	}
	return out
}

// Every operation of both contracts has a curl, a TypeScript, a Go, a Python
// and a JavaScript sample, written for the server that `make run` starts (the
// ArcGIS API for Python's for `PORTAL_TLS=true make run`; the page shows them
// for the server serving it).
func TestCodeSamplesPresent(t *testing.T) {
	for _, c := range contracts(t) {
		samples := codeSamples(c.doc)
		if len(samples) < 15 {
			t.Fatalf("%s: %d operations, want at least 15", c.name, len(samples))
		}
		for op, bylang := range samples {
			for _, lang := range []string{"Shell", "TypeScript", "Go", "Python", "JavaScript"} {
				src := bylang[lang]
				if src == "" {
					t.Errorf("%s: %s: no %s sample", c.name, op, lang)
					continue
				}
				if !strings.Contains(src, c.base) && !(lang == "Python" && strings.Contains(src, "GIS(\""+sampleTLSRoot+"\"")) {
					t.Errorf("%s: %s: the %s sample does not use %s", c.name, op, lang, c.base)
				}
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
			// A per-item result carries success; search results are documents.
			if m, _ := r.(map[string]any); m["success"] != nil && m["success"] != true {
				out = append(out, fmt.Sprint(m))
			}
		}
	}
	return out
}

// The curl samples run as shown against the reference server, each on a
// freshly reset emulator, and every answer is a success.
func TestCurlSamples(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("sh is needed to run the curl samples")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed to run the curl samples")
	}
	samples := allSamples(t)
	p := portaltest.New(t)
	for _, op := range sortedKeys(samples) {
		t.Run(op, func(t *testing.T) {
			p.Reset(t)
			src := strings.ReplaceAll(samples[op]["Shell"], sampleRoot, p.Root)
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
// run against the reference server, each on a freshly reset emulator.
func TestGoSamples(t *testing.T) {
	samples := allSamples(t)
	p := portaltest.New(t)
	_, file, _, _ := runtime.Caller(0)
	// Inside the module, so that the program builds against this tree; its
	// name starts with "_" so that ./... in a go command run meanwhile (go vet
	// in another terminal) does not list it, then find it gone.
	dir, err := os.MkdirTemp(filepath.Dir(file), "_samples-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"io\"\n\t\"log\"\n\t\"net/http\"\n\t\"net/url\"\n\t\"os\"\n\t\"regexp\"\n\t\"strings\"\n\t\"time\"\n\n\t\"github.com/orgportal/portal-api/client\"\n\t\"github.com/orgportal/portal-api/gen/emulatorapi\"\n)\n\n")
	b.WriteString("var _, _, _ = fmt.Sprint, time.Second, context.Background\nvar _, _ = client.New, emulatorapi.NewClient\n")
	b.WriteString("var _, _, _, _, _ = io.ReadAll, http.Get, url.Parse, regexp.MustCompile, strings.Contains\n\n")
	b.WriteString("var samples = map[string]func(){\n")
	ops := sortedKeys(samples)
	for _, op := range ops {
		// The address of `make run`, rewritten to the test server's.
		fmt.Fprintf(&b, "\t%q: func() {\n%s\n\t},\n", op, strings.ReplaceAll(samples[op]["Go"], sampleRoot, p.Root))
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
