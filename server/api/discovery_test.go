package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	portalapi "github.com/orgportal/portal-api"
	pt "github.com/orgportal/portal-api/portaltest"
)

// getAs sends a GET to the API with a Host header of the client's choosing
// ("" keeps the server's address).
func getAs(t *testing.T, p *pt.Portal, host, path, token string) answer {
	t.Helper()
	q := url.Values{}
	if token != "" {
		q.Set("token", token)
	}
	req, _ := http.NewRequest(http.MethodGet, p.URL+path+"?"+q.Encode(), nil)
	if host != "" {
		req.Host = host
	}
	return do(t, req)
}

// restVersions is getRoot's x-rest-versions: release -> REST version.
func restVersions(t *testing.T) map[string]string {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	table, err := portalapi.RESTVersions(doc)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// TestRoot: the REST root answers the REST API's version of the emulated
// release, at sharing/rest and sharing/rest/, by GET and POST; a release
// older than every one listed answers the first release's; enterpriseVersion
// comes from 11.3 on, on self-hosted portals only.
func TestRoot(t *testing.T) {
	table := restVersions(t)
	for _, c := range []struct {
		version, deployment string
		rest, enterprise    string // enterprise "" when absent
	}{
		{"10.7", "enterprise", "8.1", ""},
		{"10.8", "enterprise", "8.1", ""},
		{"11.0", "enterprise", "10.1", ""},
		{"11.1", "enterprise", "10.3", ""},
		{"11.2", "enterprise", "2023.2", ""},
		{"11.3", "enterprise", "2024.1", "11.3.0"},
		{"11.5", "enterprise", "2025.1", "11.5.0"},
		{"11.3", "online", "2024.1", ""},
		{"11.5", "online", "2025.1", ""},
	} {
		t.Run(c.version+"/"+c.deployment, func(t *testing.T) {
			if listed, ok := table[c.version]; ok && listed != c.rest {
				t.Fatalf("openapi.yaml lists %s for %s; this test says %s", listed, c.version, c.rest)
			}
			p := pt.New(t, pt.WithVersion(c.version), pt.WithDeployment(c.deployment))
			want := `{"currentVersion":"` + c.rest + `"}`
			if c.enterprise != "" {
				want = `{"currentVersion":"` + c.rest + `","enterpriseVersion":"` + c.enterprise + `"}`
			}
			for _, a := range []answer{
				get(t, p, "", "", nil),
				get(t, p, "/", "", form("f", "json")),
				post(t, p, "", "", nil),
				post(t, p, "/", pt.MemberToken, nil),
			} {
				if got := strings.TrimSpace(ok(t, a).raw); got != want {
					t.Errorf("root answered %s, want %s", got, want)
				}
			}
			// The portal resource carries the same version.
			if v := ok(t, get(t, p, "/portals/self", "", nil)).body["currentVersion"]; v != c.rest {
				t.Errorf("portals/self currentVersion %v, want %s", v, c.rest)
			}
		})
	}
}

// TestInfoFollowsTheRequest: info's URLs are the portal's as the client
// reached it: scheme, host (the Host header, when it names the server),
// port and context. A Host naming another server decides nothing: the URLs
// name the listener.
func TestInfoFollowsTheRequest(t *testing.T) {
	for _, ctxSeg := range []string{"", "/portal"} {
		t.Run("context="+ctxSeg, func(t *testing.T) {
			p := pt.New(t, pt.WithContext(ctxSeg), pt.WithHosts("portal.example.org"))
			origin := strings.TrimSuffix(p.URL, ctxSeg+"/sharing/rest")
			for _, c := range []struct{ host, origin string }{
				{"", origin},
				{"portal.example.org:8443", "http://portal.example.org:8443"},
				{"[::1]:7080", "http://[::1]:7080"},
				{"evil.example:8443", origin},
				{"192.0.2.7", origin},
			} {
				a := ok(t, getAs(t, p, c.host, "/info", pt.MemberToken)) // a token is taken, and ignored
				want := `{"authInfo":{"isTokenBasedSecurity":true,"tokenServicesUrl":"` + c.origin + ctxSeg +
					`/sharing/rest/generateToken"},"owningSystemUrl":"` + c.origin + ctxSeg + `"}`
				if got := strings.TrimSpace(a.raw); got != want {
					t.Errorf("Host %q: info %s, want %s", c.host, got, want)
				}
				if h := a.header.Get("WWW-Authenticate"); h != "" {
					t.Errorf("info sends WWW-Authenticate %q: the ArcGIS API for Python would leave built-in sign-in", h)
				}
				self := ok(t, getAs(t, p, c.host, "/portals/self", ""))
				if want := strings.TrimPrefix(c.origin, "http://") + ctxSeg; self.body["portalHostname"] != want {
					t.Errorf("Host %q: portalHostname %v, want %s", c.host, self.body["portalHostname"], want)
				}
			}
			// What the info says works: its generateToken signs in.
			info := ok(t, get(t, p, "/info", "", nil))
			tokenURL := info.body["authInfo"].(map[string]any)["tokenServicesUrl"].(string)
			resp, err := http.PostForm(tokenURL, form("username", pt.Member, "password", pt.MemberPassword, "f", "json"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("POST %s: HTTP %d", tokenURL, resp.StatusCode)
			}
		})
	}
}

// Keys of the portal resource only members of the organization see.
var memberPortalKeys = []string{"user", "hasMemberCategorySchema"}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestPortalSelf: anonymously, the default organization without the
// members' fields; as a member, the member's organization with the member
// (community/self's document) and hasMemberCategorySchema, which follows
// the schema as it is assigned and deleted; by id, the member view of one's
// own organization and the anonymous view of another; an unknown id is the
// portal's not-found.
func TestPortalSelf(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		anon := ok(t, get(t, p, "/portals/self", "", nil))
		if got, want := strings.Join(keysOf(anon.body), ","), "access,allSSL,allowedRedirectUris,authorizedCrossOriginDomains,currentVersion,defaultExtent,helperServices,id,isPortal,maxTokenExpirationMinutes,name,portalHostname,portalMode,portalName,supportsOAuth"; got != want {
			t.Errorf("anonymous portals/self keys %s, want %s", got, want)
		}
		if anon.body["id"] != pt.OrgID || anon.body["name"] != "Demo Organization" || anon.body["portalName"] != "ArcGIS Enterprise" ||
			anon.body["isPortal"] != true || anon.body["portalMode"] != "singletenant" || anon.body["allSSL"] != false || anon.body["supportsOAuth"] != true {
			t.Errorf("anonymous portals/self: %s", anon.raw)
		}

		self := ok(t, get(t, p, "/portals/self", pt.MemberToken, nil))
		me := ok(t, get(t, p, "/community/self", pt.MemberToken, nil))
		if got := js(self.body["user"]); got != js(me.body) {
			t.Errorf("portals/self user %s, community/self %s", got, js(me.body))
		}
		for _, k := range keysOf(anon.body) {
			if js(self.body[k]) != js(anon.body[k]) {
				t.Errorf("%s: member sees %v, anonymous %v", k, self.body[k], anon.body[k])
			}
		}
		hasSchema := func() any {
			return ok(t, get(t, p, "/portals/self", pt.MemberToken, nil)).body["hasMemberCategorySchema"]
		}
		if got := hasSchema(); got != false {
			t.Errorf("hasMemberCategorySchema before any schema: %v", got)
		}
		ok(t, assign(t, p, pt.AdminToken, chain(2)))
		if got := hasSchema(); got != true {
			t.Errorf("hasMemberCategorySchema after assign: %v", got)
		}
		ok(t, post(t, p, hDelSchema, pt.CatAdminToken, nil))
		if got := hasSchema(); got != false {
			t.Errorf("hasMemberCategorySchema after delete: %v", got)
		}

		// By id: one's own organization is the member view.
		byID := ok(t, get(t, p, "/portals/"+pt.OrgID, pt.MemberToken, nil))
		if byID.raw != ok(t, get(t, p, "/portals/self", pt.MemberToken, nil)).raw {
			t.Errorf("portals/%s %s differs from portals/self", pt.OrgID, byID.raw)
		}
		// Another organization's: its anonymous view.
		other := ok(t, get(t, p, "/portals/"+pt.OtherOrgID, pt.MemberToken, nil))
		if other.body["id"] != pt.OtherOrgID || other.body["name"] != "Other Organization" {
			t.Errorf("portals/%s: %s", pt.OtherOrgID, other.raw)
		}
		for _, k := range memberPortalKeys {
			if _, shown := other.body[k]; shown {
				t.Errorf("another organization's portal shows %s to jsmith: %s", k, other.raw)
			}
		}
		// The other organization's member reads its own as self.
		theirs := ok(t, get(t, p, "/portals/self", pt.OtherUserToken, nil))
		if theirs.body["id"] != pt.OtherOrgID || theirs.body["user"].(map[string]any)["username"] != "otheruser" {
			t.Errorf("otheruser's portals/self: %s", theirs.raw)
		}
		fails(t, get(t, p, "/portals/FFFFFFFFFFFFFFFF", pt.MemberToken, nil), 400, "Portal does not exist or is inaccessible.")
		fails(t, get(t, p, "/portals/FFFFFFFFFFFFFFFF", "", nil), 400, "Portal does not exist or is inaccessible.")
		fails(t, get(t, p, "/portals/self", "bogus", nil), 498, "Invalid token.")
	})
}

