package e2e

import (
	"testing"
	"time"
)

// TestExitWithStdin: with -exit-with-stdin, portald serves while its
// standard input is open and shuts down, cleanly, once it ends: what a test
// helper holding the pipe relies on to leave no portald behind when it is
// itself killed.
func TestExitWithStdin(t *testing.T) {
	p := startPortald(t, "-db", ":memory:", "-exit-with-stdin")
	resp, err := p.client.Get(p.URL + "?f=json")
	if err != nil {
		t.Fatalf("portald does not answer while its standard input is open: %v", err)
	}
	resp.Body.Close()

	if err := p.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("portald ended with %v, want a clean shutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("portald still runs 30 s after its standard input ended")
	}
}
