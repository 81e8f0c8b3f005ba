package conformance_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/conformance"
	"github.com/orgportal/portal-api/conformance/faults"
	"github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server/seed"
)

// The reference server conforms; no account is sent more than one wrong
// password.
func TestConformance(t *testing.T) {
	p := portaltest.New(t)
	wrong := &wrongPasswords{}
	conformance.Run(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken,
		HTTPClient: &http.Client{Transport: wrong}})
	wrong.atMostOneEach(t)
}

// wrongPasswords counts, per user name, the sign-ins (generateToken and the
// sign-in page's) sent with another password than the demo seed's for that
// name (<user>-password).
type wrongPasswords struct {
	mu sync.Mutex
	n  map[string]int
}

func (w *wrongPasswords) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Body != nil &&
		(strings.HasSuffix(req.URL.Path, "/generateToken") || strings.HasSuffix(req.URL.Path, "/oauth2/signin")) {
		raw, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(raw))
		form, _ := url.ParseQuery(string(raw))
		if user, pw := form.Get("username"), form.Get("password"); user != "" && pw != "" && pw != user+"-password" {
			w.mu.Lock()
			if w.n == nil {
				w.n = map[string]int{}
			}
			w.n[user]++
			w.mu.Unlock()
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// atMostOneEach fails t when a user of the demo seed was sent more than
// one wrong password; user names the suite made up (conformance-...) name
// no account.
func (w *wrongPasswords) atMostOneEach(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for user, n := range w.n {
		if n > 1 && !strings.HasPrefix(user, "conformance-") {
			t.Errorf("%s was sent %d wrong passwords in one run; at most one", user, n)
		}
	}
	if len(w.n) == 0 {
		t.Errorf("no wrong password was sent: the refusals went unchecked")
	}
}

// runSuite runs the suite against target with a Runner, so that its
// failures are collected instead of failing this test.
func runSuite(t *testing.T, target conformance.Target, pattern string) *conformance.Report {
	t.Helper()
	rep, err := (&conformance.Runner{Pattern: pattern}).Run(target)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// find returns the result of the test named name below the top-level test.
func find(t *testing.T, rep *conformance.Report, name string) *conformance.Result {
	t.Helper()
	if name == "" {
		return rep.Root
	}
	full := rep.Root.Name + "/" + name
	var walk func(r *conformance.Result) *conformance.Result
	walk = func(r *conformance.Result) *conformance.Result {
		if r.Name == full {
			return r
		}
		for _, c := range r.Subtests {
			if f := walk(c); f != nil {
				return f
			}
		}
		return nil
	}
	r := walk(rep.Root)
	if r == nil {
		t.Fatalf("the report has no test %s", name)
	}
	return r
}

// wantFailure checks the test name failed with a message holding every one
// of words.
func wantFailure(t *testing.T, rep *conformance.Report, name string, words ...string) {
	t.Helper()
	r := find(t, rep, name)
	if r.Status != conformance.Failed {
		t.Errorf("%s: %s, want FAIL", name, r.Status)
		return
	}
	for _, e := range allErrors(r) {
		found := true
		for _, w := range words {
			found = found && strings.Contains(e, w)
		}
		if found {
			return
		}
	}
	t.Errorf("%s failed, but no message holds %q:\n%s", name, words, strings.Join(allErrors(r), "\n---\n"))
}

func allErrors(r *conformance.Result) []string {
	out := r.Errors()
	for _, c := range r.Subtests {
		out = append(out, allErrors(c)...)
	}
	return out
}

func wantStatus(t *testing.T, rep *conformance.Report, name string, want conformance.Status) *conformance.Result {
	t.Helper()
	r := find(t, rep, name)
	if r.Status != want {
		t.Errorf("%s: %s, want %s: %q", name, r.Status, want, allErrors(r))
	}
	return r
}

// proxied starts an emulator behind fault and returns it with the API
// base at the proxy.
func proxied(t *testing.T, fault func(*url.URL) http.Handler) (*portaltest.Portal, string) {
	p := portaltest.New(t)
	root, err := url.Parse(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(fault(root))
	t.Cleanup(proxy.Close)
	return p, proxy.URL + strings.TrimPrefix(p.URL, p.Root)
}

// The suite fails portals that break the contract, and says how.
func TestSuiteCatchesBrokenServers(t *testing.T) {
	cases := []struct {
		name    string
		fault   func(*url.URL) http.Handler
		check   func(t *testing.T, rep *conformance.Report)
		pattern string // the tests to run; "" for all
	}{
		{"errorsAsHTTP400", faults.ErrorsAsHTTPStatus, func(t *testing.T, rep *conformance.Report) {
			const why = "answered HTTP 400; the contract answers every API error with HTTP 200"
			wantFailure(t, rep, "examples/moveItems/unknownFolder", "moveItems", why)
			wantFailure(t, rep, "auth/noToken", "updateSettings", why)
			wantFailure(t, rep, "memberCategorySchema/fourLevelsRejected", "assignMemberCategorySchema", why)
		}, ""},
		{"itemErrorsDropped", faults.DropItemErrors, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "moveItems/mixedSuccessAndFailure", "success:false but no error object")
			wantFailure(t, rep, "moveItems/alreadyInFolder", "want success:false with error code 500", "Item already exists in target folder")
			wantFailure(t, rep, "examples/moveItems/oneMovedOneAlreadyThere", "results[1].error: missing")
			wantFailure(t, rep, "client/content/moveItems")
		}, ""},
		{"fourLevelSchemaAccepted", faults.AcceptDeepSchemas, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "memberCategorySchema/fourLevelsRejected", "a schema of 4 levels: accepted", "ORG_1132")
			wantFailure(t, rep, "examples/assignMemberCategorySchema/fourLevels", "error: missing", "success: unexpected")
			wantStatus(t, rep, "memberCategorySchema/tooManyNodesRejected", conformance.Passed)
		}, ""},
		{"successBesideError", faults.SuccessBesideError, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "auth/noToken", "updateSettings", "the error envelope carries other properties too: success")
			wantFailure(t, rep, "examples/updateSettings/badColor", "updateSettings", "the error envelope carries other properties too: success")
			wantFailure(t, rep, "examples/getItem/unknownItem", "getItem", `property "success" is unsupported`)
		}, ""},
		{"emptySuccess", faults.EmptySuccess, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "examples/updateSettings/noticesAndBanner", "updateSettings", "neither the error envelope nor a success answer: success absent")
			wantFailure(t, rep, "examples/deleteMemberCategorySchema", "deleteMemberCategorySchema", "neither the error envelope nor a success answer: success absent")
		}, ""},
		{"foreignInfoAddress", faults.ForeignInfoAddress, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "discovery/info", "owningSystemUrl", "portal.invalid", "does not start with the portal's address")
			wantFailure(t, rep, "discovery/info", "tokenServicesUrl", "portal.invalid")
			wantStatus(t, rep, "discovery/portalSelf", conformance.Passed)
		}, "^discovery$"},
		{"staleCategorySchemaFlag", faults.StaleCategorySchemaFlag, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "discovery/hasMemberCategorySchema", "after assignMemberCategorySchema: hasMemberCategorySchema false, want true")
			wantStatus(t, rep, "discovery/root", conformance.Passed)
		}, "^discovery$"},
		{"formEncodedRedirects", faults.FormEncodedRedirects, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "signIn/codePKCE", "parameter state reads", "to ArcGIS REST JS", "encode spaces as %20")
			// The implicit grant's state has no space: it reads alike.
			wantStatus(t, rep, "signIn/implicitPython", conformance.Passed)
		}, "^signIn$"},
		{"reusableCodes", faults.ReusableCodes, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "wrongCredentials/reusedCode", "exchanging the same code again", "want the OAuth error invalid_grant")
			wantStatus(t, rep, "wrongCredentials/wrongClientSecret", conformance.Passed)
		}, "^wrongCredentials$"},
		{"moveItemsWithoutMoving", faults.MoveItemsWithoutMoving, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "moveItems/spacesAndEmptyEntries", "the content reads put")
		}, "^moveItems$"},
		{"gatedFieldRefused", faults.RefuseGatedField, func(t *testing.T, rep *conformance.Report) {
			// The target is at the newest release, which takes the field:
			// its refusal fails the example instead of leaving it not run.
			wantFailure(t, rep, "examples/updateSettings/portalConfigProperties", "requires version 11.0")
		}, "^examples$"},
		{"settingsUnwrittenWithBearerHeader", faults.SettingsUnwrittenWithBearerHeader, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "auth/tokenPlacements", "header Authorization answered success, but the banner reads")
			wantStatus(t, rep, "auth/noToken", conformance.Passed)
		}, "^auth$"},
		{"moveItemWithoutMoving", faults.MoveItemWithoutMoving, func(t *testing.T, rep *conformance.Report) {
			wantFailure(t, rep, "moveItem/toFolder", "the content reads put")
			wantFailure(t, rep, "moveItem/alreadyThere", "want the error envelope with code 500")
			wantFailure(t, rep, "moveItem/unknownItem", "want the error envelope with code 400")
		}, "^moveItem$"},
		{"publicGroupHiddenFromAnonymous", faults.PublicGroupsHiddenFromAnonymous, func(t *testing.T, rep *conformance.Report) {
			// The portal holds the examples' group (the administrator reads
			// it): the pair is run, and fails, rather than not run.
			wantFailure(t, rep, "examples/getGroup/publicGroup", "example getGroup/publicGroup", "title: missing")
			wantStatus(t, rep, "examples/getGroup/unknownGroup", conformance.Passed)
		}, "^examples$/^getGroup$"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, base := proxied(t, c.fault)
			rep := runSuite(t, conformance.Target{BaseURL: base, AdminToken: p.AdminToken, MemberToken: p.MemberToken}, c.pattern)
			if !rep.Failed() {
				t.Fatalf("the suite passed a portal whose answers are broken (%s)", c.name)
			}
			c.check(t, rep)
			if c.name != "emptySuccess" && c.pattern == "" {
				// What the fault leaves alone still passes.
				wantStatus(t, rep, "settings/roundTrip", conformance.Passed)
			}
		})
	}
}

