package conformance

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// The sign-in flows as the portal's official clients run them (the ArcGIS
// API for Python and ArcGIS REST JS), and their refusals. Every token a
// flow obtains is revoked when its test ends.

const (
	// pythonClientID is the ArcGIS API for Python's built-in application,
	// which every portal knows.
	pythonClientID = "pythonapi"
	// oobRedirectURI has a code shown on the portal's approval page.
	oobRedirectURI = "urn:ietf:wg:oauth:2.0:oob"
	// msgBadCredentials is what the sign-in page and generateToken say
	// about a wrong password (the ArcGIS API for Python looks for it, in
	// any case).
	msgBadCredentials = "invalid username or password"
)

// firstBraces is how the ArcGIS API for Python finds oAuthInfo on the
// sign-in page: the first line holding braces, from its first { to its last
// }, parsed as JSON.
var firstBraces = regexp.MustCompile(`\{.*\}`)

// oAuthInfoOf reads the sign-in page's oAuthInfo as the ArcGIS API for
// Python does.
func oAuthInfoOf(text string) (map[string]any, error) {
	m := firstBraces.FindString(text)
	if m == "" {
		return nil, fmt.Errorf("no line of the page holds braces (var oAuthInfo = {...};)")
	}
	var info map[string]any
	if err := json.Unmarshal([]byte(m), &info); err != nil {
		return nil, fmt.Errorf("the first line holding braces is no JSON object (%v): %s", err, clip([]byte(m), 300))
	}
	return info, nil
}

// randomText returns n random letters and digits, as clients make states.
func randomText(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// pkce returns a PKCE verifier and its S256 challenge, as ArcGIS REST JS
// makes them: 32 random bytes, base64url without padding.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// origin is the scheme and host of the portal's address.
func (s *suite) origin() string {
	u, err := url.Parse(s.base)
	if err != nil {
		return s.base
	}
	return u.Scheme + "://" + u.Host
}

// signInPage opens the sign-in page for the authorization request q and
// returns the page's oAuthInfo.
func (s *suite) signInPage(t TB, q map[string]any) map[string]any {
	t.Helper()
	return s.signInPageAt(t, s.ops["oauthAuthorize"], q)
}

// signInPageAt is signInPage with oauthAuthorize sent as authorize says
// (at one of its other paths).
func (s *suite) signInPageAt(t TB, authorize *operation, q map[string]any) map[string]any {
	t.Helper()
	p := s.sendPage(t, request{op: authorize, params: q})
	if p.status != http.StatusOK {
		t.Fatalf("oauthAuthorize %s: HTTP %d, want the sign-in page (200): %s", jsonText(q), p.status, clip([]byte(p.text), 300))
	}
	if strings.Contains(p.text, "Invalid redirect_uri") {
		t.Fatalf("oauthAuthorize %s: the page says Invalid redirect_uri", jsonText(q))
	}
	info, err := oAuthInfoOf(p.text)
	if err != nil {
		t.Fatalf("oauthAuthorize %s: the sign-in page: %v", jsonText(q), err)
	}
	if st, _ := info["oauth_state"].(string); st == "" {
		t.Fatalf("oauthAuthorize %s: oAuthInfo has no oauth_state: %s", jsonText(q), jsonText(info))
	}
	return info
}

// signIn posts the sign-in page's form.
func (s *suite) signIn(t TB, form map[string]any) *page {
	t.Helper()
	return s.sendPage(t, request{op: s.ops["oauthSignIn"], body: form})
}

// redirectParams reads the parameters a sign-in's redirect delivers, in its
// fragment (implicit grant) or query (code), checking every client reads
// them alike: as the ArcGIS API for Python (form decoding, where + is a
// space) and as ArcGIS REST JS (split at & and the first =, percent
// decoding only) do.
func redirectParams(t TB, location, in string) url.Values {
	t.Helper()
	u, err := url.Parse(location)
	if err != nil {
		t.Fatalf("the sign-in redirected to %q, no URL: %v", location, err)
	}
	raw := u.RawQuery
	if in == "fragment" {
		raw = u.EscapedFragment()
	}
	python, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("the redirect's %s %q does not parse: %v", in, raw, err)
	}
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		js, err := url.PathUnescape(v)
		if err != nil || js != python.Get(k) {
			t.Errorf("the redirect's %s parameter %s reads %q to ArcGIS REST JS and %q to the ArcGIS API for Python: encode spaces as %%20, and no = in values",
				in, k, js, python.Get(k))
		}
		if strings.Contains(python.Get(k), "=") && (k == "code" || k == "access_token") {
			t.Errorf("the redirect's %s is %q: ArcGIS REST JS cuts a value at its =", k, python.Get(k))
		}
	}
	return python
}

