package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server/seed"
)

// pythonParams is the ArcGIS API for Python's authorization request for an
// implicit grant (arcgis/auth/_auth/_token.py), redirecting to the portal's
// own origin.
func pythonParams(p *pt.Portal, state string) url.Values {
	return form("response_type", "token", "client_id", "pythonapi", "redirect_uri", p.Root, "state", state,
		"expiration", "600", "allow_verification", "false", "style", "dark", "locale", "en-US")
}

// TestSignInPage: the page a person signs in on, as the ArcGIS API for
// Python reads it: the first line holding braces is `var oAuthInfo =
// {...};`, a JSON object with oauth_state; a form posting to the sign-in
// beside the REST root; not to be framed or cached.
func TestSignInPage(t *testing.T) {
	for _, ctxSeg := range []string{"", "/portal"} {
		t.Run("context="+ctxSeg, func(t *testing.T) {
			p := pt.New(t, pt.WithContext(ctxSeg))
			a := authorize(t, p, pythonParams(p, "Q7bM2kfvA0pS9xZ3tL5hN8wR1yC4eJ"))
			info := oAuthInfo(t, a)
			if info["client_id"] != "pythonapi" || info["locale"] != "en-US" || info["messages"] != nil {
				t.Errorf("oAuthInfo %v", info)
			}
			state := info["oauth_state"].(string)
			for _, want := range []string{
				`<form method="post" action="` + ctxSeg + `/sharing/oauth2/signin">`,
				`<input type="hidden" name="oauth_state" value="` + state + `">`,
				`name="username"`,
				`name="password" type="password"`,
				`<body class="dark">`,
			} {
				if !strings.Contains(a.raw, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if a.header.Get("X-Frame-Options") != "DENY" || a.header.Get("Cache-Control") != "no-store" {
				t.Errorf("headers %v", a.header)
			}
			// What the page's form posts signs in.
			to := redirected(t, signIn(t, p, state, pt.Member, pt.MemberPassword))
			if got := fragment(t, to).Get("username"); got != pt.Member {
				t.Errorf("signed in as %q", got)
			}
		})
	}
	// What the caller sends is escaped on the page: no markup gets through.
	p := pt.New(t)
	a := authorize(t, p, form("client_id", "pythonapi", "response_type", "token", "redirect_uri", p.Root, "locale", "</script><b>x"))
	if info := oAuthInfo(t, a); info["locale"] != "</script><b>x" {
		t.Errorf("locale read back as %v", info["locale"])
	}
	if strings.Contains(a.raw, "</script><b>") {
		t.Errorf("the locale's markup reaches the page unescaped")
	}
}

// TestImplicitGrant: the ArcGIS API for Python's sign-in. Signed in, the
// sign-in redirects to the request's own origin with the token in the
// fragment: expires_in in seconds (expiration minutes x 60), username, ssl,
// the state echoed with %20 for spaces.
func TestImplicitGrant(t *testing.T) {
	p := pt.New(t, pt.WithHosts("portal.example.org"))
	const state = "a b/c+d"
	page := authorize(t, p, pythonParams(p, state))
	to := redirected(t, signIn(t, p, oAuthInfo(t, page)["oauth_state"].(string), pt.Member, pt.MemberPassword, "expiration", "600"))
	if !strings.HasPrefix(to.String(), p.Root+"#") {
		t.Fatalf("redirect to %s, want %s#...", to, p.Root)
	}
	if !strings.Contains(to.EscapedFragment(), "state=a%20b%2Fc%2Bd") {
		t.Errorf("state in the fragment %q, want a%%20b%%2Fc%%2Bd", to.EscapedFragment())
	}
	f := fragment(t, to)
	tok := f.Get("access_token")
	if f.Get("expires_in") != "36000" || f.Get("username") != pt.Member || f.Get("ssl") != "false" || f.Get("state") != state ||
		tok == "" || strings.Contains(tok, "=") {
		t.Errorf("fragment %v", f)
	}
	if got := whoAmI(t, p, tok); got != pt.Member {
		t.Errorf("the token stands for %v", got)
	}
	// Without expiration, 2 hours; the authorization request's expiration
	// when the sign-in gives none.
	for _, c := range []struct{ expiration, want string }{{"", "7200"}, {"20160", "1209600"}} {
		params := pythonParams(p, "s")
		if c.expiration == "" {
			params.Del("expiration")
		} else {
			params.Set("expiration", c.expiration)
		}
		if got := fragment(t, signInThrough(t, p, params, pt.Admin, pt.AdminPassword)).Get("expires_in"); got != c.want {
			t.Errorf("expiration %q: expires_in %s, want %s", c.expiration, got, c.want)
		}
	}
	// The origin is the one the request came to (its Host header).
	const host = "portal.example.org:8443"
	hosted := func(method, target, body string) answer {
		req, _ := http.NewRequest(method, target, strings.NewReader(body))
		req.Host = host
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return fetch(t, req)
	}
	params := pythonParams(p, "h")
	params.Set("redirect_uri", "http://"+host)
	info := oAuthInfo(t, hosted(http.MethodGet, p.URL+"/oauth2/authorize?"+params.Encode(), ""))
	to = redirected(t, hosted(http.MethodPost, signinURL(p), form("oauth_state", info["oauth_state"].(string), "username", pt.Member, "password", pt.MemberPassword).Encode()))
	if !strings.HasPrefix(to.String(), "http://"+host+"#access_token=") {
		t.Errorf("redirect to %s", to)
	}
	params.Set("redirect_uri", p.Root) // not the origin this request came to
	if a := hosted(http.MethodGet, p.URL+"/oauth2/authorize?"+params.Encode(), ""); a.status != 400 || !strings.Contains(a.raw, "Invalid redirect_uri") {
		t.Errorf("another origin than the request's: HTTP %d %.300s", a.status, a.raw)
	}
}

// TestWrongPassword: a wrong password answers the page again, with the
// message in oAuthInfo, and issues nothing; the page's new state signs in.
func TestWrongPassword(t *testing.T) {
	p := pt.New(t)
	state := oAuthInfo(t, authorize(t, p, pythonParams(p, "w")))["oauth_state"].(string)
	before := dump(t, p)
	for _, c := range []struct{ user, password string }{{pt.Member, "wrong"}, {"ghost", "x"}, {pt.Member, ""}} {
		a := signIn(t, p, state, c.user, c.password, "expiration", "600")
		info := oAuthInfo(t, a)
		if js(info["messages"]) != `["Invalid username or password."]` || info["client_id"] != "pythonapi" {
			t.Errorf("%s/%q: oAuthInfo %v", c.user, c.password, info)
		}
		if a.header.Get("Location") != "" || !strings.Contains(a.raw, `role="alert">Invalid username or password.</p>`) {
			t.Errorf("%s/%q: the page does not say why: %.300s", c.user, c.password, a.raw)
		}
		state = info["oauth_state"].(string)
	}
	if dump(t, p) != before {
		t.Error("a refused sign-in changed the store")
	}
	to := redirected(t, signIn(t, p, state, pt.Member, pt.MemberPassword))
	if f := fragment(t, to); f.Get("state") != "w" || f.Get("access_token") == "" {
		t.Errorf("sign-in after refusals: %s", to)
	}
}

// TestCodeFlowPKCE: the authorization code grant with PKCE, S256 and plain:
// the code is exchanged once, by its application, for its redirect URI,
// with the verifier, within 10 minutes; every refusal issues nothing.
func TestCodeFlowPKCE(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		// RFC 7636 appendix B.
		const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
		if challenge(verifier) != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
			t.Fatal("the S256 challenge is not RFC 7636's")
		}
		code := codeFor(t, p, codeParams("code_challenge", challenge(verifier), "code_challenge_method", "S256"))
		before := dump(t, p)
		oauthFails(t, exchange(t, p, code), "invalid_request", "code_verifier not specified")
		oauthFails(t, exchange(t, p, code, "code_verifier", strings.Repeat("A", 43)), "invalid_grant", "Invalid code_verifier")
		oauthFails(t, exchange(t, p, code, "code_verifier", challenge(verifier)), "invalid_grant", "Invalid code_verifier")
		oauthFails(t, exchange(t, p, code, "code_verifier", verifier, "client_secret", "wrong"), "invalid_client", "Invalid client_secret")
		oauthFails(t, exchange(t, p, code, "code_verifier", verifier, "redirect_uri", "http://127.0.0.1:5001/callback"), "invalid_grant", "Invalid redirect_uri")
		oauthFails(t, oauthToken(t, p, "grant_type", "authorization_code", "client_id", "pythonapi", "redirect_uri", demoCallback,
			"code", code, "code_verifier", verifier), "invalid_grant", "Invalid authorization code")
		oauthFails(t, oauthToken(t, p, "grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback), "invalid_request", "code not specified")
		oauthFails(t, oauthToken(t, p, "grant_type", "authorization_code", "client_id", demoApp, "code", code), "invalid_request", "redirect_uri not specified")
		if dump(t, p) != before {
			t.Error("refused exchanges changed the store")
		}
		a := exchange(t, p, code, "code_verifier", verifier, "client_secret", demoSecret)
		access, refresh := issued(t, a)
		if a.body["expires_in"] != 1800.0 || a.body["refresh_token_expires_in"] != 1209600.0 || a.body["username"] != pt.Member ||
			a.body["ssl"] != false || refresh == "" {
			t.Errorf("tokens %s", a.raw)
		}
		if got := whoAmI(t, p, access); got != pt.Member {
			t.Errorf("the access token stands for %v", got)
		}
		// Tokens the code led to: refreshed, and from a refresh token
		// exchanged for a new one.
		refreshed, _ := issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh))
		rotatedAccess, rotated := issued(t, oauthToken(t, p, "grant_type", "exchange_refresh_token", "client_id", demoApp,
			"client_secret", demoSecret, "redirect_uri", demoCallback, "refresh_token", refresh))
		// Used once; used again, every token it led to is revoked (RFC 6749
		// 4.1.2): the code was stolen, or the exchange replayed.
		oauthFails(t, exchange(t, p, code, "code_verifier", verifier), "invalid_grant", "Invalid authorization code")
		for name, tok := range map[string]string{"its access token": access, "a refreshed access token": refreshed,
			"the access token of its refresh token's exchange": rotatedAccess} {
			if got := whoAmI(t, p, tok); got != 498 {
				t.Errorf("after the code's replay, %s answers %v, want 498", name, got)
			}
		}
		oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", rotated), "invalid_grant", "Invalid refresh_token")
		before = dump(t, p)
		oauthFails(t, exchange(t, p, code, "code_verifier", verifier), "invalid_grant", "Invalid authorization code")
		if dump(t, p) != before {
			t.Error("a third use of the code changed the store")
		}
		// No PKCE downgrade: a code issued without a challenge is not
		// exchanged with a verifier.
		plainCode := codeFor(t, p, codeParams())
		oauthFails(t, exchange(t, p, plainCode, "code_verifier", verifier), "invalid_grant", "Invalid code_verifier")

		// plain, named or implied by a challenge without a method.
		for _, method := range []string{"plain", ""} {
			code := codeFor(t, p, codeParams("code_challenge", verifier, "code_challenge_method", method))
			oauthFails(t, exchange(t, p, code, "code_verifier", challenge(verifier)), "invalid_grant", "Invalid code_verifier")
			issued(t, exchange(t, p, code, "code_verifier", verifier))
		}
		// Without PKCE, the confidential application needs no verifier.
		issued(t, exchange(t, p, codeFor(t, p, codeParams()), "client_secret", demoSecret))

		// A code lives 10 minutes by the emulator's clock.
		code = codeFor(t, p, codeParams())
		p.AdvanceClock(10*time.Minute - time.Second)
		issued(t, exchange(t, p, code))
		code = codeFor(t, p, codeParams())
		p.AdvanceClock(10 * time.Minute)
		oauthFails(t, exchange(t, p, code), "invalid_grant", "Invalid authorization code")
	})
}