// Without a member token, examples sent by a member run as the
// administrator on the administrator's own content, and those needing a
// member without privileges are reported as not run, with the reason.
func TestWithoutMember(t *testing.T) {
	p := portaltest.New(t)
	wrong := &wrongPasswords{}
	rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, HTTPClient: &http.Client{Transport: wrong}}, "")
	wrong.atMostOneEach(t)
	for _, name := range []string{"examples/updateSettings/notPermitted", "examples/assignMemberCategorySchema/notPermitted",
		"examples/deleteMemberCategorySchema/notPermitted", "auth/memberWithoutPrivilege"} {
		r := wantStatus(t, rep, name, conformance.NotRun)
		if !strings.Contains(r.SkipReason(), "MemberToken") {
			t.Errorf("%s: the reason %q does not say what is missing", name, r.SkipReason())
		}
	}
	for _, name := range []string{"examples/moveItems/oneMovedOneAlreadyThere", "examples/getMember/assigned",
		"examples/getUserContent/root", "moveItems/mixedSuccessAndFailure"} {
		wantStatus(t, rep, name, conformance.Passed)
	}
	if _, _, notRun := rep.Counts(); notRun < 4 {
		t.Errorf("%d tests counted as not run, want at least 4", notRun)
	}

	// Every operation of the contract is checked through the client, in a
	// test named after it, but those package client does not call: the
	// OAuth pages, which a person's browser opens, the move naming the
	// item's folder, which the client leaves out, and the searches, the
	// group read and a user's tags. A scenario checks each of them, and
	// passes.
	notInClient := map[string]string{
		"oauthAuthorize":     "signIn/implicitPython",
		"oauthSignIn":        "signIn/implicitPython",
		"oauthApproval":      "signIn/codeOutOfBandPython",
		"moveItemFromFolder": "moveItem/fromFolder",
		"searchItems":        "reads/searchItems",
		"searchGroups":       "reads/searchGroups",
		"getGroup":           "reads/getGroup",
		"getUserTags":        "reads/userTags",
	}
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	for _, c := range rep.Cases() {
		if strings.HasPrefix(c.Name, rep.Root.Name+"/client/") {
			checked[c.Name[strings.LastIndex(c.Name, "/")+1:]] = true
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if scenario, ok := notInClient[op.OperationID]; ok {
				wantStatus(t, rep, scenario, conformance.Passed)
			} else if !checked[op.OperationID] {
				t.Errorf("no client test checks operation %s", op.OperationID)
			}
		}
	}
}

