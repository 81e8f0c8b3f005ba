package api_test

import (
	"slices"
	"strings"
	"testing"

	portalapi "github.com/orgportal/portal-api"
	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
)

// The demo seed's items and groups (server/seed/demo.yaml) by title.
var (
	demoItems = map[string]string{
		"93b54c8930ae46d9a00a7820cb3ebbd1": "Roads",      // jsmith's, public
		"2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8": "Parcels",    // jsmith's, private
		"7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3": "Hydrants",   // jsmith's, org
		"0d0d0d0d0d0d4d0d8d0d0d0d0d0d0d0d": "Other Item", // otheruser's, org of the other organization
	}
	demoGroups = map[string]string{
		planningGroup:                      "Planning",      // jsmith's, org; jdoe a member
		fieldCrewsGroup:                    "Field Crews",   // admin's, private; jdoe an admin
		"d3c4e5f6a7b8490312c3d4e5f6a7b8c9": "Open Data",     // admin's, public; jsmith a member
		"e4d5e6f7a8b9401423d4e5f6a7b8c9d0": "Other Public",  // otheradmin's, public; otheruser a member
		otherPrivateGroup:                  "Other Private", // otheruser's, private
	}
)

// titles are the titles of an answer's results (or of a user's groups),
// sorted, each known to names.
func titles(t *testing.T, list any, names map[string]string) string {
	t.Helper()
	var out []string
	for _, r := range list.([]any) {
		id := r.(map[string]any)["id"].(string)
		name, known := names[id]
		if !known {
			t.Fatalf("unknown id %s in %s", id, js(list))
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// TestSearchVisibility: who finds which item. A public item anyone; an
// organization's item its users; a private one its owner, the
// organization's administrators and holders of portal:admin:viewItems; a
// custom role without it does not.
func TestSearchVisibility(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		for _, c := range []struct{ who, token, want string }{
			{"anonymous", "", "Roads"},
			{"the owner", pt.MemberToken, "Hydrants,Parcels,Roads"},
			{"a publisher of the organization", pt.PublisherToken, "Hydrants,Roads"},
			{"the administrator", pt.AdminToken, "Hydrants,Parcels,Roads"},
			{"a holder of viewItems", pt.ContentAdminToken, "Hydrants,Parcels,Roads"},
			{"a custom role without viewItems", pt.ViewerToken, "Hydrants,Roads"},
			{"another organization's administrator", pt.OtherAdminToken, "Other Item,Roads"},
			{"another organization's user", pt.OtherUserToken, "Other Item,Roads"},
		} {
			a := ok(t, get(t, p, "/search", c.token, form("num", "100")))
			if got := titles(t, a.body["results"], demoItems); got != c.want {
				t.Errorf("search as %s finds %s, want %s", c.who, got, c.want)
			}
			if a.body["total"] != float64(strings.Count(c.want, ",")+1) {
				t.Errorf("search as %s: total %v", c.who, a.body["total"])
			}
		}
	})
}

// TestSearchQueries: the query forms clients send, with the order and
// paging asked for.
func TestSearchQueries(t *testing.T) {
	p := pt.New(t)
	for _, c := range []struct{ q, sort, order, want string }{
		{"owner:jsmith", "title", "", "Hydrants,Parcels,Roads"},
		{"owner:jsmith", "title", "desc", "Roads,Parcels,Hydrants"},
		{"owner:JSMITH", "title", "asc", "Hydrants,Parcels,Roads"},
		{`title:"Parcels"`, "", "", "Parcels"},
		{"title:parc*", "", "", "Parcels"},
		{"type:csv", "", "", "Hydrants"},
		{`type:"feature service" accountid:` + pt.OrgID, "", "", "Roads"},
		{`owner:jsmith AND (type:"web map" NOT type:"web mapping application")`, "", "", "Parcels"},
		{"id:93b54c8930ae46d9a00a7820cb3ebbd1 OR id:7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3", "title", "", "Hydrants,Roads"},
		{"owner:jsmith NOT access:private", "created", "desc", "Hydrants,Roads"},
		{"roads", "", "", "Roads"},
		{"orgid:" + pt.OtherOrgID, "", "", ""},
		{"owner:jsmith accountid:" + pt.OtherOrgID, "", "", ""},
	} {
		q := form("q", c.q, "num", "100")
		if c.sort != "" {
			q.Set("sortField", c.sort)
		}
		if c.order != "" {
			q.Set("sortOrder", c.order)
		}
		a := ok(t, get(t, p, "/search", pt.AdminToken, q))
		var got []string
		for _, r := range a.body["results"].([]any) {
			got = append(got, demoItems[r.(map[string]any)["id"].(string)])
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("q=%s sortField=%s sortOrder=%s: %v, want %s", c.q, c.sort, c.order, got, c.want)
		}
		if a.body["query"] != c.q {
			t.Errorf("q=%s: query %v", c.q, a.body["query"])
		}
	}
	// Paging: num 1 a page, nextStart to the end, then -1.
	var pages []string
	for start := "1"; start != "-1"; {
		a := ok(t, get(t, p, "/search", pt.MemberToken, form("q", "owner:jsmith", "sortField", "title", "num", "1", "start", start)))
		pages = append(pages, titles(t, a.body["results"], demoItems))
		start = js(a.body["nextStart"])
		if len(pages) > 3 {
			t.Fatalf("paging does not end: %v", pages)
		}
	}
	if strings.Join(pages, "|") != "Hydrants|Parcels|Roads" {
		t.Errorf("pages %v", pages)
	}
}

// TestGroupVisibility: who finds which group, and reads it. A public group
// anyone; an organization's group its users; a private one its members and
// its organization's administrators. A group one may not see reads as
// absent.
func TestGroupVisibility(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		for _, c := range []struct{ who, token, want string }{
			{"anonymous", "", "Open Data,Other Public"},
			{"jsmith", pt.MemberToken, "Open Data,Other Public,Planning"},
			{"jdoe, an admin of Field Crews", pt.PublisherToken, "Field Crews,Open Data,Other Public,Planning"},
			{"the administrator", pt.AdminToken, "Field Crews,Open Data,Other Public,Planning"},
			{"a custom role", pt.ViewerToken, "Open Data,Other Public,Planning"},
			{"another organization's administrator", pt.OtherAdminToken, "Open Data,Other Private,Other Public"},
			{"another organization's user", pt.OtherUserToken, "Open Data,Other Private,Other Public"},
		} {
			a := ok(t, get(t, p, "/community/groups", c.token, form("num", "100")))
			got := titles(t, a.body["results"], demoGroups)
			if got != c.want {
				t.Errorf("group search as %s finds %s, want %s", c.who, got, c.want)
			}
			for id, title := range demoGroups {
				g := get(t, p, "/community/groups/"+id, c.token, nil)
				if seen := strings.Contains(","+c.want+",", ","+title+","); seen != (g.errCode() == 0) {
					t.Errorf("group %s read as %s: %s (listed: %t)", title, c.who, g.raw, seen)
				} else if !seen && g.errField("message") != "Group does not exist or is inaccessible." {
					t.Errorf("group %s read as %s: %s", title, c.who, g.raw)
				}
			}
		}
		// The caller's membership.
		g := ok(t, get(t, p, "/community/groups/"+fieldCrewsGroup, pt.PublisherToken, nil))
		if js(g.body["userMembership"]) != `{"memberType":"admin","username":"jdoe"}` || g.body["access"] != "private" || g.body["owner"] != "admin" {
			t.Errorf("Field Crews read by jdoe: %s", g.raw)
		}
		g = ok(t, get(t, p, "/community/groups/"+planningGroup, pt.ViewerToken, nil))
		if js(g.body["userMembership"]) != `{"memberType":"none","username":"viewer"}` || js(g.body["tags"]) != `["planning"]` {
			t.Errorf("Planning read by viewer: %s", g.raw)
		}
	})
}