// TestPortalOnline: the hosted deployment names itself ArcGIS Online, in
// multitenant mode, with its organization's urlKey and customBaseUrl.
func TestPortalOnline(t *testing.T) {
	p := pt.New(t, pt.WithDeployment("online"))
	for _, token := range []string{"", pt.MemberToken} {
		a := ok(t, get(t, p, "/portals/self", token, nil))
		if a.body["portalName"] != "ArcGIS Online" || a.body["isPortal"] != false || a.body["portalMode"] != "multitenant" ||
			a.body["urlKey"] != "demoorganization" || a.body["customBaseUrl"] != "maps.arcgis.com" {
			t.Errorf("online portals/self (token %q): %s", token, a.raw)
		}
	}
	// A self-hosted portal has neither.
	e := ok(t, get(t, pt.New(t), "/portals/self", pt.MemberToken, nil))
	for _, k := range []string{"urlKey", "customBaseUrl"} {
		if _, shown := e.body[k]; shown {
			t.Errorf("a self-hosted portal answers %s: %s", k, e.raw)
		}
	}
}

var userID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestUserDocuments: community/self and getMember answer one document per
// user: an id of 32 hex digits, the same in both and on every portal (it
// survives a reset); roleId only for a custom role, whose role is the
// built-in one its privileges amount to; the role's privileges; the
// creation time.
func TestUserDocuments(t *testing.T) {
	start := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	p := pt.New(t, pt.WithClock(func() time.Time { return start }))
	self := func(token string) answer { return ok(t, get(t, p, "/community/self", token, nil)) }
	member := func(u string) answer { return ok(t, get(t, p, "/community/users/"+u, pt.AdminToken, nil)) }

	ids := map[string]string{}
	for _, c := range []struct {
		user, token, role, roleID string
		privileges                []string // a subset of what the role grants
		not                       string   // a privilege the role lacks
	}{
		{pt.Member, pt.MemberToken, "org_user", "", []string{"portal:user:createItem"}, "portal:admin:updateItems"},
		{pt.Admin, pt.AdminToken, "org_admin", "", []string{"portal:admin:manageSecurity", "portal:admin:updateItems", "portal:admin:updateMemberCategorySchema"}, ""},
		{"viewer", pt.ViewerToken, "org_user", "viewer", []string{"portal:user:joinGroup"}, "portal:user:createItem"},
		{"contentadmin", pt.ContentAdminToken, "org_admin", "contentAdmin", []string{"portal:admin:updateItems", "portal:admin:deleteItems", "portal:admin:viewItems", "portal:admin:updateUsers"}, "portal:admin:manageSecurity"},
	} {
		s, m := self(c.token), member(c.user)
		if s.raw != m.raw {
			t.Errorf("%s: community/self %s, community/users %s", c.user, s.raw, m.raw)
		}
		id, _ := s.body["id"].(string)
		if !userID.MatchString(id) {
			t.Errorf("%s: id %q, want 32 lowercase hex digits", c.user, id)
		}
		for u, other := range ids {
			if other == id {
				t.Errorf("%s and %s share the id %s", c.user, u, id)
			}
		}
		ids[c.user] = id
		if s.body["username"] != c.user || s.body["orgId"] != pt.OrgID {
			t.Errorf("%s: %s", c.user, s.raw)
		}
		if s.body["role"] != c.role {
			t.Errorf("%s: role %v, want %s", c.user, s.body["role"], c.role)
		}
		roleID, has := s.body["roleId"]
		switch {
		case c.roleID == "" && has:
			t.Errorf("%s has a built-in role, yet roleId %v", c.user, roleID)
		case c.roleID != "" && roleID != c.roleID:
			t.Errorf("%s: roleId %v, want %s", c.user, roleID, c.roleID)
		}
		var privs []string
		for _, x := range s.body["privileges"].([]any) {
			privs = append(privs, x.(string))
		}
		for _, want := range c.privileges {
			if !slices.Contains(privs, want) {
				t.Errorf("%s: privileges %v lack %s", c.user, privs, want)
			}
		}
		if c.not != "" && slices.Contains(privs, c.not) {
			t.Errorf("%s: privileges %v hold %s", c.user, privs, c.not)
		}
		if c.roleID == "viewer" && len(privs) != 1 {
			t.Errorf("viewer's privileges %v, want its role's one", privs)
		}
		created, _ := s.body["created"].(float64)
		if at := time.UnixMilli(int64(created)); at.After(start) || at.Before(start.Add(-time.Minute)) {
			t.Errorf("%s: created %v, want the seeding time %v", c.user, at, start)
		}
	}
	// Stable: after a reset, and on another portal.
	p.Reset(t)
	if got := self(pt.MemberToken).body["id"]; got != ids[pt.Member] {
		t.Errorf("jsmith's id after a reset: %v, was %s", got, ids[pt.Member])
	}
	if got := ok(t, get(t, pt.New(t), "/community/self", pt.MemberToken, nil)).body["id"]; got != ids[pt.Member] {
		t.Errorf("jsmith's id on another portal: %v, was %s", got, ids[pt.Member])
	}
	fails(t, get(t, p, "/community/self", "", nil), 499, "Token Required.")
	fails(t, get(t, p, "/community/self", "bogus", nil), 498, "Invalid token.")
}

