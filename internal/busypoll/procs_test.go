package busypoll

import (
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// governed sets the package up for a test of procs: polling on, GOMAXPROCS
// at start, no settling delay, and a channel told each time a pending
// lowering was decided. It puts everything back at the end.
func governed(t *testing.T, start int) <-chan struct{} {
	t.Helper()
	was := runtime.GOMAXPROCS(start)
	decided := make(chan struct{}, 16)
	procs.mu.Lock()
	procs.hook = func() { decided <- struct{}{} }
	settle0 := settle
	settle = 0
	procs.mu.Unlock()
	spin.Store(int64(time.Millisecond))
	t.Cleanup(func() {
		procs.mu.Lock()
		if procs.timer != nil {
			procs.timer.Stop()
			procs.timer = nil
		}
		procs.hook = nil
		raiseLocked()
		settle = settle0
		procs.mu.Unlock()
		spin.Store(0)
		runtime.GOMAXPROCS(was)
	})
	return decided
}

// decision waits for a pending lowering to be decided.
func decision(t *testing.T, decided <-chan struct{}) {
	t.Helper()
	select {
	case <-decided:
	case <-time.After(10 * time.Second):
		t.Fatal("no lowering was decided")
	}
}

// listen returns a Listener and a function that connects one client to it
// and returns the server's side of the connection, accepted.
func listen(t *testing.T) func() net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pl := Listener(ln)
	t.Cleanup(func() { pl.Close() })
	return func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s, err := pl.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// A lone client gets one thread once it has been alone for a while; a
// second client gets back the GOMAXPROCS there was before it is served;
// the first alone again gets one thread again.
func TestLoneClientRunsOnOneThread(t *testing.T) {
	decided := governed(t, 3)
	connect := listen(t)
	connect()
	decision(t, decided)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS = %d with a lone client, want 1", n)
	}
	second := connect()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS = %d once a second client is accepted, want the 3 there were", n)
	}
	second.Close()
	decision(t, decided)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS = %d with the first client alone again, want 1", n)
	}
}

// A second request in flight (a connection serving several at once) gets
// the threads back while it is served.
func TestSecondRequestRaises(t *testing.T) {
	decided := governed(t, 2)
	connect := listen(t)
	connect()
	decision(t, decided)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS = %d with a lone client, want 1", n)
	}
	var during int
	inner := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { during = runtime.GOMAXPROCS(0) }), time.Millisecond)
	outer := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inner.ServeHTTP(w, r) }), time.Millisecond)
	outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if during != 2 {
		t.Errorf("GOMAXPROCS = %d while two requests were in flight, want 2", during)
	}
	decision(t, decided)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS = %d once the lone client's requests are one at a time again, want 1", n)
	}
}

// Without polling, or with two clients, or with one thread already,
// GOMAXPROCS stays as it is.
func TestGOMAXPROCSStaysUnlessAlone(t *testing.T) {
	for _, tc := range []struct {
		name           string
		start, clients int
		polling        bool
	}{
		{"polling off", 2, 1, false},
		{"two clients", 2, 2, true},
		{"one thread already", 1, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decided := governed(t, tc.start)
			if !tc.polling {
				spin.Store(0)
			}
			connect := listen(t)
			connect()
			if tc.clients == 2 {
				connect()
			}
			decision(t, decided)
			if n := runtime.GOMAXPROCS(0); n != tc.start {
				t.Errorf("GOMAXPROCS = %d, want the %d there was", n, tc.start)
			}
		})
	}
}
