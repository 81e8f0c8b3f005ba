package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/emulator"
)

const (
	memberToken = "demo-user-token"
	roads       = "93b54c8930ae46d9a00a7820cb3ebbd1"
	archive     = "6c5b4a39281746e5b0a9f8e7d6c5b4a3"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// start serves an emulator over a real HTTP server; opts.Now is fixed so
// that dumps of the seeded store compare equal.
func start(t *testing.T, opts emulator.Options) (*emulator.Server, *httptest.Server) {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return epoch }
	}
	srv, err := emulator.New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs
}

// saltedHash matches password hashes, salted anew each time the seed is
// written.
var saltedHash = regexp.MustCompile(`password_hash="[^"]*"`)

// dump is the store's content, password hashes left out.
func dump(t *testing.T, srv *emulator.Server) string {
	t.Helper()
	var b bytes.Buffer
	if err := srv.Store().Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return saltedHash.ReplaceAllString(b.String(), `password_hash=…`)
}

// moveRoads changes the store through the API: the roads item to Archive.
func moveRoads(t *testing.T, base string) {
	t.Helper()
	c, err := client.New(base+"/sharing/rest", client.WithToken(memberToken))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.MoveItems(t.Context(), "jsmith", []string{roads}, archive)
	if err != nil || len(res) != 1 || !res[0].Success {
		t.Fatalf("moveItems: %v %+v", err, res)
	}
}

type answer struct {
	status int
	body   map[string]any
	header http.Header
}

func send(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %q", req.Method, req.URL.Path, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s %s: Content-Type %q", req.Method, req.URL.Path, ct)
	}
	return a
}

// envelopeCode is the error envelope's code, 0 when the answer has none.
func (a answer) envelopeCode(t *testing.T) int {
	t.Helper()
	e, ok := a.body["error"].(map[string]any)
	if !ok {
		return 0
	}
	if _, ok := e["details"].([]any); !ok {
		t.Errorf("envelope without a details list: %v", a.body)
	}
	code, _ := e["code"].(float64)
	return int(code)
}