// With a user name and password, the suite signs in with generateToken,
// and can replay the generateToken example that needs a password.
func TestCredentials(t *testing.T) {
	p := portaltest.New(t)
	rep := runSuite(t, conformance.Target{BaseURL: p.URL, Username: "admin", Password: "admin-password"}, "examples/generateToken|getMember")
	wantStatus(t, rep, "examples/generateToken/issued", conformance.Passed)
	wantStatus(t, rep, "examples/getMember/assigned", conformance.Passed)
	if rep.Failed() {
		t.Errorf("failures: %q", allErrors(rep.Root))
	}

	rep = runSuite(t, conformance.Target{BaseURL: p.URL, Username: "admin", Password: "wrong"}, "")
	wantFailure(t, rep, "", "generateToken for admin")
}

// On a deployment without portalConfigProperties, what needs them is
// reported as not run, with the target's reason; the rest still runs.
func TestOtherDeployment(t *testing.T) {
	p := portaltest.New(t, portaltest.WithDeployment("online"))
	rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken},
		"^(examples|settings|client)$/^(updateSettings|portalConfigPropertiesMerged|roundTrip|settings)$")
	for _, name := range []string{"examples/updateSettings/portalConfigProperties", "settings/portalConfigPropertiesMerged"} {
		r := wantStatus(t, rep, name, conformance.NotRun)
		if !strings.Contains(r.SkipReason(), "portalConfigProperties") || !strings.Contains(r.SkipReason(), "online") {
			t.Errorf("%s: the reason %q does not name the field and the deployment", name, r.SkipReason())
		}
	}
	for _, name := range []string{"examples/updateSettings/noticesAndBanner", "settings/roundTrip", "client/settings/getSettings"} {
		wantStatus(t, rep, name, conformance.Passed)
	}
}

