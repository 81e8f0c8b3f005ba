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

// forestOf returns a schema of n nodes in two levels: top-level categories
// of up to 19 sub-categories each.
func forestOf(prefix string, n int) []any {
	var out []any
	for i := 0; n > 0; i++ {
		kids := make([]any, 0, 19)
		for j := 0; j < 19 && j < n-1; j++ {
			kids = append(kids, node(fmt.Sprintf("%s %d.%d", prefix, i, j)))
		}
		n -= 1 + len(kids)
		out = append(out, node(fmt.Sprintf("%s %d", prefix, i), kids...))
	}
	return out
}

// chainOf returns a schema that is one path of levels categories.
func chainOf(levels int) []any {
	var n []any
	for i := levels; i >= 1; i-- {
		n = []any{node(fmt.Sprintf("Level %d", i), n...)}
	}
	return n
}

// schemaLimits are the tree limits the contract states (x-max-depth and
// x-max-nodes of MemberCategorySchema), which the scenarios probe.
func (s *suite) schemaLimits(t TB) (depth, nodes int) {
	t.Helper()
	ref := s.doc.Components.Schemas["MemberCategorySchema"]
	if ref == nil || ref.Value == nil {
		t.Fatalf("the contract has no MemberCategorySchema")
	}
	d, ok1 := ref.Value.Extensions["x-max-depth"].(float64)
	n, ok2 := ref.Value.Extensions["x-max-nodes"].(float64)
	if !ok1 || !ok2 || d < 1 || n < 2 {
		t.Fatalf("MemberCategorySchema: x-max-depth %v, x-max-nodes %v: want whole numbers", ref.Value.Extensions["x-max-depth"], ref.Value.Extensions["x-max-nodes"])
	}
	return int(d), int(n)
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
		depth, _ := s.schemaLimits(t)
		levels := fmt.Sprintf("%d levels", depth+1)
		a := s.assignSchema(t, s.adminToken, chainOf(depth+1))
		s.wantSchemaRejected(t, "a schema of "+levels, a, "ORG_1132", base)
		if a.err != nil && !a.err.detailsContain(levels) {
			t.Errorf("a schema of %s: no detail names the %s: %q", levels, levels, a.err.Details)
		}
	})
	t.Run("maxNodesAccepted", func(t TB) {
		s.freshOrg(t)
		_, nodes := s.schemaLimits(t)
		s.mustAssign(t, forestOf("Node", nodes))
	})
	t.Run("tooManyNodesRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		_, nodes := s.schemaLimits(t)
		a := s.assignSchema(t, s.adminToken, forestOf("Node", nodes+1))
		what := fmt.Sprintf("a schema of %d categories", nodes+1)
		s.wantSchemaRejected(t, what, a, "ORG_1132", base)
		if a.err != nil && !a.err.detailsContain(fmt.Sprint(nodes+1)) {
			t.Errorf("%s: no detail names the figure %d: %q", what, nodes+1, a.err.Details)
		}
	})
	t.Run("emptyRejected", func(t TB) {
		s.freshOrg(t)
		s.mustAssign(t, base)
		s.wantSchemaRejected(t, "an empty schema", s.assignSchema(t, s.adminToken, []any{}), "ORG_1132", base)
		// The seed's "or is empty" covers a document without the array, and a null one.
		for what, doc := range map[string]map[string]any{
			"a schema document without memberCategorySchema": {},
			"a null memberCategorySchema":                    {"memberCategorySchema": nil},
		} {
			a := s.call(t, "assignMemberCategorySchema", s.adminToken, map[string]any{"portalId": s.portalID},
				map[string]any{"memberCategorySchema": doc, "f": "json"})
			s.wantSchemaRejected(t, what, a, "ORG_1132", base)
		}
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
