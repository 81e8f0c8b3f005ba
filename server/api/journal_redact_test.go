package api_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// lockedBuffer is a log's destination shared by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestJournalRedactsCredentialsByName: the journal (and the log) keep no
// credential, whatever the field is declared as: a code on the approval
// page (a plain string), parameters no operation declares named password,
// pass, client_secret, access_token, refresh_token, code, code_verifier or
// client_assertion, in any case.
func TestJournalRedactsCredentialsByName(t *testing.T) {
	var log lockedBuffer
	p := pt.New(t, pt.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	secrets := map[string]string{}
	secret := func(name string) string {
		v := "s3cret-" + strings.ToLower(name) + "-value"
		secrets[name] = v
		return v
	}
	// The approval page's code, declared a plain string.
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/oauth2/approval?"+url.Values{"code": {secret("approval code")}}.Encode(), nil)
	fetch(t, req)
	// Undeclared parameters named as credentials, beside a sign-in page.
	q := codeParams()
	for _, name := range []string{"password", "PASS", "client_secret", "access_token", "Refresh_Token", "code", "code_verifier", "client_assertion"} {
		q.Set(name, secret(name))
	}
	req, _ = http.NewRequest(http.MethodGet, p.URL+"/oauth2/authorize?"+q.Encode(), nil)
	fetch(t, req)
	// And on the token endpoint by GET, where they are in the query.
	req, _ = http.NewRequest(http.MethodGet, p.URL+"/oauth2/token?"+url.Values{"grant_type": {"client_credentials"}, "client_id": {demoApp},
		"client_secret": {secret("GET client_secret")}, "client_assertion": {secret("GET client_assertion")}}.Encode(), nil)
	fetch(t, req)
	calls := p.Requests(t, "")
	if len(calls) < 3 {
		t.Fatalf("the journal holds %d calls, want 3", len(calls))
	}
	for _, r := range calls {
		raw := js(r)
		for what, s := range secrets {
			if strings.Contains(raw, s) {
				t.Errorf("the journal's %s call holds the %s: %s", r.Operation, what, raw)
			}
		}
	}
	for what, s := range secrets {
		if strings.Contains(log.String(), s) {
			t.Errorf("the log holds the %s", what)
		}
	}
}
