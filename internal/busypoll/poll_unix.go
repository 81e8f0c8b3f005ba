//go:build unix

package busypoll

import (
	"io"
	"net"
	"syscall"
	"time"
)

// conn is a connection whose Read polls while one request is in flight.
type conn struct {
	net.Conn
	rc syscall.RawConn
}

func wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &conn{c, rc}
}

// Read polls the socket (non-blocking reads) for up to the spin while it is
// alone; then, or once another request arrives, it waits as net.Conn does,
// through the runtime's poller, which also keeps the connection's deadlines.
func (c *conn) Read(p []byte) (int, error) {
	d, ok := alone()
	if !ok || len(p) == 0 {
		return c.Conn.Read(p)
	}
	var (
		n      int
		rerr   error
		until  time.Time
		polled bool
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
			if polled {
				return false // woken by the poller for nothing: wait again
			}
			now := time.Now()
			if until.IsZero() {
				until = now.Add(d)
			} else if _, still := alone(); !still || now.After(until) {
				polled = true
				return false
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	if !polled {
		unslept.Add(1)
	}
	return n, nil
}
