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

// peakRSS samples the resident set of process pid, as often as it can,
// until the returned stop is called, which returns the peak.
func peakRSS(t *testing.T, pid int) (sample func(), stop func() int64) {
	var (
		peak    atomic.Int64
		done    = make(chan struct{})
		sampled sync.WaitGroup
	)
	sample = func() {
		if r := rss(t, pid); r > peak.Load() {
			peak.Store(r)
		}
	}
	sampled.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				sample()
			}
		}
	})
	return sample, func() int64 {
		close(done)
		sampled.Wait()
		sample()
		return peak.Load()
	}
}

// floodAnswer judges one answer of a flood: 503 with Retry-After and the
// envelope (the bodies in flight at their bound), or no server error.
func floodAnswer(t *testing.T, resp *http.Response, busy *atomic.Int64) {
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable {
		busy.Add(1)
		if resp.Header.Get("Retry-After") == "" || !bytes.Contains(b, []byte(`"code":503`)) {
			t.Errorf("503 without Retry-After or envelope: %v %s", resp.Header, b)
		}
	} else if resp.StatusCode >= 500 {
		t.Errorf("HTTP %d %s", resp.StatusCode, b)
	}
}

// floodLimit is the resident memory a flood of large bodies must keep
// portald under.
const floodLimit = 150 << 20

// floodBodySize is the size of each body of a flood: the largest accepted.
const floodBodySize = 1 << 20

// floodOf starts portald on its default store, a file (kept out of the
// source tree), and returns it, an anonymous settings/update body of
// floodBodySize and a client opening a connection per request.
func floodOf(t *testing.T) (*process, []byte, *http.Client) {
	p := startPortald(t, "-db", filepath.Join(t.TempDir(), "portal.db"))
	body := []byte("informationalBanner=" + strings.Repeat("x", floodBodySize-len("informationalBanner=")))
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return p, body, &http.Client{Transport: tr}
}

// 500 concurrent anonymous 1 MiB bodies keep portald under 150 MiB of
// resident memory, and /health answers while all of them are in flight:
// the bodies in flight are bounded, those beyond the bound answered 503
// with Retry-After.
func TestFloodOfLargeAnonymousBodies(t *testing.T) {
	const clients = 500
	p, body, client := floodOf(t)

	var (
		released = make(chan struct{})
		ready    sync.WaitGroup
		done     sync.WaitGroup
		busy     atomic.Int64
		answered atomic.Int64
	)
	sample, stop := peakRSS(t, p.pid())
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
			answered.Add(1)
			floodAnswer(t, resp, &busy)
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
	peak := stop()
	t.Logf("peak RSS %.1f MiB; %d answered, %d of them 503", float64(peak)/(1<<20), answered.Load(), busy.Load())
	if peak >= floodLimit {
		t.Errorf("portald peaked at %.1f MiB of resident memory, want under %d MiB", float64(peak)/(1<<20), floodLimit>>20)
	}
}

// 500 anonymous 1 MiB bodies sent at once, each request over as soon as it
// is answered and sent again when refused for want of room, until the API
// has read each: portald stays under 150 MiB of resident memory. The bodies
// in flight are bounded, and the garbage the answered ones leave is
// collected before it piles up (portald's soft memory limit; without it,
// at GOGC=400, the same flood peaks at several hundred MB).
func TestFastFloodOfLargeAnonymousBodies(t *testing.T) {
	const (
		clients  = 500
		attempts = 1000 // per body, before the test gives up on it
	)
	p, body, client := floodOf(t)

	var (
		start = make(chan struct{})
		done  sync.WaitGroup
		busy  atomic.Int64 // 503s
		read  atomic.Int64 // bodies the API read and answered
	)
	_, stop := peakRSS(t, p.pid())
	for range clients {
		done.Go(func() {
			<-start
			for range attempts {
				req, err := http.NewRequest(http.MethodPost, p.URL+"/portals/self/settings/update", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				resp, err := client.Do(req)
				if err != nil {
					continue // the server may close a refused body's connection under the client
				}
				floodAnswer(t, resp, &busy)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					read.Add(1) // the API's answer: the token is missing
					return
				}
			}
		})
	}
	close(start)
	done.Wait()
	peak := stop()
	t.Logf("peak RSS %.1f MiB; %d bodies read, %d refused with 503 on the way", float64(peak)/(1<<20), read.Load(), busy.Load())
	if read.Load() != clients {
		t.Errorf("the API read %d of the %d bodies", read.Load(), clients)
	}
	if peak >= floodLimit {
		t.Errorf("portald peaked at %.1f MiB of resident memory, want under %d MiB", float64(peak)/(1<<20), floodLimit>>20)
	}
}