// officialClient is how one of the portal's official clients sends a
// token: where, and with which Referer header (a token generated for a
// referer is bound to it).
type officialClient struct {
	tokenIn tokenPlace
	referer string
}

var (
	// pythonAPI is the ArcGIS API for Python.
	pythonAPI = officialClient{tokenEsriHeader, "http"}
	// restJS is ArcGIS REST JS in Node.
	restJS = officialClient{tokenQuery, "@esri/arcgis-rest-js"}
)

func (c officialClient) header() http.Header {
	if c.referer == "" {
		return nil
	}
	return http.Header{"Referer": {c.referer}}
}

// tokenWorks checks that token signs user in: community/self, with the
// token as the client that got it sends it.
func (s *suite) tokenWorks(t TB, what, token, user string, c officialClient) {
	t.Helper()
	a := s.send(t, request{op: s.ops["getSelf"], token: token, tokenIn: c.tokenIn, header: c.header()})
	if a.err != nil {
		t.Errorf("%s: community/self with the token: %s", what, a.err)
		return
	}
	if a.body["username"] != user {
		t.Errorf("%s: community/self with the token names %v, want %s", what, a.body["username"], user)
	}
}

// revokeLater revokes token, issued to clientID ("" for a token of no
// application), when t ends.
func (s *suite) revokeLater(t TB, clientID, token string) {
	if token == "" {
		return
	}
	t.Cleanup(func() { s.revoke(t, clientID, token) })
}

func (s *suite) revoke(t TB, clientID, token string) {
	t.Helper()
	body := map[string]any{"auth_token": token, "f": "json"}
	if clientID != "" {
		body["client_id"] = clientID
	}
	a := s.call(t, "oauthRevokeToken", "", nil, body)
	if a.err != nil || a.body["success"] != true {
		t.Errorf("oauthRevokeToken of a token of %q: want {\"success\":true}, got %s", clientID, clip(a.raw, 300))
	}
}

// oauthToken posts form to the token endpoint.
func (s *suite) oauthToken(t TB, form map[string]any) *answer {
	t.Helper()
	form["f"] = "json"
	return s.call(t, "oauthToken", "", nil, form)
}

// issued checks a is a token endpoint's success and returns its tokens.
func issued(t TB, what string, a *answer) (access, refresh string) {
	t.Helper()
	if a.err != nil {
		t.Fatalf("%s: want tokens, got error %s", what, a.err)
	}
	access, _ = a.body["access_token"].(string)
	refresh, _ = a.body["refresh_token"].(string)
	if access == "" {
		t.Fatalf("%s: no access_token in %s", what, clip(a.raw, 300))
	}
	return access, refresh
}

// wantSeconds checks a's field key is about want seconds: at most want,
// and less by no more than a minute (a portal may count down from when it
// issued the token).
func wantSeconds(t TB, what string, a *answer, key string, want float64) {
	t.Helper()
	got, ok := a.body[key].(float64)
	if !ok || got > want || got < want-60 {
		t.Errorf("%s: %s %s, want %.0f seconds", what, key, jsonText(a.body[key]), want)
	}
}

