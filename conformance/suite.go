package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
)

// Target is the portal under test.
type Target struct {
	// BaseURL is the REST root, such as http://127.0.0.1:8080/sharing/rest
	// or https://portal.example.org/portal/sharing/rest.
	BaseURL string
	// AdminToken is a token of an administrator of the organization
	// (org_admin). Username and Password may be given instead: the suite then
	// gets a token from generateToken.
	AdminToken string
	Username   string
	Password   string
	// MemberToken, optional, is a token of a member without administrative
	// privileges who owns content: the user User. Without it, examples sent
	// by a member run as the administrator on the administrator's own
	// content, and those that need a member without privileges are reported
	// as not run.
	MemberToken string
	// PortalID is the organization's id; empty or "self" means the
	// administrator's organization, resolved through the API.
	PortalID string
	// User is the owner of the content the suite creates: the member of
	// MemberToken when given (default: that token's user, as community/self
	// names it), otherwise the administrator (default: Username, or
	// AdminToken's user).
	User string
	// HTTPClient sends the requests; nil means a client with a 60 s timeout.
	// Its transport is wrapped, never modified.
	HTTPClient *http.Client
	// Version, such as 11.1, and Deployment, enterprise (self-hosted) or
	// online (hosted), describe the target: example pairs whose request
	// example names a later x-introduced-in, or x-deployments without this
	// deployment, are not run, by name. Empty, they are detected (Detect):
	// the release whose REST version (x-rest-versions) the target's
	// currentVersion is, and its portals/self's isPortal.
	Version    string
	Deployment string
	// ClientID and ClientSecret, optional, are the credentials of an
	// application registered in the organization (OAuth 2.0), for the
	// sign-in flows and examples that need one; RedirectURI is one of its
	// redirect URIs (default http://127.0.0.1/callback, a loopback address
	// the suite never opens: it reads the redirects, it does not follow
	// them). On the emulator's demo organization the examples' own
	// application (demo-app) is used.
	ClientID     string
	ClientSecret string
	RedirectURI  string
	// IndexWait bounds how long a check that searches for what the suite
	// has just written (or reads the owner's tags, which may be counted
	// from the same index) waits for the portal's search index: an ArcGIS
	// portal indexes items asynchronously, so searchItems may miss an item
	// added a moment before. Such a check reads again (after 100 ms, then
	// twice as long each time, at most 2 s apart) until it finds what it
	// must, or until IndexWait has passed since the write, and judges the
	// last answer. A portal that finds it at once is read once; a check
	// that something is not found never waits. Zero means 30 s.
	IndexWait time.Duration
}

// defaultRedirectURI is Target.RedirectURI when not given.
const defaultRedirectURI = "http://127.0.0.1/callback"

// defaultIndexWait is Target.IndexWait when not given.
const defaultIndexWait = 30 * time.Second

// Run runs the suite against target as subtests of t.
func Run(t *testing.T, target Target) {
	t.Helper()
	RunTB(WrapT(t), target)
}

// RunTB runs the suite against target as subtests of t. Use it with a
// Runner, or with your own TB, to collect the results instead of failing a
// go test.
func RunTB(t TB, target Target) {
	t.Helper()
	s, err := newSuite(t, target)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	if !s.setUp(t) {
		return
	}
	t.Run("examples", s.examples)
	t.Run("discovery", s.discoveryScenarios)
	t.Run("reads", s.readScenarios)
	t.Run("memberCategorySchema", s.schemaScenarios)
	t.Run("moveItems", s.moveScenarios)
	t.Run("moveItem", s.moveItemScenarios)
	t.Run("settings", s.settingsScenarios)
	t.Run("auth", s.authScenarios)
	t.Run("signIn", s.signInScenarios)
	t.Run("wrongCredentials", s.wrongCredentialScenarios)
	t.Run("aliasPaths", s.aliasScenarios)
	t.Run("client", s.clientScenarios)
	if len(s.skipped) > 0 {
		t.Logf("%d checks not run, for what the target lacks:\n  %s", len(s.skipped), strings.Join(s.skipped, "\n  "))
	}
}

// notRun reports t as not run, saying why, and counts it for the summary
// RunTB logs at the end.
func (s *suite) notRun(t TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.skipped = append(s.skipped, t.Name()+": "+why)
	s.mu.Unlock()
	t.Skip(why)
}