// TestListRoles: the organization's custom roles, by id, paged; any member
// may list them, nobody else.
func TestListRoles(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		list := func(path, token string, kv ...string) answer {
			return get(t, p, path, token, form(kv...))
		}
		names := func(a answer) string {
			var out []string
			for _, r := range ok(t, a).body["roles"].([]any) {
				m := r.(map[string]any)
				if m["name"] != m["id"] {
					t.Errorf("role %v: name differs from id", m)
				}
				out = append(out, m["id"].(string))
			}
			return strings.Join(out, ",")
		}
		all := list("/portals/self/roles", pt.MemberToken)
		if got := names(all); got != "categoryAdmin,contentAdmin,securityAdmin,viewer" {
			t.Errorf("roles %s", got)
		}
		if all.body["total"] != 4.0 || all.body["nextStart"] != -1.0 {
			t.Errorf("one page of all: %s", all.raw)
		}
		p1 := list("/portals/self/roles", pt.ViewerToken, "num", "3")
		if names(p1) != "categoryAdmin,contentAdmin,securityAdmin" || p1.body["nextStart"] != 4.0 {
			t.Errorf("first page of 3: %s", p1.raw)
		}
		p2 := list("/portals/"+pt.OrgID+"/roles", pt.MemberToken, "start", "4", "num", "3")
		if names(p2) != "viewer" || p2.body["nextStart"] != -1.0 || p2.body["start"] != 4.0 {
			t.Errorf("second page: %s", p2.raw)
		}
		count := list("/portals/self/roles", pt.MemberToken, "num", "0")
		if names(count) != "" || count.body["total"] != 4.0 || count.body["nextStart"] != -1.0 {
			t.Errorf("num=0: %s", count.raw)
		}
		if past := list("/portals/self/roles", pt.MemberToken, "start", "9"); names(past) != "" || past.body["nextStart"] != -1.0 {
			t.Errorf("past the end: %s", past.raw)
		}
		// An organization without custom roles lists none.
		if theirs := list("/portals/self/roles", pt.OtherUserToken); names(theirs) != "" || theirs.body["total"] != 0.0 {
			t.Errorf("the other organization's roles: %s", theirs.raw)
		}
		fails(t, list("/portals/self/roles", ""), 499, "Token Required.")
		fails(t, list("/portals/"+pt.OrgID+"/roles", ""), 499, "Token Required.")
		fails(t, list("/portals/"+pt.OrgID+"/roles", pt.OtherAdminToken), 403, "GWM_0003")
		fails(t, list("/portals/FFFFFFFFFFFFFFFF/roles", pt.MemberToken), 400, "Portal does not exist")
		// As the ArcGIS API for Python asks for them: a form POST.
		if got := names(post(t, p, "/portals/self/roles", pt.MemberToken, form("f", "json", "start", "1", "num", "100"))); got != "categoryAdmin,contentAdmin,securityAdmin,viewer" {
			t.Errorf("roles by POST: %s", got)
		}
	})
}

