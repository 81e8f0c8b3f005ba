package api_test

import (
	"net/http"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// A web page of any origin may call the REST API, as the portal allows when
// its organization restricts no origins: the preflight is answered, and the
// answers carry the page's origin. Requests without an Origin are left as
// they were, and the emulator's own endpoints stay closed to pages.
func TestCrossOriginPages(t *testing.T) {
	p := pt.New(t, pt.WithContext("/portal"))
	const page = "https://app.example.org"
	do := func(method, url string, header map[string]string, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	preflight := map[string]string{"Origin": page, "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "x-esri-authorization, content-type"}
	for _, path := range []string{"/oauth2/token", "/portals/self/settings/update", "/community/self"} {
		resp := do(http.MethodOptions, p.URL+path, preflight, "")
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != page ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "X-Esri-Authorization") {
			t.Errorf("preflight of %s: %s %v", path, resp.Status, resp.Header)
		}
		if resp.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("preflight of %s allows credentials: tokens are no cookies", path)
		}
	}
	form := map[string]string{"Origin": page, "Content-Type": "application/x-www-form-urlencoded"}
	resp := do(http.MethodPost, p.URL+"/oauth2/token", form, "grant_type=client_credentials&client_id=demo-app&client_secret=demo-app-secret")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != page {
		t.Errorf("a page's token request: %s %v", resp.Status, resp.Header)
	}
	if resp := do(http.MethodGet, p.URL+"/community/self?token="+pt.MemberToken, nil, ""); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a request without Origin is marked for pages: %v", resp.Header)
	}
	// Not a preflight, not a page: an OPTIONS is no operation.
	if resp := do(http.MethodOptions, p.URL+"/community/self", nil, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("OPTIONS without a preflight: %s, want 404", resp.Status)
	}
	// The emulator's endpoints are not the API: a page is refused there.
	if resp := do(http.MethodOptions, p.Root+"/emulator/reset", preflight, ""); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the emulator's endpoints answer a page's preflight: %s %v", resp.Status, resp.Header)
	}
	if resp := do(http.MethodPost, p.Root+"/emulator/reset", map[string]string{"Origin": page}, ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a page's reset: %s, want 403", resp.Status)
	}
}
