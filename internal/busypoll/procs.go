package busypoll

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// One thread for a lone client.
//
// While one client connection is open (HTTP/1.1: one request at a time),
// a second thread has nothing to do, yet with GOMAXPROCS above 1 the
// runtime keeps waking one: each goroutine made ready (net/http's
// background read of every request, a deadline's timer) wakes the idle P's
// thread, which looks for work, finds none and sleeps again, on the CPU the
// database needs, and on a virtual machine each wake-up of a halted CPU is
// an exit to the hypervisor. So while polling is on and a lone client stays
// connected, GOMAXPROCS is 1. A second client, or a second request in
// flight, restores it before it is served. Lowering waits until the client
// has been alone for settle, so that connections coming and going do not
// stop the world each time.
//
// It is for clients in other processes. On the one thread, what the poll
// keeps waiting runs once the poll ends (at most the poll's length), or at
// the runtime's next preemption if the lone client keeps it busy (about
// 10ms): a client in the same process, or the token watcher's
// acknowledgement of a reset made on another replica.

// settle (read under procs.mu) is how long a client must have been alone
// before GOMAXPROCS is lowered.
var settle = 100 * time.Millisecond

var procs struct {
	mu      sync.Mutex
	lowered atomic.Bool // GOMAXPROCS is 1 by this package's doing
	before  int         // GOMAXPROCS before it was lowered
	timer   *time.Timer // pending lowering
	// hook, set by tests, is called after each pending lowering is decided.
	hook func()
}

// clientsChanged follows a change of the number of client connections open
// to n.
func clientsChanged(n int32) {
	procs.mu.Lock()
	defer procs.mu.Unlock()
	if n >= 2 {
		raiseLocked()
		return
	}
	if n == 1 {
		lowerLater()
	}
}

// busier follows a request that found others in flight: a lone client's
// connection serves one at a time, so this one is not alone.
func busier() {
	if !procs.lowered.Load() {
		return
	}
	procs.mu.Lock()
	defer procs.mu.Unlock()
	raiseLocked()
	lowerLater()
}

// raiseLocked restores the GOMAXPROCS found before lowering; procs.mu is
// held. (It is restored as a number: a GOMAXPROCS the runtime would have
// changed by itself, on a container's new CPU limit, stays as it was.)
func raiseLocked() {
	if procs.lowered.Load() {
		runtime.GOMAXPROCS(procs.before)
		procs.lowered.Store(false)
	}
}

// lowerLater lowers GOMAXPROCS to 1 after settle if a lone client, with at
// most one request in flight, is all there is then and polling is on;
// procs.mu is held.
func lowerLater() {
	if procs.lowered.Load() || procs.timer != nil {
		return
	}
	procs.timer = time.AfterFunc(settle, func() {
		procs.mu.Lock()
		defer procs.mu.Unlock()
		procs.timer = nil
		if !procs.lowered.Load() && clients.Load() == 1 && inFlight.Load() <= 1 && spin.Load() > 0 {
			if n := runtime.GOMAXPROCS(0); n > 1 {
				procs.before = n
				runtime.GOMAXPROCS(1)
				procs.lowered.Store(true)
			}
		}
		if procs.hook != nil {
			procs.hook()
		}
	})
}
