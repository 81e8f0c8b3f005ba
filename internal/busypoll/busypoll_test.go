//go:build unix

package busypoll

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// pair returns a connection made by Dial and its peer.
func pair(t *testing.T) (*conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	c, err := Dial(t.Context(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	t.Cleanup(func() { c.Close(); peer.Close() })
	pc, ok := c.(*conn)
	if !ok {
		t.Fatalf("Dial returned %T, not a polling connection", c)
	}
	return pc, peer
}

// serving runs fn inside a request of a lone client served by Handler(d),
// with others more requests in flight beside it.
func serving(t *testing.T, d time.Duration, others int, fn func()) {
	t.Helper()
	t.Cleanup(func() { spin.Store(0); pollingHook = nil })
	clients.Add(1)
	defer clients.Add(-1)
	inFlight.Add(int32(others))
	defer inFlight.Add(-int32(others))
	h := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { fn() }), d)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

// A database read made while its request is the only one polls, and is
// answered without sleeping when the data comes while it polls.
func TestDatabaseReadPollsWhileAlone(t *testing.T) {
	c, peer := pair(t)
	polling := make(chan struct{})
	pollingHook = func() { close(polling) }
	go func() {
		select {
		case <-polling:
		case <-time.After(10 * time.Second): // it never polls: let it fail
		}
		_, _ = peer.Write([]byte("answer"))
	}()
	before := unslept.Load()
	serving(t, time.Minute, 0, func() {
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != "answer" {
			t.Errorf("Read = %q, %v", buf[:n], err)
		}
	})
	if unslept.Load() != before+1 {
		t.Error("the read slept although the data came while it polled")
	}
}

// With another request in flight, or polling off, or outside any request,
// a database read does not poll; it still reads what comes.
func TestDatabaseReadSleepsUnderLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		d       time.Duration
		others  int
		outside bool
	}{
		{"two requests", time.Minute, 1, false},
		{"polling off", 0, 0, false},
		{"no request", time.Minute, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, peer := pair(t)
			pollingHook = func() { t.Error("the read polled") }
			read := func() {
				go func() { _, _ = peer.Write([]byte("x")) }()
				buf := make([]byte, 4)
				if n, err := c.Read(buf); err != nil || string(buf[:n]) != "x" {
					t.Errorf("Read = %q, %v", buf[:n], err)
				}
			}
			if tc.outside {
				spin.Store(int64(time.Minute))
				t.Cleanup(func() { spin.Store(0); pollingHook = nil })
				read()
				return
			}
			serving(t, tc.d, tc.others, read)
		})
	}
}

// A read deadline ends polling: the read fails as net.Conn's does.
func TestPollingKeepsTheDeadline(t *testing.T) {
	c, _ := pair(t)
	polled := false
	pollingHook = func() { polled = true }
	serving(t, time.Hour, 0, func() {
		if err := c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 4))
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Read past its deadline: %v, want os.ErrDeadlineExceeded", err)
		}
	})
	if !polled {
		t.Error("the read never polled")
	}
}

// A peer that closes gives io.EOF, polling or not.
func TestPollingReadsEOF(t *testing.T) {
	c, peer := pair(t)
	pollingHook = func() { peer.Close() }
	// Should it never poll, the peer closes anyway, and the test fails.
	stop := time.AfterFunc(10*time.Second, func() { t.Error("the read never polled"); peer.Close() })
	defer stop.Stop()
	serving(t, time.Minute, 0, func() {
		if _, err := c.Read(make([]byte, 4)); err != io.EOF {
			t.Errorf("Read after the peer closed: %v, want io.EOF", err)
		}
	})
}

// Reads poll only for a lone client: its connection while no request is in
// flight, database connections while its request is.
func TestPollingNeedsALoneClient(t *testing.T) {
	spin.Store(int64(time.Minute))
	t.Cleanup(func() { spin.Store(0) })
	for _, tc := range []struct {
		clients, inFlight int32
		client, database  bool
	}{
		{0, 0, false, false},
		{1, 0, true, false},
		{1, 1, false, true},
		{1, 2, false, false},
		{2, 0, false, false},
		{2, 1, false, false},
	} {
		clients.Store(tc.clients)
		inFlight.Store(tc.inFlight)
		if got := client.begin() != 0; got != tc.client {
			t.Errorf("%d clients, %d requests in flight: a client read polls: %v", tc.clients, tc.inFlight, got)
		}
		if got := database.begin() != 0; got != tc.database {
			t.Errorf("%d clients, %d requests in flight: a database read polls: %v", tc.clients, tc.inFlight, got)
		}
	}
	clients.Store(0)
	inFlight.Store(0)
}

// Listener's connections are client connections that poll, counted until
// closed, which can be half-closed as net/http does before closing one whose
// request it will not read.
func TestListenerWrapsClients(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pl := Listener(ln)
	defer pl.Close()
	clientGot := make(chan string, 1)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			clientGot <- err.Error()
			return
		}
		defer c.Close()
		_, _ = c.Write([]byte("GET"))
		b, err := io.ReadAll(c) // up to the server's half-close
		clientGot <- fmt.Sprintf("%s %v", b, err)
		_, _ = c.Write([]byte("BYE"))
	}()
	c, err := pl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if n := clients.Load(); n != 1 {
		t.Errorf("%d clients counted, want 1", n)
	}
	if pc, ok := c.(*counted).Conn.(*conn); !ok || pc.side != client {
		t.Fatalf("Accept returned %T, not a polling client connection", c)
	}
	buf := make([]byte, 3)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "GET" {
		t.Errorf("read %q, %v", buf, err)
	}
	_, _ = c.Write([]byte("OK"))
	cw, ok := c.(interface{ CloseWrite() error })
	if !ok {
		t.Fatal("the connection cannot be half-closed")
	}
	if err := cw.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if got := <-clientGot; got != "OK <nil>" {
		t.Errorf("the client read %q, want OK then EOF", got)
	}
	if b, err := io.ReadAll(c); err != nil || string(b) != "BYE" {
		t.Errorf("after the half-close the server read %q, %v, want BYE", b, err)
	}
	c.Close()
	c.Close()
	if n := clients.Load(); n != 0 {
		t.Errorf("%d clients counted once the one closed (twice), want 0", n)
	}
}
