package conformance

import (
	"fmt"
	"strings"
)

// node builds a category node for the schema scenarios.
func node(title string, children ...any) map[string]any {
	n := map[string]any{"title": title}
	if len(children) > 0 {
		n["categories"] = children
	}
	return n
}

// forest returns a schema of top top-level categories with per children
// each: top*(per+1) nodes in two levels.
func forest(prefix string, top, per int) []any {
	out := make([]any, 0, top)
	for i := range top {
		kids := make([]any, 0, per)
		for j := range per {
			kids = append(kids, node(fmt.Sprintf("%s %d.%d", prefix, i, j)))
		}
		out = append(out, node(fmt.Sprintf("%s %d", prefix, i), kids...))
	}
	return out
}

func (s *suite) assignSchema(t TB, token string, tree []any) *answer {
	t.Helper()
	return s.call(t, "assignMemberCategorySchema", token, map[string]any{"portalId": s.portalID},
		map[string]any{"memberCategorySchema": map[string]any{"memberCategorySchema": tree}, "f": "json"})
}

// mustAssign assigns tree and checks the schema then reads back as tree.
func (s *suite) mustAssign(t TB, tree []any) {
	t.Helper()
	a := s.assignSchema(t, s.adminToken, tree)
	if a.err != nil || a.body["success"] != true {
		t.Fatalf("assignMemberCategorySchema of a valid schema (%d top-level categories): want {\"success\":true}, got %s", len(tree), clip(a.raw, 500))
	}
	if got := s.readSchema(t); !jsonEqual(got, tree) {
		t.Fatalf("the schema read back differs from the one assigned:\n  - %s", strings.Join(diff(tree, got), "\n  - "))
	}
}

// wantRejected checks a is the error envelope with code 400 (and
// messageCode when not ""), and that the schema is still before.
func (s *suite) wantSchemaRejected(t TB, what string, a *answer, messageCode string, before []any) {
	t.Helper()
	switch {
	case a.err == nil:
		t.Errorf("%s: accepted (%s); want the error envelope with code 400%s", what, clip(a.raw, 200), withCode(messageCode))
	case a.err.Code != 400 || (messageCode != "" && a.err.MessageCode != messageCode):
		t.Errorf("%s: got error %s; want code 400%s", what, a.err, withCode(messageCode))
	case messageCode == "ORG_1132" && a.err.Message != "Unable to assign member category schema.":
		t.Errorf("%s: message %q, want %q", what, a.err.Message, "Unable to assign member category schema.")
	}
	if got := s.readSchema(t); !jsonEqual(got, before) {
		t.Errorf("%s: the rejected schema changed the stored one:\n  - %s", what, strings.Join(diff(before, got), "\n  - "))
	}
}

func withCode(mc string) string {
	if mc == "" {
		return ""
	}
	return " and messageCode " + mc
}

// schemaScenarios checks the rules of assignMemberCategorySchema.
func (s *suite) schemaScenarios(t TB) {
	base := []any{node("Office Location", node("USA", node("Maine"), node("California")), node("Canada")),
		node("Department", node("Planning"), node("Public Works"))}

	t.Run("threeLevelsAccepted", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
	})
	t.Run("fourLevelsRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		a := s.assignSchema(t, s.adminToken, []any{node("Office Location", node("USA", node("Maine", node("Portland"))))})
		s.wantSchemaRejected(t, "a schema of 4 levels", a, "ORG_1132", base)
		if a.err != nil && !a.err.detailsContain("4 levels") {
			t.Errorf("a schema of 4 levels: no detail names the 4 levels: %q", a.err.Details)
		}
	})
	t.Run("maxNodesAccepted", func(t TB) {
		s.freshOrg(t)
		tree := forest("Node", 10, 19) // 10 + 190 = 200 nodes
		s.mustAssign(t, tree)
	})
	t.Run("tooManyNodesRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		tree := append(forest("Node", 10, 19), node("One Too Many")) // 201 nodes
		a := s.assignSchema(t, s.adminToken, tree)
		s.wantSchemaRejected(t, "a schema of 201 categories", a, "ORG_1132", base)
		if a.err != nil && !a.err.detailsContain("201") {
			t.Errorf("a schema of 201 categories: no detail names the figure 201: %q", a.err.Details)
		}
	})
	t.Run("emptyRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		s.wantSchemaRejected(t, "an empty schema", s.assignSchema(t, s.adminToken, []any{}), "ORG_1132", base)
	})
	t.Run("duplicateSiblingsRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		a := s.assignSchema(t, s.adminToken, []any{node("Department", node("Planning"), node("PLANNING"))})
		s.wantSchemaRejected(t, "two sibling categories titled Planning and PLANNING", a, "", base)
		if a.err != nil && !a.err.detailsContain("/Department/") {
			t.Errorf("duplicate sibling titles: no detail names the path under /Department: %q", a.err.Details)
		}
		a = s.assignSchema(t, s.adminToken, []any{node("Department"), node("department")})
		s.wantSchemaRejected(t, "two top-level categories titled Department and department", a, "", base)
	})
	t.Run("sameTitleUnderOtherParentsAccepted", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, []any{node("USA", node("Portland")), node("Canada", node("Portland"))})
	})
	t.Run("slashInTitleRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		s.wantSchemaRejected(t, "a title holding /", s.assignSchema(t, s.adminToken, []any{node("North/South")}), "", base)
	})
	t.Run("replacedWhole", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		other := []any{node("Team", node("Red"), node("Blue"))}
		s.mustAssign(t, other) // reads back exactly other: nothing of base is left
	})
}
