package conformance

import (
	"net/http"
	"slices"
	"strings"
)

// The other addresses the portal serves its sign-ins at, as the official
// clients call them: the contract's x-also-at paths, rooted at the portal's
// address (https://host/portal/sharing/rest has them at
// https://host/portal/sharing/...), and the token endpoint's GET
// (x-also-get). The validator holds each answer to its operation's schema.
// Every token a scenario obtains is revoked when its test ends.

// Paths the official clients call besides the contract's own.
const (
	aliasGenerateToken = "/sharing/generateToken"
	aliasAuthorize     = "/sharing/oauth2/authorize"
	aliasApproval      = "/sharing/oauth2/approval"
	aliasToken         = "/sharing/oauth2/token"
	// aliasSignIn is the sign-in under the REST root, where the ArcGIS API
	// for Python posts it; the contract's own path is beside it.
	aliasSignIn = "/sharing/rest/oauth2/signin"
)

// opAt returns operation id as sent at path, one of its x-also-at paths
// ("" for its own path), with method: its own, or GET for a POST
// operation marked x-also-get, its form then sent in the query. It fails t
// for an address the contract does not give the operation.
func (s *suite) opAt(t TB, id, path, method string) *operation {
	t.Helper()
	o := s.ops[id]
	c := *o
	if path != "" {
		if !slices.Contains(alsoAt(o.op), path) {
			t.Fatalf("the contract's %s has no x-also-at %s", id, path)
		}
		c.base, c.path = s.root, path
	}
	if method != o.method {
		if method != http.MethodGet || o.method != http.MethodPost || !alsoGet(o.op) {
			t.Fatalf("the contract's %s (%s) is not marked to answer %s", id, o.method, method)
		}
		c.method, c.queryForm = method, true
	}
	return &c
}

// tokenAt sends form to the token endpoint as op says.
func (s *suite) tokenAt(t TB, op *operation, form map[string]any) *answer {
	t.Helper()
	form["f"] = "json"
	return s.send(t, request{op: op, body: form})
}