// The reference server conforms at every version and deployment it emulates,
// the suite told neither (it detects both, as the command without -version
// and -deployment); the example pairs that show an enterprise portal at 11.0
// or later are not run, by name, where they do not apply, which a wrong
// detection would change.
func TestConformanceVersions(t *testing.T) {
	// Each pair, and the versions of enterprise portals it applies to.
	gated := map[string][]string{
		"examples/getSettings/afterUpdate":               {"11.0", "11.1", "11.5"},
		"examples/getSettings/anonymous":                 {"11.1", "11.5"}, // set up by the next
		"examples/updateSettings/portalConfigProperties": {"11.1", "11.5"},
	}
	for _, deployment := range []string{"enterprise", "online"} {
		for _, version := range []string{"10.8", "11.0", "11.1", "11.5"} {
			t.Run(deployment+"-"+version, func(t *testing.T) {
				p := portaltest.New(t, portaltest.WithVersion(version), portaltest.WithDeployment(deployment))
				rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken}, "")
				for _, r := range rep.Cases() {
					if r.Status == conformance.Failed && len(r.Subtests) == 0 {
						t.Errorf("%s: %s", r.Name, strings.Join(r.Errors(), "\n"))
					}
				}
				for name, versions := range gated {
					applies := deployment == "enterprise" && slices.Contains(versions, version)
					r := find(t, rep, name)
					switch {
					case applies && r.Status != conformance.Passed:
						t.Errorf("%s: %s, want PASS", name, r.Status)
					case !applies && r.Status != conformance.NotRun:
						t.Errorf("%s: %s, want NOT RUN", name, r.Status)
					case !applies && !strings.Contains(r.SkipReason(), "x-"):
						t.Errorf("%s: not run without naming x-introduced-in or x-deployments: %q", name, r.SkipReason())
					}
				}
			})
		}
	}
}

