package api_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// hostileTransportCatalog is what the transport must refuse by name: values
// the generated binder cannot read, bodies that cannot be parsed with the
// token inside them, and details that must name their field.
func hostileTransportCatalog() []hostileCase {
	const gt = "/generateToken"
	cf := hContent + "/createFolder"
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte('&')
			}
			fmt.Fprintf(&b, "k%d=v", i)
		}
		return b.String()
	}
	withToken := "token=" + pt.AdminToken + "&"
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }

	// Integers the validator once took and the generated binder could not read.
	for _, exp := range []string{"60 ", " 12", "1e3", "20160.0", "+", "0x10"} {
		add(hostileCase{op: "generateToken", name: fmt.Sprintf("expiration %q", exp), path: gt, auth: "none",
			body: enc("username", pt.Member, "password", "jsmith-password", "expiration", exp), code: 400, detail: "expiration: "})
	}
	add(hostileCase{op: "generateToken", name: "expiration beyond int64", path: gt, auth: "none",
		body: enc("username", pt.Member, "password", "jsmith-password", "expiration", "99999999999999999999"), code: 400, detail: "expiration: number out of range"})

	// Bodies that cannot be parsed, the token inside them: what is wrong with
	// the body, not 499.
	add(
		hostileCase{op: "updateSettings", name: "JSON body holding the token", path: hUpdate, auth: "none", ctype: "application/json",
			body: `{"token":"` + pt.AdminToken + `","informationalBanner":{}}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "updateSettings", name: "unknown content type, token inside", path: hUpdate, auth: "none", ctype: "application/x-portal",
			body: withToken + enc("informationalBanner", "{}"), code: 400, detail: "Content-Type"},
		hostileCase{op: "updateSettings", name: "bad escape beside the token", path: hUpdate, auth: "none",
			body: withToken + "informationalBanner=%zz", code: 400, detail: "not URL-encoded"},
		hostileCase{op: "updateSettings", name: "10,001 fields beside the token", path: hUpdate, auth: "none",
			body: withToken + many(10_000), code: 400, detail: "not URL-encoded"},
		hostileCase{op: "getSettings", name: "10,001 query parameters", method: "GET", path: settingsPath, auth: "none",
			query: many(10_001), code: 400, detail: "query string"},
		hostileCase{op: "moveItems", name: "multipart without a boundary, token inside", path: movePath, auth: "none", ctype: "multipart/form-data",
			body: withToken + enc("items", pt.RoadsItem), code: 400, detail: "multipart"},
	)

	// Details name the field.
	add(
		hostileCase{op: "createFolder", name: "body with only the token", path: cf, auth: "none", body: "token=" + pt.MemberToken,
			code: 400, detail: "title: value is required but missing"},
		hostileCase{op: "moveItems", name: "body with only the token", path: movePath, auth: "none", body: "token=" + pt.MemberToken,
			code: 400, detail: "items: value is required but missing"},
		hostileCase{op: "updateSettings", name: "body with only the token", path: hUpdate, auth: "none", body: "token=" + pt.AdminToken,
			code: 400, detail: "informationalBanner"},
		hostileCase{op: "updateSettings", name: "1e400 in the banner", path: hUpdate,
			body: enc("informationalBanner", `{"text":1e400}`), code: 400, detail: "informationalBanner.text: number 1e400 is out of range"},
		hostileCase{op: "updateSettings", name: "1e400 beside valid properties", path: hUpdate,
			body: enc("portalConfigProperties", `{"footerLinks":[],"tokenExpiration":1e400}`), code: 400, detail: "portalConfigProperties.tokenExpiration: number 1e400 is out of range"},
		hostileCase{op: "updateSettings", name: "1e999 in a list of a property", path: hUpdate,
			body: enc("portalConfigProperties", `{"a":{"b":[1,-1e999]}}`), code: 400, detail: "portalConfigProperties.a.b[1]: number -1e999 is out of range"},
		hostileCase{op: "updateSettings", name: "tokenExpiration beyond int64", path: hUpdate,
			body: enc("portalConfigProperties", `{"tokenExpiration":99999999999999999999}`), code: 400, detail: "portalConfigProperties.tokenExpiration: number out of range: an int32, from -2147483648 to 2147483647"},
		hostileCase{op: "listMembers", name: "start beyond int64", method: "GET", path: hUsers, query: "start=99999999999999999999",
			code: 400, detail: "start: value 99999999999999999999: an invalid integer: value out of range"},
	)
	return cs
}

func TestHostileTransport(t *testing.T) {
	catalog := hostileTransportCatalog()
	for _, c := range catalog {
		if c.op == "" || c.code == 0 {
			t.Fatalf("%s: every case aims at an operation and wants an envelope", c.name)
		}
	}
	t.Run("sqlite", func(t *testing.T) { runHostile(t, pt.New(t), catalog) })
	t.Run("postgres", func(t *testing.T) { runHostile(t, postgresPortal(t), catalog) })
}

// logged collects what the server logs at ERROR.
type logged struct {
	mu     sync.Mutex
	errors []string
}

func (l *logged) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelError }
func (l *logged) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, r.Message)
	return nil
}
func (l *logged) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logged) WithGroup(string) slog.Handler      { return l }

func (l *logged) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errors...)
}

// loggingPortal serves the API on dsn with the demo seed, its ERROR log
// collected.
func loggingPortal(t *testing.T, dsn string) (*pt.Portal, *logged) {
	t.Helper()
	l := &logged{}
	return pt.New(t, pt.WithDSN(dsn), pt.WithLogger(slog.New(l))), l
}

// rawExchange writes req on a fresh connection and returns the status line
// and body of the answer; with hangUp it closes its side after writing and
// reads nothing.
func rawExchange(t *testing.T, addr, req string, hangUp bool) (status, body string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A safety net only: the outcome never depends on it.
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	if hangUp {
		// Half-close: the server sees the body end early, as when a client
		// goes away mid-body; its answer, if any, is read and dropped, so
		// that the test waits for the server to be done with the request.
		_ = conn.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, conn)
		return "", ""
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Status, string(b)
}

// Broken chunked framing is the client's fault: a 400 envelope, nothing
// logged at ERROR; a client that hangs up mid-body logs nothing at ERROR.
func TestBodyFramingFaults(t *testing.T) {
	for _, st := range []struct {
		name string
		dsn  func(*testing.T) string
	}{{"sqlite", func(*testing.T) string { return ":memory:" }}, {"postgres", func(t *testing.T) string { return pgtest.DSN(t) }}} {
		t.Run(st.name, func(t *testing.T) {
			srv, l := loggingPortal(t, st.dsn(t))
			addr := strings.TrimPrefix(srv.Root, "http://")
			path := "/sharing/rest/portals/" + pt.OrgID + "/settings/update"
			head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + pt.AdminToken +
				"\r\nContent-Type: application/x-www-form-urlencoded\r\n"
			for _, size := range []string{"ffffffffffffffffffff", "-5", "zz"} {
				status, body := rawExchange(t, addr, head+"Transfer-Encoding: chunked\r\n\r\n"+size+"\r\nf=json\r\n0\r\n\r\n", false)
				if !strings.HasPrefix(status, "400") || !strings.Contains(body, `"code":400`) || !strings.Contains(body, "body") {
					t.Errorf("chunk size %s: want a 400 envelope about the body, got %s %s", size, status, body)
				}
			}
			// Announces 100 bytes, sends 10, goes away.
			rawExchange(t, addr, head+"Content-Length: 100\r\n\r\nf=json&inf", true)
			// And the same without a length.
			rawExchange(t, addr, head+"Transfer-Encoding: chunked\r\n\r\n20\r\nf=json&informa", true)
			// The server is still well: a valid update goes through.
			req, _ := http.NewRequest(http.MethodPost, srv.Root+path, strings.NewReader(enc("informationalBanner", `{"text":"ok"}`)))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", "Bearer "+pt.AdminToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(b, []byte(`"success":true`)) {
				t.Fatalf("update after the faults: %s", b)
			}
			if errs := l.list(); len(errs) > 0 {
				t.Errorf("logged at ERROR: %q", errs)
			}
		})
	}
}

// requestLog records what is logged at ERROR and sends on done the record of
// each finished request ("request", logged at INFO once the answer is
// written).
type requestLog struct {
	logged
	done chan slog.Record
}

func (l *requestLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *requestLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "request" {
		l.done <- r.Clone()
	}
	if r.Level >= slog.LevelError {
		return l.logged.Handle(ctx, r)
	}
	return nil
}
func (l *requestLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *requestLog) WithGroup(string) slog.Handler      { return l }

// A client that hangs up while its request is being served (here held by a
// delay fault) is the client's doing: nothing is logged at ERROR.
func TestClientGoneMidRequestLogsNoError(t *testing.T) {
	l := &requestLog{done: make(chan slog.Record, 1)}
	p := pt.New(t, pt.WithLogger(slog.New(l)))
	p.Fault(t, pt.Fault{Operation: "updateSettings", Delay: 5 * time.Minute})
	body := enc("informationalBanner", `{"text":"held"}`)
	req := fmt.Sprintf("POST /sharing/rest/portals/self/settings/update HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", pt.AdminToken, len(body), body)
	rawExchange(t, strings.TrimPrefix(p.Root, "http://"), req, true)
	select {
	case <-l.done:
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("the request held by the fault never ended")
	}
	if errs := l.list(); len(errs) > 0 {
		t.Errorf("logged at ERROR: %q", errs)
	}
	if got := p.Requests(t, "updateSettings"); len(got) != 1 {
		t.Errorf("journal: %d entries, want the one request", len(got))
	}
}