// TestDoubleSlash: the ArcGIS API for Python writes //sharing/rest/ for a
// portal without a context; it is served as /sharing/rest/.
func TestDoubleSlash(t *testing.T) {
	for _, ctxSeg := range []string{"", "/portal"} {
		p := pt.New(t, pt.WithContext(ctxSeg))
		root := strings.TrimSuffix(p.URL, ctxSeg+"/sharing/rest")
		for _, path := range []string{"//sharing/rest/info", "//sharing/rest/", "///sharing/rest/portals/self"} {
			req, _ := http.NewRequest(http.MethodGet, root+strings.Replace(path, "/sharing", ctxSeg+"/sharing", 1)+"?f=json&token="+pt.MemberToken, nil)
			a := do(t, req)
			want := ok(t, get(t, p, strings.TrimPrefix(strings.TrimLeft(path, "/"), "sharing/rest"), pt.MemberToken, nil))
			if a.status != 200 || a.raw != want.raw {
				t.Errorf("context %q, GET %s: %d %s, want %s", ctxSeg, path, a.status, a.raw, want.raw)
			}
		}
		req, _ := http.NewRequest(http.MethodPost, root+"//"+strings.TrimPrefix(ctxSeg+"/sharing/rest/content/users/jsmith/items/"+pt.RoadsItem+"/move", "/"),
			strings.NewReader(form("folder", pt.ArchiveFolder, "token", pt.MemberToken).Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		ok(t, do(t, req))
		if folderOf(t, p, pt.RoadsItem) != pt.ArchiveFolder {
			t.Errorf("context %q: the move by //sharing/rest did not move the item", ctxSeg)
		}
	}
}

// TestMemberListRoles: the member list reports each member's role as the
// user resource does, roleId included for a custom role (the ArcGIS API for
// Python takes a listed member's role as its roleId when roleId is absent).
func TestMemberListRoles(t *testing.T) {
	p := pt.New(t)
	a := ok(t, get(t, p, schemaPath+"/users", pt.AdminToken, form("num", "100")))
	seen := map[string]bool{}
	for _, x := range a.body["users"].([]any) {
		listed := x.(map[string]any)
		name := listed["username"].(string)
		doc := ok(t, get(t, p, "/community/users/"+name, pt.AdminToken, nil)).body
		if listed["role"] != doc["role"] || listed["roleId"] != doc["roleId"] {
			t.Errorf("%s: listed with role %v, roleId %v; its user resource says %v, %v", name, listed["role"], listed["roleId"], doc["role"], doc["roleId"])
		}
		seen[name] = true
	}
	for name, want := range map[string][2]any{"viewer": {"org_user", "viewer"}, "contentadmin": {"org_admin", "contentAdmin"}, "secadmin": {"org_admin", "securityAdmin"}, pt.Admin: {"org_admin", nil}} {
		if !seen[name] {
			t.Errorf("%s is not listed", name)
			continue
		}
		for _, x := range a.body["users"].([]any) {
			if u := x.(map[string]any); u["username"] == name && (u["role"] != want[0] || u["roleId"] != want[1]) {
				t.Errorf("%s: role %v, roleId %v; want %v, %v", name, u["role"], u["roleId"], want[0], want[1])
			}
		}
	}
}
