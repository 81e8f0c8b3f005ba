package conformance_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/conformance"
	"github.com/orgportal/portal-api/portaltest"
)

// sslAnswers is a transport below the suite that makes the portal answer
// ssl as it says: it rewrites a token's ssl in JSON bodies and in the
// sign-in redirect's fragment.
type sslAnswers struct {
	next     http.RoundTripper
	from, to bool
}

func (s sslAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	from, to := strconv.FormatBool(s.from), strconv.FormatBool(s.to)
	if loc := resp.Header.Get("Location"); loc != "" {
		resp.Header.Set("Location", strings.ReplaceAll(loc, "ssl="+from, "ssl="+to))
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	raw = bytes.ReplaceAll(raw, []byte(`"ssl":`+from), []byte(`"ssl":`+to))
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return resp, nil
}

// The token answers' ssl is judged by the target's scheme, not by the
// examples' fixed value: over HTTPS the reference server's ssl:true passes,
// and a portal answering ssl:false over HTTPS (or ssl:true over HTTP) fails
// the examples and sign-in flows that carry it.
func TestSSLJudgedByScheme(t *testing.T) {
	p := portaltest.New(t, portaltest.WithTLS())
	trusted := p.HTTPClient().Transport
	tokenTests := []string{"examples/generateToken/issued", "examples/oauthToken/appToken", "signIn/implicitPython", "signIn/codePKCE"}

	t.Run("httpsAnswersTrue", func(t *testing.T) {
		rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken,
			HTTPClient: &http.Client{Transport: trusted}}, "")
		if rep.Failed() {
			t.Errorf("the reference server over HTTPS fails: %q", allErrors(rep.Root))
		}
		for _, name := range tokenTests {
			wantStatus(t, rep, name, conformance.Passed)
		}
	})
	t.Run("httpsAnswersFalse", func(t *testing.T) {
		rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken,
			HTTPClient: &http.Client{Transport: sslAnswers{next: trusted, from: true, to: false}}}, "^(examples|signIn)$")
		wantFailure(t, rep, "examples/generateToken/issued", "ssl: want true, got false")
		wantFailure(t, rep, "examples/oauthToken/appToken", "ssl: want true, got false")
		wantFailure(t, rep, "signIn/implicitPython", `the redirect's ssl is "false", want true`)
		wantFailure(t, rep, "signIn/codePKCE", "ssl false, want true", "HTTPS")
		wantStatus(t, rep, "examples/generateToken/badPassword", conformance.Passed)
	})
	t.Run("httpAnswersTrue", func(t *testing.T) {
		plain := portaltest.New(t)
		rep := runSuite(t, conformance.Target{BaseURL: plain.URL, AdminToken: plain.AdminToken, MemberToken: plain.MemberToken,
			HTTPClient: &http.Client{Transport: sslAnswers{next: http.DefaultTransport, from: false, to: true}}}, "^(examples|signIn)$")
		wantFailure(t, rep, "examples/generateToken/issued", "ssl: want false, got true")
		wantFailure(t, rep, "examples/oauthToken/appToken", "ssl: want false, got true")
		wantFailure(t, rep, "signIn/implicitPython", `the redirect's ssl is "true", want false`)
		wantFailure(t, rep, "signIn/codePKCE", "ssl true, want false", "HTTP")
	})
}
