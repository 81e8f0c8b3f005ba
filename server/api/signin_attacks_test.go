package api_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

// TestConcurrentRightPasswords: eight clients signing in at once as one
// user with the right password all get a token: only failures count, and
// attempts in flight are none.
func TestConcurrentRightPasswords(t *testing.T) {
	p := pt.New(t)
	const n = 8
	for i, a := range signInAtOnce(t, p, n, pt.MemberPassword) {
		if a.status != http.StatusOK || !strings.Contains(a.raw, `"token"`) {
			t.Errorf("sign-in %d of %d: HTTP %d %s", i+1, n, a.status, a.raw)
		}
	}
}

// TestConcurrentWrongPasswords: of twelve wrong passwords at once, five
// are judged (the limit), the others refused as throttled; the right
// password is refused after.
func TestConcurrentWrongPasswords(t *testing.T) {
	p := pt.New(t)
	const n = 12
	invalid, throttled := 0, 0
	for _, a := range signInAtOnce(t, p, n, "wrong") {
		switch {
		case strings.Contains(a.raw, "Invalid username or password."):
			invalid++
		case strings.Contains(a.raw, "Too many invalid logon attempts."):
			throttled++
		}
	}
	if invalid != 5 || throttled != n-5 {
		t.Errorf("%d judged wrong, %d throttled; want 5 and %d", invalid, throttled, n-5)
	}
	fails(t, post(t, p, "/generateToken", "", form("username", pt.Member, "password", pt.MemberPassword)), 429, "Too many invalid logon attempts.")
}

// signInAtOnce sends n generateToken requests for the demo member with
// password at once and returns their answers, in no particular order. It
// reports failures with t.Error: t.Fatal may not be called from the
// goroutines.
func signInAtOnce(t *testing.T, p *pt.Portal, n int, password string) []answer {
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, p.URL+"/generateToken",
				strings.NewReader(form("username", pt.Member, "password", password, "f", "json").Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answers[i] = answer{status: resp.StatusCode, raw: string(b)}
		})
	}
	wg.Wait()
	return answers
}

// TestTokenAnswersNotStored: answers carrying tokens or codes say
// Cache-Control: no-store (RFC 6749 5.1), refusals included.
func TestTokenAnswersNotStored(t *testing.T) {
	p := pt.New(t)
	check := func(what string, h http.Header) {
		t.Helper()
		if h.Get("Cache-Control") != "no-store" || h.Get("Pragma") != "no-cache" {
			t.Errorf("%s: Cache-Control %q, Pragma %q", what, h.Get("Cache-Control"), h.Get("Pragma"))
		}
	}
	check("generateToken", ok(t, post(t, p, "/generateToken", "", form("username", pt.Member, "password", pt.MemberPassword))).header)
	check("generateToken refused", post(t, p, "/generateToken", "", form("username", pt.Member, "password", "wrong")).header)
	check("oauth2/token", ok(t, oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret)).header)
	check("oauth2/token refused", oauthToken(t, p, "grant_type", "client_credentials", "client_id", demoApp, "client_secret", "x").header)
	state := oAuthInfo(t, authorize(t, p, codeParams()))["oauth_state"].(string)
	a := signIn(t, p, state, pt.Member, pt.MemberPassword)
	redirected(t, a)
	check("the sign-in's redirect", a.header)
}

// TestSignInStateSigned: the sign-in page's oauth_state is signed with the
// store's key and dated: changed, or posted after an hour, it is refused;
// the browser's own page posts it same-origin.
func TestSignInStateSigned(t *testing.T) {
	p := pt.New(t)
	state := oAuthInfo(t, authorize(t, p, codeParams()))["oauth_state"].(string)
	payload, sig, _ := strings.Cut(state, ".")
	for name, st := range map[string]string{
		"payload changed": payload[:len(payload)-2] + "AA." + sig,
		"no signature":    payload,
		"signature cut":   payload + "." + sig[:len(sig)-1],
	} {
		a := signIn(t, p, st, pt.Member, pt.MemberPassword)
		if a.status != http.StatusBadRequest || !strings.Contains(a.raw, "Error: Invalid oauth_state") {
			t.Errorf("%s: HTTP %d %.200s", name, a.status, a.raw)
		}
	}
	// As a browser posts the page's form.
	f := form("oauth_state", state, "username", pt.Member, "password", pt.MemberPassword)
	req, _ := http.NewRequest(http.MethodPost, signinURL(p), strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", p.Root)
	redirected(t, fetch(t, req))
	// An hour on, the page's state is stale.
	state = oAuthInfo(t, authorize(t, p, codeParams()))["oauth_state"].(string)
	p.AdvanceClock(time.Hour + time.Second)
	if a := signIn(t, p, state, pt.Member, pt.MemberPassword); a.status != http.StatusBadRequest || !strings.Contains(a.raw, "Invalid oauth_state") {
		t.Errorf("a state of an hour ago: HTTP %d %.200s", a.status, a.raw)
	}
}