// TestRefreshGrants: refresh_token gives an access token and keeps the
// refresh token; exchange_refresh_token gives a new refresh token of the
// old one's lifetime and revokes the old one; refresh tokens live the
// authorization request's expiration by the emulator's clock.
func TestRefreshGrants(t *testing.T) {
	p := pt.New(t)
	a := exchange(t, p, codeFor(t, p, codeParams("expiration", "60")))
	_, refresh := issued(t, a)
	if a.body["refresh_token_expires_in"] != 3600.0 {
		t.Errorf("refresh_token_expires_in %v, want 3600", a.body["refresh_token_expires_in"])
	}
	for range 2 {
		r := oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh)
		access, again := issued(t, r)
		if again != "" || r.body["expires_in"] != 1800.0 || r.body["username"] != pt.Member || whoAmI(t, p, access) != pt.Member {
			t.Errorf("refresh_token: %s", r.raw)
		}
	}
	before := dump(t, p)
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", "pythonapi", "refresh_token", refresh), "invalid_grant", "Invalid refresh_token")
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", "never-issued"), "invalid_grant", "Invalid refresh_token")
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp), "invalid_request", "refresh_token not specified")
	oauthFails(t, oauthToken(t, p, "grant_type", "exchange_refresh_token", "client_id", demoApp, "refresh_token", refresh), "invalid_request", "redirect_uri not specified")
	oauthFails(t, oauthToken(t, p, "grant_type", "exchange_refresh_token", "client_id", demoApp, "refresh_token", refresh,
		"redirect_uri", "https://evil.example.org/cb"), "invalid_request", "Invalid redirect_uri")
	if dump(t, p) != before {
		t.Error("refused refreshes changed the store")
	}

	p.AdvanceClock(30 * time.Minute)
	x := oauthToken(t, p, "grant_type", "exchange_refresh_token", "client_id", demoApp, "refresh_token", refresh, "redirect_uri", demoCallback)
	access, renewed := issued(t, x)
	if renewed == "" || renewed == refresh || x.body["refresh_token_expires_in"] != 3600.0 || whoAmI(t, p, access) != pt.Member {
		t.Errorf("exchange_refresh_token: %s", x.raw)
	}
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh), "invalid_grant", "Invalid refresh_token")
	// The new one lives its own hour from the exchange.
	p.AdvanceClock(59 * time.Minute)
	issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", renewed))
	p.AdvanceClock(time.Minute)
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", renewed), "invalid_grant", "Invalid refresh_token")

	// expiration=-1: a refresh token that never expires.
	a = exchange(t, p, codeFor(t, p, codeParams("expiration", "-1")))
	_, forever := issued(t, a)
	if a.body["refresh_token_expires_in"] != -1.0 {
		t.Errorf("refresh_token_expires_in %v, want -1", a.body["refresh_token_expires_in"])
	}
	p.AdvanceClock(400 * 24 * time.Hour)
	issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", forever))
}

