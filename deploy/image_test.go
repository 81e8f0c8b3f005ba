package deploy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/internal/pgtest"
)

// The image is built and run here by a podman of the test's own: its store,
// run state, networks and volumes live in a temporary directory, so that the
// test neither needs nor disturbs any other container on the machine. It
// runs containers with runc and cgroupfs (machines without systemd), and the
// network is slirp4netns (user mode: no bridge, no firewall rule, nothing
// pulled).
const (
	testImage   = "localhost/portald:image-test"
	testVersion = "v0.0.0-image-test"
	testRev     = "0123456789abcdef0123456789abcdef01234567"
	// The image must stay small enough to pull in a CI job in seconds.
	maxImageBytes = 25_000_000
	network       = "slirp4netns:port_handler=slirp4netns"
)

type podman struct {
	env []string // CONTAINERS_CONF and CONTAINERS_STORAGE_CONF of the test's own
}

func newPodman(t *testing.T) *podman {
	t.Helper()
	for _, tool := range []string{"podman", "runc", "slirp4netns"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("PORTAL_TEST_IMAGE=1 but no %s: %v (make test-image installs Debian's podman, runc and slirp4netns)", tool, err)
		}
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "containers.conf")
	storage := filepath.Join(dir, "storage.conf")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// default_ulimits: the packaged default raises nofile beyond what these
	// machines allow a container.
	write(conf, fmt.Sprintf(`[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = %q
volume_path = %q
[network]
network_config_dir = %q
`, filepath.Join(dir, "tmp"), filepath.Join(dir, "volumes"), filepath.Join(dir, "networks")))
	write(storage, fmt.Sprintf(`[storage]
driver = "overlay"
graphroot = %q
runroot = %q
`, filepath.Join(dir, "graph"), filepath.Join(dir, "run")))
	p := &podman{env: append(os.Environ(), "CONTAINERS_CONF="+conf, "CONTAINERS_STORAGE_CONF="+storage)}
	t.Cleanup(func() {
		// Everything, mounts included, before the directory goes.
		if _, stderr, err := p.try("system", "reset", "--force"); err != nil {
			t.Errorf("podman system reset: %v\n%s", err, stderr)
		}
	})
	return p
}

// try runs podman with args.
func (p *podman) try(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("podman", args...)
	cmd.Env = p.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// run runs podman with args and returns its output; it fails the test if
// podman fails.
func (p *podman) run(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, err := p.try(args...)
	if err != nil {
		t.Fatalf("podman %s: %v\n%s%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout
}

var startLine = regexp.MustCompile(`^portald listening on (\S+), API at \S+, .*store ([^(]+) \(([^)]+)\)`)

// container is one running portald container.
type container struct {
	name, base string // base: the server root as the host reaches it
	line       string // portald's start-up line
	data       string // what the start-up line says of the store's data
}

// start runs the image with args (podman run options) and waits for
// portald's start-up line. The container's base is where the host reaches
// port 8080 when it is published.
func (p *podman) start(t *testing.T, name string, args ...string) *container {
	t.Helper()
	p.run(t, append(append([]string{"run", "--detach", "--name", name}, args...), testImage)...)
	t.Cleanup(func() { _, _, _ = p.try("rm", "--force", "--time", "0", name) })
	c := &container{name: name}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logs := exec.CommandContext(ctx, "podman", "logs", "--follow", name)
	logs.Env = p.env
	out, err := logs.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	logs.Stderr = &stderr
	if err := logs.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = logs.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := startLine.FindStringSubmatch(sc.Text()); m != nil {
			c.line, c.data = sc.Text(), m[3]
			break
		}
	}
	if c.line == "" {
		t.Fatalf("container %s printed no start-up line: %v\n%s", name, sc.Err(), stderr.String())
	}
	// Empty on the host's network, where nothing is published.
	if hostPort, _, err := p.try("port", name, "8080/tcp"); err == nil && strings.TrimSpace(hostPort) != "" {
		c.base = "http://" + strings.TrimSpace(hostPort)
	}
	return c
}

func (p *podman) inspect(t *testing.T, kind, name string) map[string]any {
	t.Helper()
	var v []map[string]any
	if err := json.Unmarshal([]byte(p.run(t, kind, "inspect", "--format", "json", name)), &v); err != nil || len(v) != 1 {
		t.Fatalf("podman %s inspect %s: %v", kind, name, err)
	}
	return v[0]
}

// field walks v along path (map keys).
func field(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// call sends a request and returns the status and the decoded JSON answer.
func call(t *testing.T, method, u string, header http.Header, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s %s: %s, not JSON: %q", method, u, resp.Status, b)
	}
	return resp.StatusCode, v
}

var form = http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}

func setBanner(t *testing.T, c *container, text string) {
	t.Helper()
	banner, _ := json.Marshal(map[string]any{"text": text, "bgColor": "grey", "fontColor": "#FFFFFF", "enabled": true})
	v := url.Values{"token": {"demo-admin-token"}, "f": {"json"}, "informationalBanner": {string(banner)}}
	status, answer := call(t, http.MethodPost, c.base+"/sharing/rest/portals/self/settings/update", form, v.Encode())
	if status != http.StatusOK || answer["success"] != true {
		t.Fatalf("settings/update: HTTP %d %v", status, answer)
	}
}

func banner(t *testing.T, c *container) any {
	t.Helper()
	status, answer := call(t, http.MethodGet, c.base+"/sharing/rest/portals/self/settings?f=json&token=demo-admin-token", nil, "")
	if status != http.StatusOK || answer["error"] != nil {
		t.Fatalf("settings: HTTP %d %v", status, answer)
	}
	return field(answer, "informationalBanner", "text")
}

// hostUID is the user id a container's process runs as (no user namespace:
// the host's and the container's are one).
func hostUID(t *testing.T, p *podman, name string) string {
	t.Helper()
	pid := strings.TrimSpace(p.run(t, "inspect", "--format", "{{.State.Pid}}", name))
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			return strings.Fields(rest)[0]
		}
	}
	t.Fatalf("no Uid in /proc/%s/status", pid)
	return ""
}

