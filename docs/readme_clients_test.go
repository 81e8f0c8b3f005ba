package docs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The placeholders README.md's client sections write for what differs on each
// machine: the certificate portald's start-up line names, and the address of
// `PORTAL_TLS=true make run`.
const (
	readmeCert   = "/path/to/the/checkout/portal-cert.pem"
	readmeOrigin = "https://127.0.0.1:8080"
)

// README.md's client snippets (ArcGIS REST JS, the ArcGIS API for Python) run
// as a newcomer runs them: from a directory outside the checkout, against
// portald -tls started from another directory, trusting the certificate by the
// absolute path its start-up line prints; each twice, since a script is run
// again. The packages come from the repository's locks (clients/typescript's
// node_modules, the venv of mk/python.mk) rather than the registries: the
// test checks that README.md installs the same versions. Run by make
// test-readme-clients (PORTAL_TEST_README_CLIENTS=1).
func TestReadmeClientSnippets(t *testing.T) {
	if os.Getenv("PORTAL_TEST_README_CLIENTS") != "1" {
		t.Skip("set PORTAL_TEST_README_CLIENTS=1 to run README.md's client snippets (make test-readme-clients)")
	}
	root, readme := readReadme(t)
	section := readmeSection(t, readme, "Use the portal's own clients")
	origin, cert := startTLSPortald(t, root)

	t.Run("JavaScript", func(t *testing.T) {
		sh := fencedBlocks(section, "sh")
		js := fencedBlocks(section, "js")
		if len(sh) == 0 || len(js) != 1 {
			t.Fatalf("README.md, Use the portal's own clients: %d sh and %d js blocks, want the install commands first and one js block", len(sh), len(js))
		}
		cmds := strings.Split(strings.TrimSpace(sh[0]), "\n")
		if len(cmds) != 3 || cmds[0] != "mkdir portal-try && cd portal-try" || !strings.HasPrefix(cmds[1], "npm install ") ||
			!strings.Contains(cmds[2], "NODE_EXTRA_CA_CERTS="+readmeCert+" node try.mjs") {
			t.Fatalf("README.md's JavaScript commands are not mkdir+cd, npm install, node try.mjs with the certificate's absolute path:\n%s", sh[0])
		}
		lock := lockedNpmVersions(t, filepath.Join(root, "clients", "typescript", "package-lock.json"))
		for _, arg := range strings.Fields(cmds[1])[2:] {
			at := strings.LastIndex(arg, "@")
			if at <= 0 || lock[arg[:at]] != arg[at+1:] {
				t.Errorf("README.md installs %s; clients/typescript/package-lock.json, which the test runs with, has %s@%s", arg, arg[:max(at, 0)], lock[arg[:max(at, 0)]])
			}
		}
		if strings.Count(js[0], readmeOrigin) != 1 {
			t.Fatalf("the snippet names %s %d times, want once", readmeOrigin, strings.Count(js[0], readmeOrigin))
		}
		home := outsideCheckout(t, root)
		runSh(t, home, cmds[0])
		dir := filepath.Join(home, "portal-try")
		// What `npm install` would leave: the locked packages.
		if err := os.Symlink(filepath.Join(root, "clients", "typescript", "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "try.mjs"), []byte(strings.Replace(js[0], readmeOrigin, origin, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "Demo Organization - ArcGIS Enterprise - signed in as jsmith\nRoads moved to 1a9ad803da604628b08c968ce602a231\nRoads moved to /\n"
		for run := 1; run <= 2; run++ {
			if out := runSh(t, dir, strings.Replace(cmds[2], readmeCert, cert, 1)); out != want {
				t.Errorf("run %d printed\n%s\nwant\n%s", run, out, want)
			}
		}
		if !strings.Contains(string(section), "It prints `Demo Organization - ArcGIS Enterprise - signed in as jsmith`") {
			t.Error("README.md does not say what the JavaScript snippet prints")
		}
	})

	t.Run("Python", func(t *testing.T) {
		py := fencedBlocks(section, "python")
		if len(py) != 1 {
			t.Fatalf("README.md, From Python: %d python blocks, want 1", len(py))
		}
		if !strings.Contains(string(section), "pip install arcgis==2.4.3") {
			t.Error("README.md does not install arcgis==2.4.3, the version of clients/official/python/requirements.txt")
		}
		if reqs, err := os.ReadFile(filepath.Join(root, "clients", "official", "python", "requirements.txt")); err != nil || !bytes.Contains(reqs, []byte("\narcgis==2.4.3 ")) {
			t.Errorf("clients/official/python/requirements.txt does not lock arcgis==2.4.3 (%v)", err)
		}
		if strings.Count(py[0], readmeOrigin) == 0 {
			t.Fatalf("the snippet does not name %s", readmeOrigin)
		}
		// The snippet states what it prints in a comment on each print line.
		var want strings.Builder
		for _, line := range strings.Split(py[0], "\n") {
			if code, comment, ok := strings.Cut(line, "# "); ok && strings.HasPrefix(code, "print(") {
				want.WriteString(strings.TrimSpace(comment) + "\n")
			}
		}
		if want.Len() == 0 {
			t.Fatal("the snippet states no output")
		}
		dir := outsideCheckout(t, root)
		if err := os.WriteFile(filepath.Join(dir, "try.py"), []byte(strings.ReplaceAll(py[0], readmeOrigin, origin)), 0o644); err != nil {
			t.Fatal(err)
		}
		// The commands: a virtual environment with arcgis at ~/arcgis-venv,
		// the certificate's path exported, try.py run. HOME is a directory of
		// the test's, where ~/arcgis-venv links to the locked environment of
		// mk/python.mk instead of an install from PyPI (its version checked
		// above) and ~/portal-cert.pem is the certificate copied out.
		var cmds []string
		for _, b := range fencedBlocks(section, "sh") {
			if strings.HasPrefix(b, "python3 -m venv ~/arcgis-venv ") {
				cmds = strings.Split(strings.TrimSpace(b), "\n")
			}
		}
		const export = "export REQUESTS_CA_BUNDLE=$HOME/portal-cert.pem    # or " + readmeCert
		if len(cmds) != 3 || cmds[0] != "python3 -m venv ~/arcgis-venv && ~/arcgis-venv/bin/pip install arcgis==2.4.3" ||
			cmds[1] != export || cmds[2] != "~/arcgis-venv/bin/python try.py" {
			t.Fatalf("README.md, From Python: the commands are not the venv and arcgis==2.4.3, %q and try.py:\n%q", export, cmds)
		}
		home := outsideCheckout(t, root)
		if err := os.Symlink(filepath.Join(root, ".build", "python", "venv"), filepath.Join(home, "arcgis-venv")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "portal-cert.pem"), mustRead(t, cert), 0o644); err != nil {
			t.Fatal(err)
		}
		// Run 1 as written; run 2 with the alternative the comment gives, the
		// path portald's start-up line prints.
		for run, exportLine := range []string{cmds[1], "export REQUESTS_CA_BUNDLE=" + cert} {
			cmd := exec.Command("sh", "-e", "-c", exportLine+"\n"+cmds[2])
			cmd.Dir = dir
			cmd.Env = append(cleanEnv(), "HOME="+home)
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != want.String() {
				t.Errorf("run %d: %v\n%s\nwant\n%s", run+1, err, out, want.String())
			}
		}
	})

	t.Run("containers.conf", func(t *testing.T) {
		var line string
		for _, b := range fencedBlocks(readmeSection(t, readme, "Run in a container"), "sh") {
			if strings.Contains(b, "containers.conf") {
				line = strings.TrimSpace(b)
			}
		}
		if line == "" {
			t.Fatal("README.md, Run in a container: no command writing containers.conf")
		}
		home := outsideCheckout(t, root)
		cmd := exec.Command("sh", "-c", line+` && printf %s "$CONTAINERS_CONF"`)
		cmd.Dir, cmd.Env = home, append(cleanEnv(), "HOME="+home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		conf, err := os.ReadFile(string(out))
		// deploy/image_test.go's containers.conf, which make test-image runs podman with.
		if err != nil || string(conf) != "[containers]\ndefault_ulimits = []\n" {
			t.Errorf("CONTAINERS_CONF=%s: %v %q", out, err, conf)
		}
	})
}

// startTLSPortald starts portald -tls as `PORTAL_TLS=true make run` does, from
// a directory of its own, and returns its origin and the certificate path its
// start-up line prints.
func startTLSPortald(t *testing.T, root string) (origin, cert string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "portald")
	goBuild(t, root, bin, "./cmd/portald")
	cmd := exec.Command(bin, "-tls", "-addr", "127.0.0.1:0", "-db", ":memory:", "-log-level", "warn")
	cmd.Dir = t.TempDir()
	line := startCommand(t, cmd)
	m := regexp.MustCompile(`API at (https://[^/\s]+)/sharing/rest\b.*HTTPS certificate (\S+) \(`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("portald -tls's start-up line names no HTTPS API and certificate: %q", line)
	}
	if !filepath.IsAbs(m[2]) {
		t.Fatalf("the start-up line names the certificate %s, not by an absolute path", m[2])
	}
	return m[1], m[2]
}

// outsideCheckout returns a new directory that is not inside the checkout.
func outsideCheckout(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
		t.Fatalf("the temporary directory %s is inside the checkout %s: set TMPDIR elsewhere", dir, root)
	}
	return dir
}

// cleanEnv is the test's environment without what would make a client trust
// or reach something README.md does not tell a user to set.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED", "NODE_OPTIONS", "NODE_PATH",
			"REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE", "PYTHONPATH", "CONTAINERS_CONF", "PORTALD_BIN":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// runSh runs a README.md command line with sh in dir and returns its output.
func runSh(t *testing.T, dir, line string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, cleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// lockedNpmVersions maps each package of a package-lock.json to its version.
func lockedNpmVersions(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for p, v := range lock.Packages {
		if name, ok := strings.CutPrefix(p, "node_modules/"); ok && !strings.Contains(name, "/node_modules/") {
			out[name] = v.Version
		}
	}
	return out
}