// Against another organization than the examples' (the demo seed's second,
// with an application of its own), the examples and flows that need an
// application are not run, by name, until its credentials are given; then
// they run with them, the examples' application, secret and redirect URI
// replaced by the target's. The ArcGIS API for Python's flows need none.
func TestAnotherOrganization(t *testing.T) {
	f := seed.Demo()
	for i, o := range f.Organizations {
		// Only the target's application exists: the examples' would not do.
		f.Organizations[i].Apps = nil
		if o.ID == "FEDCBA9876543210" {
			f.Organizations[i].Apps = []seed.App{{ClientID: "other-app", ClientSecret: "other-app-secret", RedirectURIs: []string{"http://127.0.0.1"}}}
		}
	}
	p := portaltest.New(t, portaltest.WithSeed(f))
	target := conformance.Target{BaseURL: p.URL, AdminToken: "demo-other-admin-token", Username: "otheradmin", Password: "otheradmin-password",
		MemberToken: "demo-other-user-token", User: "otheruser"}
	const pattern = "^(examples|signIn|wrongCredentials|client|aliasPaths)$/^(oauthToken|oauthRevokeToken|implicitPython|codePKCE|clientCredentials|signInPage|wrongClientSecret|reusedCode|oauth|tokenByGET|codeOutOfBandPython)$"
	needApp := []string{"examples/oauthToken/appToken", "examples/oauthToken/badSecret", "examples/oauthToken/unknownCode",
		"examples/oauthRevokeToken/unknownToken", "signIn/codePKCE", "signIn/clientCredentials", "wrongCredentials/wrongClientSecret",
		"wrongCredentials/reusedCode", "client/oauth/oauthToken", "client/oauth/oauthRevokeToken", "aliasPaths/codePKCE", "aliasPaths/tokenByGET"}
	// The ArcGIS API for Python's flows, at the contract's paths and at the
	// others.
	python := []string{"signIn/implicitPython", "wrongCredentials/signInPage", "signIn/codeOutOfBandPython", "aliasPaths/codeOutOfBandPython"}

	rep := runSuite(t, target, pattern)
	for _, name := range needApp {
		if r := wantStatus(t, rep, name, conformance.NotRun); !strings.Contains(r.SkipReason(), "Target.ClientID") {
			t.Errorf("%s: the reason %q does not say what is missing", name, r.SkipReason())
		}
	}
	for _, name := range python {
		wantStatus(t, rep, name, conformance.Passed)
	}

	target.ClientID, target.ClientSecret = "other-app", "other-app-secret"
	rep = runSuite(t, target, pattern)
	for _, name := range append(needApp, python...) {
		wantStatus(t, rep, name, conformance.Passed)
	}
	if rep.Failed() {
		t.Errorf("failures: %q", allErrors(rep.Root))
	}
}

// The examples' group (getGroup/publicGroup reads Open Data) is the demo
// organization's, and the API cannot create a group: against a portal that
// does not hold it, the pair is not run, by name, saying so, and nothing
// fails for it; so too from another organization, which may read the group
// (it is public) but does not hold it. The other group checks still run. On
// the demo organization, which holds it, the pair runs and passes.
func TestExampleGroupNotHeld(t *testing.T) {
	const group = "d3c4e5f6a7b8490312c3d4e5f6a7b8c9"
	f := seed.Demo()
	for i, o := range f.Organizations {
		f.Organizations[i].Groups = slices.DeleteFunc(slices.Clone(o.Groups), func(g seed.Group) bool { return g.ID == group })
	}
	without := portaltest.New(t, portaltest.WithSeed(f))
	demo := portaltest.New(t)
	cases := []struct {
		name   string
		target conformance.Target
		why    string
	}{
		{"seedWithoutTheGroup", conformance.Target{BaseURL: without.URL, AdminToken: without.AdminToken, MemberToken: without.MemberToken},
			"which the target does not hold (getGroup as the administrator: Group does not exist or is inaccessible.)"},
		{"anotherOrganization", conformance.Target{BaseURL: demo.URL, AdminToken: portaltest.OtherAdminToken, MemberToken: portaltest.OtherUserToken},
			"which is organization 0123456789ABCDEF's, not the target's FEDCBA9876543210"},
	}
	// The demo organization holds it: the pair runs, and passes.
	rep := runSuite(t, conformance.Target{BaseURL: demo.URL, AdminToken: demo.AdminToken, MemberToken: demo.MemberToken}, "^examples$/^getGroup$")
	wantStatus(t, rep, "examples/getGroup/publicGroup", conformance.Passed)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := runSuite(t, c.target, "^(examples|reads)$/^(getGroup|searchGroups)$")
			r := wantStatus(t, rep, "examples/getGroup/publicGroup", conformance.NotRun)
			for _, w := range []string{"getGroup/publicGroup reads the examples' group " + group + ` ("Open Data")`, c.why, "no operation that creates a group"} {
				if !strings.Contains(r.SkipReason(), w) {
					t.Errorf("publicGroup: the reason %q does not say %q", r.SkipReason(), w)
				}
			}
			for _, name := range []string{"examples/getGroup/unknownGroup", "examples/searchGroups/count", "reads/getGroup", "reads/searchGroups"} {
				wantStatus(t, rep, name, conformance.Passed)
			}
			if rep.Failed() {
				t.Errorf("failures: %q", allErrors(rep.Root))
			}
		})
	}
}

