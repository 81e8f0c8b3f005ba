package e2e

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"testing"
	"time"
)

// TestExitWithStdin: with -exit-with-stdin, portald serves while its
// standard input is open and shuts down, cleanly, once it ends: what a test
// helper holding the pipe relies on to leave no portald behind when it is
// itself killed.
func TestExitWithStdin(t *testing.T) {
	cmd := exec.Command(portaldBinary(t), "-addr", "127.0.0.1:0", "-db", ":memory:", "-log-level", "warn", "-exit-with-stdin")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	m := listening.FindStringSubmatch(line)
	if err != nil || m == nil {
		_ = cmd.Process.Kill()
		t.Fatalf("start-up line %q: %v", line, err)
	}
	resp, err := http.Get(m[1] + "?f=json")
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("portald does not answer while its standard input is open: %v", err)
	}
	resp.Body.Close()

	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("portald ended with %v, want a clean shutdown", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("portald still runs 30 s after its standard input ended")
	}
}
