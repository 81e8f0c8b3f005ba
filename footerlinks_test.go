package portalapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/internal/portaltest"
)

// The FooterLink schema and the server accept exactly the same footer links:
// each element below is sent to the reference server, and the server answers
// success exactly when the schema alone accepts the element.
func TestFooterLinksSchemaMatchesServer(t *testing.T) {
	schema := mustLoad(t).Components.Schemas["FooterLink"].Value
	p := portaltest.Start(t)
	long := strings.Repeat("t", 257)
	elements := []string{
		`{"title":"Terms","url":"https://www.example.org/terms"}`,
		`{"title":"Terms","url":"HTTP://example.org"}`,
		`{"title":"Contact","email":"gis@example.org","type":"contactUs"}`,
		`{"title":"Abuse","email":"abuse@example.org","type":"reportAbuse"}`,
		`{"title":" x ","url":"https://example.org"}`,
		`{"title":"` + long[:256] + `","url":"https://example.org"}`,
		// Refused.
		`{"title":"` + long + `","url":"https://example.org"}`,
		`{"title":"","url":"https://example.org"}`,
		`{"title":"   ","url":"https://example.org"}`,
		`{"title":"\t","url":"https://example.org"}`,
		`{"title":"\u00a0\u2003","url":"https://example.org"}`,
		`{"title":7,"url":"https://example.org"}`,
		`{"url":"https://example.org"}`,
		`{"title":"Terms"}`,
		`{"title":"Terms","url":"ftp://example.org"}`,
		`{"title":"Terms","url":"https://"}`,
		`{"title":"Terms","url":"https://exa mple.org"}`,
		`{"title":"Terms","url":"https://example.org","email":"a@example.org"}`,
		`{"title":"Terms","url":"https://example.org","type":"contactUs"}`,
		`{"title":"Terms","url":"https://example.org","email":"a@example.org","type":"contactUs"}`,
		`{"title":"Contact","email":"gis@example.org"}`,
		`{"title":"Contact","type":"contactUs"}`,
		`{"title":"Contact","email":"gis@example.org","type":"spam"}`,
		`{"title":"Contact","email":"gis example.org","type":"contactUs"}`,
		`{"title":"Contact","email":"@example.org","type":"contactUs"}`,
		`{"title":"Contact","email":"gis@","type":"contactUs"}`,
		`{"title":"Terms","url":"https://example.org","target":"_blank"}`,
		`"https://example.org"`,
		`null`,
	}
	accepted := 0
	for _, el := range elements {
		var v any
		if err := json.Unmarshal([]byte(el), &v); err != nil {
			t.Fatalf("%s: %v", el, err)
		}
		schemaOK := schema.VisitJSON(v) == nil
		form := url.Values{"portalConfigProperties": {`{"footerLinks":[` + el + `]}`}, "token": {p.AdminToken}, "f": {"json"}}
		resp, err := http.PostForm(p.URL+"/portals/self/settings/update", form)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var answer struct {
			Success bool `json:"success"`
			Error   *struct {
				Details []string `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &answer); err != nil {
			t.Fatalf("%s: %v: %s", el, err, body)
		}
		if answer.Success != schemaOK {
			t.Errorf("%s: the schema accepts it: %v; the server: %s", el, schemaOK, body)
		}
		if !answer.Success && (answer.Error == nil || !strings.Contains(strings.Join(answer.Error.Details, "\n"), "footerLinks")) {
			t.Errorf("%s: a refusal that does not name footerLinks: %s", el, body)
		}
		if answer.Success {
			accepted++
		}
	}
	if accepted != 6 {
		t.Errorf("%d elements accepted, want the first 6", accepted)
	}
}
