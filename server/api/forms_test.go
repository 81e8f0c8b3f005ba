package api_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	portalapi "github.com/orgportal/portal-api"
	pt "github.com/orgportal/portal-api/portaltest"
)

// Every read answers a POST with its parameters in a form body exactly as it
// answers the GET with them in the query, as the portal does.
func TestReadsAnswerPost(t *testing.T) {
	// A clock that stands still: the sign-in page names its request with
	// the time it was issued.
	frozen := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	p := pt.New(t, pt.WithClock(func() time.Time { return frozen }))
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	reads := map[string]struct {
		path  string
		token string
		form  url.Values
	}{
		"getSettings":             {settingsPath, pt.AdminToken, form("f", "json")},
		"getMemberCategorySchema": {schemaPath + "/memberCategorySchema", pt.MemberToken, nil},
		"listMembers":             {schemaPath + "/users", pt.AdminToken, form("start", "2", "num", "1")},
		"getMember":               {hMember, pt.MemberToken, nil},
		"getUserContent":          {hContent, pt.MemberToken, form("num", "1")},
		"getFolderContent":        {hContent + "/" + pt.ProjectsFolder, pt.MemberToken, form("num", "1")},
		"getItem":                 {"/content/items/" + pt.RoadsItem, pt.MemberToken, form("f", "pjson")},
		"getRoot":                 {"", "", form("f", "json")},
		"getInfo":                 {"/info", pt.MemberToken, form("f", "pjson")},
		"getPortal":               {"/portals/self", pt.MemberToken, form("f", "json")},
		"getSelf":                 {"/community/self", pt.ViewerToken, nil},
		"listRoles":               {"/portals/self/roles", pt.MemberToken, form("start", "2", "num", "2")},
		"searchItems":             {"/search", pt.MemberToken, form("q", `owner:jsmith accountid:`+pt.OrgID, "sortField", "title", "num", "2")},
		"searchGroups":            {"/community/groups", pt.MemberToken, form("q", "accountid:"+pt.OrgID, "sortOrder", "desc")},
		"getGroup":                {"/community/groups/" + planningGroup, pt.MemberToken, form("f", "pjson")},
		"getUserTags":             {"/community/users/" + pt.Member + "/tags", pt.MemberToken, form("f", "pjson")},
		"oauthAuthorize": {"/oauth2/authorize", "", form("client_id", "pythonapi", "response_type", "token",
			"redirect_uri", p.Root, "state", "s t", "expiration", "600", "style", "dark", "locale", "en-US")},
		"oauthApproval": {"/oauth2/approval", "", form("code", "0f0f", "state", "x")},
	}
	// The sign-in's pages answer HTML.
	pages := map[string]bool{"oauthAuthorize": true, "oauthApproval": true}
	seen := 0
	for _, item := range doc.Paths.Map() {
		if item.Get == nil {
			continue
		}
		seen++
		r, known := reads[item.Get.OperationID]
		if !known {
			t.Errorf("read %s has no case here", item.Get.OperationID)
			continue
		}
		t.Run(item.Get.OperationID, func(t *testing.T) {
			q := url.Values{}
			for k, v := range r.form {
				q[k] = v
			}
			f := url.Values{}
			for k, v := range r.form {
				f[k] = v
			}
			var byGet, byPost answer
			if pages[item.Get.OperationID] {
				byGet, byPost = readPage(t, p, http.MethodGet, r.path, q), readPage(t, p, http.MethodPost, r.path, f)
			} else {
				byGet, byPost = ok(t, get(t, p, r.path, r.token, q)), ok(t, post(t, p, r.path, r.token, f))
			}
			if byGet.raw != byPost.raw {
				t.Errorf("GET answered %s\nPOST answered %s", byGet.raw, byPost.raw)
			}
		})
	}
	if seen != len(reads) {
		t.Errorf("the contract has %d reads, the test %d", seen, len(reads))
	}
	// A posted read is validated like the GET, and a key given twice is
	// refused.
	fails(t, post(t, p, schemaPath+"/users", pt.AdminToken, form("start", "0")), 400, "start: number must be at least 1")
	req, _ := http.NewRequest(http.MethodPost, p.URL+schemaPath+"/users", strings.NewReader("start=1&start=2&token="+pt.AdminToken))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	fails(t, do(t, req), 400, "start")
	// Only reads: generateToken stays POST-only and its GET a 404.
	a := get(t, p, "/generateToken", "", form("username", pt.Member, "password", "jsmith-password"))
	if a.status != http.StatusNotFound {
		t.Errorf("GET generateToken: %d %s", a.status, a.raw)
	}
}

// A multipart/form-data body carries the same fields as the URL-encoded form.
func TestMultipartForm(t *testing.T) {
	p := pt.New(t)
	send := func(path string, fields ...string) answer {
		t.Helper()
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		for i := 0; i < len(fields); i += 2 {
			if err := w.WriteField(fields[i], fields[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, p.URL+path, &b)
		req.Header.Set("Content-Type", w.FormDataContentType())
		return do(t, req)
	}
	banner := `{"text":"Multipart","bgColor":"navy","fontColor":"white","enabled":true}`
	ok(t, send(hUpdate, "token", pt.AdminToken, "informationalBanner", banner))
	got := ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
	if !strings.Contains(got.raw, `"text":"Multipart"`) {
		t.Errorf("the multipart update was not stored: %s", got.raw)
	}
	// Read by POST in multipart too, and checked like any form.
	if a := ok(t, send(settingsPath, "token", pt.AdminToken)); a.raw != got.raw {
		t.Errorf("multipart read %s, GET %s", a.raw, got.raw)
	}
	fails(t, send(hUpdate, "token", pt.AdminToken, "informationalBanner", `{"text":`), 400, "informationalBanner: not a JSON document")
	fails(t, send(hUpdate, "token", pt.AdminToken, "informationalBanner", banner, "informationalBanner", banner), 400, "given 2 times")
}

// An optional parameter sent empty is taken as not sent, as generators that
// send every field do; a required one sent empty is still refused.
func TestEmptyOptionalParameters(t *testing.T) {
	p := pt.New(t)
	want := ok(t, get(t, p, hContent, pt.MemberToken, nil))
	if a := ok(t, get(t, p, hContent, pt.MemberToken, form("start", "", "num", "", "f", ""))); a.raw != want.raw {
		t.Errorf("empty start, num and f: %s, want %s", a.raw, want.raw)
	}
	before := ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
	// Every field empty is an update of nothing, refused like an empty body.
	fails(t, post(t, p, hUpdate, pt.AdminToken, form("informationalBanner", "", "anonymousAccessNotice", "", "clearEmptyFields", "", "f", "")),
		400, "informationalBanner", "value is required but missing")
	if after := ok(t, get(t, p, settingsPath, pt.AdminToken, nil)); after.raw != before.raw {
		t.Errorf("an update of empty fields changed the settings: %s, was %s", after.raw, before.raw)
	}
	ok(t, post(t, p, movePath, pt.MemberToken, form("items", pt.RoadsItem, "folder", "")))
	fails(t, post(t, p, hContent+"/createFolder", pt.MemberToken, form("title", "")), 400, "title")
	fails(t, post(t, p, movePath, pt.MemberToken, form("items", "")), 400, "items")
}