// TestClientCredentials: an application's token acts for no user: it reads
// what anonymous callers read, portals/self answers its organization with
// appInfo, and every write answers 403, not 498.
func TestClientCredentials(t *testing.T) {
	p := pt.New(t)
	// As ArcGIS REST JS's ApplicationCredentialsManager sends it.
	a := post(t, p, "/oauth2/token/", "", form("f", "json", "client_id", demoApp, "client_secret", demoSecret,
		"grant_type", "client_credentials", "expiration", "7200"))
	app, refresh := issued(t, a)
	if a.body["expires_in"] != 432000.0 || a.body["ssl"] != false || refresh != "" || a.body["username"] != nil {
		t.Errorf("application token: %s", a.raw)
	}
	if d := ok(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret)); d.body["expires_in"] != 7200.0 {
		t.Errorf("default lifetime: %s", d.raw)
	}
	self := ok(t, get(t, p, "/portals/self", app, nil))
	if self.body["id"] != pt.OrgID || js(self.body["appInfo"]) != `{"appId":"demo-app","appOwner":"admin","orgId":"`+pt.OrgID+`","privileges":[]}` {
		t.Errorf("portals/self with an application's token: %s", self.raw)
	}
	for _, k := range memberPortalKeys {
		if _, shown := self.body[k]; shown {
			t.Errorf("an application sees %s: %s", k, self.raw)
		}
	}
	if anon := ok(t, get(t, p, "/portals/self", "", nil)); anon.body["appInfo"] != nil {
		t.Errorf("anonymous portals/self has appInfo: %s", anon.raw)
	}
	if got, want := ok(t, get(t, p, settingsPath, app, nil)).raw, ok(t, get(t, p, settingsPath, "", nil)).raw; got != want {
		t.Errorf("settings read by the application %s, anonymously %s", got, want)
	}
	fails(t, get(t, p, "/community/self", app, nil), 403, "GWM_0003")
	before := dump(t, p)
	fails(t, post(t, p, hUpdate, app, form("informationalBanner", `{"enabled":false}`)), 403, "GWM_0003")
	fails(t, post(t, p, "/content/users/"+pt.Member+"/items/"+pt.RoadsItem+"/move", app, form("folder", pt.ArchiveFolder)), 403, "GWM_0003")
	fails(t, assign(t, p, app, chain(1)), 403, "GWM_0003")
	if dump(t, p) != before {
		t.Error("an application's refused writes changed the store")
	}

	oauthFails(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", "wrong"), "invalid_client", "Invalid client_secret")
	oauthFails(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp), "invalid_request", "client_secret not specified")
	oauthFails(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", "pythonapi", "client_secret", "x"), "invalid_client", "Invalid client")
	oauthFails(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", "nope", "client_secret", "x"), "invalid_client", "Invalid client_id")
	if dump(t, p) != before {
		t.Error("refused client credentials changed the store")
	}
	// It expires by the emulator's clock.
	p.AdvanceClock(120*time.Minute - time.Second)
	ok(t, get(t, p, "/portals/self", app, nil))
	p.AdvanceClock(5 * 24 * time.Hour)
	fails(t, get(t, p, "/portals/self", app, nil), 498, "Invalid token.")
}

// TestRevokeToken: refresh tokens, applications' tokens and access tokens
// are revoked at once, even when already in use; a token of another
// application is refused and stays; an unknown one is no error.
func TestRevokeToken(t *testing.T) {
	p := pt.New(t)
	revoke := func(path string, kv ...string) answer { return post(t, p, path, "", form(kv...)) }
	access, refresh := issued(t, exchange(t, p, codeFor(t, p, codeParams())))
	app, _ := issued(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret))
	implicit := fragment(t, signInThrough(t, p, pythonParams(p, "r"), pt.Admin, pt.AdminPassword)).Get("access_token")
	for _, tok := range []string{access, implicit} {
		whoAmI(t, p, tok) // in use: cached
	}
	ok(t, get(t, p, "/portals/self", app, nil))

	before := dump(t, p)
	oauthFails(t, revoke("/oauth2/revokeToken", "client_id", "pythonapi", "auth_token", refresh), "invalid_client", "Invalid client_id")
	oauthFails(t, revoke("/oauth2/revokeToken", "client_id", "pythonapi", "auth_token", app), "invalid_client", "Invalid client_id")
	if a := ok(t, revoke("/oauth2/revokeToken", "client_id", demoApp, "auth_token", "never-issued")); a.raw != "{\"success\":true}\n" {
		t.Errorf("revoking an unknown token: %s", a.raw)
	}
	if dump(t, p) != before {
		t.Error("refused revocations changed the store")
	}
	issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh))

	// As ArcGIS REST JS signs out: oauth2/revokeToken/ with a trailing slash.
	ok(t, revoke("/oauth2/revokeToken/", "f", "json", "client_id", demoApp, "auth_token", refresh))
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh), "invalid_grant", "Invalid refresh_token")
	ok(t, revoke("/oauth2/revokeToken", "client_id", demoApp, "auth_token", app))
	fails(t, get(t, p, "/portals/self", app, nil), 498, "Invalid token.")
	ok(t, revoke("/oauth2/revokeToken", "client_id", demoApp, "auth_token", access, "token_type_hint", "access_token"))
	ok(t, revoke("/oauth2/revokeToken", "auth_token", implicit))
	for _, tok := range []string{access, implicit} {
		if got := whoAmI(t, p, tok); got != 498 {
			t.Errorf("a revoked access token still answers %v", got)
		}
	}
}

