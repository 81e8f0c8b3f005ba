package api_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// The demo organization's application (server/seed/demo.yaml) and a
// redirect URI it takes: any loopback port.
const (
	demoApp      = "demo-app"
	demoSecret   = "demo-app-secret"
	demoCallback = "http://127.0.0.1:5000/callback"
	oob          = "urn:ietf:wg:oauth:2.0:oob"
)

// signinURL is where the sign-in page posts: beside the REST root
// ({context}/sharing/oauth2/signin), not under it.
func signinURL(p *pt.Portal) string { return strings.TrimSuffix(p.URL, "/rest") + "/oauth2/signin" }

// authorize GETs the sign-in page with params, the answer undecoded.
func authorize(t *testing.T, p *pt.Portal, params url.Values) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/oauth2/authorize?"+params.Encode(), nil)
	return fetch(t, req)
}

// pythonBrace is how the ArcGIS API for Python finds oAuthInfo on the
// sign-in page: re.search(r"\{.*\}", page), "." not matching a newline.
var pythonBrace = regexp.MustCompile(`\{.*\}`)

// oAuthInfo reads the sign-in page's oAuthInfo as the ArcGIS API for Python
// does, and fails t unless the first line holding braces is exactly
// `var oAuthInfo = {...};`.
func oAuthInfo(t *testing.T, a answer) map[string]any {
	t.Helper()
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("want the sign-in page, got HTTP %d %s: %.600s", a.status, a.header.Get("Content-Type"), a.raw)
	}
	match := pythonBrace.FindString(a.raw)
	var info map[string]any
	if err := json.Unmarshal([]byte(match), &info); err != nil {
		t.Fatalf("the first brace-bearing line's match %q is not a JSON object: %v", match, err)
	}
	for _, line := range strings.Split(a.raw, "\n") {
		if strings.Contains(line, "{") && strings.Contains(line, "}") {
			if line != "var oAuthInfo = "+match+";" {
				t.Errorf("the first line holding braces is %q, want var oAuthInfo = {...};", line)
			}
			break
		}
	}
	if s, _ := info["oauth_state"].(string); s == "" {
		t.Fatalf("oAuthInfo without oauth_state: %s", match)
	}
	return info
}

// signIn posts the sign-in form: the page's state, a user name and a
// password, and further fields as name/value pairs.
func signIn(t *testing.T, p *pt.Portal, state, username, password string, extra ...string) answer {
	t.Helper()
	f := form(extra...)
	f.Set("oauth_state", state)
	f.Set("username", username)
	f.Set("password", password)
	req, _ := http.NewRequest(http.MethodPost, signinURL(p), strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return fetch(t, req)
}

// redirected fails t unless a is the sign-in's redirect, and returns its
// target.
func redirected(t *testing.T, a answer) *url.URL {
	t.Helper()
	if a.status != http.StatusFound {
		t.Fatalf("want the sign-in's 302, got HTTP %d %.600s", a.status, a.raw)
	}
	u, err := url.Parse(a.header.Get("Location"))
	if err != nil {
		t.Fatalf("Location %q: %v", a.header.Get("Location"), err)
	}
	return u
}

// signInThrough opens the sign-in page with params, signs in there as a
// person would, and returns where the portal redirects.
func signInThrough(t *testing.T, p *pt.Portal, params url.Values, username, password string) *url.URL {
	t.Helper()
	state := oAuthInfo(t, authorize(t, p, params))["oauth_state"].(string)
	return redirected(t, signIn(t, p, state, username, password))
}

// codeParams are demo-app's authorization request for a code, with more
// name/value pairs.
func codeParams(kv ...string) url.Values {
	v := form("client_id", demoApp, "response_type", "code", "redirect_uri", demoCallback, "state", "xyz")
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// codeFor signs jsmith in for a code with params and returns the code.
func codeFor(t *testing.T, p *pt.Portal, params url.Values) string {
	t.Helper()
	to := signInThrough(t, p, params, pt.Member, pt.MemberPassword)
	code := to.Query().Get("code")
	if code == "" || to.Query().Get("state") != params.Get("state") {
		t.Fatalf("redirect %s: want code and the state echoed", to)
	}
	return code
}

// oauthToken posts to the token endpoint.
func oauthToken(t *testing.T, p *pt.Portal, kv ...string) answer {
	t.Helper()
	return post(t, p, "/oauth2/token", "", form(kv...))
}

// exchange trades demo-app's code for tokens with more name/value pairs.
func exchange(t *testing.T, p *pt.Portal, code string, kv ...string) answer {
	t.Helper()
	return oauthToken(t, p, append([]string{"grant_type", "authorization_code", "client_id", demoApp,
		"redirect_uri", demoCallback, "code", code}, kv...)...)
}

// oauthFails checks a refusal of an OAuth endpoint: the envelope with code
// 400, the OAuth error code in "error" and the description in
// error_description and message.
func oauthFails(t *testing.T, a answer, oauthErr, description string) {
	t.Helper()
	fails(t, a, 400, description)
	if a.errField("error") != oauthErr || a.errField("error_description") != a.errField("message") {
		t.Errorf("want OAuth error %s with its description: %s", oauthErr, a.raw)
	}
}

// issued returns the tokens of a token endpoint's success.
func issued(t *testing.T, a answer) (access, refresh string) {
	t.Helper()
	ok(t, a)
	access, _ = a.body["access_token"].(string)
	refresh, _ = a.body["refresh_token"].(string)
	if access == "" {
		t.Fatalf("no access_token: %s", a.raw)
	}
	return access, refresh
}

// challenge is the S256 PKCE challenge of verifier (RFC 7636 4.2).
func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// whoAmI is the user name community/self answers token, or its error code.
func whoAmI(t *testing.T, p *pt.Portal, token string) any {
	t.Helper()
	a := get(t, p, "/community/self", token, nil)
	if code := a.errCode(); code != 0 {
		return code
	}
	return a.body["username"]
}

// fragment parses a redirect's fragment as the ArcGIS API for Python does
// (parse_qsl: %20 and + are spaces).
func fragment(t *testing.T, u *url.URL) url.Values {
	t.Helper()
	v, err := url.ParseQuery(u.EscapedFragment())
	if err != nil {
		t.Fatalf("fragment %q: %v", u.EscapedFragment(), err)
	}
	return v
}
