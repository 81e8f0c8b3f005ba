package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// pythonReplay is the ArcGIS API for Python 2.4.3's requests replayed with
// Python's standard library (the client itself cannot be installed here).
var pythonReplay = filepath.Join("..", "..", "clients", "official", "python", "arcgis_python_replay.py")

// The ArcGIS API for Python's sign-ins, settings, categories and moves, as
// the replay sends them and reads the answers, pass against portald over
// HTTPS, trusting the certificate it wrote: with a context (/portal), without
// one (the client's probes and its //sharing/rest/ base), and as ArcGIS
// Online.
func TestArcGISPythonReplay(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to replay the ArcGIS API for Python: %v", err)
	}
	src, err := os.ReadFile(pythonReplay)
	if err != nil {
		t.Fatal(err)
	}
	want := len(regexp.MustCompile(`(?m)^    def test_`).FindAll(src, -1))
	for _, c := range []struct {
		name, portalName string
		args             []string
	}{
		{"context", "ArcGIS Enterprise", []string{"-context", "/portal"}},
		{"no-context", "ArcGIS Enterprise", nil},
		{"online", "ArcGIS Online", []string{"-deployment", "online"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := startPortaldTLS(t, append([]string{"-db", ":memory:"}, c.args...)...)
			cmd := exec.CommandContext(t.Context(), python, pythonReplay, "-v")
			cmd.Env = append(os.Environ(), "PORTAL_URL="+p.Root, "REQUESTS_CA_BUNDLE="+p.CertFile, "PORTAL_NAME="+c.portalName)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s against %s: %v\n%s", pythonReplay, p.Root, err, out)
			}
			// Every test ran and none was skipped.
			m := regexp.MustCompile(`(?m)^Ran (\d+) tests? in`).FindSubmatch(out)
			if m == nil || string(m[1]) != strconv.Itoa(want) || regexp.MustCompile(`(?m)^OK \(skipped`).Match(out) {
				t.Fatalf("want %d tests run and none skipped:\n%s", want, out)
			}
		})
	}
}
