package api_test

import (
	"fmt"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
)

const schemaPath = "/portals/" + pt.OrgID

// chain returns a schema that is one path of depth levels.
func chain(depth int) []server.CategoryNode {
	var n []server.CategoryNode
	for i := depth; i >= 1; i-- {
		n = []server.CategoryNode{{Title: fmt.Sprintf("L%d", i), Categories: n}}
	}
	return n
}

// flat returns count top-level categories.
func flat(count int) []server.CategoryNode {
	n := make([]server.CategoryNode, count)
	for i := range n {
		n[i].Title = fmt.Sprintf("C%03d", i)
	}
	return n
}

func assign(t *testing.T, p *pt.Portal, token string, nodes any) answer {
	t.Helper()
	return post(t, p, schemaPath+"/assignMemberCategorySchema", token,
		form("memberCategorySchema", js(map[string]any{"memberCategorySchema": nodes})))
}

func TestCategorySchemaLimits(t *testing.T) {
	p := pt.New(t)
	ok(t, assign(t, p, pt.AdminToken, chain(3)))
	got := ok(t, get(t, p, schemaPath+"/memberCategorySchema", pt.MemberToken, nil))
	if js(got.body) != `{"memberCategorySchema":[{"categories":[{"categories":[{"title":"L3"}],"title":"L2"}],"title":"L1"}]}` {
		t.Errorf("read back: %s", got.raw)
	}
	before := dump(t, p)
	fails(t, assign(t, p, pt.AdminToken, chain(4)), 400, "ORG_1132", "Unable to assign member category schema.", "4 levels, the maximum is 3")
	fails(t, assign(t, p, pt.AdminToken, chain(50)), 400, "ORG_1132", "the maximum is 3")
	fails(t, assign(t, p, pt.AdminToken, []any{}), 400, "ORG_1132", "Schema is empty")
	fails(t, post(t, p, schemaPath+"/assignMemberCategorySchema", pt.AdminToken, form("memberCategorySchema", `{"memberCategorySchema":null}`)), 400)
	fails(t, assign(t, p, pt.AdminToken, flat(201)), 400, "ORG_1132", "201 categories, the maximum is 200")
	// 200 nodes spread over three levels, and 201 the same way.
	tree := func(leaves int) []server.CategoryNode {
		var top []server.CategoryNode
		for i := 0; i < 10; i++ {
			mid := server.CategoryNode{Title: fmt.Sprintf("T%d", i)}
			for j := 0; j < 1; j++ {
				leaf := server.CategoryNode{Title: "M"}
				for k := 0; k < leaves; k++ {
					leaf.Categories = append(leaf.Categories, server.CategoryNode{Title: fmt.Sprintf("L%d", k)})
				}
				mid.Categories = append(mid.Categories, leaf)
			}
			top = append(top, mid)
		}
		return top
	}
	fails(t, assign(t, p, pt.AdminToken, tree(19)), 400, "ORG_1132", "210 categories")
	if after := dump(t, p); after != before {
		t.Error("rejected schemas changed the store")
	}
	ok(t, assign(t, p, pt.AdminToken, tree(18))) // 10 * (1 + 1 + 18) = 200
	ok(t, assign(t, p, pt.AdminToken, flat(200)))
}

func TestCategoryTitles(t *testing.T) {
	p := pt.New(t)
	dup := []server.CategoryNode{{Title: "Department", Categories: []server.CategoryNode{{Title: "Planning"}, {Title: "planning"}}}}
	fails(t, assign(t, p, pt.AdminToken, dup), 400, "/Department/planning: title repeats a sibling's title")
	fails(t, assign(t, p, pt.AdminToken, []server.CategoryNode{{Title: "a/b"}}), 400, "title")
	fails(t, assign(t, p, pt.AdminToken, []server.CategoryNode{{Title: "ok", Categories: []server.CategoryNode{{Title: ""}}}}), 400, "title")
	fails(t, assign(t, p, pt.AdminToken, []map[string]any{{"title": "x", "color": "red"}}), 400, "color")
	// The same title under different parents is fine.
	ok(t, assign(t, p, pt.AdminToken, []server.CategoryNode{{Title: "A", Categories: []server.CategoryNode{{Title: "X"}}}, {Title: "B", Categories: []server.CategoryNode{{Title: "X"}}}}))
}

func TestCategoryAuth(t *testing.T) {
	p := pt.New(t)
	for _, c := range []struct {
		token string
		code  int
	}{{"", 499}, {"bad", 498}, {pt.MemberToken, 403}, {pt.SecAdminToken, 403}, {pt.OtherAdminToken, 403}, {pt.CatAdminToken, 0}, {pt.AdminToken, 0}} {
		a := assign(t, p, c.token, chain(1))
		if c.code == 0 {
			ok(t, a)
		} else {
			fails(t, a, c.code)
		}
	}
	fails(t, get(t, p, schemaPath+"/memberCategorySchema", pt.OtherAdminToken, nil), 403)
	fails(t, get(t, p, schemaPath+"/memberCategorySchema", "", nil), 499)
}