var approvalTitle = regexp.MustCompile(`<title>SUCCESS code=([^<]+)</title>`)

// TestOutOfBand: a code for urn:ietf:wg:oauth:2.0:oob lands on the portal's
// approval page, whose title carries it (the ArcGIS API for Python's
// fallback); it is exchanged like any code.
func TestOutOfBand(t *testing.T) {
	for _, ctxSeg := range []string{"", "/portal"} {
		t.Run("context="+ctxSeg, func(t *testing.T) {
			p := pt.New(t, pt.WithContext(ctxSeg))
			params := form("response_type", "code", "client_id", "pythonapi", "redirect_uri", oob, "state", "o b",
				"expiration", "20160", "allow_verification", "false", "style", "dark", "locale", "en-US")
			state := oAuthInfo(t, authorize(t, p, params))["oauth_state"].(string)
			to := redirected(t, signIn(t, p, state, pt.Member, pt.MemberPassword, "authorize", "True"))
			if to.Scheme+"://"+to.Host+to.Path != p.URL+"/oauth2/approval" || to.Query().Get("state") != "o b" {
				t.Fatalf("redirect to %s, want %s/oauth2/approval?code=...&state=o%%20b", to, p.URL)
			}
			req, _ := http.NewRequest(http.MethodGet, to.String(), nil)
			page := fetch(t, req)
			m := approvalTitle.FindStringSubmatch(page.raw)
			if page.status != 200 || m == nil || m[1] != to.Query().Get("code") {
				t.Fatalf("approval page: HTTP %d %.400s", page.status, page.raw)
			}
			a := oauthToken(t, p, "grant_type", "authorization_code", "code", m[1], "redirect_uri", oob, "client_id", "pythonapi", "expiration", "20160")
			if access, _ := issued(t, a); whoAmI(t, p, access) != pt.Member {
				t.Errorf("the out-of-band code's token: %s", a.raw)
			}
		})
	}
	p := pt.New(t)
	// An implicit grant has nowhere to go out of band.
	a := authorize(t, p, form("response_type", "token", "client_id", "pythonapi", "redirect_uri", oob))
	if a.status != 400 || !strings.Contains(a.raw, "Invalid redirect_uri") {
		t.Errorf("response_type=token to oob: HTTP %d %.300s", a.status, a.raw)
	}
	// The approval page escapes what it shows.
	page := readPage(t, p, http.MethodGet, "/oauth2/approval", form("code", `"><script>alert(1)</script>`))
	if strings.Contains(page.raw, "<script>") || !strings.Contains(page.raw, "&lt;script&gt;") {
		t.Errorf("the approval page shows markup: %.600s", page.raw)
	}
}

