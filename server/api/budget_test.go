package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
	"github.com/orgportal/portal-api/server/seed"
	"github.com/orgportal/portal-api/server/sqlstore"
)

// demoStore is an in-memory store holding the demo seed.
func demoStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Update(ctx, func(tx server.Tx) error { return seed.Demo().Apply(ctx, tx, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	return st
}

// serveAPI serves the API configured by cfg.
func serveAPI(t *testing.T, cfg api.Config) *httptest.Server {
	t.Helper()
	h, err := api.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// budgetPortal serves the API on an in-memory store whose bodies in flight
// may hold at most limit bytes.
func budgetPortal(t *testing.T, limit int64) *httptest.Server {
	return serveAPI(t, api.Config{Store: demoStore(t), BodyBytesInFlight: limit})
}

// A body beyond the room left for bodies in flight is answered 503 with
// Retry-After and the envelope, and changes nothing; the room a body held
// is given back when its request ends; ordinary bodies are not counted.
func TestBodiesInFlightBound(t *testing.T) {
	const limit = 200 << 10
	srv := budgetPortal(t, limit)
	target := srv.URL + "/sharing/rest/generateToken"
	send := func(body string, chunked bool) (*http.Response, string) {
		t.Helper()
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // hides the length
		}
		req, _ := http.NewRequest(http.MethodPost, target, r)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	// Each refused by the rules (the password is too long), not for room.
	withPassword := func(n int) string {
		return enc("username", pt.Member, "password", strings.Repeat("p", n))
	}
	counted := withPassword(120 << 10) // more than half the room
	for range 3 {                      // given back each time, or the second would not fit
		if resp, body := send(counted, false); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"code":400`) {
			t.Fatalf("a body that fits: want the rules' 400, got %d %s", resp.StatusCode, body)
		}
	}
	resp, body := send(withPassword(limit), false)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `"code":503`) {
		t.Errorf("a body beyond the room: want 503 with Retry-After and the envelope, got %d %v %s", resp.StatusCode, resp.Header, body)
	}
	// A body without a length may be as large as the 1 MiB limit, which is
	// more than this server's room.
	resp, body = send(withPassword(10), true)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"code":503`) {
		t.Errorf("a body without a length: want 503, got %d %s", resp.StatusCode, body)
	}
}

// With no room at all, an ordinary body (a settings update) still goes
// through: it is not counted.
func TestOrdinaryBodiesNotCounted(t *testing.T) {
	srv := budgetPortal(t, 1)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/sharing/rest/portals/self/settings/update",
		strings.NewReader(enc("informationalBanner", `{"text":"small"}`)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+pt.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"success":true`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// With room for one body of the largest size, bodies without a length go
// through one after another: each gives back what it held.
func TestBodiesWithoutLengthGiveRoomBack(t *testing.T) {
	srv := budgetPortal(t, api.MaxBodyBytes)
	for i := range 3 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/sharing/rest/portals/self/settings/update",
			io.MultiReader(strings.NewReader(enc("informationalBanner", `{"text":"chunked"}`))))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+pt.AdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"success":true`) {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, b)
		}
	}
}