func TestMemberCategories(t *testing.T) {
	p := pt.New(t)
	schema := []server.CategoryNode{
		{Title: "Office", Categories: []server.CategoryNode{{Title: "USA", Categories: []server.CategoryNode{{Title: "Maine"}}}, {Title: "Canada"}}},
		{Title: "Dept", Categories: []server.CategoryNode{{Title: "Planning"}}},
	}
	ok(t, assign(t, p, pt.AdminToken, schema))
	set := func(token, user string, paths ...string) answer {
		return post(t, p, "/community/users/"+user+"/update", token, form("categories", js(paths)))
	}
	ok(t, set(pt.AdminToken, "jsmith", "/Office/USA/Maine", "/Dept/Planning"))
	ok(t, set(pt.ContentAdminToken, "jdoe", "/Office/Canada"))
	fails(t, set(pt.AdminToken, "jsmith", "/Office/Mars"), 400, "categories[0]: /Office/Mars is not in the member category schema")
	fails(t, set(pt.MemberToken, "jsmith", "/Office"), 403)
	fails(t, set(pt.OtherAdminToken, "jsmith", "/Office"), 400, "User does not exist")
	many := make([]string, 21)
	for i := range many {
		many[i] = "/Office"
	}
	fails(t, set(pt.AdminToken, "jsmith", many...), 400)

	got := ok(t, get(t, p, "/community/users/jsmith", pt.MemberToken, nil))
	if js(got.body["categories"]) != `["/Office/USA/Maine","/Dept/Planning"]` {
		t.Errorf("member categories: %s", got.raw)
	}
	users := func(cats string) string {
		a := ok(t, get(t, p, schemaPath+"/users", pt.MemberToken, form("categories", cats)))
		var names []string
		for _, u := range a.body["users"].([]any) {
			names = append(names, u.(map[string]any)["username"].(string))
		}
		return strings.Join(names, ",")
	}
	if got := users("/Office"); got != "jdoe,jsmith" {
		t.Errorf("filter /Office (descendants included) = %s", got)
	}
	if got := users("/Office/USA"); got != "jsmith" {
		t.Errorf("filter /Office/USA = %s", got)
	}
	if got := users("/Office/Canada,/Dept/Planning"); got != "jdoe,jsmith" {
		t.Errorf("filter any-of = %s", got)
	}
	if got := users("/Dept/Plan"); got != "" {
		t.Errorf("a prefix of a title is not a parent: %s", got)
	}
	if got := users(`["/Office/Canada","/Dept/Planning"]`); got != "jdoe,jsmith" {
		t.Errorf("filter as a JSON array = %s", got)
	}
	// Blank pieces of a comma list are dropped, as in every comma list: not
	// an empty path that every category would be under.
	if got := users("/Dept,"); got != "jsmith" {
		t.Errorf("filter /Dept with a blank piece = %s", got)
	}
	// Replacing the schema prunes categories that no longer exist.
	ok(t, assign(t, p, pt.AdminToken, []server.CategoryNode{{Title: "Office", Categories: []server.CategoryNode{{Title: "Canada"}}}}))
	if got := ok(t, get(t, p, "/community/users/jsmith", pt.AdminToken, nil)); js(got.body["categories"]) != `[]` {
		t.Errorf("after replacement jsmith holds %s", js(got.body["categories"]))
	}
	if got := ok(t, get(t, p, "/community/users/jdoe", pt.AdminToken, nil)); js(got.body["categories"]) != `["/Office/Canada"]` {
		t.Errorf("after replacement jdoe holds %s", js(got.body["categories"]))
	}
	ok(t, post(t, p, schemaPath+"/deleteMemberCategorySchema", pt.AdminToken, nil))
	if got := ok(t, get(t, p, schemaPath+"/memberCategorySchema", pt.AdminToken, nil)); got.raw != "{\"memberCategorySchema\":[]}\n" {
		t.Errorf("after delete: %q", got.raw)
	}
	if got := ok(t, get(t, p, "/community/users/jdoe", pt.AdminToken, nil)); js(got.body["categories"]) != `[]` {
		t.Errorf("after delete jdoe holds %s", js(got.body["categories"]))
	}
}

// A tree too deep for the JSON parser is still the limit's ORG_1132.
func TestCategorySchemaDeeperThanJSONAllows(t *testing.T) {
	p := pt.New(t)
	deep := strings.Repeat(`{"title":"x","categories":[`, 6000) + `{"title":"y"}` + strings.Repeat(`]}`, 6000)
	fails(t, post(t, p, schemaPath+"/assignMemberCategorySchema", pt.AdminToken, form("memberCategorySchema", `{"memberCategorySchema":[`+deep+`]}`)),
		400, "ORG_1132", "more than 4 levels, the maximum is 3")
	fails(t, assign(t, p, pt.AdminToken, chain(5)), 400, "ORG_1132", "more than 4 levels")
}