// TestUserDocumentFields: community/self, community/users/<name> and
// portals/self's user carry what clients read; another member's document,
// read by one who is no administrator, holds no email and only the groups
// the reader may see.
func TestUserDocumentFields(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		self := ok(t, get(t, p, "/community/self", pt.PublisherToken, nil))
		if self.body["email"] != "jdoe@example.org" || self.body["firstName"] != "John" || self.body["lastName"] != "Doe" ||
			self.body["provider"] != "arcgis" || self.body["access"] != "org" || self.body["units"] != "english" ||
			self.body["culture"] != "en" || js(self.body["tags"]) != "[]" || self.body["description"] != "" || self.body["modified"] == nil {
			t.Errorf("community/self: %s", self.raw)
		}
		if th, shown := self.body["thumbnail"]; !shown || th != nil {
			t.Errorf("community/self: thumbnail %v (shown %t), want null", th, shown)
		}
		if got := titles(t, self.body["groups"], demoGroups); got != "Field Crews,Planning" {
			t.Errorf("jdoe's groups: %s", got)
		}
		for _, g := range self.body["groups"].([]any) {
			m := g.(map[string]any)["userMembership"].(map[string]any)
			if m["username"] != "jdoe" || (m["memberType"] != "member" && m["memberType"] != "admin") {
				t.Errorf("jdoe's group %s", js(g))
			}
		}
		portal := ok(t, get(t, p, "/portals/self", pt.PublisherToken, nil))
		if u := portal.body["user"].(map[string]any); u["email"] != "jdoe@example.org" || titles(t, u["groups"], demoGroups) != "Field Crews,Planning" {
			t.Errorf("portals/self's user: %s", js(u))
		}

		for _, c := range []struct{ who, token, email, groups string }{
			{"the administrator", pt.AdminToken, "jdoe@example.org", "Field Crews,Planning"},
			{"jsmith", pt.MemberToken, "", "Planning"},
			{"a holder of updateUsers", pt.ContentAdminToken, "", "Planning"},
		} {
			m := ok(t, get(t, p, "/community/users/jdoe", c.token, nil))
			if email, shown := m.body["email"]; c.email == "" && shown || c.email != "" && email != c.email {
				t.Errorf("jdoe read by %s: email %v", c.who, email)
			}
			if got := titles(t, m.body["groups"], demoGroups); got != c.groups {
				t.Errorf("jdoe read by %s: groups %s, want %s", c.who, got, c.groups)
			}
		}
	})
}

