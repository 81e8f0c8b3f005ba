package api_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// withHeaders sends a GET of path (after the REST root) with headers.
func withHeaders(t *testing.T, p *pt.Portal, path string, h map[string]string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.URL+path, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	return fetch(t, req)
}

// TestHostNamesTheServerOnly: a Host header naming another server decides no
// redirect and no URL: pythonapi's redirect URI, which is the portal's own
// origin, stays the listener's, and so do info's URLs; a name the operator
// gave the server (-admin-hosts) counts.
func TestHostNamesTheServerOnly(t *testing.T) {
	p := pt.New(t, pt.WithHosts("portal.example.org"))
	hosted := func(host, path string) answer {
		req, _ := http.NewRequest(http.MethodGet, p.URL+path, nil)
		req.Host = host
		return fetch(t, req)
	}
	authz := func(redirect string) string {
		return "/oauth2/authorize?" + url.Values{"client_id": {"pythonapi"}, "response_type": {"token"}, "redirect_uri": {redirect}}.Encode()
	}
	if a := hosted("evil.example", authz("http://evil.example")); a.status != http.StatusBadRequest || !strings.Contains(a.raw, "Invalid redirect_uri") {
		t.Errorf("pythonapi's redirect to the Host's origin: HTTP %d %.200s", a.status, a.raw)
	}
	if a := hosted("evil.example", "/info?f=json"); !strings.Contains(a.raw, `"tokenServicesUrl":"`+p.URL+`/generateToken"`) {
		t.Errorf("Host evil.example: info names %s", a.raw)
	}
	if a := hosted("portal.example.org", authz("http://portal.example.org")); a.status != http.StatusOK {
		t.Errorf("pythonapi's redirect to a name the server was given: HTTP %d %.200s", a.status, a.raw)
	}
}

// TestForwardingNeedsTrustedProxies: Forwarded and X-Forwarded-* decide no
// redirect and no URL unless they come from a proxy the operator named:
// from anyone else they are ignored, and the origin is the listener's
// scheme with the Host header.
func TestForwardingNeedsTrustedProxies(t *testing.T) {
	evil := []map[string]string{
		{"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"},
		{"Forwarded": "host=evil.example;proto=https"},
	}
	authz := "/oauth2/authorize?" + url.Values{"client_id": {"pythonapi"}, "response_type": {"token"}, "redirect_uri": {"https://evil.example"}}.Encode()
	p := pt.New(t)
	for _, h := range evil {
		if a := withHeaders(t, p, authz, h); a.status != http.StatusBadRequest || !strings.Contains(a.raw, "Invalid redirect_uri") {
			t.Errorf("%v: pythonapi's redirect to the forwarded host: HTTP %d %.200s", h, a.status, a.raw)
		}
		if a := withHeaders(t, p, "/info?f=json", h); !strings.Contains(a.raw, `"tokenServicesUrl":"`+p.URL+`/generateToken"`) {
			t.Errorf("%v: info names %s", h, a.raw)
		}
	}

	// Behind a proxy the operator named, they count.
	p = pt.New(t, pt.WithTrustedProxies(netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")))
	for _, h := range evil {
		if a := withHeaders(t, p, authz, h); a.status != http.StatusOK {
			t.Errorf("%v behind a trusted proxy: HTTP %d %.200s", h, a.status, a.raw)
		}
		if a := withHeaders(t, p, "/info?f=json", h); !strings.Contains(a.raw, `"tokenServicesUrl":"https://evil.example/sharing/rest/generateToken"`) {
			t.Errorf("%v behind a trusted proxy: info names %s", h, a.raw)
		}
	}
	// The client is the one the proxy names: a token bound to its address
	// works from it only.
	gen := func(xff string) answer {
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/generateToken",
			strings.NewReader(form("username", pt.Member, "password", pt.MemberPassword, "client", "requestip", "f", "json").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", xff)
		return do(t, req)
	}
	tok := ok(t, gen("198.51.100.1, 203.0.113.7")).body["token"].(string)
	for xff, want := range map[string]any{"203.0.113.7": pt.Member, "198.51.100.1": float64(498)} {
		req, _ := http.NewRequest(http.MethodGet, p.URL+"/community/self?f=json&token="+tok, nil)
		req.Header.Set("X-Forwarded-For", xff)
		a := do(t, req)
		got := a.body["username"]
		if got == nil {
			got = a.errField("code")
		}
		if got != want {
			t.Errorf("requestip token from %s: %v, want %v", xff, got, want)
		}
	}
}
