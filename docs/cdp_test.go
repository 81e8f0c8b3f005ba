package docs_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// browser is a headless Chromium driven through the DevTools protocol over
// --remote-debugging-pipe: commands go to the browser on its fd 3, answers
// and events come back on its fd 4, each message a JSON object ended by a
// NUL byte. No WebSocket and no library: the test needs a dozen commands.
type browser struct {
	ctx context.Context
	w   *os.File

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpMessage
	events  []cdpMessage
	changed chan struct{} // signalled when events grow or the pipe ends
	ended   error
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startBrowser starts Chromium for t, stopped when t ends. Every host but
// 127.0.0.1 is unresolvable, so a request to another origin also fails.
func startBrowser(t *testing.T, chromium string) *browser {
	t.Helper()
	// A guard against a hung browser, not a performance assertion. Not
	// t.Context(): that one ends before the cleanup that closes the browser.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	toBrowser, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		"--user-data-dir="+t.TempDir(),
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fds 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &browser{ctx: ctx, w: w, waiting: map[int]chan cdpMessage{}, changed: make(chan struct{}, 1)}
	done := make(chan struct{})
	go b.read(r, done)
	t.Cleanup(func() {
		// Browser.close ends the process; the pipe and the context cover a
		// browser that no longer answers.
		_ = b.send("", "Browser.close", nil)
		w.Close()
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case <-waited:
		case <-ctx.Done():
			<-waited
		}
		cancel()
		<-done
		r.Close()
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", tail(stderr.String(), 3000))
		}
	})
	return b
}

func (b *browser) read(r io.Reader, done chan struct{}) {
	defer close(done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.ended = fmt.Errorf("the browser's pipe ended: %v", err)
			for _, ch := range b.waiting {
				close(ch)
			}
			b.waiting = map[int]chan cdpMessage{}
			b.mu.Unlock()
			b.signal()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.waiting[m.ID]; ch != nil {
				delete(b.waiting, m.ID)
				ch <- m
			}
		} else {
			b.events = append(b.events, m)
		}
		b.mu.Unlock()
		b.signal()
	}
}

func (b *browser) signal() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// send writes one command without waiting for its answer.
func (b *browser) send(session, method string, params any) error {
	_, err := b.start(session, method, params)
	return err
}

func (b *browser) start(session, method string, params any) (chan cdpMessage, error) {
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended != nil {
		return nil, b.ended
	}
	b.next++
	ch := make(chan cdpMessage, 1)
	b.waiting[b.next] = ch
	msg, _ := json.Marshal(cdpMessage{ID: b.next, SessionID: session, Method: method, Params: p})
	if _, err := b.w.Write(append(msg, 0)); err != nil {
		delete(b.waiting, b.next)
		return nil, err
	}
	return ch, nil
}

// call sends a command and decodes its result into out (when not nil).
func (b *browser) call(t *testing.T, session, method string, params, out any) {
	t.Helper()
	ch, err := b.start(session, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("%s: %v", method, b.ended)
		}
		if m.Error != nil {
			t.Fatalf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
	case <-b.ctx.Done():
		t.Fatalf("%s: no answer: %v", method, b.ctx.Err())
	}
}

// waitEvent waits for the first event of a session named method from index
// from of the events on, and returns its index.
func (b *browser) waitEvent(t *testing.T, session, method string, from int) int {
	t.Helper()
	for {
		b.mu.Lock()
		for i := from; i < len(b.events); i++ {
			if b.events[i].SessionID == session && b.events[i].Method == method {
				b.mu.Unlock()
				return i
			}
		}
		from = len(b.events)
		ended := b.ended
		b.mu.Unlock()
		if ended != nil {
			t.Fatalf("waiting for %s: %v", method, ended)
		}
		select {
		case <-b.changed:
		case <-b.ctx.Done():
			t.Fatalf("waiting for %s: %v", method, b.ctx.Err())
		}
	}
}

// eventsOf returns a copy of a session's events so far.
func (b *browser) eventsOf(session string) []cdpMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []cdpMessage
	for _, m := range b.events {
		if m.SessionID == session {
			out = append(out, m)
		}
	}
	return out
}

// page is one tab, attached through its own session.
type page struct {
	b       *browser
	session string
}

