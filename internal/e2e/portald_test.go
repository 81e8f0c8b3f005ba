package e2e

import (
	"bufio"
	"context"
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
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// portaldBinary builds cmd/portald once per test binary.
func portaldBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "portald-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "portald")
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
	cmd  *exec.Cmd
	done chan error
}

var listening = regexp.MustCompile(`API at (http://\S+/sharing/rest)`)

// startPortald starts portald with args and waits for its start-up line. It
// is stopped with SIGTERM when the test ends.
func startPortald(t testing.TB, args ...string) *process {
	t.Helper()
	cmd := exec.Command(portaldBinary(t), append([]string{"-addr", "127.0.0.1:0", "-log-level", "warn"}, args...)...)
	cmd.Env = os.Environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &syncWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { p.done <- cmd.Wait() }()
	select {
	case u := <-lines:
		p.URL = u
		p.Root = strings.TrimSuffix(u, "/sharing/rest")
	case err := <-p.done:
		t.Fatalf("portald exited before listening: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("portald did not start within a minute\n%s", stderr.String())
	}
	t.Cleanup(func() { p.stop(t) })
	return p
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
	resp, err := http.DefaultClient.Do(req)
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
