package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgportal/portal-api/tlscert"
)

var (
	buildOnce sync.Once
	binaryDir string
	binary    string
	buildErr  error
)

// TestMain removes the portald binary the tests built (31 MB a run).
func TestMain(m *testing.M) {
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

// portaldBinary builds cmd/portald once per test binary.
func portaldBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "portald-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binaryDir, binary = dir, filepath.Join(dir, "portald")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/orgportal/portal-api/cmd/portald").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build portald: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// process is one running portald.
type process struct {
	URL  string // API base, ending in /sharing/rest
	Root string
	// CertFile is the HTTPS certificate the start-up line names, "" over
	// HTTP; client trusts it.
	CertFile string
	client   *http.Client
	line     string // the start-up line
	cmd      *exec.Cmd
	done     chan error
	// stdin is portald's standard input, held open until closed here or
	// the process ends (-exit-with-stdin).
	stdin io.WriteCloser
}

var (
	listening = regexp.MustCompile(`API at (https?://\S+/sharing/rest)`)
	certified = regexp.MustCompile(`HTTPS certificate (\S+) \(`)
)

// startPortald starts portald with args and waits for its start-up line. It
// is stopped with SIGTERM when the test ends.
func startPortald(t testing.TB, args ...string) *process {
	t.Helper()
	cmd := exec.Command(portaldBinary(t), append([]string{"-addr", "127.0.0.1:0", "-log-level", "warn"}, args...)...)
	cmd.Env = os.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &syncWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan error, 1), client: http.DefaultClient, stdin: stdin}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if listening.MatchString(sc.Text()) {
				lines <- sc.Text()
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { p.done <- cmd.Wait() }()
	select {
	case line := <-lines:
		p.line = line
		p.URL = listening.FindStringSubmatch(line)[1]
		p.Root = strings.TrimSuffix(p.URL, "/sharing/rest")
		if m := certified.FindStringSubmatch(line); m != nil {
			p.CertFile = m[1]
			p.client = trusting(t, p.CertFile)
		}
	case err := <-p.done:
		t.Fatalf("portald exited before listening: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("portald did not start within a minute\n%s", stderr.String())
	}
	t.Cleanup(func() { p.stop(t) })
	return p
}

// startPortaldTLS starts portald serving HTTPS with a pair it generates in
// a directory of the test's.
func startPortaldTLS(t testing.TB, args ...string) *process {
	t.Helper()
	dir := t.TempDir()
	return startPortald(t, append([]string{"-tls", "-tls-cert", filepath.Join(dir, "cert.pem"), "-tls-key", filepath.Join(dir, "key.pem")}, args...)...)
}

// trusting is an HTTP client that trusts the certificates of file, as one
// given it as its CA file does; it speaks HTTP/2 when the server offers it.
func trusting(t testing.TB, file string) *http.Client {
	t.Helper()
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig(t, file), ForceAttemptHTTP2: true}}
}

// tlsConfig trusts the certificates of file.
func tlsConfig(t testing.TB, file string) *tls.Config {
	t.Helper()
	cfg, err := tlscert.ClientConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func (p *process) stop(t testing.TB) {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("portald did not stop on SIGINT")
	}
}

// kill stops portald with SIGKILL, as a crash or an OOM kill would: no
// request in flight finishes and no deferred cleanup runs.
func (p *process) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill portald: %v", err)
	}
	<-p.done
}

// pid is portald's process id, for reading /proc.
func (p *process) pid() int { return p.cmd.Process.Pid }

// healthy reports whether /health answers 200.
func (p *process) healthy(ctx context.Context) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.Root+"/health", nil)
	resp, err := p.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
