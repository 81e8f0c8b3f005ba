package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

// sharing is the portal's sharing root: the REST root without /rest.
func sharing(p *pt.Portal) string { return strings.TrimSuffix(p.URL, "/rest") }

// TestOAuthPathsAsClientsCallThem: the OAuth endpoints answer under
// sharing/oauth2 (the JS SDK, the portal's pages) and sharing/rest/oauth2
// (the ArcGIS API for Python posts sharing/rest/oauth2/signin) alike,
// generateToken at sharing/generateToken too, and oauth2/token answers a
// GET, as the portal's documentation lists.
func TestOAuthPathsAsClientsCallThem(t *testing.T) {
	for _, ctxSeg := range []string{"", "/portal"} {
		t.Run("context="+ctxSeg, func(t *testing.T) {
			p := pt.New(t, pt.WithContext(ctxSeg))
			params := codeParams()
			// The sign-in page beside the REST root.
			req, _ := http.NewRequest(http.MethodGet, sharing(p)+"/oauth2/authorize?"+params.Encode(), nil)
			state := oAuthInfo(t, fetch(t, req))["oauth_state"].(string)
			// The sign-in under the REST root, as EsriOAuth2Auth posts it.
			f := form("oauth_state", state, "username", pt.Member, "password", pt.MemberPassword)
			req, _ = http.NewRequest(http.MethodPost, p.URL+"/oauth2/signin", strings.NewReader(f.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			code := redirected(t, fetch(t, req)).Query().Get("code")
			if code == "" {
				t.Fatal("no code")
			}
			// The token endpoint beside the REST root, by GET.
			q := form("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback, "code", code, "f", "json")
			req, _ = http.NewRequest(http.MethodGet, sharing(p)+"/oauth2/token?"+q.Encode(), nil)
			access, refresh := issued(t, do(t, req))
			if whoAmI(t, p, access) != pt.Member || refresh == "" {
				t.Errorf("the code's tokens: %v, refresh %q", whoAmI(t, p, access), refresh)
			}
			// And with a trailing slash, by POST.
			req, _ = http.NewRequest(http.MethodPost, sharing(p)+"/oauth2/token/",
				strings.NewReader(form("grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh).Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			issued(t, do(t, req))
			// The approval page beside the REST root.
			req, _ = http.NewRequest(http.MethodGet, sharing(p)+"/oauth2/approval?code=abc", nil)
			if a := fetch(t, req); a.status != http.StatusOK || !strings.Contains(a.raw, "SUCCESS code=abc") {
				t.Errorf("approval page: HTTP %d %.300s", a.status, a.raw)
			}
			// generateToken beside the REST root.
			req, _ = http.NewRequest(http.MethodPost, sharing(p)+"/generateToken",
				strings.NewReader(form("username", pt.Member, "password", pt.MemberPassword, "f", "json").Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tok, _ := ok(t, do(t, req)).body["token"].(string); whoAmI(t, p, tok) != pt.Member {
				t.Errorf("sharing/generateToken's token is not jsmith's")
			}
		})
	}
}

// TestExpirationClamped: an expiration past the most is the most, not a
// refusal (the ArcGIS API for Python asks for 26,000 minutes).
func TestExpirationClamped(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := pt.New(t, pt.WithClock(func() time.Time { return now }))
	twoWeeks := 20160 * time.Minute

	a := ok(t, post(t, p, "/generateToken", "", form("username", pt.Member, "password", pt.MemberPassword, "expiration", "26000")))
	if got := time.UnixMilli(int64(a.body["expires"].(float64))); !got.Equal(now.Add(twoWeeks)) {
		t.Errorf("generateToken expiration=26000 expires %s, want %s", got, now.Add(twoWeeks))
	}
	a = ok(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret, "expiration", "26000"))
	if a.body["expires_in"] != float64(twoWeeks/time.Second) {
		t.Errorf("client_credentials expiration=26000: expires_in %v", a.body["expires_in"])
	}
	// The implicit grant, asked for at the page and at the sign-in.
	params := pythonParams(p, "s")
	params.Set("expiration", "26000")
	state := oAuthInfo(t, authorize(t, p, params))["oauth_state"].(string)
	to := redirected(t, signIn(t, p, state, pt.Member, pt.MemberPassword, "expiration", "26000"))
	if got := fragment(t, to).Get("expires_in"); got != "1209600" {
		t.Errorf("implicit grant expiration=26000: expires_in %s", got)
	}
	// A code's refresh token past 90 days.
	code := codeFor(t, p, codeParams("expiration", "200000"))
	if a := ok(t, exchange(t, p, code)); a.body["refresh_token_expires_in"] != float64(129600*60) {
		t.Errorf("refresh token of expiration=200000: %v", a.body["refresh_token_expires_in"])
	}
}

// TestArcGISOnlineClient: arcgisonline, the ArcGIS API for Python 2.0's
// default sign-in, is built in beside pythonapi, with the same redirect
// URIs (the portal's origin, out of band) and no other.
func TestArcGISOnlineClient(t *testing.T) {
	p := pt.New(t)
	params := pythonParams(p, "st")
	params.Set("client_id", "arcgisonline")
	to := signInThrough(t, p, params, pt.Member, pt.MemberPassword)
	if tok := fragment(t, to).Get("access_token"); whoAmI(t, p, tok) != pt.Member {
		t.Errorf("arcgisonline's implicit grant: %s", to)
	}
	params.Set("redirect_uri", "https://www.arcgis.com")
	a := authorize(t, p, params)
	if a.status != http.StatusBadRequest || !strings.Contains(a.raw, "Invalid redirect_uri") {
		t.Errorf("arcgisonline to another origin: HTTP %d %.300s", a.status, a.raw)
	}
}

// TestBoundTokens: a token generateToken bound to a referer (client=referer)
// or an address (client=requestip, client=ip) answers 498 from any other,
// as on the portal; the official clients' ways pass.
func TestBoundTokens(t *testing.T) {
	p := pt.New(t)
	gen := func(kv ...string) string {
		t.Helper()
		a := ok(t, post(t, p, "/generateToken", "", form(append([]string{"username", pt.Member, "password", pt.MemberPassword, "f", "json"}, kv...)...)))
		return a.body["token"].(string)
	}
	self := func(token, referer string) any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, p.URL+"/community/self?"+url.Values{"token": {token}, "f": {"json"}}.Encode(), nil)
		if referer != "" {
			req.Header.Set("Referer", referer)
		}
		a := do(t, req)
		if c := a.errCode(); c != 0 {
			return c
		}
		return a.body["username"]
	}
	for _, c := range []struct {
		name    string
		token   string
		referer string
		want    any
	}{
		// The ArcGIS API for Python: referer=http, client=referer, and
		// every call's Referer header is http.
		{"python, its Referer", gen("client", "referer", "referer", "http"), "http", pt.Member},
		{"python's token, no Referer", gen("client", "referer", "referer", "http"), "", 498},
		{"site, a page of it", gen("client", "referer", "referer", "https://apps.example.org"), "https://apps.example.org/map/index.html?x=1", pt.Member},
		{"site, itself", gen("client", "referer", "referer", "https://apps.example.org"), "https://apps.example.org", pt.Member},
		{"site, another site", gen("client", "referer", "referer", "https://apps.example.org"), "https://evil.example.org/", 498},
		{"site, a longer host", gen("client", "referer", "referer", "https://apps.example.org"), "https://apps.example.org.evil.example/", 498},
		{"site, no Referer", gen("client", "referer", "referer", "https://apps.example.org"), "", 498},
		// ArcGIS REST JS in a browser binds to window.location.host; the
		// browser sends the page's URL.
		{"host, the page", gen("client", "referer", "referer", "127.0.0.1:3000"), "http://127.0.0.1:3000/", pt.Member},
		{"host, another port", gen("client", "referer", "referer", "127.0.0.1:3000"), "http://127.0.0.1:3001/", 498},
		// ArcGIS REST JS sends a referer without client: nothing bound.
		{"referer without client", gen("referer", "@esri/arcgis-rest-js"), "", pt.Member},
		{"requestip, from it", gen("client", "requestip"), "", pt.Member},
		{"ip, this address", gen("client", "ip", "ip", "127.0.0.1"), "", pt.Member},
		{"ip, another address", gen("client", "ip", "ip", "10.1.2.3"), "", 498},
		{"unbound", gen(), "https://anything.example/", pt.Member},
	} {
		if got := self(c.token, c.referer); got != c.want {
			t.Errorf("%s: community/self answers %v, want %v", c.name, got, c.want)
		}
	}
	// A bound token in a header is judged the same.
	tok := gen("client", "referer", "referer", "http")
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/community/self?f=json", nil)
	req.Header.Set("X-Esri-Authorization", "Bearer "+tok)
	if a := do(t, req); a.errCode() != 498 {
		t.Errorf("bound token in X-Esri-Authorization without its Referer: %s", a.raw)
	}
}