// A portal's search index may lag its writes (an ArcGIS portal indexes
// items asynchronously): the searches for items the suite has just added
// wait for them, so a portal that finds them a few searches later passes,
// and one that never finds them fails once Target.IndexWait has passed,
// naming the check. The examples, whose searches run on fresh fixtures too,
// pass both.
func TestSearchWaitsForTheIndex(t *testing.T) {
	const pattern = "^(reads|examples)$/^(searchItems|userTags)$"
	// logged returns what the test name logged.
	logged := func(t *testing.T, rep *conformance.Report, name string) string {
		var out []string
		for _, m := range find(t, rep, name).Messages {
			if m.Kind == conformance.LogMessage {
				out = append(out, m.Text)
			}
		}
		return strings.Join(out, "\n")
	}
	t.Run("emulator", func(t *testing.T) {
		// The emulator indexes at once: each search is sent once.
		p := portaltest.New(t)
		rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken}, pattern)
		for _, name := range []string{"reads/searchItems", "reads/userTags"} {
			wantStatus(t, rep, name, conformance.Passed)
			if log := logged(t, rep, name); strings.Contains(log, "found at read") || strings.Contains(log, "not found, read") {
				t.Errorf("%s: the emulator's reads were retried:\n%s", name, log)
			}
		}
	})
	t.Run("lagging", func(t *testing.T) {
		// Each new item is missing from the 3 searches after its addition:
		// the first three searches of the scenario miss both.
		p, base := proxied(t, faults.LaggingIndex(3))
		rep := runSuite(t, conformance.Target{BaseURL: base, AdminToken: p.AdminToken, MemberToken: p.MemberToken}, pattern)
		for _, name := range []string{"reads/searchItems", "examples/searchItems/count", "examples/searchItems/nothing", "examples/searchItems/badQuery"} {
			wantStatus(t, rep, name, conformance.Passed)
		}
		if rep.Failed() {
			t.Errorf("failures: %q", allErrors(rep.Root))
		}
		if log := logged(t, rep, "reads/searchItems"); !strings.Contains(log, "found at read 4") {
			t.Errorf("the scenario did not wait for the index:\n%s", log)
		}
	})
	t.Run("neverIndexed", func(t *testing.T) {
		p, base := proxied(t, faults.NeverIndexes)
		rep := runSuite(t, conformance.Target{BaseURL: base, AdminToken: p.AdminToken, MemberToken: p.MemberToken,
			IndexWait: 300 * time.Millisecond}, pattern)
		wantFailure(t, rep, "reads/searchItems", "search title:", "as its owner: ids [] (total 0), want [")
		wantFailure(t, rep, "reads/searchItems", "sorted by title, descending: ids [], want [")
		wantFailure(t, rep, "reads/searchItems", "the administrator's search", "total 0, want 2")
		wantStatus(t, rep, "examples/searchItems/count", conformance.Passed)
		if log := logged(t, rep, "reads/searchItems"); !strings.Contains(log, "not found, read") {
			t.Errorf("the scenario did not say it waited for the index:\n%s", log)
		}
	})
	t.Run("laggingTags", func(t *testing.T) {
		// Both new items are left out of the first 3 reads of the tags; the
		// 4th counts the new tag twice.
		p, base := proxied(t, faults.LaggingTags(3))
		rep := runSuite(t, conformance.Target{BaseURL: base, AdminToken: p.AdminToken, MemberToken: p.MemberToken}, pattern)
		wantStatus(t, rep, "reads/userTags", conformance.Passed)
		if log := logged(t, rep, "reads/userTags"); !strings.Contains(log, "found at read 4") {
			t.Errorf("the scenario did not wait for the tags:\n%s", log)
		}
	})
	t.Run("tagsNeverCounted", func(t *testing.T) {
		p, base := proxied(t, faults.LaggingTags(-1))
		rep := runSuite(t, conformance.Target{BaseURL: base, AdminToken: p.AdminToken, MemberToken: p.MemberToken,
			IndexWait: 300 * time.Millisecond}, pattern)
		wantFailure(t, rep, "reads/userTags", "getUserTags", "no \"")
		if log := logged(t, rep, "reads/userTags"); !strings.Contains(log, "not found, read") {
			t.Errorf("the scenario did not say it waited for the tags:\n%s", log)
		}
	})
	t.Run("negative", func(t *testing.T) {
		p := portaltest.New(t)
		rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, IndexWait: -time.Second}, pattern)
		wantFailure(t, rep, "", "IndexWait -1s: want a positive duration, or zero for 30s")
	})
}