func TestResetRestoresSeedAndForgetsTokens(t *testing.T) {
	srv, hs := start(t, emulator.Options{})
	if !srv.Seeded() {
		t.Error("a new in-memory store was not seeded")
	}
	seeded := dump(t, srv)

	// A token generated and used (so cached by the API) before the reset.
	c, err := client.New(hs.URL+"/sharing/rest", client.WithCredentials("jsmith", "jsmith-password"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Item(t.Context(), roads); err != nil {
		t.Fatal(err)
	}
	tok, err := c.GenerateToken(t.Context(), "jsmith", "jsmith-password", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	withTok, _ := client.New(hs.URL+"/sharing/rest", client.WithToken(tok.Token))
	if _, err := withTok.Item(t.Context(), roads); err != nil {
		t.Fatal(err)
	}
	moveRoads(t, hs.URL)
	if dump(t, srv) == seeded {
		t.Fatal("moveItems changed nothing")
	}

	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/emulator/reset", nil)
	req.Header.Set("Content-Type", "application/json")
	if a := send(t, req); a.status != http.StatusOK || a.body["success"] != true {
		t.Fatalf("reset: %d %v", a.status, a.body)
	}
	if got := dump(t, srv); got != seeded {
		t.Errorf("after reset the store is not the seed:\n%s\n---\n%s", got, seeded)
	}
	if _, err := withTok.Item(t.Context(), roads); !isCode(err, 498) {
		t.Errorf("a token generated before the reset: %v, want 498", err)
	}

	// Reset from Go does the same.
	moveRoads(t, hs.URL)
	if err := srv.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, srv); got != seeded {
		t.Error("after Reset the store is not the seed")
	}
}

func isCode(err error, code int) bool {
	var e *client.Error
	return errors.As(err, &e) && e.Code == code
}

// remoteClient makes requests look as if they came from another machine,
// as they would through a port forwarded to a container.
type remoteClient struct{ h http.Handler }

func (rc remoteClient) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.RemoteAddr = "192.0.2.7:40000"
	rc.h.ServeHTTP(w, r)
}

// TestWhoMayCall: a web page cannot call the emulator's endpoints, whatever
// it sends, and a refused call changes nothing.
func TestWhoMayCall(t *testing.T) {
	srv, hs := start(t, emulator.Options{})
	remote := httptest.NewServer(remoteClient{srv})
	t.Cleanup(remote.Close)
	remoteAllowed, _ := start(t, emulator.Options{AllowRemoteAdmin: true})
	remoteOK := httptest.NewServer(remoteClient{remoteAllowed})
	t.Cleanup(remoteOK.Close)
	_, withTokenHS := start(t, emulator.Options{AdminToken: "s3cret"})
	_, namedHS := start(t, emulator.Options{AdminHosts: []string{"portald"}})

	own := hs.URL // the Origin a page served by the emulator itself sends
	cases := []struct {
		name    string
		base    string
		method  string
		path    string
		ctype   string
		body    string
		header  map[string]string
		host    string
		status  int
		mention string // in the message or a detail
	}{
		{name: "cross-site form post (text/plain, foreign Origin)", ctype: "text/plain", body: "{}", header: map[string]string{"Origin": "http://evil.example"}, status: 403, mention: "evil.example"},
		{name: "text/plain without Origin", ctype: "text/plain", body: "{}", status: 403, mention: "application/json"},
		{name: "urlencoded form", ctype: "application/x-www-form-urlencoded", body: "a=b", status: 403, mention: "application/json"},
		{name: "multipart form", ctype: "multipart/form-data; boundary=x", body: "--x--", status: 403, mention: "application/json"},
		{name: "no Content-Type, a body", body: "{}", status: 403, mention: "application/json"},
		{name: "no Content-Type, a body with a foreign Origin", body: "{}", header: map[string]string{"Origin": "http://evil.example"}, status: 403, mention: "evil.example"},
		{name: "no Content-Type, no body, a foreign Origin", header: map[string]string{"Origin": "http://evil.example"}, status: 403, mention: "evil.example"},
		{name: "no Content-Type, no body, cross-site", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: 403, mention: "cross-site"},
		{name: "no Content-Type, no body, admin token missing", base: withTokenHS.URL, status: 401, mention: "Bearer"},
		{name: "urlencoded form, no body", ctype: "application/x-www-form-urlencoded", status: 403, mention: "application/json"},
		{name: "JSON with a foreign Origin", ctype: "application/json", header: map[string]string{"Origin": "http://localhost:3000"}, status: 403, mention: "localhost:3000"},
		{name: "JSON with Origin null", ctype: "application/json", header: map[string]string{"Origin": "null"}, status: 403, mention: "null"},
		{name: "JSON, Sec-Fetch-Site cross-site", ctype: "application/json", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: 403, mention: "cross-site"},
		{name: "JSON, a rebound DNS name as Host", ctype: "application/json", host: "attacker.example", status: 403, mention: "attacker.example"},
		{name: "JSON from another machine", base: remote.URL, ctype: "application/json", status: 403, mention: "allow-remote-admin"},
		{name: "JSON from another machine allowed in, a rebound DNS name as Host", base: remoteOK.URL, ctype: "application/json", host: "attacker.example:8080", status: 403, mention: "attacker.example"},
		{name: "JSON, a name that is not one of the admin hosts", base: namedHS.URL, ctype: "application/json", host: "portald2:8080", status: 403, mention: "portald2"},
		{name: "JSON, bad body", ctype: "application/json", body: `{"wipe":`, status: 400, mention: "JSON"},
		{name: "JSON, unknown field", ctype: "application/json", body: `{"wipe":true}`, status: 400, mention: "wipe"},
		{name: "GET of reset", method: "GET", status: 404, mention: "Not found"},
		{name: "unknown endpoint", path: "/emulator/wipe", ctype: "application/json", status: 404, mention: "Not found"},
		{name: "admin token missing", base: withTokenHS.URL, ctype: "application/json", status: 401, mention: "Bearer"},
		{name: "admin token wrong", base: withTokenHS.URL, ctype: "application/json", header: map[string]string{"Authorization": "Bearer guess"}, status: 401, mention: "admin token"},
		// Accepted: they reset a store nothing has changed.
		{name: "no Content-Type, no body (curl -X POST)", status: 200},
		{name: "JSON, own Origin", ctype: "application/json; charset=utf-8", body: "{}", header: map[string]string{"Origin": own, "Sec-Fetch-Site": "same-origin"}, status: 200},
		{name: "JSON, localhost as Host", ctype: "application/json", host: "localhost", status: 200},
		{name: "JSON from another machine, allowed", base: remoteOK.URL, ctype: "application/json", status: 200},
		{name: "JSON from another machine allowed in, by IP address", base: remoteOK.URL, ctype: "application/json", host: "10.88.0.5:8080", status: 200},
		{name: "JSON, a name of the admin hosts", base: namedHS.URL, ctype: "application/json", host: "PortalD:8080", status: 200},
		{name: "admin token given", base: withTokenHS.URL, ctype: "application/json", header: map[string]string{"Authorization": "Bearer s3cret"}, status: 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.base == "" {
				c.base = hs.URL
			}
			if c.method == "" {
				c.method = http.MethodPost
			}
			if c.path == "" {
				c.path = "/emulator/reset"
			}
			// The store differs from the seed, so that a reset would show.
			if err := srv.Reset(t.Context()); err != nil {
				t.Fatal(err)
			}
			moveRoads(t, hs.URL)
			before := dump(t, srv)
			req, err := http.NewRequest(c.method, c.base+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if c.ctype != "" {
				req.Header.Set("Content-Type", c.ctype)
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			if c.host != "" {
				req.Host = c.host
			}
			a := send(t, req)
			if a.status != c.status {
				t.Fatalf("HTTP %d, want %d: %v", a.status, c.status, a.body)
			}
			if c.status == http.StatusOK {
				if a.body["success"] != true {
					t.Errorf("answer %v", a.body)
				}
				return
			}
			if code := a.envelopeCode(t); code != c.status {
				t.Errorf("envelope code %d, want %d: %v", code, c.status, a.body)
			}
			if raw, _ := json.Marshal(a.body); !strings.Contains(string(raw), c.mention) {
				t.Errorf("answer does not mention %q: %s", c.mention, raw)
			}
			if c.status == http.StatusUnauthorized && !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate %q", a.header.Get("WWW-Authenticate"))
			}
			if after := dump(t, srv); after != before {
				t.Errorf("a refused call changed the store")
			}
		})
	}
}

// The API and the side routes are served beside /emulator/, under the
// context given.
func TestOptionsReachTheAPI(t *testing.T) {
	_, hs := start(t, emulator.Options{Context: "/portal", Version: "11.0", Deployment: "online"})
	c, err := client.New(hs.URL+"/portal/sharing/rest", client.WithToken(memberToken))
	if err != nil {
		t.Fatal(err)
	}
	if it, err := c.Item(t.Context(), roads); err != nil || it.ID != roads {
		t.Fatalf("item under the context: %v %+v", err, it)
	}
	for path, want := range map[string]int{"/health": 200, "/openapi.yaml": 200, "/sharing/rest/content/items/" + roads: 404} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: HTTP %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// A store that already holds data is served as it is; the seed is written
// only into an empty one.
func TestExistingStoreIsNotSeededAgain(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "portal.db")
	first, hs := start(t, emulator.Options{DSN: dsn})
	if !first.Seeded() {
		t.Fatal("a new file was not seeded")
	}
	moveRoads(t, hs.URL)
	moved := dump(t, first)
	hs.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, _ := start(t, emulator.Options{DSN: dsn})
	if second.Seeded() {
		t.Error("a store holding data was seeded again")
	}
	if got := dump(t, second); got != moved {
		t.Error("the data of the first run is not what the second serves")
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for name, o := range map[string]emulator.Options{
		"deployment": {Deployment: "cloud"},
		"context":    {Context: "portal/"},
		"version":    {Version: "eleven"},
		"dsn":        {DSN: filepath.Join(t.TempDir(), "missing", "dir", "portal.db")},
	} {
		t.Run(name, func(t *testing.T) {
			if srv, err := emulator.New(t.Context(), o); err == nil {
				srv.Close()
				t.Fatalf("New(%+v) succeeded", o)
			}
		})
	}
}