// wantOAuthError checks a refuses with the OAuth error code (invalid_grant,
// ...) and issues nothing.
func wantOAuthError(t TB, what string, a *answer, code string) {
	t.Helper()
	switch {
	case a.err == nil:
		t.Errorf("%s: answered %s; want the OAuth error %s", what, clip(a.raw, 300), code)
	case a.err.Code != 400 || a.err.OAuth != code:
		t.Errorf("%s: got error %s; want code 400 with error %q", what, a.err, code)
	}
	if _, ok := a.body["access_token"]; ok {
		t.Errorf("%s: refused, yet an access_token was issued: %s", what, clip(a.raw, 300))
	}
}

// codeFlow runs the authorization code flow of clientID for user, with PKCE
// S256 as ArcGIS REST JS does, to redirect; it returns the code and the
// verifier.
func (s *suite) codeFlow(t TB, clientID, redirect, user, password string) (code, verifier string) {
	t.Helper()
	return s.codeFlowAt(t, s.ops["oauthAuthorize"], s.ops["oauthSignIn"], clientID, redirect, user, password)
}

// codeFlowAt is codeFlow with the sign-in page and the sign-in sent as
// authorize and signIn say (at one of their other paths).
func (s *suite) codeFlowAt(t TB, authorize, signIn *operation, clientID, redirect, user, password string) (code, verifier string) {
	t.Helper()
	verifier, challenge := pkce()
	// A state as ArcGIS REST JS writes it: JSON, with a space to encode.
	state := fmt.Sprintf(`{"id":"%s","originalUrl":"http://127.0.0.1/conformance page"}`, randomText(16))
	info := s.signInPageAt(t, authorize, map[string]any{"client_id": clientID, "response_type": "code", "redirect_uri": redirect, "state": state,
		"expiration": 20160.0, "code_challenge": challenge, "code_challenge_method": "S256"})
	p := s.sendPage(t, request{op: signIn, body: map[string]any{"oauth_state": info["oauth_state"], "username": user, "password": password}})
	if p.status != http.StatusFound || !strings.HasPrefix(p.location, redirect+"?") {
		t.Fatalf("oauthSignIn of %s for %s: HTTP %d to %q; want 302 to %s?code=…", user, clientID, p.status, p.location, redirect)
	}
	q := redirectParams(t, p.location, "query")
	if q.Get("state") != state {
		t.Errorf("the code's redirect has state %q, want %q as sent", q.Get("state"), state)
	}
	if code = q.Get("code"); code == "" {
		t.Fatalf("the code's redirect %q has no code", p.location)
	}
	return code, verifier
}

// appCode runs the code flow of the target's application for the user
// whose password is known, or ends t as not run when either is missing.
func (s *suite) appCode(t TB) (id, redirect, user, code, verifier string) {
	t.Helper()
	user, password := s.needSignIn(t)
	id, redirect = s.needApp(t), s.redirectURI()
	code, verifier = s.codeFlow(t, id, redirect, user, password)
	return id, redirect, user, code, verifier
}