// open loads url in a new tab and runs the page for 10 s of virtual time:
// timers fire and network fetches complete without the test waiting on a
// clock, so what the page does after load (Redoc hydrates in a timer) is
// done when open returns.
func (b *browser) open(t *testing.T, url string) *page {
	t.Helper()
	var target struct{ TargetID string }
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	p := &page{b: b, session: attached.SessionID}
	for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
		b.call(t, p.session, domain+".enable", nil, nil)
	}
	b.call(t, p.session, "Emulation.setVirtualTimePolicy", map[string]any{"policy": "pause"}, nil)
	var nav struct{ ErrorText string }
	b.call(t, p.session, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("loading %s: %s", url, nav.ErrorText)
	}
	b.mu.Lock()
	from := len(b.events)
	b.mu.Unlock()
	b.call(t, p.session, "Emulation.setVirtualTimePolicy",
		map[string]any{"policy": "pauseIfNetworkFetchesPending", "budget": 10000}, nil)
	b.waitEvent(t, p.session, "Emulation.virtualTimeBudgetExpired", from)
	// From here on virtual time runs on whenever the page is idle, so the
	// timers and frames the clicks of the test wait for come without a clock.
	b.call(t, p.session, "Emulation.setVirtualTimePolicy", map[string]any{"policy": "advance"}, nil)
	return p
}

// eval runs a JavaScript expression in the page, awaiting a promise, and
// decodes its JSON-serializable value into out.
func (p *page) eval(t *testing.T, expr string, out any) {
	t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	p.b.call(t, p.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "awaitPromise": true, "returnByValue": true,
	}, &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("in the page: %s %s", res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			t.Fatalf("in the page: %v: %s", err, res.Result.Value)
		}
	}
}

// dom is the document's markup as the page's scripts left it.
func (p *page) dom(t *testing.T) string {
	t.Helper()
	var html string
	p.eval(t, "document.documentElement.outerHTML", &html)
	if !strings.Contains(html, `id="redoc"`) {
		t.Fatalf("no Redoc container in the DOM")
	}
	return html
}

// problem is a console error, an uncaught exception or a failed load.
type problem struct{ kind, text string }

// problems lists what the page reported as an error so far, and every URL
// it requested.
func (p *page) problems() (errs []problem, requested []string) {
	for _, m := range p.b.eventsOf(p.session) {
		switch m.Method {
		case "Runtime.consoleAPICalled":
			var e struct {
				Type string
				Args []struct {
					Value       any
					Description string
				}
			}
			_ = json.Unmarshal(m.Params, &e)
			if e.Type == "error" || e.Type == "assert" {
				var text []string
				for _, a := range e.Args {
					if a.Description != "" {
						text = append(text, a.Description)
					} else {
						text = append(text, fmt.Sprint(a.Value))
					}
				}
				errs = append(errs, problem{"console." + e.Type, fmt.Sprint(text)})
			}
		case "Runtime.exceptionThrown":
			var e struct {
				ExceptionDetails struct {
					Text      string
					Exception struct{ Description string }
				}
			}
			_ = json.Unmarshal(m.Params, &e)
			errs = append(errs, problem{"exception", e.ExceptionDetails.Text + " " + e.ExceptionDetails.Exception.Description})
		case "Log.entryAdded":
			var e struct {
				Entry struct{ Level, Source, Text, URL string }
			}
			_ = json.Unmarshal(m.Params, &e)
			if e.Entry.Level == "error" {
				errs = append(errs, problem{"log " + e.Entry.Source, e.Entry.Text + " " + e.Entry.URL})
			}
		case "Network.requestWillBeSent":
			var e struct{ Request struct{ URL string } }
			_ = json.Unmarshal(m.Params, &e)
			requested = append(requested, e.Request.URL)
		case "Network.loadingFailed":
			var e struct {
				ErrorText string
				Canceled  bool
			}
			_ = json.Unmarshal(m.Params, &e)
			errs = append(errs, problem{"network", e.ErrorText})
		case "Network.responseReceived":
			var e struct {
				Response struct {
					URL    string
					Status int
				}
			}
			_ = json.Unmarshal(m.Params, &e)
			if e.Response.Status >= 400 {
				errs = append(errs, problem{"network", fmt.Sprintf("HTTP %d %s", e.Response.Status, e.Response.URL)})
			}
		}
	}
	return errs, requested
}
