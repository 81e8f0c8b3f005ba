//go:build !unix

package busypoll

import "net"

// wrap leaves the connection as it is: polling needs non-blocking reads on
// the socket, which this package does only on Unix.
func wrap(c net.Conn, _ side) net.Conn { return c }
