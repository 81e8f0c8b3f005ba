package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orgportal/portal-api/internal/bench"
)

// op is one kind of request of a load run.
type op struct {
	name string
	// request builds the n-th request of worker w against base (the API
	// root, ending in /sharing/rest).
	request func(base string, w, n int) (*http.Request, error)
	// check judges an answer's body; nil accepts any 200 without the error
	// envelope.
	check func(body []byte) error
	// prepare, when set, runs before the clock starts, to put the target in
	// the state the requests expect.
	prepare func(ctx context.Context, hc *http.Client, base string, workers int) error
}

// result is what a load run measured for one op.
type result struct {
	op        string
	workers   int
	requests  int
	errors    int
	firstErr  error
	elapsed   time.Duration
	latencies []time.Duration // of every request, sorted
}

func (r result) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// percentile returns the p-th percentile (0 < p <= 100) of the latencies:
// the smallest latency at least p% of the requests did not exceed.
func (r result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(float64(len(r.latencies))*p/100+0.999999) - 1
	return r.latencies[min(max(i, 0), len(r.latencies)-1)]
}

// run sends o's requests from workers goroutines, each one after the other,
// until d has passed; requests in flight then finish and count.
func run(ctx context.Context, hc *http.Client, base string, o op, workers int, d time.Duration) result {
	if o.prepare != nil {
		if err := o.prepare(ctx, hc, base, workers); err != nil {
			return result{op: o.name, workers: workers, firstErr: fmt.Errorf("preparing: %w", err), elapsed: time.Nanosecond}
		}
	}
	var (
		mu  sync.Mutex
		res = result{op: o.name, workers: workers}
		wg  sync.WaitGroup
	)
	start := time.Now()
	end := start.Add(d)
	for w := range workers {
		wg.Go(func() {
			var lat []time.Duration
			errs := 0
			var firstErr error
			for n := 0; time.Now().Before(end) && ctx.Err() == nil; n++ {
				t0 := time.Now()
				err := send(ctx, hc, base, o, w, n)
				lat = append(lat, time.Since(t0))
				if err != nil {
					errs++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			res.latencies = append(res.latencies, lat...)
			res.requests += len(lat)
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = firstErr
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	slices.Sort(res.latencies)
	return res
}

func send(ctx context.Context, hc *http.Client, base string, o op, w, n int) error {
	req, err := o.request(base, w, n)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || bytes.HasPrefix(body, []byte(`{"error"`)) {
		return fmt.Errorf("%s: %s %.200s", o.name, resp.Status, body)
	}
	if o.check != nil {
		return o.check(body)
	}
	return nil
}

func post(target string, form url.Values) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req, nil
}

func get(target string, form url.Values) (*http.Request, error) {
	return http.NewRequest(http.MethodGet, target+"?"+form.Encode(), nil)
}

// settingsUpdate replaces the organization's banner, a different text each
// time: validation, authentication and one durable write.
func settingsUpdate(token string) op {
	return op{name: "settings/update", request: func(base string, w, n int) (*http.Request, error) {
		return post(base+"/portals/self/settings/update", bench.SettingsForm(token, w<<24|n))
	}}
}

// floorOp sends settings/update's form to the floor server.
func floorOp() op {
	return op{name: "floor (echo: form + JSON)", request: func(base string, w, n int) (*http.Request, error) {
		return post(base+"/portals/self/settings/update", bench.SettingsForm("floor", w<<24|n))
	}}
}

// read is a GET of path with token.
func read(name, path, token string) op {
	return op{name: name, request: func(base string, _, _ int) (*http.Request, error) {
		return get(base+path, url.Values{"f": {"json"}, "token": {token}})
	}}
}

// moveOp moves batches of size ids of the bench seed's items back and forth
// between its two folders. Each worker moves its own items, so every item of
// every request moves; workers*size must not exceed seedItems.
func moveOp(size, workers int) (op, error) {
	if size < 1 || size*workers > seedItems {
		return op{}, fmt.Errorf("moveItems:%d with %d workers needs %d items; the bench seed has %d", size, workers, size*workers, seedItems)
	}
	lists := make([]string, workers)
	for w := range workers {
		ids := make([]string, size)
		for i := range ids {
			ids[i] = seedItemID(w*size + i)
		}
		lists[w] = strings.Join(ids, ",")
	}
	name := "moveItems, " + strconv.Itoa(size) + " id"
	if size > 1 {
		name += "s"
	}
	move := func(base string, w int, dest string) (*http.Request, error) {
		return post(base+"/content/users/"+seedUser+"/moveItems",
			url.Values{"f": {"json"}, "token": {seedUserToken}, "items": {lists[w]}, "folder": {dest}})
	}
	return op{
		name: name,
		// Every run starts with the items in folder A, wherever an earlier
		// run left them; those already there answer success:false, which
		// is fine here.
		prepare: func(ctx context.Context, hc *http.Client, base string, workers int) error {
			for w := range workers {
				req, err := move(base, w, seedFolderA)
				if err != nil {
					return err
				}
				resp, err := hc.Do(req.WithContext(ctx))
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			return nil
		},
		request: func(base string, w, n int) (*http.Request, error) {
			if n%2 == 0 {
				return move(base, w, seedFolderB)
			}
			return move(base, w, seedFolderA)
		},
		check: func(body []byte) error {
			if bytes.Contains(body, []byte(`"success":false`)) {
				return fmt.Errorf("moveItems: an item did not move: %.200s", body)
			}
			return nil
		},
	}, nil
}