// signInScenarios runs each sign-in flow of the official clients.
func (s *suite) signInScenarios(t TB) {
	t.Run("generateTokenPython", func(t TB) {
		user, password := s.needSignIn(t)
		a := s.send(t, request{op: s.ops["generateToken"], header: pythonAPI.header(), body: map[string]any{
			"username": user, "password": password, "referer": "http", "client": "referer", "expiration": 60.0, "f": "json"}})
		tok := s.generated(t, "generateToken as the ArcGIS API for Python sends it", a)
		s.tokenWorks(t, "a token generated as the ArcGIS API for Python asks", tok, user, pythonAPI)
	})
	t.Run("generateTokenRESTJS", func(t TB) {
		user, password := s.needSignIn(t)
		js := request{op: s.ops["generateToken"], header: restJS.header(), body: map[string]any{
			"username": user, "password": password, "client": "referer", "referer": "@esri/arcgis-rest-js", "expiration": 20160.0, "f": "json"}}
		a := s.send(t, js)
		tok := s.generated(t, "generateToken as ArcGIS REST JS sends it", a)
		s.tokenWorks(t, "a token generated as ArcGIS REST JS asks", tok, user, restJS)
		// The lifetime asked for counts: 20,160 minutes outlast 60.
		short := s.send(t, request{op: s.ops["generateToken"], body: map[string]any{"username": user, "password": password, "expiration": 60.0, "f": "json"}})
		s.generated(t, "generateToken for 60 minutes", short)
		if long, short := a.body["expires"].(float64), short.body["expires"].(float64); long <= short {
			t.Errorf("a token asked for 20160 minutes expires at %.0f, one asked for 60 minutes later at %.0f", long, short)
		}
	})
	t.Run("implicitPython", func(t TB) {
		user, password := s.needSignIn(t)
		// As the ArcGIS API for Python signs in with a user name and a
		// password: its built-in application, redirecting to the portal's
		// origin, a 30-character state, 600 minutes.
		state := randomText(30)
		q := map[string]any{"response_type": "token", "client_id": pythonClientID, "redirect_uri": s.origin(), "state": state,
			"expiration": 600.0, "allow_verification": false, "style": "dark", "locale": "en-US"}
		info := s.signInPage(t, q)
		p := s.signIn(t, map[string]any{"expiration": 600.0, "oauth_state": info["oauth_state"], "username": user, "password": password})
		if p.status != http.StatusFound || !strings.HasPrefix(p.location, s.origin()+"#") {
			t.Fatalf("oauthSignIn: HTTP %d to %q; want 302 to %s#access_token=…", p.status, p.location, s.origin())
		}
		frag := redirectParams(t, p.location, "fragment")
		tok := frag.Get("access_token")
		s.revokeLater(t, pythonClientID, tok)
		if tok == "" {
			t.Fatalf("the redirect %q has no access_token", p.location)
		}
		if frag.Get("state") != state {
			t.Errorf("the redirect's state is %q, want %q as sent (the client refuses another)", frag.Get("state"), state)
		}
		if n, err := strconv.Atoi(frag.Get("expires_in")); err != nil || n != 600*60 {
			t.Errorf("the redirect's expires_in is %q, want 36000 (600 minutes, in seconds; the client signs in again before each request when it is 300 or less)", frag.Get("expires_in"))
		}
		if frag.Get("username") != user {
			t.Errorf("the redirect's username is %q, want %s", frag.Get("username"), user)
		}
		if ssl, want := frag.Get("ssl"), strconv.FormatBool(s.overHTTPS()); ssl != want {
			t.Errorf("the redirect's ssl is %q, want %s (the sign-in went over %s)", ssl, want, s.scheme())
		}
		if frag.Has("expires") {
			t.Errorf("the redirect has expires: the ArcGIS API for Python then fails on it; expires_in says it")
		}
		s.tokenWorks(t, "the implicit grant's token", tok, user, pythonAPI)
	})
	t.Run("codeOutOfBandPython", func(t TB) {
		user, password := s.needSignIn(t)
		// The ArcGIS API for Python's other way: a code shown on the
		// portal's approval page, exchanged without a secret.
		state := randomText(30)
		info := s.signInPage(t, map[string]any{"response_type": "code", "client_id": pythonClientID, "redirect_uri": oobRedirectURI,
			"state": state, "expiration": 20160.0, "allow_verification": false, "style": "dark", "locale": "en-US"})
		p := s.signIn(t, map[string]any{"oauth_state": info["oauth_state"], "authorize": "True", "username": user, "password": password})
		approval := s.base + "/oauth2/approval?"
		if p.status != http.StatusFound || !strings.HasPrefix(p.location, approval) {
			t.Fatalf("oauthSignIn for %s: HTTP %d to %q; want 302 to %s…", oobRedirectURI, p.status, p.location, approval)
		}
		code := redirectParams(t, p.location, "query").Get("code")
		page := s.sendPage(t, request{op: s.ops["oauthApproval"], params: map[string]any{"code": code, "state": state}})
		if want := "<title>SUCCESS code=" + code + "</title>"; page.status != http.StatusOK || !strings.Contains(page.text, want) {
			t.Errorf("oauthApproval: HTTP %d without %q (the client reads the code from the title): %s", page.status, want, clip([]byte(page.text), 300))
		}
		a := s.oauthToken(t, map[string]any{"grant_type": "authorization_code", "code": code, "redirect_uri": oobRedirectURI,
			"client_id": pythonClientID, "expiration": 20160.0})
		access, refresh := issued(t, "the out-of-band code's exchange", a)
		s.revokeLater(t, pythonClientID, refresh)
		s.revokeLater(t, pythonClientID, access)
		s.tokenWorks(t, "the out-of-band code's token", access, user, pythonAPI)
	})
	t.Run("codePKCE", func(t TB) {
		id, redirect, user, code, verifier := s.appCode(t)

		// Exchanged as ArcGIS REST JS does after a browser sign-in: no
		// secret, the verifier.
		a := s.oauthToken(t, map[string]any{"grant_type": "authorization_code", "client_id": id, "redirect_uri": redirect,
			"code": code, "code_verifier": verifier})
		access, refresh := issued(t, "exchanging the code", a)
		s.revokeLater(t, id, access)
		if refresh == "" {
			t.Fatalf("exchanging the code: no refresh_token in %s", clip(a.raw, 300))
		}
		if a.body["username"] != user {
			t.Errorf("exchanging the code: username %v, want %s", a.body["username"], user)
		}
		if ssl, ok := a.body["ssl"].(bool); !ok {
			t.Errorf("exchanging the code: ssl %s is no boolean (ArcGIS REST JS compares it with true)", jsonText(a.body["ssl"]))
		} else if ssl != a.https {
			t.Errorf("exchanging the code: ssl %v, want %v (the request went over %s)", ssl, a.https, s.scheme())
		}
		wantSeconds(t, "exchanging the code", a, "expires_in", 30*60)
		wantSeconds(t, "exchanging the code (expiration=20160 asked)", a, "refresh_token_expires_in", 20160*60)
		s.tokenWorks(t, "the code's access token", access, user, restJS)

		a = s.oauthToken(t, map[string]any{"grant_type": "refresh_token", "client_id": id, "refresh_token": refresh})
		renewed, again := issued(t, "refresh_token", a)
		s.revokeLater(t, id, renewed)
		if again != "" {
			t.Errorf("refresh_token answered a refresh_token too; it is kept, only exchange_refresh_token replaces it")
		}
		wantSeconds(t, "refresh_token", a, "expires_in", 30*60)
		s.tokenWorks(t, "a refreshed access token", renewed, user, restJS)

		a = s.oauthToken(t, map[string]any{"grant_type": "exchange_refresh_token", "client_id": id, "redirect_uri": redirect, "refresh_token": refresh})
		exchanged, newRefresh := issued(t, "exchange_refresh_token", a)
		s.revokeLater(t, id, exchanged)
		s.revokeLater(t, id, newRefresh)
		if newRefresh == "" || newRefresh == refresh {
			t.Fatalf("exchange_refresh_token: refresh_token %q, want a new one", newRefresh)
		}
		s.tokenWorks(t, "the exchanged access token", exchanged, user, restJS)
		wantOAuthError(t, "refresh_token with the refresh token exchange_refresh_token replaced",
			s.oauthToken(t, map[string]any{"grant_type": "refresh_token", "client_id": id, "refresh_token": refresh}), "invalid_grant")

		// Signing out, as ArcGIS REST JS does: the refresh token is revoked.
		s.revoke(t, id, newRefresh)
		wantOAuthError(t, "refresh_token with a revoked refresh token",
			s.oauthToken(t, map[string]any{"grant_type": "refresh_token", "client_id": id, "refresh_token": newRefresh}), "invalid_grant")
	})
	t.Run("clientCredentials", func(t TB) {
		id, secret := s.needAppSecret(t)
		a := s.oauthToken(t, map[string]any{"grant_type": "client_credentials", "client_id": id, "client_secret": secret, "expiration": 120.0})
		tok, refresh := issued(t, "client_credentials", a)
		s.revokeLater(t, id, tok)
		if refresh != "" || a.body["username"] != nil {
			t.Errorf("client_credentials: an application's token is no user's and has no refresh token: %s", clip(a.raw, 300))
		}
		wantSeconds(t, "client_credentials (expiration=120 asked)", a, "expires_in", 120*60)
		portal := s.readPortal(t, tok, "the application")
		if portal["id"] != s.portalID {
			t.Errorf("portals/self with the application's token: id %v, want the organization's %s", portal["id"], s.portalID)
		}
		if _, ok := portal["user"]; ok {
			t.Errorf("portals/self with the application's token names a user: %s", jsonText(portal["user"]))
		}
		if app := asMap(portal["appInfo"]); app == nil || app["appId"] != id {
			t.Errorf("portals/self with the application's token: appInfo %s, want the application %s", jsonText(portal["appInfo"]), id)
		}
	})
}