// overHTTPS reports whether the target's REST root is an https URL; scheme
// names it. A token's ssl says so.
func (s *suite) overHTTPS() bool { return strings.HasPrefix(s.base, "https:") }

func (s *suite) scheme() string {
	if s.overHTTPS() {
		return "HTTPS"
	}
	return "HTTP"
}

// suite is one run against one target.
type suite struct {
	target Target
	base   string
	doc    *openapi3.T
	http   *http.Client
	ops    map[string]*operation
	order  []*operation
	pairs  map[string]*pair
	fix    fixtureSpec
	runID  string
	serial int

	table    []release  // x-rest-versions
	detected *Detection // what the target said it is, when not given
	root     string     // the portal's address: the REST root without /sharing/rest
	// pages sends what a browser would, reading redirects without
	// following them.
	pages *http.Client

	adminToken  string
	memberToken string // "" when the target gave none
	memberAdmin bool   // the member token belongs to an administrator
	adminUser   string
	owner       string // the content owner
	portalID    string
	profile     map[string]any // the owner's fullName and role, as read at start

	mu            sync.Mutex
	skipped       []string          // "name: reason" of the checks not run
	groups        map[string]string // example group id -> why the target does not hold it ("" when it does)
	wrongSent     map[string]bool   // user names sent a wrong password in this run
	settingsDirty bool
	schemaDirty   bool
}

func newSuite(t TB, target Target) (*suite, error) {
	base := strings.TrimRight(target.BaseURL, "/")
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("BaseURL %q: want an absolute http(s) URL ending in /sharing/rest", target.BaseURL)
	}
	if target.AdminToken == "" && (target.Username == "" || target.Password == "") {
		return nil, fmt.Errorf("give AdminToken, or Username and Password")
	}
	if target.Version != "" {
		if _, ok := parseVersion(target.Version); !ok {
			return nil, fmt.Errorf("target version %q: want major.minor, such as 11.1", target.Version)
		}
	}
	if d := target.Deployment; d != "" && d != "enterprise" && d != "online" {
		return nil, fmt.Errorf("target deployment %q: want enterprise or online", d)
	}
	if target.IndexWait < 0 {
		return nil, fmt.Errorf("target IndexWait %s: want a positive duration, or zero for %s", target.IndexWait, defaultIndexWait)
	}
	doc, err := portalapi.LoadFor(base)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Timeout: 60 * time.Second}
	if target.HTTPClient != nil {
		c := *target.HTTPClient
		hc = &c
	}
	v, err := newValidator(doc, hc.Transport)
	if err != nil {
		return nil, err
	}
	v.orphan = func(p string) { t.Errorf("%s", p) }
	hc.Transport = v
	id := make([]byte, 3)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	s := &suite{
		target:        target,
		base:          base,
		doc:           doc,
		http:          hc,
		runID:         hex.EncodeToString(id),
		settingsDirty: true,
		schemaDirty:   true,
	}
	if err := s.loadOperations(); err != nil {
		return nil, err
	}
	if s.table, err = restVersions(doc); err != nil {
		return nil, err
	}
	s.root = strings.TrimSuffix(base, restRoot)
	pages := *hc
	pages.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.pages = &pages
	if s.fix, err = loadFixtures(doc); err != nil {
		return nil, err
	}
	return s, nil
}

// loadOperations indexes the contract's operations and example pairs.
func (s *suite) loadOperations() error {
	s.ops = map[string]*operation{}
	s.pairs = map[string]*pair{}
	for _, path := range s.doc.Paths.InMatchingOrder() {
		item := s.doc.Paths.Value(path)
		base, err := besideRoot(s.base, item)
		if err != nil {
			return err
		}
		for method, op := range item.Operations() {
			o := &operation{id: op.OperationID, method: method, path: path, base: base, op: op}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				o.form = op.RequestBody.Value.Content.Get("application/x-www-form-urlencoded")
			}
			s.ops[o.id] = o
			s.order = append(s.order, o)
		}
	}
	sort.Slice(s.order, func(i, j int) bool { return s.order[i].id < s.order[j].id })
	for _, o := range s.order {
		pairs, err := loadPairs(o)
		if err != nil {
			return err
		}
		o.pairs = pairs
		for _, p := range pairs {
			s.pairs[o.id+"/"+p.name] = p
		}
	}
	for _, need := range []string{"updateSettings", "getSettings", "assignMemberCategorySchema", "getMemberCategorySchema",
		"deleteMemberCategorySchema", "moveItems", "getUserContent", "getFolderContent", "getItem", "createFolder",
		"addItem", "addItemToFolder", "deleteItems", "deleteFolder", "generateToken", "getMember", "updateMember", "listMembers",
		"getRoot", "getInfo", "getPortal", "getSelf", "listRoles", "moveItem", "moveItemFromFolder",
		"oauthAuthorize", "oauthSignIn", "oauthApproval", "oauthToken", "oauthRevokeToken"} {
		if s.ops[need] == nil {
			return fmt.Errorf("the contract has no operation %s", need)
		}
	}
	return nil
}

