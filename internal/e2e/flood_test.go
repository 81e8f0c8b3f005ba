package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// floodBody is a 1 MiB anonymous settings/update form that holds its last
// byte back until release is closed, so that every request of the flood is
// in flight at once, whatever the scheduling.
type floodBody struct {
	r       *bytes.Reader
	held    bool
	arrived func() // called once, when only the last byte is left
	release <-chan struct{}
}

func (b *floodBody) Read(p []byte) (int, error) {
	if b.r.Len() == 1 && !b.held {
		b.held = true
		b.arrived()
		<-b.release
	}
	if n := b.r.Len() - 1; !b.held && len(p) > n {
		p = p[:n] // never the last byte with the others
	}
	return b.r.Read(p)
}

// rss is the resident set of process pid, in bytes.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, found := strings.CutPrefix(sc.Text(), "VmRSS:"); found {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// 500 concurrent anonymous 1 MiB bodies keep portald under 150 MB of
// resident memory, and /health answers while all of them are in flight:
// the bodies in flight are bounded, those beyond the bound answered 503
// with Retry-After.
func TestFloodOfLargeAnonymousBodies(t *testing.T) {
	const (
		clients = 500
		size    = 1 << 20
		limit   = 150 << 20
	)
	// The default store, a file, kept out of the source tree.
	p := startPortald(t, "-db", filepath.Join(t.TempDir(), "portal.db"))
	pid := p.cmd.Process.Pid
	body := []byte("informationalBanner=" + strings.Repeat("x", size-len("informationalBanner=")))
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	var (
		peak     atomic.Int64
		stop     = make(chan struct{})
		sampled  sync.WaitGroup
		released = make(chan struct{})
		ready    sync.WaitGroup
		done     sync.WaitGroup
		busy     atomic.Int64
		answered atomic.Int64
	)
	sample := func() {
		if r := rss(t, pid); r > peak.Load() {
			peak.Store(r)
		}
	}
	sampled.Add(1)
	go func() {
		defer sampled.Done()
		for {
			select {
			case <-stop:
				return
			default:
				sample()
			}
		}
	}()
	ready.Add(clients)
	done.Add(clients)
	for range clients {
		go func() {
			defer done.Done()
			var once sync.Once
			arrived := func() { once.Do(ready.Done) }
			defer arrived() // refused before the end of its body: there all the same
			fb := &floodBody{r: bytes.NewReader(body), arrived: arrived, release: released}
			req, err := http.NewRequest(http.MethodPost, p.URL+"/portals/self/settings/update", fb)
			if err != nil {
				t.Error(err)
				return
			}
			req.ContentLength = int64(len(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := client.Do(req)
			if err != nil {
				return // the server may close a refused body's connection under the client
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answered.Add(1)
			if resp.StatusCode == http.StatusServiceUnavailable {
				busy.Add(1)
				if resp.Header.Get("Retry-After") == "" || !bytes.Contains(b, []byte(`"code":503`)) {
					t.Errorf("503 without Retry-After or envelope: %v %s", resp.Header, b)
				}
			} else if resp.StatusCode >= 500 {
				t.Errorf("HTTP %d %s", resp.StatusCode, b)
			}
		}()
	}
	ready.Wait()
	// Every request is in flight (or already refused): /health answers.
	resp, err := client.Get(p.Root + "/health")
	if err != nil {
		t.Fatalf("/health during the flood: %v", err)
	}
	hb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/health during the flood: %d %s", resp.StatusCode, hb)
	}
	sample()
	close(released)
	done.Wait()
	close(stop)
	sampled.Wait()
	sample()
	t.Logf("peak RSS %.1f MB; %d answered, %d of them 503", float64(peak.Load())/1e6, answered.Load(), busy.Load())
	if peak.Load() >= limit {
		t.Errorf("portald peaked at %.1f MB of resident memory, want under %d MB", float64(peak.Load())/1e6, limit>>20)
	}
}
