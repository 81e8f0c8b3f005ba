package e2e

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

// hugeBody is what the body tests offer to send: far more than the 1 MiB
// limit, and more than the kernel buffers of both ends hold, so a server
// that read it whole could not hide it.
const hugeBody = 50 << 20

// transports are the two ways portald serves: the limits hold on both.
var transports = []struct {
	name  string
	start func(testing.TB, ...string) *process
}{
	{"http", startPortald},
	{"https", startPortaldTLS},
}

// A body announced larger than 1 MiB is answered 413 from its
// Content-Length: portald neither waits for it nor reads it.
func TestBodyOverLimitWithContentLength(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			p := tr.start(t, "-db", ":memory:")
			head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n",
				p.path("/content/users/jsmith/moveItems"), p.host(), hugeBody)
			res := offerBody(t, p, head, func(chunk []byte) []byte { return chunk })
			// The headers, and at most the 256 KiB net/http may read past an
			// unread body to keep a connection.
			res.check(t, 256<<10)
		})
	}
}

// A chunked body, whose length nobody announced, is read up to the limit
// and refused there.
func TestChunkedBodyOverLimit(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			p := tr.start(t, "-db", ":memory:")
			head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n",
				p.path("/content/users/jsmith/moveItems"), p.host())
			res := offerBody(t, p, head, func(chunk []byte) []byte {
				return append(append([]byte(strconv.FormatInt(int64(len(chunk)), 16)+"\r\n"), chunk...), "\r\n"...)
			})
			// The limit, plus up to twice the 256 KiB net/http reads past a
			// body left unfinished, hoping to keep the connection: far from
			// the 50 MiB offered.
			res.check(t, 2<<20)
		})
	}
}

// offered is what happened to a body offered by offerBody.
type offered struct {
	resp         *http.Response
	envelope     map[string]any
	written      int64 // body bytes the client managed to write
	serverRead   int64 // bytes portald read from any file or socket meanwhile
	closed       bool  // portald closed the connection after answering
	answeredLate bool  // the answer came only after the whole body was written
}

// offerBody sends head, then up to hugeBody bytes of form body in 64 KiB
// chunks (framed by frame), and stops writing as soon as an answer arrives
// or the connection breaks. portald's read count comes from
// /proc/<pid>/io (rchar: every byte its read calls returned, sockets
// included).
func offerBody(t *testing.T, p *process, head string, frame func([]byte) []byte) offered {
	t.Helper()
	before := procField(t, p.pid(), "io", "rchar")
	conn := p.dial(t)
	defer conn.Close()

	var res offered
	type answer struct {
		resp     *http.Response
		envelope map[string]any
		closed   bool
		err      error
	}
	answers := make(chan answer, 1)
	go func() {
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			answers <- answer{err: err}
			return
		}
		var env map[string]any
		err = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		// After the answer the server should hang up rather than read on.
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, rerr := io.Copy(io.Discard, br)
		var ne net.Error
		closed := !(errors.As(rerr, &ne) && ne.Timeout())
		answers <- answer{resp: resp, envelope: env, closed: closed, err: err}
	}()

	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	var got *answer
write:
	for res.written < hugeBody {
		select {
		case a := <-answers:
			got = &a
			break write
		default:
		}
		if _, err := conn.Write(frame(chunk)); err != nil {
			break // the server hung up
		}
		res.written += int64(len(chunk))
	}
	if got == nil {
		res.answeredLate = res.written >= hugeBody
		select {
		case a := <-answers:
			got = &a
		case <-time.After(60 * time.Second):
			t.Fatalf("no answer after writing %d bytes of body", res.written)
		}
	}
	if got.err != nil {
		t.Fatalf("reading the answer after writing %d bytes of body: %v", res.written, got.err)
	}
	res.resp, res.envelope, res.closed = got.resp, got.envelope, got.closed
	res.serverRead = procField(t, p.pid(), "io", "rchar") - before
	t.Logf("client wrote %d bytes of a %d-byte body; portald read %d bytes; answer %s", res.written, hugeBody, res.serverRead, res.resp.Status)
	return res
}

// check asserts a 413 envelope, that the connection was closed, and that
// portald read at most maxRead bytes.
func (o offered) check(t *testing.T, maxRead int64) {
	t.Helper()
	if o.resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %s, want 413", o.resp.Status)
	}
	if e, _ := o.envelope["error"].(map[string]any); e == nil || e["code"] != float64(413) {
		t.Errorf("answer %v, want the error envelope with code 413", o.envelope)
	}
	if !o.closed {
		t.Error("the connection stayed open after the 413: the server may go on reading the body")
	}
	if o.answeredLate {
		t.Error("the answer came only after the whole body was sent")
	}
	if o.serverRead > maxRead {
		t.Errorf("portald read %d bytes of a %d-byte body; want at most %d", o.serverRead, hugeBody, maxRead)
	}
}