// noteWrite remembers that organization-wide state may have changed, so
// that the next example starts from fresh state again.
func (s *suite) noteWrite(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch op {
	case "updateSettings":
		s.settingsDirty = true
	case "assignMemberCategorySchema", "deleteMemberCategorySchema", "updateMember":
		s.schemaDirty = true
	}
}

// setUp resolves who is who on the target and snapshots the state the suite
// changes, registering its restoration. It reports false when the suite
// cannot go on.
func (s *suite) setUp(t TB) bool {
	t.Helper()
	tg := s.target
	s.adminToken = tg.AdminToken
	if s.adminToken == "" {
		a := s.call(t, "generateToken", "", nil, map[string]any{
			"username": tg.Username, "password": tg.Password, "expiration": 120.0, "f": "json"})
		body := ok(t, "generateToken for "+tg.Username, a)
		s.adminToken, _ = body["token"].(string)
		if s.adminToken == "" {
			t.Fatalf("generateToken for %s: no token in %s", tg.Username, clip(a.raw, 200))
		}
	}

	if tg.Version == "" || tg.Deployment == "" {
		d, err := detect(s.ctx(t), s.http, s.base, s.adminToken, s.table)
		if err != nil {
			t.Fatalf("cannot tell which release and deployment the target is (give them: -version and -deployment with the conformance command, Target.Version and Target.Deployment in Go): %v", err)
		}
		s.detected = &d
		if tg.Version == "" {
			s.target.Version = d.Version
		}
		if tg.Deployment == "" {
			s.target.Deployment = d.Deployment
		}
		t.Logf("target: %s, detected; checked as release %s, deployment %s (-version and -deployment, or Target.Version and Target.Deployment, when given, win)",
			d, s.target.Version, s.target.Deployment)
	}

	s.portalID = tg.PortalID
	if s.portalID == "" || s.portalID == "self" {
		// portals/self names the caller's organization on every portal.
		body := s.readPortal(t, s.adminToken, "the administrator (to resolve portalId self)")
		id, _ := body["id"].(string)
		if id == "" {
			t.Fatalf("cannot resolve the organization id from portals/self: %s", clip([]byte(jsonText(body)), 300))
		}
		s.portalID = id
	}

	s.memberToken = tg.MemberToken
	s.adminUser = tg.Username
	if s.adminUser == "" && s.memberToken == "" {
		s.adminUser = tg.User
	}
	if s.adminUser == "" {
		s.adminUser = s.selfName(t, s.adminToken)
	}
	if s.adminUser == "" {
		s.adminUser = s.fix.admin
	}
	s.owner = tg.User
	if s.owner == "" && s.memberToken != "" {
		s.owner = s.selfName(t, s.memberToken)
	}
	if s.owner == "" {
		if s.memberToken != "" {
			s.owner = s.fix.member
		} else {
			s.owner = s.adminUser
		}
	}

	a := s.call(t, "getMember", s.adminToken, map[string]any{"userName": s.owner}, nil)
	if a.err != nil {
		t.Fatalf("the content owner %q is not readable by the administrator (set Target.User): %s", s.owner, a.err)
	}
	s.profile = map[string]any{"fullName": a.body["fullName"], "role": a.body["role"]}
	if s.memberToken != "" {
		a := s.call(t, "getUserContent", s.memberToken, map[string]any{"userName": s.owner, "num": 1.0}, nil)
		if a.err != nil {
			t.Fatalf("MemberToken cannot read the content of %q, so it is not that user's token (set Target.User): %s", s.owner, a.err)
		}
		if a.body["username"] != nil && a.body["username"] != s.owner {
			t.Fatalf("MemberToken reads content of %v, want %s", a.body["username"], s.owner)
		}
		if s.profile["role"] == "org_admin" {
			s.memberAdmin = true
			t.Logf("the member %s is an org_admin: checks that need a member without privileges are not run", s.owner)
		}
	}
	if s.memberToken != "" && tg.Username == "" && s.adminUser != s.owner {
		// The administrator's name was not given: check that it names a
		// default administrator.
		a := s.call(t, "getMember", s.adminToken, map[string]any{"userName": s.adminUser}, nil)
		// A custom role granting administrative privileges is reported as
		// org_admin too: the default administrator holds no roleId.
		if a.err != nil || a.body["role"] != "org_admin" || a.body["roleId"] != nil {
			t.Logf("the administrator's user name is unknown here (%s is no default administrator; set Target.Username): checks on another user's content are not run", s.adminUser)
			s.adminUser = ""
		}
	}
	t.Logf("target %s: organization %s, administrator %s, content owner %s, member token: %t, run %s",
		s.base, s.portalID, s.adminUser, s.owner, s.memberToken != "", s.runID)

	snap := s.snapshot(t)
	t.Cleanup(func() { s.restore(t, snap) })
	return !t.Failed()
}