// TestRedirectURIs: a redirect URI is normalised, then matched: a
// registered one exactly (RFC 9700 4.1.3), or a loopback host on any port
// (RFC 8252) with a path at or under the registered one; a dot segment, even
// percent-encoded, or a fragment, even empty, is refused; pythonapi
// redirects to the portal's own origin. Refusals are the portal's HTML
// error pages.
func TestRedirectURIs(t *testing.T) {
	f := seed.Demo()
	f.Organizations[0].Apps = append(f.Organizations[0].Apps, seed.App{ClientID: "web-app", RedirectURIs: []string{"https://app.example.org:8443/oauth"}},
		seed.App{ClientID: "site-app", RedirectURIs: []string{"https://app.example.com/cb", "https://app.example.com"}})
	p := pt.New(t, pt.WithSeed(f))
	for _, c := range []struct {
		client, uri string
		taken       bool
	}{
		{demoApp, "http://127.0.0.1:5000/callback", true},
		{demoApp, "http://127.0.0.1:1/", true},
		{demoApp, "http://127.0.0.1/cb", true},
		{demoApp, "http://localhost:65535/cb?x=1", true},
		{demoApp, "http://[::1]:8080/cb", true},
		{demoApp, "https://127.0.0.1:9443/cb", true},
		{demoApp, "http://127.0.0.2:5000/", false},
		{demoApp, "http://example.org:5000/", false},
		{demoApp, "ftp://127.0.0.1/", false},
		{demoApp, "http://user@127.0.0.1:5000/", false},
		{demoApp, "http://127.0.0.1:5000/cb#frag", false},
		{demoApp, "127.0.0.1:5000", false},
		{demoApp, oob, false},
		{"web-app", "https://app.example.org:8443/oauth", true},
		{"web-app", "https://app.example.org:8443/oauth/callback", false},
		{"web-app", "https://app.example.org:8443/oauth/", false},
		{"web-app", "https://app.example.org:8443/oauth?x=1", false},
		{"site-app", "https://app.example.com/cb", true},
		{"site-app", "https://app.example.com:443/cb", true},
		{"site-app", "HTTPS://App.Example.com/cb", true},
		{"site-app", "https://app.example.com/", true},
		{"site-app", "https://app.example.com", true},
		{"site-app", "https://app.example.com/cb/../evil", false},
		{"site-app", "https://app.example.com/cb/%2e%2e/evil", false},
		{"site-app", "https://app.example.com/cb/%2E%2E/cb", false},
		{"site-app", "https://app.example.com/./cb", false},
		{"site-app", "https://app.example.com/cb#", false},
		{"site-app", "https://app.example.com/cb/", false},
		{"site-app", "https://app.example.com/cbx", false},
		{"site-app", "https://app.example.com/evil", false},
		{"site-app", "https://app.example.com:8443/cb", false},
		{"site-app", `https://app.example.com/cb\..\evil`, false},
		{demoApp, "http://127.0.0.1:5000/callback/../../evil", false},
		{demoApp, "http://127.0.0.1:5000/%2e%2e/evil", false},
		{demoApp, "http://127.0.0.1:5000/callback#", false},
		{"web-app", "https://APP.example.org:8443/oauth", true},
		{"web-app", "https://app.example.org/oauth", false},
		{"web-app", "https://app.example.org:9443/oauth", false},
		{"web-app", "http://app.example.org:8443/oauth", false},
		{"web-app", "https://app.example.org:8443/oauthx", false},
		{"web-app", "https://app.example.org:8443/", false},
		{"pythonapi", p.Root, true},
		{"pythonapi", "https://www.arcgis.com", false},
	} {
		a := authorize(t, p, form("client_id", c.client, "response_type", "code", "redirect_uri", c.uri))
		switch {
		case c.taken:
			oAuthInfo(t, a)
		case a.status != 400 || a.header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(a.raw, "Error: Invalid redirect_uri"):
			t.Errorf("%s %s: want the Invalid redirect_uri page, got HTTP %d %.300s", c.client, c.uri, a.status, a.raw)
		}
	}
	a := authorize(t, p, form("client_id", "nope", "response_type", "code", "redirect_uri", demoCallback))
	if a.status != 400 || !strings.Contains(a.raw, "Error: Invalid client_id") {
		t.Errorf("unknown client: HTTP %d %.300s", a.status, a.raw)
	}
	// A code for a public application is exchanged without a secret, and
	// only with PKCE when it asked for it.
	to := signInThrough(t, p, form("client_id", "web-app", "response_type", "code", "redirect_uri", "https://app.example.org:8443/oauth"), pt.Member, pt.MemberPassword)
	if !strings.HasPrefix(to.String(), "https://app.example.org:8443/oauth?code=") {
		t.Fatalf("redirect to %s", to)
	}
	issued(t, oauthToken(t, p, "grant_type", "authorization_code", "client_id", "web-app", "redirect_uri", "https://app.example.org:8443/oauth", "code", to.Query().Get("code")))
}

