package conformance

import (
	"fmt"
	"strings"
)

// discoveryScenarios checks what clients read to learn what they talk to
// and who they signed in as: the REST root, info, portals/self and
// community/self, against each other and against the target's address.
func (s *suite) discoveryScenarios(t TB) {
	t.Run("root", s.discoveryRoot)
	t.Run("info", s.discoveryInfo)
	t.Run("portalSelf", s.discoveryPortalSelf)
	t.Run("anonymousPortalSelf", s.discoveryAnonymousPortal)
	t.Run("hasMemberCategorySchema", s.discoveryCategorySchema)
	t.Run("selfAndMemberAgree", s.discoverySelfAndMember)
}

// discoveryRoot: currentVersion is a REST version x-rest-versions lists, or
// newer, answered alike at sharing/rest and sharing/rest/; the release the
// target was said to be answers its own; enterpriseVersion, where given,
// is the release of that REST version.
func (s *suite) discoveryRoot(t TB) {
	var versions []string
	for _, path := range []string{s.base + "?f=json", s.base + "/?f=json"} {
		var root struct {
			CurrentVersion    *string `json:"currentVersion"`
			EnterpriseVersion *string `json:"enterpriseVersion"`
		}
		if err := getJSON(s.ctx(t), s.http, path, "", &root); err != nil {
			t.Fatalf("the REST root, anonymously: %v", err)
		}
		if root.CurrentVersion == nil {
			t.Fatalf("GET %s: no currentVersion", path)
		}
		versions = append(versions, *root.CurrentVersion)
		d, err := releaseOf(s.table, *root.CurrentVersion)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		if d.Older {
			t.Errorf("GET %s: currentVersion %s is older than every release x-rest-versions lists (%s is %s)",
				path, d.RESTVersion, s.table[0].version, s.table[0].rest)
		}
		if s.detected == nil && s.target.Deployment == "enterprise" {
			// The release the target was said to be answers its own.
			v, _ := parseVersion(s.target.Version)
			if rest, listed := restOf(s.table, v); listed && rest != *root.CurrentVersion {
				t.Errorf("GET %s: currentVersion %s; ArcGIS Enterprise %s answers %s (x-rest-versions)", path, *root.CurrentVersion, v, rest)
			}
		}
		if ev := root.EnterpriseVersion; ev != nil {
			major, minor, _ := strings.Cut(*ev, ".")
			minor, _, _ = strings.Cut(minor, ".")
			v, ok := parseVersion(major + "." + minor)
			if !ok {
				t.Errorf("GET %s: enterpriseVersion %q is no release such as 11.5.0", path, *ev)
			}
			if rest, listed := restOf(s.table, v); ok && listed && rest != *root.CurrentVersion {
				t.Errorf("GET %s: enterpriseVersion %s with currentVersion %s; that release answers %s (x-rest-versions)", path, *ev, *root.CurrentVersion, rest)
			}
		}
	}
	if len(versions) == 2 && versions[0] != versions[1] {
		t.Errorf("currentVersion differs with a trailing slash: %s at sharing/rest, %s at sharing/rest/", versions[0], versions[1])
	}
}

// discoveryInfo: owningSystemUrl and tokenServicesUrl are on the address
// the suite reached the portal at (scheme, host and context), and sign-in
// is by token.
func (s *suite) discoveryInfo(t TB) {
	for _, token := range []string{"", s.adminToken} {
		who := "anonymously"
		if token != "" {
			who = "with the administrator's token"
		}
		a := s.call(t, "getInfo", token, nil, nil)
		body := ok(t, "getInfo "+who, a)
		var info struct {
			OwningSystemURL string `json:"owningSystemUrl"`
			AuthInfo        struct {
				IsTokenBasedSecurity bool   `json:"isTokenBasedSecurity"`
				TokenServicesURL     string `json:"tokenServicesUrl"`
			} `json:"authInfo"`
		}
		if err := decode(body, &info); err != nil {
			t.Fatalf("getInfo: %v", err)
		}
		if !strings.HasPrefix(info.OwningSystemURL, s.root) {
			t.Errorf("getInfo %s: owningSystemUrl %q does not start with the portal's address %s (clients reach the portal there)", who, info.OwningSystemURL, s.root)
		}
		if !info.AuthInfo.IsTokenBasedSecurity {
			t.Errorf("getInfo %s: authInfo.isTokenBasedSecurity is false; clients then do not sign in with tokens", who)
		}
		if !strings.HasPrefix(info.AuthInfo.TokenServicesURL, s.root) {
			t.Errorf("getInfo %s: authInfo.tokenServicesUrl %q does not start with the portal's address %s (the ArcGIS API for Python posts generateToken there)",
				who, info.AuthInfo.TokenServicesURL, s.root)
		}
	}
}

// readSelf reads community/self with token.
func (s *suite) readSelf(t TB, token, who string) map[string]any {
	t.Helper()
	return ok(t, "getSelf as "+who, s.call(t, "getSelf", token, nil, nil))
}

// readPortal reads portals/self with token ("" anonymously).
func (s *suite) readPortal(t TB, token, who string) map[string]any {
	t.Helper()
	return ok(t, "getPortal self as "+who, s.call(t, "getPortal", token, map[string]any{"portalId": "self"}, nil))
}

