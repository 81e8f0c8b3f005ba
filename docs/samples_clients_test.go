package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/portaltest"
)

// The Python samples (the ArcGIS API for Python 2.4.3 over HTTPS where it has
// the call, requests otherwise, both from the hashed lock of mk/python.mk) and the
// JavaScript ones (ArcGIS REST JS from clients/typescript's locked
// node_modules; fetch for the emulator's JSON endpoints, which REST JS, a
// form client, does not call) run against the reference server, each on a
// freshly reset emulator, and print only successful answers. Run by make
// test-samples-clients (PORTAL_TEST_SAMPLES=1).
func TestClientSamples(t *testing.T) {
	if os.Getenv("PORTAL_TEST_SAMPLES") != "1" {
		t.Skip("set PORTAL_TEST_SAMPLES=1 to run the Python and JavaScript samples (make test-samples-clients)")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	python := filepath.Join(root, ".build", "python", "venv", "bin", "python")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to run the JavaScript samples")
	}
	samples := allSamples(t)
	// Beside clients/typescript's node_modules, so that the packages resolve
	// as after npm install.
	jsDir, err := os.MkdirTemp(filepath.Join(root, "clients", "typescript"), ".samples-js-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(jsDir) })
	pyDir := t.TempDir()
	p := portaltest.New(t)
	// The ArcGIS API for Python speaks HTTPS only: its samples, written for
	// sampleTLSRoot, run against a Portal of their own over HTTPS.
	tp := portaltest.New(t, portaltest.WithTLS())
	cert := tp.CertFile(t)
	for _, op := range sortedKeys(samples) {
		t.Run(op, func(t *testing.T) {
			py, js := samples[op]["Python"], samples[op]["JavaScript"]
			if py == "" || js == "" {
				t.Fatalf("no Python or no JavaScript sample")
			}
			if strings.HasPrefix(op, "openapi.yaml/") && !strings.Contains(js, `from "@esri/arcgis-rest-`) {
				t.Errorf("the JavaScript sample does not use ArcGIS REST JS:\n%s", js)
			}
			name := strings.NewReplacer("/", "-", ".", "-").Replace(op)
			run := func(lang, bin, file, src string) {
				server, env := p, cleanEnv()
				if strings.Contains(src, "from arcgis") {
					server, env = tp, append(env, "REQUESTS_CA_BUNDLE="+cert)
					if !strings.Contains(src, sampleTLSRoot) {
						t.Errorf("%s: the ArcGIS API for Python sample does not use %s", lang, sampleTLSRoot)
					}
				}
				src = strings.ReplaceAll(src, sampleTLSRoot, tp.Root)
				if err := os.WriteFile(file, []byte(strings.ReplaceAll(src, sampleRoot, p.Root)), 0o644); err != nil {
					t.Fatal(err)
				}
				server.Reset(t)
				cmd := exec.Command(bin, file)
				cmd.Env = env
				out, err := cmd.Output()
				if err != nil {
					stderr := ""
					if ee, ok := err.(*exec.ExitError); ok {
						stderr = string(ee.Stderr)
					}
					t.Fatalf("%s: %v\n%s%s\n%s", lang, err, out, stderr, src)
				}
				answers, err := decodeAll(out)
				if err != nil || len(answers) == 0 {
					t.Fatalf("%s: the output is not JSON (%v): %s", lang, err, out)
				}
				for _, a := range answers {
					if f := failures(a); len(f) > 0 {
						t.Errorf("%s: an error: %s\n%s", lang, f, src)
					}
				}
			}
			run("Python", python, filepath.Join(pyDir, name+".py"), py)
			run("JavaScript", node, filepath.Join(jsDir, name+".mjs"), js)
		})
	}
}