// generated checks a is generateToken's success and returns the token,
// revoked when t ends; expires must be a number of milliseconds (ArcGIS
// REST JS makes a Date of it).
func (s *suite) generated(t TB, what string, a *answer) string {
	t.Helper()
	if a.err != nil {
		t.Fatalf("%s: want a token, got error %s", what, a.err)
	}
	tok, _ := a.body["token"].(string)
	s.revokeLater(t, "", tok)
	if tok == "" {
		t.Fatalf("%s: no token in %s", what, clip(a.raw, 300))
	}
	if ms, ok := a.body["expires"].(float64); !ok || ms < 1e12 {
		t.Errorf("%s: expires %s, want milliseconds since the epoch, as a JSON number", what, jsonText(a.body["expires"]))
	}
	return tok
}

// wrongCredentialScenarios checks what the sign-ins refuse: nothing is
// issued. The suite sends at most one wrong password per user name in a
// run (spendWrongPassword).
func (s *suite) wrongCredentialScenarios(t TB) {
	t.Run("signInPage", func(t TB) {
		user, real := s.wrongPasswordUser()
		if !real {
			t.Logf("every known user was sent a wrong password in this run already: the sign-in page refuses %s, a user name no portal has", user)
		}
		state := randomText(30)
		info := s.signInPage(t, map[string]any{"response_type": "token", "client_id": pythonClientID, "redirect_uri": s.origin(), "state": state, "expiration": 600.0})
		p := s.signIn(t, map[string]any{"expiration": 600.0, "oauth_state": info["oauth_state"], "username": user, "password": s.wrongPassword()})
		if p.status != http.StatusOK || p.location != "" {
			t.Fatalf("oauthSignIn with a wrong password: HTTP %d to %q; want the sign-in page again (200), no redirect", p.status, p.location)
		}
		again, err := oAuthInfoOf(p.text)
		if err != nil {
			t.Fatalf("oauthSignIn with a wrong password: the page again: %v", err)
		}
		msgs, _ := again["messages"].([]any)
		found := false
		for _, m := range msgs {
			text, _ := m.(string)
			found = found || strings.Contains(strings.ToLower(text), msgBadCredentials)
		}
		if !found {
			t.Errorf("oauthSignIn with a wrong password: oAuthInfo.messages %s does not say %q (the ArcGIS API for Python looks for it)", jsonText(again["messages"]), msgBadCredentials)
		}
		st, _ := again["oauth_state"].(string)
		if st == "" {
			t.Fatalf("oauthSignIn with a wrong password: the page again has no oauth_state to try again with: %s", jsonText(again))
		}
		if known, password, ok := s.signInUser(); ok && known == user {
			// Signed in right on the page again: the attempt locked
			// nothing, and the count of failures starts again.
			p := s.signIn(t, map[string]any{"expiration": 600.0, "oauth_state": st, "username": user, "password": password})
			if p.status != http.StatusFound {
				t.Fatalf("oauthSignIn with the right password after a wrong one: HTTP %d, want 302", p.status)
			}
			frag := redirectParams(t, p.location, "fragment")
			s.revokeLater(t, pythonClientID, frag.Get("access_token"))
			if frag.Get("state") != state {
				t.Errorf("signed in on the page shown again: state %q, want %q as first sent", frag.Get("state"), state)
			}
		}
	})
	t.Run("generateToken", func(t TB) {
		user, real := s.wrongPasswordUser()
		if !real {
			t.Logf("every known user was sent a wrong password in this run already: generateToken refuses %s, a user name no portal has", user)
		}
		a := s.call(t, "generateToken", "", nil, map[string]any{"username": user, "password": s.wrongPassword(), "f": "json"})
		switch {
		case a.err == nil:
			t.Errorf("generateToken with a wrong password: answered %s; want the error envelope", clip(a.raw, 300))
		case a.err.Code != 400:
			t.Errorf("generateToken with a wrong password: got %s; want code 400", a.err)
		case !strings.Contains(strings.ToLower(strings.Join(a.err.Details, " ")+a.err.Message), msgBadCredentials):
			t.Errorf("generateToken with a wrong password: %s does not say %q", a.err, msgBadCredentials)
		}
		if tok, ok := a.body["token"]; ok {
			t.Errorf("generateToken with a wrong password issued %v", tok)
		}
		if known, password, ok := s.signInUser(); ok && known == user {
			b := s.call(t, "generateToken", "", nil, map[string]any{"username": user, "password": password, "expiration": 5.0, "f": "json"})
			tok := s.generated(t, "generateToken with the right password after a wrong one", b)
			s.tokenWorks(t, "a token generated after a wrong password", tok, user, officialClient{})
		}
	})
	t.Run("wrongClientSecret", func(t TB) {
		id := s.needApp(t)
		a := s.oauthToken(t, map[string]any{"grant_type": "client_credentials", "client_id": id, "client_secret": "conformance-wrong-secret-" + s.runID})
		wantOAuthError(t, "client_credentials with a wrong secret", a, "invalid_client")
	})
	t.Run("reusedCode", func(t TB) {
		id, redirect, _, code, verifier := s.appCode(t)
		exchange := map[string]any{"grant_type": "authorization_code", "client_id": id, "redirect_uri": redirect, "code": code, "code_verifier": verifier}
		access, refresh := issued(t, "exchanging the code", s.oauthToken(t, exchange))
		s.revokeLater(t, id, access)
		s.revokeLater(t, id, refresh)
		wantOAuthError(t, "exchanging the same code again", s.oauthToken(t, exchange), "invalid_grant")
	})
	t.Run("unregisteredRedirectURI", func(t TB) {
		redirect := fmt.Sprintf("https://conformance-%s.invalid/callback", s.runID)
		p := s.sendPage(t, request{op: s.ops["oauthAuthorize"], params: map[string]any{"response_type": "token", "client_id": pythonClientID,
			"redirect_uri": redirect, "state": randomText(30)}})
		if p.status != http.StatusBadRequest || !strings.Contains(p.text, "Invalid redirect_uri") {
			t.Errorf("oauthAuthorize of %s to %s: HTTP %d; want the error page (400) saying Invalid redirect_uri: %s",
				pythonClientID, redirect, p.status, clip([]byte(p.text), 300))
		}
		if strings.Contains(p.text, "oauth_state") {
			t.Errorf("oauthAuthorize to an unregistered redirect URI: the error page carries an oauth_state to sign in with")
		}
	})
	t.Run("unknownOAuthState", func(t TB) {
		p := s.signIn(t, map[string]any{"oauth_state": "conformance-" + s.runID})
		if p.status != http.StatusBadRequest || p.location != "" {
			t.Errorf("oauthSignIn of an oauth_state no sign-in page gave: HTTP %d to %q; want the error page (400)", p.status, p.location)
		}
	})
}
