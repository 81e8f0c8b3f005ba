package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/emulator"
)

const (
	roads   = "93b54c8930ae46d9a00a7820cb3ebbd1"
	archive = "6c5b4a39281746e5b0a9f8e7d6c5b4a3"
)

// instance is one running portald, started by run.
type instance struct {
	addr, line string
	cancel     context.CancelFunc
	done       chan error
}

var listenRE = regexp.MustCompile(`^portald listening on ([^ ,]+), API at (\S+),`)

// start runs portald with args until stop; it waits for the start-up line.
func start(t *testing.T, args ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	in := &instance{cancel: cancel, done: make(chan error, 1)}
	go func() {
		err := run(ctx, args, env(map[string]string{"PORTAL_LOG_LEVEL": "warn"}), pw, nil)
		pw.CloseWithError(io.EOF)
		in.done <- err
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("portald %q stopped before listening: %v", args, <-in.done)
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	m := listenRE.FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("start-up line %q does not match %s", line, listenRE)
	}
	in.addr, in.line = m[1], strings.TrimSpace(line)
	t.Cleanup(func() {
		cancel()
		<-in.done
	})
	return in
}

// stop cancels run's context, as a signal does, and waits for it to return.
func (in *instance) stop(t *testing.T) {
	t.Helper()
	in.cancel()
	if err := <-in.done; err != nil {
		t.Fatalf("run: %v", err)
	}
	in.done <- nil // for the cleanup
}

// call sends a request to the API and decodes the JSON answer.
func (in *instance) call(t *testing.T, method, path string, form url.Values) map[string]any {
	t.Helper()
	u := "http://" + in.addr + path
	var resp *http.Response
	var err error
	if method == http.MethodGet {
		resp, err = http.Get(u + "?" + form.Encode())
	} else {
		resp, err = http.PostForm(u, form)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != http.StatusOK || body["error"] != nil {
		t.Fatalf("%s %s: %s %v", method, path, resp.Status, body)
	}
	return body
}

func itemIDs(t *testing.T, body map[string]any) []string {
	t.Helper()
	items, ok := body["items"].([]any)
	if !ok {
		t.Fatalf("no items in %v", body)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

func TestRunServesAndKeepsData(t *testing.T) {
	db := filepath.Join(t.TempDir(), "portal.db")
	args := []string{"-addr", "127.0.0.1:0", "-db", db, "-context", "/portal"}
	tok := url.Values{"token": {"demo-user-token"}}

	first := start(t, args...)
	for _, want := range []string{
		"API at http://" + first.addr + "/portal/sharing/rest,",
		"portal 11.5 enterprise",
		"store SQLite file " + db + " (new, seeded with the demo organizations)",
		"demo tokens: admin=demo-admin-token jsmith=demo-user-token",
		"otheruser=demo-other-user-token",
	} {
		if !strings.Contains(first.line, want) {
			t.Errorf("start-up line %q lacks %q", first.line, want)
		}
	}
	resp, err := http.Get("http://" + first.addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /health: %s", resp.Status)
	}
	root := first.call(t, http.MethodGet, "/portal/sharing/rest/content/users/jsmith", tok)
	if ids := strings.Join(itemIDs(t, root), ","); ids != roads+",7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3" {
		t.Fatalf("root items = %s", ids)
	}
	moved := first.call(t, http.MethodPost, "/portal/sharing/rest/content/users/jsmith/moveItems",
		url.Values{"token": tok["token"], "items": {roads}, "folder": {archive}, "f": {"json"}})
	if r, _ := moved["results"].([]any); len(r) != 1 || r[0].(map[string]any)["success"] != true {
		t.Fatalf("moveItems: %v", moved)
	}
	first.stop(t)

	// The same file again: the move is kept, and the seed is not applied over it.
	second := start(t, args...)
	if !strings.Contains(second.line, "(existing data)") {
		t.Errorf("start-up line %q does not say the data was kept", second.line)
	}
	inArchive := second.call(t, http.MethodGet, "/portal/sharing/rest/content/users/jsmith/"+archive, tok)
	if ids := strings.Join(itemIDs(t, inArchive), ","); ids != roads {
		t.Fatalf("Archive items after restart = %q, want %s", ids, roads)
	}
	second.stop(t)
}

func TestRunSeedFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "seed.json")
	err := os.WriteFile(good, []byte(`{"organizations": [{"id": "ORG1", "name": "One", "users": [
		{"username": "solo", "password": "pw", "role": "org_user", "tokens": ["solo-token"],
		 "items": [{"id": "i1", "title": "Only", "type": "CSV"}]}]}]}`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	in := start(t, "-addr", "127.0.0.1:0", "-db", ":memory:", "-seed", good)
	if !strings.Contains(in.line, "seeded from "+good) || strings.Contains(in.line, "demo tokens") {
		t.Errorf("start-up line %q", in.line)
	}
	body := in.call(t, http.MethodGet, "/sharing/rest/content/users/solo", url.Values{"token": {"solo-token"}})
	if ids := strings.Join(itemIDs(t, body), ","); ids != "i1" {
		t.Fatalf("items = %q", ids)
	}
	in.stop(t)
}

func TestRunRejectsBadSeed(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("organizations:\n  - id: X\n    name: X\n    users:\n      - {username: u, password: p, role: wizard}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "portal.db")
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", db, "-seed", bad}, env(nil), io.Discard, nil)
	want := bad + `:5: organizations[0].users[0].role: unknown role "wizard"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("run = %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a bad seed still created the store: %v", err)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	err := run(t.Context(), []string{"-deployment", "cloud"}, env(nil), io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "-deployment") {
		t.Fatalf("run = %v", err)
	}
}

func TestStartLineRedactsPostgresPassword(t *testing.T) {
	got := emulator.DescribeStore("postgres://portal:s3cret@db.example:5432/portal?sslmode=disable")
	if strings.Contains(got, "s3cret") || !strings.Contains(got, "db.example:5432/portal") {
		t.Fatalf("DescribeStore = %q", got)
	}
}

// -admin-token reaches the emulator's endpoints: a reset without it is
// refused and changes nothing; with it, the store is back to the seed.
func TestRunAdminToken(t *testing.T) {
	in := start(t, "-addr", "127.0.0.1:0", "-db", ":memory:", "-admin-token", "s3cret")
	tok := url.Values{"token": {"demo-user-token"}}
	in.call(t, http.MethodPost, "/sharing/rest/content/users/jsmith/moveItems",
		url.Values{"token": tok["token"], "items": {roads}, "folder": {archive}, "f": {"json"}})
	reset := func(auth string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "http://"+in.addr+"/emulator/reset", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	archived := func() string {
		return strings.Join(itemIDs(t, in.call(t, http.MethodGet, "/sharing/rest/content/users/jsmith/"+archive, tok)), ",")
	}
	for _, auth := range []string{"", "Bearer wrong", "s3cret"} {
		if got := reset(auth); got != http.StatusUnauthorized {
			t.Errorf("reset with Authorization %q: HTTP %d, want 401", auth, got)
		}
	}
	if got := archived(); got != roads {
		t.Fatalf("a refused reset changed the store: Archive holds %q", got)
	}
	if got := reset("Bearer s3cret"); got != http.StatusOK {
		t.Fatalf("reset with the admin token: HTTP %d", got)
	}
	if got := archived(); got != "" {
		t.Errorf("after reset, Archive holds %q, want nothing", got)
	}
}
