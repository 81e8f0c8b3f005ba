// Package busypoll makes a server that serves one request at a time wait
// for what it waits for (its database's answer, its client's next request)
// by polling the connection instead of sleeping.
//
// Sleeping through a wait costs a thread's park and wake-up in the Go
// scheduler and the kernel, which on a small virtual machine take about as
// long as a round trip to PostgreSQL on the same machine: with one client,
// a request on PostgreSQL pays two or three of them. Polling costs the CPU
// of the wait instead, which while one request is in flight is idle anyway.
// Linux does the same in its network stack (SO_BUSY_POLL, the
// net.core.busy_read sysctl), but not for loopback or Unix sockets.
//
// The mode is process-wide and for a lone client: Listener counts the
// client connections open, Handler the requests in flight and sets how long
// a read polls before it sleeps. While one client connection is open, it
// polls for its next request while no request is in flight, and a database
// connection made by Dial polls while one is (the one waiting for it). A
// second client, or a second request, stops polling: they need the CPU.
// While polling is on and a lone client stays connected, the process also
// runs on one thread (GOMAXPROCS 1, see procs.go). Without both Listener and
// Handler, reads never poll.
package busypoll

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Default is the polling portald does unless told otherwise: more than a
// round trip to PostgreSQL on the same small machine, durable commits
// included (200 to 600µs on a 2-CPU virtual machine, varying by the day:
// at 250µs, on a slow day, 97% of settings/update's waits outlasted the
// poll).
const Default = time.Millisecond

var (
	inFlight atomic.Int32
	clients  atomic.Int32 // open, accepted by Listener
	spin     atomic.Int64 // time.Duration
	// unslept counts the reads that polled and were answered without
	// sleeping.
	unslept atomic.Uint64
)

// Handler serves h, counting its requests in flight; reads poll for up to d
// before sleeping (d = 0: never).
func Handler(h http.Handler, d time.Duration) http.Handler {
	spin.Store(int64(d))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inFlight.Add(1) > 1 {
			busier()
		}
		defer inFlight.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// Dial connects as net.Dialer does, to a database connection that polls
// where the platform allows it.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return wrap(c, database), nil
}

// Listener returns ln, whose connections, a server's clients, poll, and
// are counted until closed.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	clientsChanged(clients.Add(1))
	return &counted{Conn: wrap(c, client)}, nil
}

// counted is a client connection, counted in clients until closed.
type counted struct {
	net.Conn
	closed sync.Once
}

func (c *counted) Close() error {
	c.closed.Do(func() { clientsChanged(clients.Add(-1)) })
	return c.Conn.Close()
}

// CloseWrite half-closes the connection, as net/http does before closing
// one whose request it did not read whole, so that the client gets the
// answer rather than a reset.
func (c *counted) CloseWrite() error { return closeWrite(c.Conn) }

func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// side is what a connection waits for: a database's answers while a
// request waits for them, or a client's requests while none is served.
type side bool

const (
	database side = false
	client   side = true
)

// begin reports for how long a read on a connection of side s may poll;
// 0: it must not.
func (s side) begin() time.Duration {
	if d := time.Duration(spin.Load()); d > 0 && s.still() {
		return d
	}
	return 0
}

// still reports whether a read may poll: one client, and no request in
// flight beside the one waiting for the database.
func (s side) still() bool {
	if clients.Load() != 1 {
		return false
	}
	if s == client {
		return inFlight.Load() == 0
	}
	return inFlight.Load() == 1
}