// selfName is the user name token signs in as (community/self), "" when
// the portal does not say.
func (s *suite) selfName(t TB, token string) string {
	t.Helper()
	a := s.call(t, "getSelf", token, nil, nil)
	if a.err != nil {
		return ""
	}
	name, _ := a.body["username"].(string)
	return name
}

// hasMember reports whether a member without administrative privileges is
// available.
func (s *suite) hasMember() bool { return s.memberToken != "" && !s.memberAdmin }

// ownerToken is the token acting as the content owner.
func (s *suite) ownerToken() string {
	if s.memberToken != "" {
		return s.memberToken
	}
	return s.adminToken
}

// uniqueTitle returns title with a prefix unique to this run and call, so
// that the suite never meets content it did not create.
func (s *suite) uniqueTitle(title string) string {
	s.mu.Lock()
	s.serial++
	n := s.serial
	s.mu.Unlock()
	return fmt.Sprintf("conformance-%s-%d %s", s.runID, n, title)
}

// snapshotState is what the suite changes and puts back.
type snapshotState struct {
	settings   map[string]any // the four settings, as read
	schema     []any
	categories map[string][]string // members holding categories
}

var settingsKeys = []string{"anonymousAccessNotice", "authenticatedAccessNotice", "informationalBanner", "portalConfigProperties"}

func (s *suite) readSettings(t TB) map[string]any {
	t.Helper()
	a := s.call(t, "getSettings", s.adminToken, map[string]any{"portalId": s.portalID}, nil)
	body := ok(t, "getSettings", a)
	out := map[string]any{}
	for _, k := range settingsKeys {
		if v, ok := body[k]; ok && v != nil {
			if m, isMap := v.(map[string]any); isMap && len(m) == 0 && k == "portalConfigProperties" {
				continue // no properties and none returned mean the same
			}
			out[k] = v
		}
	}
	return out
}

func (s *suite) readSchema(t TB) []any {
	t.Helper()
	a := s.call(t, "getMemberCategorySchema", s.adminToken, map[string]any{"portalId": s.portalID}, nil)
	body := ok(t, "getMemberCategorySchema", a)
	list, _ := body["memberCategorySchema"].([]any)
	return list
}

func (s *suite) readCategories(t TB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for start := 1.0; start > 0; {
		a := s.call(t, "listMembers", s.adminToken, map[string]any{"portalId": s.portalID, "start": start, "num": 100.0}, nil)
		body := ok(t, "listMembers", a)
		var page struct {
			NextStart float64 `json:"nextStart"`
			Users     []struct {
				Username   string   `json:"username"`
				Categories []string `json:"categories"`
			} `json:"users"`
		}
		if err := decode(body, &page); err != nil {
			t.Fatalf("listMembers: %v", err)
		}
		for _, u := range page.Users {
			if len(u.Categories) > 0 {
				out[u.Username] = u.Categories
			}
		}
		if page.NextStart <= start {
			break
		}
		start = page.NextStart
	}
	return out
}

func (s *suite) snapshot(t TB) snapshotState {
	t.Helper()
	return snapshotState{settings: s.readSettings(t), schema: s.readSchema(t), categories: s.readCategories(t)}
}

