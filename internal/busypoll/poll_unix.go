//go:build unix

package busypoll

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// pollingHook, set by tests, is called when a read starts polling.
var pollingHook func()

// conn is a connection whose reads may poll (see side).
type conn struct {
	net.Conn
	rc   syscall.RawConn
	side side
	// readDeadline is the deadline set for reads (UnixNano; 0: none),
	// which polling keeps too.
	readDeadline atomic.Int64
}

func wrap(c net.Conn, s side) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &conn{Conn: c, rc: rc, side: s}
}

// CloseWrite half-closes the connection (see counted.CloseWrite).
func (c *conn) CloseWrite() error { return closeWrite(c.Conn) }

func (c *conn) SetDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetDeadline(t)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

func (c *conn) setReadDeadline(t time.Time) {
	var n int64
	if !t.IsZero() {
		n = t.UnixNano()
	}
	c.readDeadline.Store(n)
}

// Read polls the socket (non-blocking reads) for up to the time begin gives
// while still holds; then it waits as net.Conn does, through the runtime's
// poller, which also keeps the connection's deadlines.
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return c.Conn.Read(p)
	}
	d := c.side.begin()
	if d == 0 {
		return c.Conn.Read(p)
	}
	var (
		n     int
		rerr  error
		until time.Time
		slept bool
	)
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr == syscall.EINTR {
				continue
			}
			if rerr != syscall.EAGAIN {
				return true
			}
			if slept {
				return false // woken for nothing: wait again
			}
			now := time.Now()
			if until.IsZero() {
				until = now.Add(d)
				if pollingHook != nil {
					pollingHook()
				}
			} else if dl := c.readDeadline.Load(); !c.side.still() || now.After(until) || dl != 0 && now.UnixNano() >= dl {
				slept = true
				return false
			}
		}
	})
	if !slept && err == nil && rerr == nil {
		unslept.Add(1)
	}
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