// TestPortalHelpers: portals/self carries helperServices, defaultExtent,
// the token limit and, for an application's token, appInfo.appOwner.
func TestPortalHelpers(t *testing.T) {
	p := pt.New(t)
	for _, token := range []string{"", pt.MemberToken} {
		a := ok(t, get(t, p, "/portals/self", token, nil))
		hs, _ := a.body["helperServices"].(map[string]any)
		geom, _ := hs["geometry"].(map[string]any)
		if geom == nil || !strings.HasPrefix(geom["url"].(string), "https://") || len(hs["geocode"].([]any)) != 1 {
			t.Errorf("portals/self (token %q): helperServices %s", token, js(a.body["helperServices"]))
		}
		ext, _ := a.body["defaultExtent"].(map[string]any)
		if ext["spatialReference"] == nil || a.body["maxTokenExpirationMinutes"] != 20160.0 ||
			js(a.body["authorizedCrossOriginDomains"]) != "[]" || js(a.body["allowedRedirectUris"]) != "[]" {
			t.Errorf("portals/self (token %q): %s", token, a.raw)
		}
	}
}

// TestUserTags: a user's tags are those of the items and groups the caller
// may see (jsmith's group Planning, of access org, is tagged planning), each
// with how many of them carry it (an item naming a tag twice counts once),
// sorted ignoring case.
func TestUserTags(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		tagged := map[string][]string{
			pt.RoadsItem:                       {"transport", "Streets"},      // public
			"2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8": {"Streets", "planning"},       // Parcels, private
			"7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3": {"water", "streets", "water"}, // Hydrants, org
		}
		err := p.Store.Update(t.Context(), func(tx server.Tx) error {
			for id, tags := range tagged {
				it, err := tx.Item(t.Context(), id)
				if err != nil {
					return err
				}
				it.Tags = tags
				if err := tx.PutItem(t.Context(), it); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ who, token, want string }{
			{"the owner", pt.MemberToken, `[{"count":2,"tag":"planning"},{"count":2,"tag":"Streets"},{"count":1,"tag":"streets"},{"count":1,"tag":"transport"},{"count":1,"tag":"water"}]`},
			{"a publisher of the organization", pt.PublisherToken, `[{"count":1,"tag":"planning"},{"count":1,"tag":"Streets"},{"count":1,"tag":"streets"},{"count":1,"tag":"transport"},{"count":1,"tag":"water"}]`},
			{"anonymous", "", `[{"count":1,"tag":"Streets"},{"count":1,"tag":"transport"}]`},
			{"another organization's user", pt.OtherUserToken, `[{"count":1,"tag":"Streets"},{"count":1,"tag":"transport"}]`},
		} {
			a := ok(t, get(t, p, "/community/users/"+pt.Member+"/tags", c.token, nil))
			if got := js(a.body["tags"]); got != c.want {
				t.Errorf("%s reads jsmith's tags %s, want %s", c.who, got, c.want)
			}
		}
		a := get(t, p, "/community/users/nobody/tags", pt.MemberToken, nil)
		if a.errField("message") != "User does not exist or is inaccessible." {
			t.Errorf("an unknown user's tags: %s", a.raw)
		}
	})
}

// The bound of a user's tags is the contract's.
func TestUserTagsBoundIsTheContracts(t *testing.T) {
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	tags := doc.Components.Schemas["UserTagsResponse"].Value.Properties["tags"].Value
	if tags.MaxItems == nil || *tags.MaxItems != server.MaxUserTags {
		t.Errorf("UserTagsResponse.tags maxItems %v, server.MaxUserTags %d", tags.MaxItems, server.MaxUserTags)
	}
}