// The sign-ins at the contract's other paths pass against a portal with a
// context in its address, rooted there (.../portal/sharing/oauth2/token).
// TestUsersFromTheirTokens: given tokens alone, the suite takes the
// administrator and the content owner to be their tokens' users, as
// community/self names them, not the demo organization's: here another
// organization's, whose names the fixtures do not know.
func TestUsersFromTheirTokens(t *testing.T) {
	p := portaltest.New(t)
	rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: portaltest.OtherAdminToken, MemberToken: portaltest.OtherUserToken},
		"^examples$/^(getSelf|getUserContent)$")
	if rep.Failed() {
		t.Fatalf("failures: %q", allErrors(rep.Root))
	}
	// The owner's content was read with the member's token: the owner is
	// the member.
	wantStatus(t, rep, "examples/getUserContent", conformance.Passed)
}

func TestAliasPaths(t *testing.T) {
	for _, context := range []string{"", "/portal"} {
		t.Run("context="+context, func(t *testing.T) {
			p := portaltest.New(t, portaltest.WithContext(context))
			rep := runSuite(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken}, "^aliasPaths$")
			for _, name := range []string{"aliasPaths/generateToken", "aliasPaths/codePKCE", "aliasPaths/tokenByGET", "aliasPaths/codeOutOfBandPython"} {
				wantStatus(t, rep, name, conformance.Passed)
			}
		})
	}
}

// Answers at the other paths are held to their operations' schemas: a
// portal whose token endpoints beside the REST root answer expires_in and
// expires as text fails there, and only there.
func TestAliasPathsValidated(t *testing.T) {
	p := portaltest.New(t, portaltest.WithContext("/portal"))
	root, err := url.Parse(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(root)
	proxy.ModifyResponse = func(resp *http.Response) error {
		path := strings.TrimSuffix(resp.Request.URL.Path, "/")
		if path != "/portal/sharing/oauth2/token" && path != "/portal/sharing/generateToken" {
			return nil
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		raw = regexp.MustCompile(`"(expires_in|expires)":(\d+)`).ReplaceAll(raw, []byte(`"$1":"$2"`))
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		resp.ContentLength = int64(len(raw))
		resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	rep := runSuite(t, conformance.Target{BaseURL: srv.URL + "/portal/sharing/rest", AdminToken: p.AdminToken, MemberToken: p.MemberToken},
		"^(aliasPaths|signIn)$")
	const schema = "the answer does not match the contract's response schema"
	wantFailure(t, rep, "aliasPaths/generateToken", "generateToken (POST /portal/sharing/generateToken): "+schema, "/expires")
	wantFailure(t, rep, "aliasPaths/codePKCE", "oauthToken (POST /portal/sharing/oauth2/token): "+schema, "/expires_in")
	wantFailure(t, rep, "aliasPaths/tokenByGET", "oauthToken (GET /portal/sharing/oauth2/token): "+schema, "/expires_in")
	wantFailure(t, rep, "aliasPaths/codeOutOfBandPython", "oauthToken (POST /portal/sharing/oauth2/token/): "+schema, "/expires_in")
	for _, name := range []string{"signIn/generateTokenPython", "signIn/codePKCE", "signIn/codeOutOfBandPython"} {
		wantStatus(t, rep, name, conformance.Passed)
	}
}