// TestOAuthTokensLifecycle: tokens of the OAuth sign-in follow the rules of
// every token: they expire by the emulator's clock, a reset and a snapshot
// restore remove what was issued after, and they die with their
// organization.
func TestOAuthTokensLifecycle(t *testing.T) {
	p := pt.New(t)
	// Expiry: an implicit grant's minute, a code's access token's 30.
	params := pythonParams(p, "e")
	params.Set("expiration", "1")
	implicit := fragment(t, signInThrough(t, p, params, pt.Member, pt.MemberPassword)).Get("access_token")
	access, refresh := issued(t, exchange(t, p, codeFor(t, p, codeParams())))
	p.AdvanceClock(59 * time.Second)
	if whoAmI(t, p, implicit) != pt.Member || whoAmI(t, p, access) != pt.Member {
		t.Fatal("tokens dead before their time")
	}
	p.AdvanceClock(time.Second)
	if got := whoAmI(t, p, implicit); got != 498 {
		t.Errorf("an implicit token after its minute: %v", got)
	}
	p.AdvanceClock(29 * time.Minute)
	if got := whoAmI(t, p, access); got != 498 {
		t.Errorf("an access token after 30 minutes: %v", got)
	}
	access, _ = issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh))

	// Snapshot: what was issued before it comes back, what after goes.
	p.Snapshot(t, "signed-in")
	app, _ := issued(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret))
	later, laterRefresh := issued(t, exchange(t, p, codeFor(t, p, codeParams())))
	whoAmI(t, p, later)
	ok(t, get(t, p, "/portals/self", app, nil))
	p.Restore(t, "signed-in")
	if got := whoAmI(t, p, access); got != pt.Member {
		t.Errorf("a token of the snapshot after restore: %v", got)
	}
	issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh))
	if got := whoAmI(t, p, later); got != 498 {
		t.Errorf("a token issued after the snapshot, after restore: %v", got)
	}
	fails(t, get(t, p, "/portals/self", app, nil), 498, "Invalid token.")
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", laterRefresh), "invalid_grant", "Invalid refresh_token")

	// Reset: everything issued goes, codes too.
	code := codeFor(t, p, codeParams())
	app, _ = issued(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret))
	p.Reset(t)
	if got := whoAmI(t, p, access); got != 498 {
		t.Errorf("an access token after reset: %v", got)
	}
	fails(t, get(t, p, "/portals/self", app, nil), 498, "Invalid token.")
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh), "invalid_grant", "Invalid refresh_token")
	oauthFails(t, exchange(t, p, code), "invalid_grant", "Invalid authorization code")

	// Organizations: the other organization's member signed in through
	// pythonapi, the demo organization's application.
	otherParams := form("response_type", "code", "client_id", "pythonapi", "redirect_uri", oob)
	to := signInThrough(t, p, otherParams, "otheruser", "otheruser-password")
	theirs, theirRefresh := issued(t, oauthToken(t, p, "grant_type", "authorization_code", "client_id", "pythonapi", "redirect_uri", oob, "code", to.Query().Get("code")))
	app, _ = issued(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret))
	whoAmI(t, p, theirs)
	p.DeleteOrganization(t, pt.OtherOrgID)
	if got := whoAmI(t, p, theirs); got != 498 {
		t.Errorf("a deleted organization's member's token: %v", got)
	}
	oauthFails(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", "pythonapi", "refresh_token", theirRefresh), "invalid_grant", "Invalid refresh_token")
	ok(t, get(t, p, "/portals/self", app, nil))
	p.DeleteOrganization(t, pt.OrgID)
	fails(t, get(t, p, "/portals/self", app, nil), 498, "Invalid token.")
	oauthFails(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret), "invalid_client", "Invalid client_id")
}

