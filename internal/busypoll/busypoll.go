// Package busypoll makes a server that is serving one request at a time
// wait for its database's answer by polling the connection instead of
// sleeping.
//
// A request on PostgreSQL waits for one round trip or two. Sleeping through
// that wait costs a thread's park and wake-up in the Go scheduler and the
// kernel, which on a small virtual machine take about as long as the
// database's work: with one client, that doubles the latency. Polling
// costs the CPU of the wait instead, which with one request in flight is
// idle anyway. Linux does the same in its network stack (SO_BUSY_POLL, the
// net.core.busy_read sysctl), but not for loopback or Unix sockets.
//
// The mode is process-wide: Handler counts the requests in flight, and
// connections made by Dial poll only while that count is exactly one,
// for at most the spin Handler was given. With no Handler, or two requests
// in flight, they read as any connection does.
package busypoll

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Default is the polling portald does unless told otherwise: a little
// more than a round trip to PostgreSQL on the same machine, writes included.
const Default = 250 * time.Microsecond

var (
	inFlight atomic.Int32
	spin     atomic.Int64 // time.Duration
	// unslept counts the reads that polled and were answered without
	// sleeping.
	unslept atomic.Uint64
)

// Handler serves h, counting its requests in flight; while one alone is,
// reads on connections made by Dial poll for up to d before sleeping. d = 0
// turns polling off.
func Handler(h http.Handler, d time.Duration) http.Handler {
	spin.Store(int64(d))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// Dial connects as net.Dialer does, to a connection that polls (see the
// package comment) where the platform allows it.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return wrap(c), nil
}

// alone reports whether a read should poll: one request in flight, and
// polling on.
func alone() (time.Duration, bool) {
	d := time.Duration(spin.Load())
	return d, d > 0 && inFlight.Load() == 1
}