// A client that sends its headers a byte at a time is cut off by
// -read-header-timeout before it is done; so is one that sends nothing
// (over HTTPS, not even the TLS handshake).
func TestSlowHeadersCutOff(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			testSlowHeadersCutOff(t, tr.start(t, "-db", ":memory:", "-read-header-timeout", "1s"))
		})
	}
}

func testSlowHeadersCutOff(t *testing.T, p *process) {
	// At one byte per 100 ms these headers take about 10 s to send, ten
	// times the timeout.
	head := "GET /health HTTP/1.1\r\nHost: " + p.host() + "\r\nX-Slow: " + strings.Repeat("s", 60) + "\r\n\r\n"

	conn := p.dial(t)
	defer conn.Close()
	silent, err := net.Dial("tcp", p.host())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	closed, silentClosed := watchClose(conn), watchClose(silent)

	sent := 0
	var got []byte
	wasClosed := false
trickle:
	for sent < len(head) {
		select {
		case got = <-closed:
			wasClosed = true
			break trickle
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := io.WriteString(conn, head[sent:sent+1]); err != nil {
			break // the server hung up; the reader sees it too
		}
		sent++
	}
	if sent == len(head) {
		t.Fatalf("the server read all %d bytes of headers sent a byte per 100 ms without closing the connection", sent)
	}
	if !wasClosed {
		select {
		case got = <-closed:
		case <-time.After(30 * time.Second):
			t.Fatal("a write failed but the connection does not read as closed")
		}
	}
	// net/http may say why it hangs up (400), but must not serve the request.
	if len(got) > 0 && !bytes.HasPrefix(got, []byte("HTTP/1.1 4")) {
		t.Errorf("the server answered %q to headers it never got whole", got)
	}
	t.Logf("closed after %d of %d header bytes", sent, len(head))
	select {
	case <-silentClosed:
	case <-time.After(30 * time.Second):
		t.Fatal("a connection that sent nothing was still open after 30 s")
	}
	if !p.healthy(t.Context()) {
		t.Fatal("portald stopped answering")
	}
}

// watchClose reads conn until the server closes it and then delivers what it
// read.
func watchClose(conn net.Conn) <-chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(conn)
		ch <- b
	}()
	return ch
}

// 500 idle connections, half after one keep-alive request and half that
// never sent a byte, cost portald little memory, and it still answers.
func TestIdleConnectionsMemory(t *testing.T) {
	const keepAlive, silent = 250, 250
	// Timeouts longer than the test, so every connection is still held when
	// the memory is read.
	p := startPortald(t, "-db", ":memory:", "-read-header-timeout", "2m", "-idle-timeout", "2m")
	if !p.healthy(t.Context()) {
		t.Fatal("portald is not healthy")
	}
	before := procField(t, p.pid(), "status", "VmRSS")

	conns := make([]net.Conn, 0, keepAlive+silent)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range silent {
		c, err := net.Dial("tcp", p.host())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for range keepAlive {
		c, err := net.Dial("tcp", p.host())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if resp := getHealth(t, c, p.host()); resp.Close {
			t.Fatal("the server closed a keep-alive connection after one request")
		}
	}
	// Connections are accepted in order: once a new one is served, all the
	// silent ones have their goroutine in the server.
	if !p.healthy(t.Context()) {
		t.Fatal("portald stopped answering with 500 idle connections")
	}
	after := procField(t, p.pid(), "status", "VmRSS")
	grown := (after - before) << 10 // VmRSS is in kB
	t.Logf("VmRSS %d kB before, %d kB with %d idle connections (+%d kB, %d bytes per connection)",
		before, after, len(conns), grown>>10, grown/int64(len(conns)))
	if grown >= 64<<20 {
		t.Errorf("VmRSS grew by %d MiB with %d idle connections; want less than 64 MiB", grown>>20, len(conns))
	}
	// The figure means something only if portald held them all.
	open := 0
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
		var ne net.Error
		if _, err := c.Read(make([]byte, 1)); errors.As(err, &ne) && ne.Timeout() {
			open++
		}
	}
	if open != len(conns) {
		t.Errorf("%d of %d connections were still open when memory was read", open, len(conns))
	}
	admin := clientFor(t, p, pt.AdminToken)
	if _, err := admin.Settings(t.Context(), pt.OrgID); err != nil {
		t.Fatalf("an API call with 500 idle connections: %v", err)
	}
}