// raceTokens sends n token requests of form at once and counts the answers
// by what they were: "ok", or the OAuth error code.
func raceTokens(t *testing.T, p *pt.Portal, n int, f url.Values) map[string]int {
	t.Helper()
	got := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.PostForm(p.URL+"/oauth2/token", f)
			if err != nil {
				got <- err.Error()
				return
			}
			defer resp.Body.Close()
			var a struct {
				AccessToken string `json:"access_token"`
				Error       *struct {
					Error string `json:"error"`
				} `json:"error"`
			}
			switch err := json.NewDecoder(resp.Body).Decode(&a); {
			case err != nil:
				got <- err.Error()
			case a.Error != nil:
				got <- a.Error.Error
			case a.AccessToken != "":
				got <- "ok"
			default:
				got <- "empty answer"
			}
		})
	}
	wg.Wait()
	close(got)
	out := map[string]int{}
	for s := range got {
		out[s]++
	}
	return out
}

// TestConcurrentExchanges: of concurrent exchanges of one code, or of one
// refresh token for a new one, exactly one succeeds.
func TestConcurrentExchanges(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		const n = 8
		for round := range 3 {
			code := codeFor(t, p, codeParams())
			got := raceTokens(t, p, n, form("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback, "code", code))
			if got["ok"] != 1 || got["invalid_grant"] != n-1 {
				t.Errorf("round %d: %d exchanges of one code: %v, want 1 ok and %d invalid_grant", round, n, got, n-1)
			}
		}
		_, refresh := issued(t, exchange(t, p, codeFor(t, p, codeParams())))
		got := raceTokens(t, p, n, form("grant_type", "exchange_refresh_token", "client_id", demoApp, "redirect_uri", demoCallback, "refresh_token", refresh))
		if got["ok"] != 1 || got["invalid_grant"] != n-1 {
			t.Errorf("%d exchanges of one refresh token: %v, want 1 ok and %d invalid_grant", n, got, n-1)
		}
	})
}

// TestOAuthSigninThrottle (issue 26) through the sign-in page: successes
// are no failures; 5 failures for a user name refuse it, right password
// included, with the portal's words, while another user signs in; 50
// failures from one address refuse everyone; the page and generateToken
// count in the same tables; a refusal issues nothing.
func TestOAuthSigninThrottle(t *testing.T) {
	p := pt.New(t)
	state := oAuthInfo(t, authorize(t, p, pythonParams(p, "t")))["oauth_state"].(string)
	for i := range 500 {
		if a := signIn(t, p, state, pt.Admin, pt.AdminPassword); a.status != http.StatusFound {
			t.Fatalf("sign-in %d of 500 from one address: HTTP %d %.300s", i+1, a.status, a.raw)
		}
	}
	refusal := func(a answer) string {
		t.Helper()
		msgs, _ := oAuthInfo(t, a)["messages"].([]any)
		if len(msgs) != 1 || a.header.Get("Location") != "" {
			t.Fatalf("want the page with one message: HTTP %d %v", a.status, msgs)
		}
		return msgs[0].(string)
	}
	const tooMany = "Too many invalid attempts. Please try again later."
	for range 5 {
		if got := refusal(signIn(t, p, state, pt.Member, "wrong")); got != "Invalid username or password." {
			t.Fatalf("a wrong password: %q", got)
		}
	}
	before := dump(t, p)
	if got := refusal(signIn(t, p, state, pt.Member, pt.MemberPassword)); got != tooMany {
		t.Errorf("the right password after 5 failures: %q, want %q", got, tooMany)
	}
	if got := refusal(signIn(t, p, state, "JSmith", pt.MemberPassword)); got != tooMany {
		t.Errorf("the user name in other case: %q", got)
	}
	if dump(t, p) != before {
		t.Error("a throttled sign-in changed the store")
	}
	redirected(t, signIn(t, p, state, pt.Admin, pt.AdminPassword)) // another user, same address

	// Per address: the 5 failures above and 45 more.
	for i := range 45 {
		refusal(signIn(t, p, state, fmt.Sprintf("nobody%d", i), "x"))
	}
	if got := refusal(signIn(t, p, state, pt.Admin, pt.AdminPassword)); got != tooMany {
		t.Errorf("after 50 failures from this address: %q, want %q", got, tooMany)
	}
	fails(t, post(t, p, "/generateToken", "", form("username", "viewer", "password", "viewer-password")), 429, "50 failed sign-ins from this address")
	p.AdvanceClock(15 * time.Minute)
	redirected(t, signIn(t, p, state, pt.Member, pt.MemberPassword))

	// One table for both ways in: 3 failures on the page, 2 by generateToken.
	q := pt.New(t)
	qState := oAuthInfo(t, authorize(t, q, pythonParams(q, "q")))["oauth_state"].(string)
	for range 3 {
		refusal(signIn(t, q, qState, pt.Member, "wrong"))
	}
	for range 2 {
		fails(t, post(t, q, "/generateToken", "", form("username", pt.Member, "password", "wrong")), 400, "Invalid username or password.")
	}
	fails(t, post(t, q, "/generateToken", "", form("username", pt.Member, "password", pt.MemberPassword)), 429, "username: 5 failed sign-ins")
	if got := refusal(signIn(t, q, qState, pt.Member, pt.MemberPassword)); got != tooMany {
		t.Errorf("after 3 failures on the page and 2 by generateToken: %q", got)
	}
	for i := range 22 {
		refusal(signIn(t, q, qState, fmt.Sprintf("nobody%d", i), "x"))
		fails(t, post(t, q, "/generateToken", "", form("username", fmt.Sprintf("ghost%d", i), "password", "x")), 400, "Invalid username or password.")
	}
	// 5 + 44 failures: one more is judged, then the address is refused.
	refusal(signIn(t, q, qState, "nobody-last", "x"))
	if got := refusal(signIn(t, q, qState, pt.Admin, pt.AdminPassword)); got != tooMany {
		t.Errorf("after 50 failures on both ways in: %q", got)
	}
	fails(t, post(t, q, "/generateToken", "", form("username", pt.Admin, "password", pt.AdminPassword)), 429, "50 failed sign-ins from this address")
}