func TestImage(t *testing.T) {
	if os.Getenv("PORTAL_TEST_IMAGE") != "1" {
		t.Skip("set PORTAL_TEST_IMAGE=1 to build the image and run it with podman (make test-image)")
	}
	p := newPodman(t)

	// Built by make image, the way a user builds it.
	build := exec.Command("make", "--no-print-directory", "-C", "..", "image", "IMAGE="+testImage,
		"CONTAINER_ENGINE=podman", "BUILD_VERSION="+testVersion, "BUILD_REVISION="+testRev)
	build.Env = p.env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}

	t.Run("metadata", func(t *testing.T) {
		img := p.inspect(t, "image", testImage)
		size, _ := img["Size"].(float64)
		t.Logf("image size: %.0f bytes", size)
		if size <= 0 || size > maxImageBytes {
			t.Errorf("image size %.0f bytes, want at most %d", size, maxImageBytes)
		}
		for k, want := range map[string]string{
			"org.opencontainers.image.version":  testVersion,
			"org.opencontainers.image.revision": testRev,
			"org.opencontainers.image.source":   "https://github.com/orgportal/portal-api",
			"org.opencontainers.image.title":    "portald",
		} {
			if got := field(img, "Labels", k); got != want {
				t.Errorf("label %s = %v, want %q", k, got, want)
			}
		}
		if u := field(img, "Config", "User"); u != "65532:65532" {
			t.Errorf("user %v, want 65532:65532", u)
		}
		if field(img, "Config", "ExposedPorts", "8080/tcp") == nil || field(img, "Config", "Volumes", "/data") == nil {
			t.Errorf("port 8080 or volume /data missing: %v", img["Config"])
		}
		if hc := fmt.Sprint(field(img, "Healthcheck", "Test")); hc != "[CMD /portald healthcheck]" {
			t.Errorf("health check %s, want the exec form of /portald healthcheck (no shell in the image)", hc)
		}
		// The version and revision reached the binary, not only the labels.
		help := p.run(t, "run", "--rm", testImage, "-h")
		if !strings.Contains(help, "portald "+testVersion+" ("+testRev+")") {
			t.Errorf("portald -h in the image does not name its build:\n%s", help)
		}
		// compose.yaml sets only variables portald reads.
		c := readCompose(t)
		for _, name := range portaldServices(c) {
			for k := range c.Services[name].Environment {
				if !strings.Contains(help, "(env "+k+")") {
					t.Errorf("compose.yaml sets %s for %s, which portald does not read", k, name)
				}
			}
		}
	})

	p.run(t, "volume", "create", "portal-data")
	first := p.start(t, "portald-first", "--network", network, "--publish", "127.0.0.1::8080", "--volume", "portal-data:/data")
	if first.data != "new, seeded with the demo organizations" || !strings.Contains(first.line, "store SQLite file /data/portal.db") {
		t.Fatalf("start-up line %q", first.line)
	}

	t.Run("health", func(t *testing.T) {
		if out, stderr, err := p.try("healthcheck", "run", first.name); err != nil {
			t.Fatalf("podman healthcheck run: %v\n%s%s", err, out, stderr)
		}
		if s := p.run(t, "inspect", "--format", "{{.State.Health.Status}}", first.name); strings.TrimSpace(s) != "healthy" {
			t.Errorf("health status %q", s)
		}
		if uid := hostUID(t, p, first.name); uid != "65532" {
			t.Errorf("portald runs as uid %s, want 65532", uid)
		}
	})

	setBanner(t, first, "Written before the restart")

	// The emulator's own endpoints answer the host, whose requests reach
	// the container from outside its loopback; web pages stay refused.
	t.Run("emulator endpoints", func(t *testing.T) {
		jsonType := http.Header{"Content-Type": {"application/json"}}
		for _, c := range []struct {
			name   string
			header http.Header
		}{
			{"a foreign Origin", http.Header{"Content-Type": {"application/json"}, "Origin": {"http://evil.example"}}},
			{"a cross-site fetch", http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"cross-site"}}},
			{"a form's content type", form},
		} {
			status, answer := call(t, http.MethodPost, first.base+"/emulator/reset", c.header, "")
			if status != http.StatusForbidden || field(answer, "error", "code") != float64(403) {
				t.Errorf("reset with %s: HTTP %d %v, want 403 and the error envelope", c.name, status, answer)
			}
		}
		if got := banner(t, first); got != "Written before the restart" {
			t.Fatalf("a refused reset changed the store: banner %v", got)
		}
		status, answer := call(t, http.MethodGet, first.base+"/emulator/requests?operation=updateSettings", jsonType, "")
		if reqs, _ := answer["requests"].([]any); status != http.StatusOK || len(reqs) != 1 {
			t.Errorf("GET /emulator/requests from the host: HTTP %d %v, want the one updateSettings call", status, answer)
		}
	})

	// A new container on the same volume has the same store.
	p.run(t, "stop", first.name)
	if code := strings.TrimSpace(p.run(t, "inspect", "--format", "{{.State.ExitCode}}", first.name)); code != "0" {
		t.Errorf("portald exited with %s on podman stop, want 0", code)
	}
	p.run(t, "rm", first.name)
	second := p.start(t, "portald-second", "--network", network, "--publish", "127.0.0.1::8080", "--volume", "portal-data:/data")
	if second.data != "existing data" {
		t.Errorf("second container's start-up line %q: want existing data", second.line)
	}
	if got := banner(t, second); got != "Written before the restart" {
		t.Errorf("after the restart, banner %v", got)
	}

	t.Run("reset from the host", func(t *testing.T) {
		status, answer := call(t, http.MethodPost, second.base+"/emulator/reset", http.Header{"Content-Type": {"application/json"}}, "")
		if status != http.StatusOK || answer["success"] != true {
			t.Fatalf("reset: HTTP %d %v", status, answer)
		}
		if got := banner(t, second); got == "Written before the restart" {
			t.Errorf("the reset kept the banner")
		}
	})

	// The conformance action's script, as a CI job would run it against a
	// service container.
	t.Run("conformance action", func(t *testing.T) {
		dir := t.TempDir()
		script, err := filepath.Abs("../cmd/conformance/action.sh")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", script)
		cmd.Dir = dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CONFORMANCE_") && !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "CONFORMANCE_BASE_URL="+second.base+"/sharing/rest", "CONFORMANCE_TOKEN=demo-admin-token",
			"CONFORMANCE_MEMBER_TOKEN=demo-user-token", "CONFORMANCE_JUNIT=report.xml", "RUNNER_TEMP="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("conformance against the container: %v\n%s", err, out)
		}
		if !regexp.MustCompile(`(?m)^PASS: [1-9][0-9]* passed, 0 failed`).Match(out) {
			t.Errorf("conformance output:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(dir, "report.xml")); err != nil {
			t.Errorf("no JUnit report: %v", err)
		}
	})

	// PORTAL_* variables reach portald: here a PostgreSQL store, on the
	// host's network, where the database listens on loopback.
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		c := p.start(t, "portald-postgres", "--network", "host", "--no-healthcheck",
			"--env", "PORTAL_DB="+dsn, "--env", "PORTAL_ADDR=127.0.0.1:0", "--env", "PORTAL_DEPLOYMENT=online")
		m := startLine.FindStringSubmatch(c.line)
		if !strings.HasPrefix(m[2], "PostgreSQL") || !strings.Contains(c.line, "portal 11.5 online") {
			t.Fatalf("start-up line %q: want a PostgreSQL store and an online portal", c.line)
		}
		c.base = "http://" + m[1]
		if _, err := strconv.Atoi(strings.TrimPrefix(m[1], "127.0.0.1:")); err != nil {
			t.Fatalf("listening on %s", m[1])
		}
		setBanner(t, c, "Stored in PostgreSQL")
		if got := banner(t, c); got != "Stored in PostgreSQL" {
			t.Errorf("banner %v", got)
		}
	})
}