// Keep-alive connections left idle are closed by -idle-timeout.
func TestIdleConnectionsClosed(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			// A read-header timeout far beyond the idle one and the wait
			// below: a close seen here is the idle timeout's.
			testIdleConnectionsClosed(t, tr.start(t, "-db", ":memory:", "-idle-timeout", "1s", "-read-header-timeout", "5m"))
		})
	}
}

func testIdleConnectionsClosed(t *testing.T, p *process) {
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		c := p.dial(t)
		defer c.Close()
		if resp := getHealth(t, c, p.host()); resp.Close {
			t.Fatal("the server closed a keep-alive connection after one request")
		}
		wg.Go(func() {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
			b, err := io.ReadAll(c)
			switch {
			case err != nil:
				errs <- fmt.Errorf("connection %d: %v; want the server to close it", i, err)
			case len(b) > 0:
				errs <- fmt.Errorf("connection %d: the server sent %q unasked", i, b)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !p.healthy(t.Context()) {
		t.Fatal("portald stopped answering")
	}
}

// getHealth sends GET /health on c and reads the whole answer, leaving c
// ready for another request.
func getHealth(t *testing.T, c net.Conn, host string) *http.Response {
	t.Helper()
	if _, err := fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: %s\r\n\r\n", host); err != nil {
		t.Fatal(err)
	}
	// One buffered reader per call is safe: the answer is read whole and
	// the server sends nothing more until asked.
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /health: %s", resp.Status)
	}
	return resp
}

// dial connects to portald as a client would, over TLS (HTTP/1.1) when it
// serves HTTPS. A small send buffer keeps the client's own kernel buffer
// from swallowing a large part of a body unseen.
func (p *process) dial(t *testing.T) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", p.host())
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).SetWriteBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	if p.CertFile == "" {
		return conn
	}
	cfg := tlsConfig(t, p.CertFile)
	cfg.ServerName, _, _ = net.SplitHostPort(p.host())
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(t.Context()); err != nil {
		conn.Close()
		t.Fatalf("TLS handshake: %v", err)
	}
	return tc
}

// host is portald's host:port.
func (p *process) host() string {
	u, _ := url.Parse(p.Root)
	return u.Host
}

// path is the request path of an API operation.
func (p *process) path(op string) string {
	u, _ := url.Parse(p.URL)
	return u.Path + op
}

// procField reads a numeric field of /proc/<pid>/<file> ("status" or "io"),
// such as VmRSS (kB) or rchar (bytes).
func procField(t *testing.T, pid int, file, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || name != field {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("/proc/%d/%s: %s: %v", pid, file, line, err)
		}
		return v
	}
	t.Fatalf("/proc/%d/%s has no %s", pid, file, field)
	return 0
}

// lazyBody yields n bytes of "a", counting those read.
type lazyBody struct {
	n, read int64
}

func (b *lazyBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.n-b.read)]
	for i := range p {
		p[i] = 'a'
	}
	b.read += int64(len(p))
	return len(p), nil
}

// Over HTTP/2 (HTTPS) the body limits hold as over HTTP/1.1: a body
// announced larger than 1 MiB is refused from its length, one whose length
// is not announced is read up to the limit; neither is read whole.
func TestBodyOverLimitOverHTTP2(t *testing.T) {
	p := startPortaldTLS(t, "-db", ":memory:")
	for _, announced := range []bool{true, false} {
		t.Run(fmt.Sprintf("announced=%v", announced), func(t *testing.T) {
			body := &lazyBody{n: hugeBody}
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.URL+"/content/users/jsmith/moveItems", body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if announced {
				req.ContentLength = hugeBody
			}
			before := procField(t, p.pid(), "io", "rchar")
			resp, err := p.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var env map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&env)
			resp.Body.Close()
			read := procField(t, p.pid(), "io", "rchar") - before
			t.Logf("%s: client offered %d of %d bytes; portald read %d; answer %s", resp.Proto, body.read, hugeBody, read, resp.Status)
			if resp.ProtoMajor != 2 {
				t.Fatalf("spoke %s, want HTTP/2", resp.Proto)
			}
			if e, _ := env["error"].(map[string]any); resp.StatusCode != http.StatusRequestEntityTooLarge || e == nil || e["code"] != float64(413) {
				t.Errorf("answer %s %v, want 413 with the envelope", resp.Status, env)
			}
			// The limit, and what HTTP/2 flow control lets a client send
			// before the server reads: far from the 50 MiB offered.
			if read > 8<<20 {
				t.Errorf("portald read %d bytes of a %d-byte body", read, hugeBody)
			}
		})
	}
}