// TestJournalKeepsNoSecrets: the journal, which whoever may call the
// emulator's endpoints reads, records the OAuth sign-in's calls without
// their secrets: passwords, the client secret, codes, verifiers, and the
// tokens sent to be exchanged or revoked.
func TestJournalKeepsNoSecrets(t *testing.T) {
	p := pt.New(t)
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	code := codeFor(t, p, codeParams("code_challenge", challenge(verifier), "code_challenge_method", "S256"))
	access, refresh := issued(t, exchange(t, p, code, "code_verifier", verifier, "client_secret", demoSecret))
	renewed, _ := issued(t, oauthToken(t, p, "grant_type", "refresh_token", "client_id", demoApp, "refresh_token", refresh))
	app, _ := issued(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret))
	ok(t, post(t, p, "/oauth2/revokeToken", "", form("client_id", demoApp, "auth_token", refresh)))
	ok(t, post(t, p, "/oauth2/revokeToken", "", form("auth_token", app)))
	ok(t, post(t, p, "/oauth2/revokeToken", "", form("auth_token", access)))
	secrets := map[string]string{"password": pt.MemberPassword, "client secret": demoSecret, "code": code, "verifier": verifier,
		"refresh token": refresh, "access token": access, "renewed access token": renewed, "application token": app}
	calls := p.Requests(t, "")
	seen := map[string]int{}
	for _, r := range calls {
		seen[r.Operation]++
		raw := js(r)
		for what, s := range secrets {
			if strings.Contains(raw, s) {
				t.Errorf("the journal's %s call holds the %s: %s", r.Operation, what, raw)
			}
		}
	}
	if seen["oauthSignIn"] != 1 || seen["oauthToken"] != 3 || seen["oauthRevokeToken"] != 3 {
		t.Errorf("journal calls %v, want the sign-in, 3 token and 3 revocation calls", seen)
	}
}

// TestJournalRecordsSignInPages: the journal records the sign-in pages as
// they were answered: the page (200, a success), a refused sign-in (the page
// again, HTTP 200, with the refusal's code 400), the sign-in's redirect (302,
// a success) and the approval page.
func TestJournalRecordsSignInPages(t *testing.T) {
	p := pt.New(t)
	params := form("response_type", "code", "client_id", "pythonapi", "redirect_uri", oob)
	state := oAuthInfo(t, authorize(t, p, params))["oauth_state"].(string)
	if a := signIn(t, p, state, pt.Member, "wrong password"); a.status != http.StatusOK || !strings.Contains(a.raw, "Invalid username or password.") {
		t.Fatalf("wrong password: HTTP %d %.300s", a.status, a.raw)
	}
	to := redirected(t, signIn(t, p, state, pt.Member, pt.MemberPassword))
	req, _ := http.NewRequest(http.MethodGet, to.String(), nil)
	if a := fetch(t, req); a.status != http.StatusOK || a.header.Get("Content-Type") != "text/html; charset=utf-8" ||
		a.header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("approval page: HTTP %d %s %v", a.status, a.header.Get("Content-Type"), a.header)
	}
	type record struct {
		op      string
		status  int
		code    int
		success bool
	}
	var got []record
	for _, r := range p.Requests(t, "") {
		rec := record{op: r.Operation, status: r.Answer.Status, success: r.Answer.Success}
		if r.Answer.Code != nil {
			rec.code = *r.Answer.Code
		}
		got = append(got, rec)
	}
	want := []record{
		{"oauthAuthorize", http.StatusOK, 0, true},
		{"oauthSignIn", http.StatusOK, 400, false},
		{"oauthSignIn", http.StatusFound, 0, true},
		{"oauthApproval", http.StatusOK, 0, true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("the journal records\n%v\nwant\n%v", got, want)
	}
}