// restore writes back what snapshot read, and checks it took.
func (s *suite) restore(t TB, snap snapshotState) {
	t.Helper()
	s.writeSettings(t, snap.settings)
	if got := s.readSettings(t); !jsonEqual(got, snap.settings) {
		t.Errorf("restoring the settings failed: before the suite %s, now %s", jsonText(snap.settings), jsonText(got))
	}
	if cur := s.readSchema(t); !jsonEqual(cur, snap.schema) {
		if len(snap.schema) == 0 {
			ok(t, "deleteMemberCategorySchema (restoring: none existed)", s.call(t, "deleteMemberCategorySchema", s.adminToken,
				map[string]any{"portalId": s.portalID}, map[string]any{"f": "json"}))
		} else {
			ok(t, "assignMemberCategorySchema (restoring)", s.call(t, "assignMemberCategorySchema", s.adminToken,
				map[string]any{"portalId": s.portalID}, map[string]any{"memberCategorySchema": map[string]any{"memberCategorySchema": snap.schema}}))
		}
		if got := s.readSchema(t); !jsonEqual(got, snap.schema) {
			t.Errorf("restoring the member category schema failed: before %s, now %s", jsonText(snap.schema), jsonText(got))
		}
	}
	cur := s.readCategories(t)
	for user, want := range snap.categories {
		if reflect.DeepEqual(cur[user], want) {
			continue
		}
		a := s.call(t, "updateMember", s.adminToken, map[string]any{"userName": user}, map[string]any{"categories": want})
		if a.err != nil {
			t.Errorf("restoring the categories of %s failed: %s", user, a.err)
		}
	}
	for user, got := range cur {
		if _, had := snap.categories[user]; !had && len(got) > 0 {
			a := s.call(t, "updateMember", s.adminToken, map[string]any{"userName": user}, map[string]any{"categories": []any{}})
			if a.err != nil {
				t.Errorf("restoring the categories of %s (none) failed: %s", user, a.err)
			}
		}
	}
}

// writeSettings makes the four settings equal to want: a setting absent
// from want is cleared, portalConfigProperties keys absent from want are
// removed.
func (s *suite) writeSettings(t TB, want map[string]any) {
	t.Helper()
	cur := s.readSettings(t)
	if jsonEqual(cur, want) {
		return
	}
	body := map[string]any{"clearEmptyFields": true}
	for _, k := range settingsKeys[:3] {
		if v, ok := want[k]; ok {
			body[k] = v
		} else if _, ok := cur[k]; ok {
			body[k] = map[string]any{}
		}
	}
	curProps, _ := cur["portalConfigProperties"].(map[string]any)
	wantProps, _ := want["portalConfigProperties"].(map[string]any)
	props := map[string]any{}
	for k := range curProps {
		if _, keep := wantProps[k]; !keep {
			props[k] = nil
		}
	}
	for k, v := range wantProps {
		if !jsonEqual(curProps[k], v) {
			props[k] = v
		}
	}
	if len(props) > 0 {
		body["portalConfigProperties"] = props
	}
	if len(body) == 1 {
		return
	}
	a := s.call(t, "updateSettings", s.adminToken, map[string]any{"portalId": s.portalID}, body)
	if a.err != nil {
		t.Errorf("writing the settings %s failed: %s", jsonText(want), a.err)
	}
}

// freshOrg puts the organization-wide state back to that of the fixtures
// (no settings, no member category schema) when the suite may have changed
// it; the state found before the suite is restored at its end.
func (s *suite) freshOrg(t TB) {
	t.Helper()
	s.mu.Lock()
	settings, schema := s.settingsDirty, s.schemaDirty
	s.mu.Unlock()
	if settings {
		s.writeSettings(t, map[string]any{})
		if got := s.readSettings(t); len(got) > 0 {
			t.Fatalf("cannot clear the settings before the example: they read %s", jsonText(got))
		}
	}
	if schema {
		if len(s.readSchema(t)) > 0 {
			ok(t, "deleteMemberCategorySchema (fresh state)", s.call(t, "deleteMemberCategorySchema", s.adminToken,
				map[string]any{"portalId": s.portalID}, map[string]any{"f": "json"}))
		}
	}
	s.mu.Lock()
	s.settingsDirty, s.schemaDirty = false, false
	s.mu.Unlock()
}