// aliasScenarios runs the sign-ins at the paths besides the contract's own.
func (s *suite) aliasScenarios(t TB) {
	t.Run("generateToken", func(t TB) {
		user, password := s.needSignIn(t)
		a := s.send(t, request{op: s.opAt(t, "generateToken", aliasGenerateToken, http.MethodPost), body: map[string]any{
			"username": user, "password": password, "expiration": 60.0, "f": "json"}})
		tok := s.generated(t, "generateToken at sharing/generateToken", a)
		s.tokenWorks(t, "a token generated at sharing/generateToken", tok, user, officialClient{})
	})
	t.Run("codePKCE", func(t TB) {
		// ArcGIS REST JS's browser sign-in, at the addresses it calls: the
		// sign-in page and the token endpoint beside the REST root.
		user, password := s.needSignIn(t)
		id, redirect := s.needApp(t), s.redirectURI()
		code, verifier := s.codeFlowAt(t, s.opAt(t, "oauthAuthorize", aliasAuthorize, http.MethodGet),
			s.opAt(t, "oauthSignIn", aliasSignIn, http.MethodPost), id, redirect, user, password)
		token := s.opAt(t, "oauthToken", aliasToken, http.MethodPost)
		a := s.tokenAt(t, token, map[string]any{"grant_type": "authorization_code", "client_id": id, "redirect_uri": redirect,
			"code": code, "code_verifier": verifier})
		access, refresh := issued(t, "exchanging the code at sharing/oauth2/token", a)
		s.revokeLater(t, id, access)
		s.revokeLater(t, id, refresh)
		if a.body["username"] != user {
			t.Errorf("exchanging the code at sharing/oauth2/token: username %v, want %s", a.body["username"], user)
		}
		s.tokenWorks(t, "the access token from sharing/oauth2/token", access, user, restJS)
		if refresh == "" {
			t.Fatalf("exchanging the code at sharing/oauth2/token: no refresh_token in %s", clip(a.raw, 300))
		}
		a = s.tokenAt(t, token, map[string]any{"grant_type": "refresh_token", "client_id": id, "refresh_token": refresh})
		renewed, _ := issued(t, "refresh_token at sharing/oauth2/token", a)
		s.revokeLater(t, id, renewed)
		s.tokenWorks(t, "a token refreshed at sharing/oauth2/token", renewed, user, restJS)
	})
	t.Run("tokenByGET", func(t TB) {
		// The token endpoint's GET, its form in the query, as the portal's
		// documentation lists it: at sharing/oauth2/token and under the
		// REST root.
		id, redirect, user, code, verifier := s.appCode(t)
		a := s.tokenAt(t, s.opAt(t, "oauthToken", aliasToken, http.MethodGet), map[string]any{"grant_type": "authorization_code",
			"client_id": id, "redirect_uri": redirect, "code": code, "code_verifier": verifier})
		access, refresh := issued(t, "exchanging the code by GET at sharing/oauth2/token", a)
		s.revokeLater(t, id, access)
		s.revokeLater(t, id, refresh)
		s.tokenWorks(t, "the access token from a GET at sharing/oauth2/token", access, user, restJS)
		if refresh == "" {
			t.Fatalf("exchanging the code by GET at sharing/oauth2/token: no refresh_token in %s", clip(a.raw, 300))
		}
		a = s.tokenAt(t, s.opAt(t, "oauthToken", "", http.MethodGet), map[string]any{"grant_type": "refresh_token", "client_id": id,
			"refresh_token": refresh})
		renewed, _ := issued(t, "refresh_token by GET at oauth2/token", a)
		s.revokeLater(t, id, renewed)
		s.tokenWorks(t, "a token refreshed by GET at oauth2/token", renewed, user, restJS)
	})
	t.Run("codeOutOfBandPython", func(t TB) {
		// The ArcGIS API for Python's out-of-band code, its sign-in posted
		// under the REST root, the rest beside it.
		user, password := s.needSignIn(t)
		state := randomText(30)
		info := s.signInPageAt(t, s.opAt(t, "oauthAuthorize", aliasAuthorize, http.MethodGet), map[string]any{"response_type": "code",
			"client_id": pythonClientID, "redirect_uri": oobRedirectURI, "state": state, "expiration": 20160.0})
		p := s.sendPage(t, request{op: s.opAt(t, "oauthSignIn", aliasSignIn, http.MethodPost), body: map[string]any{
			"oauth_state": info["oauth_state"], "authorize": "True", "username": user, "password": password}})
		// The portal's approval page, at either of its paths.
		approval := []string{s.base + "/oauth2/approval?", s.root + aliasApproval + "?"}
		if p.status != http.StatusFound || !slices.ContainsFunc(approval, func(a string) bool { return strings.HasPrefix(p.location, a) }) {
			t.Fatalf("oauthSignIn at sharing/rest/oauth2/signin for %s: HTTP %d to %q; want 302 to %s…", oobRedirectURI, p.status, p.location, approval[0])
		}
		code := redirectParams(t, p.location, "query").Get("code")
		page := s.sendPage(t, request{op: s.opAt(t, "oauthApproval", aliasApproval, http.MethodGet), params: map[string]any{"code": code, "state": state}})
		if want := "<title>SUCCESS code=" + code + "</title>"; page.status != http.StatusOK || !strings.Contains(page.text, want) {
			t.Errorf("oauthApproval at sharing/oauth2/approval: HTTP %d without %q: %s", page.status, want, clip([]byte(page.text), 300))
		}
		// With the trailing slash ArcGIS REST JS writes.
		token := s.opAt(t, "oauthToken", aliasToken, http.MethodPost)
		token.path += "/"
		a := s.tokenAt(t, token, map[string]any{"grant_type": "authorization_code", "code": code, "redirect_uri": oobRedirectURI,
			"client_id": pythonClientID, "expiration": 20160.0})
		access, refresh := issued(t, "exchanging the out-of-band code at sharing/oauth2/token/", a)
		s.revokeLater(t, pythonClientID, refresh)
		s.revokeLater(t, pythonClientID, access)
		s.tokenWorks(t, "the out-of-band code's token from sharing/oauth2/token/", access, user, pythonAPI)
	})
}