// discoveryPortalSelf: portals/self as the content owner is the
// organization's, with the owner as community/self describes it, and names
// its deployment consistently.
func (s *suite) discoveryPortalSelf(t TB) {
	portal := s.readPortal(t, s.ownerToken(), s.owner)
	self := s.readSelf(t, s.ownerToken(), s.owner)
	if portal["id"] != s.portalID {
		t.Errorf("portals/self as %s: id %v, want the organization's, %s", s.owner, portal["id"], s.portalID)
	}
	user := asMap(portal["user"])
	if user == nil {
		t.Fatalf("portals/self as %s: no user; a member's view names the member", s.owner)
	}
	if user["username"] != s.owner || self["username"] != s.owner {
		t.Errorf("portals/self names the user %v, community/self %v; the token is %s's", user["username"], self["username"], s.owner)
	}
	for _, k := range []string{"id", "username", "fullName", "orgId", "role"} {
		if !jsonEqual(user[k], self[k]) {
			t.Errorf("portals/self's user.%s is %s, community/self's %s: the same user", k, jsonText(user[k]), jsonText(self[k]))
		}
	}
	if user["orgId"] != s.portalID {
		t.Errorf("portals/self's user.orgId %v, want the organization's id %s", user["orgId"], s.portalID)
	}
	isPortal, _ := portal["isPortal"].(bool)
	online := portal["portalName"] == "ArcGIS Online"
	multitenant := portal["portalMode"] == "multitenant"
	if online == isPortal || multitenant == isPortal {
		t.Errorf("portals/self: isPortal %v, portalName %v, portalMode %v: a hosted portal (ArcGIS Online) is multitenant and no isPortal; a self-hosted one is singletenant",
			portal["isPortal"], portal["portalName"], portal["portalMode"])
	}
	if want := s.target.Deployment == "enterprise"; isPortal != want {
		t.Errorf("portals/self: isPortal %t on a target checked as %s deployment", isPortal, s.target.Deployment)
	}
	if _, ok := portal["currentVersion"].(string); !ok {
		t.Errorf("portals/self: currentVersion %s is no string", jsonText(portal["currentVersion"]))
	}
}

// discoveryAnonymousPortal: anonymously, portals/self names no user.
func (s *suite) discoveryAnonymousPortal(t TB) {
	portal := s.readPortal(t, "", "an anonymous caller")
	if u, ok := portal["user"]; ok {
		t.Errorf("portals/self read anonymously names a user: %s", jsonText(u))
	}
	if _, ok := portal["isPortal"].(bool); !ok {
		t.Errorf("portals/self read anonymously: isPortal %s is no boolean (clients read it before they sign in)", jsonText(portal["isPortal"]))
	}
}

// discoveryCategorySchema: portals/self's hasMemberCategorySchema follows
// assignMemberCategorySchema and deleteMemberCategorySchema (the ArcGIS API
// for Python reads it before reading or replacing the schema).
func (s *suite) discoveryCategorySchema(t TB) {
	s.freshOrg(t)
	has := func(when string, want bool) {
		t.Helper()
		portal := s.readPortal(t, s.ownerToken(), s.owner)
		if got, ok := portal["hasMemberCategorySchema"].(bool); !ok || got != want {
			t.Errorf("portals/self %s: hasMemberCategorySchema %s, want %t", when, jsonText(portal["hasMemberCategorySchema"]), want)
		}
	}
	has("without a member category schema", false)
	s.mustAssign(t, []any{node("Department", node("Planning"))})
	has("after assignMemberCategorySchema", true)
	ok(t, "deleteMemberCategorySchema", s.call(t, "deleteMemberCategorySchema", s.adminToken,
		map[string]any{"portalId": s.portalID}, map[string]any{"f": "json"}))
	has("after deleteMemberCategorySchema", false)
}

// discoverySelfAndMember: a user's id is the same in community/self and in
// community/users/<name>, for the content owner and the administrator.
func (s *suite) discoverySelfAndMember(t TB) {
	type who struct{ name, token string }
	users := []who{{s.owner, s.ownerToken()}}
	if s.adminUser != "" && s.adminUser != s.owner {
		users = append(users, who{s.adminUser, s.adminToken})
	}
	var ids []string
	for _, u := range users {
		self := s.readSelf(t, u.token, u.name)
		ids = append(ids, fmt.Sprint(self["id"]))
		member := ok(t, "getMember "+u.name, s.call(t, "getMember", s.adminToken, map[string]any{"userName": u.name}, nil))
		id, _ := self["id"].(string)
		if id == "" || member["id"] != id {
			t.Errorf("%s: community/self says id %s, community/users/%s %s: one user, one id", u.name, jsonText(self["id"]), u.name, jsonText(member["id"]))
		}
		if self["username"] != u.name {
			t.Errorf("community/self with %s's token names %v", u.name, self["username"])
		}
	}
	if len(ids) == 2 && ids[0] == ids[1] {
		t.Errorf("%s and %s have the same id %s", users[0].name, users[1].name, ids[0])
	}
}
