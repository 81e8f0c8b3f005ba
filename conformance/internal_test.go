package conformance

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
)

func TestIgnore(t *testing.T) {
	got := normalize(map[string]any{
		"items":  []any{map[string]any{"id": "a", "created": 1}, map[string]any{"id": "b"}},
		"folder": map[string]any{"id": "x", "created": 2},
		"keep":   3,
	})
	ignore(got, []string{"items.created", "folder.id", "missing.path", "keep.deeper"})
	want := normalize(map[string]any{
		"items":  []any{map[string]any{"id": "a", "created": ignoredValue}, map[string]any{"id": "b"}},
		"folder": map[string]any{"id": ignoredValue, "created": 2},
		"keep":   3,
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ignore: got %s, want %s", jsonText(got), jsonText(want))
	}
	// An ignored field must still be present.
	a := ignore(normalize(map[string]any{"id": "1"}), []string{"id"})
	b := ignore(normalize(map[string]any{}), []string{"id"})
	if len(diff(a, b)) != 1 {
		t.Errorf("a missing ignored field went unnoticed: %q", diff(a, b))
	}
}

func TestDiff(t *testing.T) {
	want := map[string]any{"results": []any{map[string]any{"itemId": "a", "error": map[string]any{"code": 500}}}, "x": 1}
	got := map[string]any{"results": []any{map[string]any{"itemId": "a"}}, "y": true}
	d := diff(want, got)
	wantLines := []string{`results[0].error: missing, want {"code":500}`, "x: missing, want 1", "y: unexpected, got true"}
	if !reflect.DeepEqual(d, wantLines) {
		t.Errorf("diff = %q, want %q", d, wantLines)
	}
	if d := diff([]any{1, 2}, []any{1}); len(d) != 1 || !strings.Contains(d[0], "want 2 elements, got 1") {
		t.Errorf("diff of lengths = %q", d)
	}
	if d := diff(map[string]any{"a": []any{}}, map[string]any{"a": []any{}}); len(d) != 0 {
		t.Errorf("equal values differ: %q", d)
	}
}

func TestSubstitution(t *testing.T) {
	s := &suite{portalID: "ORG", owner: "mary", adminUser: "boss", runID: "r",
		fix: fixtureSpec{portalID: "0123456789ABCDEF", admin: "admin", member: "jsmith"}}
	fx := &fixtures{folders: map[string]string{"1a9a": "f1"}, items: map[string]string{"93b5": "i1"},
		titles: map[string]string{"Projects": "conformance-r-1 Projects"}}
	p := &pair{body: map[string]any{"title": "projects"}}
	s.order = []*operation{{pairs: []*pair{p}}}
	sub := s.substitution(fx)
	cases := map[string]string{
		"folder: 1a9a is not a folder of jsmith": "folder: f1 is not a folder of mary",
		"93b5":                                   "i1",
		"0123456789ABCDEF":                       "ORG",
		"org_admin can; admin can":               "org_admin can; boss can",
		"a folder named projects already exists": "a folder named conformance-r-1 projects already exists",
		"Projects":                               "conformance-r-1 Projects",
		"jsmithson":                              "jsmithson",
		"Read-only until 18:00 UTC (no fixture inside)": "Read-only until 18:00 UTC (no fixture inside)",
	}
	for in, want := range cases {
		if got := sub.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
	v := sub.apply(map[string]any{"jsmith": []any{"jsmith", 1.0, true}})
	if !jsonEqual(v, map[string]any{"jsmith": []any{"mary", 1.0, true}}) {
		t.Errorf("apply rewrote %s", jsonText(v))
	}
}

func TestEncodeValue(t *testing.T) {
	cases := []struct {
		in     any
		asJSON bool
		want   string
	}{
		{[]any{"a", "b"}, false, "a,b"},
		{[]string{"a"}, false, "a"},
		{[]string{"/A,B", "/C"}, false, `["/A,B","/C"]`},
		{true, false, "true"},
		{60.0, false, "60"},
		{"x", false, "x"},
		{map[string]any{"text": "<b>"}, true, `{"text":"\u003cb\u003e"}`},
		{[]any{"/A/B"}, true, `["/A/B"]`},
	}
	for _, c := range cases {
		got, err := encodeValue(c.in, c.asJSON)
		if err != nil || got != c.want {
			t.Errorf("encodeValue(%v, %t) = %q, %v; want %q", c.in, c.asJSON, got, err, c.want)
		}
	}
	if _, err := encodeValue(map[string]any{}, false); err == nil {
		t.Error("an object was encoded as a plain form field")
	}
}

// errorsOf is a TB that only collects errors, for tests of the parts that
// report to a TB.
type errorsOf struct {
	TB
	errs []string
}

func (e *errorsOf) Errorf(format string, args ...any) {
	e.errs = append(e.errs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}
func (e *errorsOf) Helper()      {}
func (e *errorsOf) Name() string { return "errorsOf" }

// The validator reports, to the TB of the request's context, answers that
// break the contract: a body off the schema, and a status other than 200.
func TestValidator(t *testing.T) {
	bodies := map[string]struct {
		status int
		body   string
	}{
		"/sharing/rest/portals/self/memberCategorySchema": {200, `{"memberCategorySchema":[{"title":"A","extra":1}]}`},
		"/sharing/rest/portals/self/settings":             {400, `{"error":{"code":400,"message":"m","details":[]}}`},
		"/sharing/rest/no/such/operation":                 {404, `{"error":{"code":404,"message":"m","details":[]}}`},
		"/sharing/rest/content/items/abc":                 {200, `{"id":"abc","owner":"o","ownerFolder":null,"title":"t","type":"CSV"}`},
		"/sharing/rest/content/items/both":                {200, `{"id":"both","owner":"o","ownerFolder":null,"title":"t","type":"CSV","error":{"code":400,"message":"m","details":[]}}`},
		"/sharing/rest/content/items/neither":             {200, `{"id":"neither","title":"t"}`},
		"/sharing/rest/content/items/error":               {200, `{"error":{"code":400,"message":"m","details":[]}}`},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := bodies[r.URL.Path]
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(b.status)
		io.WriteString(w, b.body)
	}))
	defer srv.Close()
	v := validatorAt(t, srv.URL+"/sharing/rest")
	hc := &http.Client{Transport: v}
	get := func(path string) []string {
		rec := &errorsOf{}
		req, _ := http.NewRequestWithContext(withTB(context.Background(), rec), "GET", srv.URL+"/sharing/rest"+path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != bodies["/sharing/rest"+path].body {
			t.Errorf("the validator changed the body: %s", body)
		}
		return rec.errs
	}
	if errs := get("/portals/self/memberCategorySchema"); len(errs) != 1 || !strings.Contains(errs[0], "getMemberCategorySchema") ||
		!strings.Contains(errs[0], "does not match the contract's response schema") || !strings.Contains(errs[0], "extra") {
		t.Errorf("a body off the schema: %q", errs)
	}
	if errs := get("/portals/self/settings"); len(errs) != 1 || !strings.Contains(errs[0], "answered HTTP 400") {
		t.Errorf("a status of 400: %q", errs)
	}
	if errs := get("/no/such/operation"); len(errs) != 1 || !strings.Contains(errs[0], "no operation") {
		t.Errorf("an unknown path: %q", errs)
	}
	if errs := get("/content/items/abc"); len(errs) != 0 {
		t.Errorf("a valid answer was reported: %q", errs)
	}
	if errs := get("/content/items/error"); len(errs) != 0 {
		t.Errorf("a valid error envelope was reported: %q", errs)
	}
	// Exactly one of success and error: the schema leaves it to the suite.
	if errs := get("/content/items/both"); len(errs) != 1 || !strings.Contains(errs[0], "getItem") ||
		!strings.Contains(errs[0], "the error envelope carries other properties too: id, owner, ownerFolder, title, type") {
		t.Errorf("success and error together: %q", errs)
	}
	if errs := get("/content/items/neither"); len(errs) != 1 || !strings.Contains(errs[0], "neither the error envelope nor a success answer: owner, ownerFolder, type absent") {
		t.Errorf("neither success nor error: %q", errs)
	}
}

func TestCreationOrder(t *testing.T) {
	fx := &fixtures{createdItems: []string{"r", "h", "x"}}
	page := func(entries ...any) any { return normalize(map[string]any{"items": entries}) }
	item := func(id string, created int) any { return map[string]any{"id": id, "created": created} }
	cases := []struct {
		page any
		ok   bool
	}{
		{page(item("r", 1), item("h", 2), item("x", 3)), true},
		{page(item("h", 1), item("r", 1), item("x", 1)), true}, // same millisecond: any order
		{page(item("h", 2), item("r", 1)), false},              // created decreases
		{page(item("h", 1), item("r", 2)), false},              // against the order of creation
	}
	for i, c := range cases {
		if got := creationOrder(c.page, "items", fx) == ""; got != c.ok {
			t.Errorf("case %d: in order %t, want %t", i, got, c.ok)
		}
	}
	p := page(item("b", 1), item("a", 2))
	byID(p, "items")
	if ids := jsonText(p); ids != `{"items":[{"created":2,"id":"a"},{"created":1,"id":"b"}]}` {
		t.Errorf("byID: %s", ids)
	}
}

// kin-openapi admits null wherever nullable: true appears, beside an allOf
// too, which OpenAPI 3.0.3 and standard validators do not: the validator's
// strict pass reports such a null.
func TestValidatorStrictNull(t *testing.T) {
	const body = `{"id":"abc","owner":"o","ownerFolder":null,"title":"t","type":"CSV"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	doc, err := portalapi.LoadFor(srv.URL + "/sharing/rest")
	if err != nil {
		t.Fatal(err)
	}
	// ownerFolder as the lax pattern states it: null is meant, not admitted.
	item := doc.Paths.Find("/content/items/{itemId}").Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	lax := &openapi3.Schema{Nullable: true, AllOf: openapi3.SchemaRefs{openapi3.NewSchemaRef("", openapi3.NewStringSchema())}}
	item.Properties["ownerFolder"] = openapi3.NewSchemaRef("", lax)
	if err := item.VisitJSON(map[string]any{"id": "abc", "owner": "o", "ownerFolder": nil, "title": "t", "type": "CSV"}); err != nil {
		t.Fatalf("kin-openapi refuses the null itself now (%v): the strict pass may be unneeded", err)
	}
	v, err := newValidator(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &errorsOf{}
	req, _ := http.NewRequestWithContext(withTB(context.Background(), rec), "GET", srv.URL+"/sharing/rest/content/items/abc", nil)
	resp, err := (&http.Client{Transport: v}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "at /ownerFolder: null, which the schema does not admit") {
		t.Errorf("a null the schema does not admit: %q", rec.errs)
	}

	// The contract as published admits that null.
	rec = &errorsOf{}
	doc, _ = portalapi.LoadFor(srv.URL + "/sharing/rest")
	if v, err = newValidator(doc, nil); err != nil {
		t.Fatal(err)
	}
	req, _ = http.NewRequestWithContext(withTB(context.Background(), rec), "GET", srv.URL+"/sharing/rest/content/items/abc", nil)
	if resp, err = (&http.Client{Transport: v}).Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(rec.errs) != 0 {
		t.Errorf("the published contract's null was reported: %q", rec.errs)
	}
}

// x-subset: the answer may hold more fields than the example, at any depth;
// the example's fields, their values and the arrays' elements still count.
func TestSubsetDiff(t *testing.T) {
	want := map[string]any{"id": "a", "user": map[string]any{"id": "u"}, "list": []any{map[string]any{"k": 1}}}
	got := map[string]any{"id": "a", "extra": true, "user": map[string]any{"id": "u", "more": 2}, "list": []any{map[string]any{"k": 1, "x": 0}}}
	if d := subsetDiff(want, got); len(d) != 0 {
		t.Errorf("extra fields were reported: %q", d)
	}
	if d := diff(want, got); len(d) != 3 {
		t.Errorf("without x-subset, the extra fields are differences: %q", d)
	}
	cases := []struct {
		got  any
		want string
	}{
		{map[string]any{"user": map[string]any{"id": "u"}, "list": []any{map[string]any{"k": 1}}}, "id: missing"},
		{map[string]any{"id": "b", "user": map[string]any{"id": "u"}, "list": []any{map[string]any{"k": 1}}}, `id: want "a", got "b"`},
		{map[string]any{"id": "a", "user": map[string]any{}, "list": []any{map[string]any{"k": 1}}}, "user.id: missing"},
		{map[string]any{"id": "a", "user": map[string]any{"id": "u"}, "list": []any{map[string]any{"k": 1}, map[string]any{"k": 2}}}, "list: want 1 elements, got 2"},
		{map[string]any{"id": "a", "user": map[string]any{"id": "u"}, "list": []any{map[string]any{"k": 2}}}, "list[0].k: want 1, got 2"},
	}
	for _, c := range cases {
		if d := subsetDiff(want, c.got); len(d) != 1 || !strings.Contains(d[0], c.want) {
			t.Errorf("subsetDiff against %s = %q, want one line holding %q", jsonText(c.got), d, c.want)
		}
	}
}

// A REST version maps back to the newest release at or below it.
func TestReleaseOf(t *testing.T) {
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	table, err := restVersions(doc)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		rest, version string
		newer, older  bool
	}{
		{"8.1", "10.8", false, false},
		{"10.1", "11.0", false, false},
		{"10.2", "11.0", false, false}, // between 11.0 and 11.1
		{"10.3", "11.1", false, false},
		{"2023.2", "11.2", false, false},
		{"2025.1", "11.5", false, false},
		{"2025.2", "11.5", true, false},
		{"2025.1.1", "11.5", true, false},
		{"7.4", "10.8", false, true},
	}
	for _, c := range cases {
		d, err := releaseOf(table, c.rest)
		if err != nil || d.Version != c.version || d.Newer != c.newer || d.Older != c.older || d.RESTVersion != c.rest {
			t.Errorf("releaseOf(%s) = %+v, %v; want release %s, newer %t, older %t", c.rest, d, err, c.version, c.newer, c.older)
		}
	}
	for _, bad := range []string{"", "11", "2025.x", "v2025.1", "-1.0"} {
		if _, err := releaseOf(table, bad); err == nil && bad != "11" {
			t.Errorf("releaseOf(%q): no error", bad)
		}
	}
	if d := (Detection{RESTVersion: "2025.1", Version: "11.5", Deployment: "enterprise"}); d.String() != "ArcGIS Enterprise 11.5 (REST 2025.1)" {
		t.Errorf("String() = %q", d.String())
	}
}

// Operations that answer HTML or a redirect are checked for a declared
// status, media type and Location; the operations marked x-trailing-slash
// are found with and without it, the others only as written; a path
// routed beside the REST root is found there.
func TestValidatorPages(t *testing.T) {
	type answer struct {
		status   int
		ctype    string
		location string
	}
	answers := map[string]answer{
		"/portal/sharing/rest/oauth2/authorize":   {200, "text/html; charset=utf-8", ""},
		"/portal/sharing/rest/oauth2/approval":    {400, "text/html", ""},
		"/portal/sharing/oauth2/signin":           {302, "", "https://app.example.org/#access_token=x"},
		"/portal/sharing/rest":                    {200, "application/json", ""},
		"/portal/sharing/rest/oauth2/token/":      {200, "application/json", ""},
		"/portal/sharing/rest/portals/self/":      {200, "application/json", ""},
		"/portal/sharing/rest/oauth2/revokeToken": {200, "application/json", ""},
	}
	var next answer // overrides answers when status is set
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[r.URL.Path]
		if next.status != 0 {
			a = next
		}
		if a.ctype != "" {
			w.Header().Set("Content-Type", a.ctype)
		}
		if a.location != "" {
			w.Header().Set("Location", a.location)
		}
		w.WriteHeader(a.status)
		switch {
		case strings.HasPrefix(a.ctype, "application/json") && strings.Contains(r.URL.Path, "token"):
			io.WriteString(w, `{"access_token":"t","expires_in":60}`)
		case strings.HasPrefix(a.ctype, "application/json") && strings.HasSuffix(r.URL.Path, "revokeToken"):
			io.WriteString(w, `{"success":true}`)
		case strings.HasPrefix(a.ctype, "application/json"):
			io.WriteString(w, `{"currentVersion":"2025.1"}`)
		case a.ctype != "":
			io.WriteString(w, "<!DOCTYPE html><title>x</title>")
		}
	}))
	defer srv.Close()
	v := validatorAt(t, srv.URL+"/portal/sharing/rest")
	hc := &http.Client{Transport: v, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, a answer) []string {
		t.Helper()
		next = a
		rec := &errorsOf{}
		req, _ := http.NewRequestWithContext(withTB(context.Background(), rec), method, srv.URL+path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return rec.errs
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/portal/sharing/rest/oauth2/authorize?client_id=a&response_type=code&redirect_uri=x"},
		{"GET", "/portal/sharing/rest/oauth2/approval?code=c"},
		{"POST", "/portal/sharing/oauth2/signin"},
		{"GET", "/portal/sharing/rest?f=json"},
		{"POST", "/portal/sharing/rest/oauth2/token/"},
		{"POST", "/portal/sharing/rest/oauth2/revokeToken"},
	} {
		if errs := send(c.method, c.path, answer{}); len(errs) != 0 {
			t.Errorf("%s %s, a good answer: reported %q", c.method, c.path, errs)
		}
	}
	cases := []struct {
		method, path string
		a            answer
		want         string
	}{
		{"GET", "/portal/sharing/rest/oauth2/authorize", answer{500, "text/html", ""}, "oauthAuthorize (GET /portal/sharing/rest/oauth2/authorize) answered HTTP 500, which the contract does not declare"},
		{"GET", "/portal/sharing/rest/oauth2/authorize", answer{200, "application/json", ""}, `with Content-Type "application/json"; the contract declares text/html`},
		{"POST", "/portal/sharing/oauth2/signin", answer{302, "", ""}, "oauthSignIn (POST /portal/sharing/oauth2/signin) answered HTTP 302 without a Location header"},
		{"GET", "/portal/sharing/rest/oauth2/authorize", answer{404, "application/json", ""}, "answered HTTP 404, which the contract does not declare"},
		{"POST", "/portal/sharing/oauth2/revokeToken", answer{200, "application/json", ""}, "the suite sent a request the contract has no operation for"},
		{"GET", "/portal/sharing/oauth2/signin", answer{200, "text/html", ""}, "the suite sent a request the contract has no operation for"},
		{"GET", "/portal/sharing/rest/portals/self/", answer{}, "the suite sent a request the contract has no operation for"},
	}
	for _, c := range cases {
		if errs := send(c.method, c.path, c.a); len(errs) != 1 || !strings.Contains(errs[0], c.want) {
			t.Errorf("%s %s answering %+v: reported %q, want one problem holding %q", c.method, c.path, c.a, errs, c.want)
		}
	}
}

// A request at one of an operation's x-also-at paths, rooted at the
// portal's address with its context, is validated as that operation's, and
// so is a GET of the POST operation marked x-also-get, at each of its paths
// and with the trailing slash it takes; other paths beside the REST root,
// and a GET of other POST operations, are not routed.
func TestValidatorAliasPaths(t *testing.T) {
	answers := map[string]struct {
		status      int
		ctype, body string
		location    string
	}{
		"/portal/sharing/oauth2/token":       {200, "application/json", `{"access_token":"t","expires_in":1800,"refresh_token":"r","username":"u","ssl":true}`, ""},
		"/portal/sharing/oauth2/token/":      {200, "application/json", `{"error":{"code":400,"error":"invalid_grant","error_description":"d","message":"d","details":[]}}`, ""},
		"/portal/sharing/rest/oauth2/token":  {200, "application/json", `{"access_token":"t","expires_in":1800}`, ""},
		"/portal/sharing/generateToken":      {200, "application/json", `{"token":"t","expires":1767229200000,"ssl":false}`, ""},
		"/portal/sharing/oauth2/authorize":   {200, "text/html; charset=utf-8", "<!DOCTYPE html><title>x</title>", ""},
		"/portal/sharing/oauth2/approval":    {200, "text/html", "<!DOCTYPE html><title>SUCCESS code=c</title>", ""},
		"/portal/sharing/rest/oauth2/signin": {302, "", "", "http://127.0.0.1/callback?code=c"},
		// Off the contract's schemas.
		"/portal/sharing/oauth2/token/bad":  {200, "application/json", `{"access_token":5,"expires_in":"soon"}`, ""},
		"/portal/sharing/generateToken/bad": {200, "application/json", `{"token":"t","expires":1767229200000,"extra":1}`, ""},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path
		if r.URL.Query().Get("bad") != "" {
			key = strings.TrimSuffix(key, "/") + "/bad"
		}
		a, ok := answers[key]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"error":{"code":404,"message":"m","details":[]}}`)
			return
		}
		if a.ctype != "" {
			w.Header().Set("Content-Type", a.ctype)
		}
		if a.location != "" {
			w.Header().Set("Location", a.location)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	defer srv.Close()
	v := validatorAt(t, srv.URL+"/portal/sharing/rest")
	hc := &http.Client{Transport: v, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, target string) (string, []string) {
		t.Helper()
		rec, c := &errorsOf{}, &capture{}
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader("grant_type=refresh_token&f=json")
		}
		req, _ := http.NewRequestWithContext(withCapture(withTB(context.Background(), rec), c), method, srv.URL+target, body)
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ex, _ := c.last()
		return ex.OperationID, rec.errs
	}
	for _, c := range []struct{ method, target, op string }{
		{"POST", "/portal/sharing/oauth2/token", "oauthToken"},
		{"GET", "/portal/sharing/oauth2/token?grant_type=refresh_token&f=json", "oauthToken"},
		{"GET", "/portal/sharing/oauth2/token/?grant_type=refresh_token&f=json", "oauthToken"},
		{"POST", "/portal/sharing/oauth2/token/", "oauthToken"},
		{"GET", "/portal/sharing/rest/oauth2/token?grant_type=refresh_token&f=json", "oauthToken"},
		{"POST", "/portal/sharing/generateToken", "generateToken"},
		{"GET", "/portal/sharing/oauth2/authorize?client_id=a&response_type=code&redirect_uri=x", "oauthAuthorize"},
		{"GET", "/portal/sharing/oauth2/approval?code=c", "oauthApproval"},
		{"POST", "/portal/sharing/rest/oauth2/signin", "oauthSignIn"},
	} {
		if op, errs := send(c.method, c.target); op != c.op || len(errs) != 0 {
			t.Errorf("%s %s, a good answer: validated as %q, reported %q; want %s's, nothing reported", c.method, c.target, op, errs, c.op)
		}
	}
	for _, c := range []struct{ method, target, want string }{
		{"POST", "/portal/sharing/oauth2/token?bad=1", `oauthToken (POST /portal/sharing/oauth2/token): the answer does not match the contract's response schema`},
		{"GET", "/portal/sharing/oauth2/token/?bad=1", `oauthToken (GET /portal/sharing/oauth2/token/): the answer does not match the contract's response schema`},
		{"POST", "/portal/sharing/generateToken?bad=1", `generateToken (POST /portal/sharing/generateToken): the answer does not match the contract's response schema`},
		// Not where the contract puts them: without the context, under
		// the REST root's parent for an operation with no alias there, or
		// a GET of a POST operation not marked x-also-get.
		{"POST", "/sharing/oauth2/token", "the suite sent a request the contract has no operation for"},
		{"POST", "/portal/sharing/oauth2/revokeToken", "the suite sent a request the contract has no operation for"},
		{"GET", "/portal/sharing/generateToken", "the suite sent a request the contract has no operation for"},
		{"GET", "/portal/sharing/rest/oauth2/signin", "the suite sent a request the contract has no operation for"},
	} {
		if _, errs := send(c.method, c.target); len(errs) != 1 || !strings.Contains(errs[0], c.want) {
			t.Errorf("%s %s: reported %q, want one problem holding %q", c.method, c.target, errs, c.want)
		}
	}
}

// validatorAt is the validator of the contract served at the REST root base.
func validatorAt(t *testing.T, base string) *validator {
	t.Helper()
	doc, err := portalapi.LoadFor(base)
	if err != nil {
		t.Fatal(err)
	}
	v, err := newValidator(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
