package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// testLimits are the contract's figures, as the transport reads them.
var testLimits = Limits{CategoryMaxDepth: 3, CategoryMaxNodes: 200, CategoryMinNodes: 1, CategoryTitleMaxLength: 128}

// schemaFacts are what the schema rules judge, computed without recursion
// and without the code under test.
type schemaFacts struct {
	depth    int  // levels of the deepest node; 0 for no node
	total    int  // all nodes
	upTo4    int  // nodes at levels 1 to 4, what measure may count
	titlesOK bool // every title non-empty, without '/' or control characters, short enough, unique among its siblings by TitleKey
}

func factsOf(nodes []CategoryNode) schemaFacts {
	type siblings struct {
		nodes []CategoryNode
		level int
	}
	f := schemaFacts{titlesOK: true}
	queue := []siblings{{nodes, 1}}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		seen := map[string]bool{}
		for _, n := range g.nodes {
			f.total++
			f.depth = max(f.depth, g.level)
			if g.level <= testLimits.CategoryMaxDepth+1 {
				f.upTo4++
			}
			key := TitleKey(n.Title)
			title := norm.NFC.String(strings.TrimSpace(n.Title))
			if title == "" || strings.Contains(norm.NFKC.String(title), "/") ||
				strings.IndexFunc(title, func(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }) >= 0 ||
				utf8.RuneCountInString(title) > testLimits.CategoryTitleMaxLength || seen[key] {
				f.titlesOK = false
			}
			seen[key] = true
			if len(n.Categories) > 0 {
				queue = append(queue, siblings{n.Categories, g.level + 1})
			}
		}
	}
	return f
}

// graft hangs a chain of extra levels under the first leaf, so the fuzzer
// reaches depths JSON cannot carry (encoding/json stops at 10,000).
func graft(nodes []CategoryNode, extra int) []CategoryNode {
	var chain []CategoryNode
	for i := extra; i >= 1; i-- {
		chain = []CategoryNode{{Title: fmt.Sprintf("G%d", i), Categories: chain}}
	}
	if len(nodes) == 0 {
		return chain
	}
	n := &nodes[0]
	for len(n.Categories) > 0 {
		n = &n.Categories[0]
	}
	n.Categories = chain
	return nodes
}

// checkSchemaRules checks measure and checkSchema against the rules of
// api.md on one forest.
func checkSchemaRules(t *testing.T, nodes []CategoryNode) {
	t.Helper()
	f := factsOf(nodes)

	// measure counts nodes down to the first level past the limit and no
	// further: its count proves it never descended deeper.
	depth, count := measure(nodes, 1, testLimits.CategoryMaxDepth)
	if want := min(f.depth, testLimits.CategoryMaxDepth+1); depth != want {
		t.Errorf("measure depth = %d, want %d (true depth %d)", depth, want, f.depth)
	}
	if count != f.upTo4 {
		t.Errorf("measure count = %d, want the %d nodes of levels 1-4 (of %d)", count, f.upTo4, f.total)
	}

	_, err := checkSchema(nodes, &testLimits)
	var want []string // ORG_1132 details; nil when another outcome is due
	switch {
	case f.total == 0:
		want = []string{"Schema is empty: it must hold at least one category"}
	case f.depth > testLimits.CategoryMaxDepth:
		levels := fmt.Sprintf("%d levels", testLimits.CategoryMaxDepth+1)
		if f.depth > testLimits.CategoryMaxDepth+1 {
			levels = fmt.Sprintf("more than %d levels", testLimits.CategoryMaxDepth+1)
		}
		want = []string{fmt.Sprintf("Schema exceeds max tree size: %s, the maximum is %d", levels, testLimits.CategoryMaxDepth)}
	case f.total > testLimits.CategoryMaxNodes:
		want = []string{fmt.Sprintf("Schema exceeds max tree size: %d categories, the maximum is %d", f.total, testLimits.CategoryMaxNodes)}
	}
	e, isErr := AsError(err)
	switch {
	case want != nil:
		if !isErr || e.Code != 400 || e.MessageCode != MsgCodeSchemaTooBig || e.Message != msgAssignSchema || !slices.Equal(e.Details, want) {
			t.Errorf("checkSchema = %v, want ORG_1132 %q", err, want)
		}
	case !f.titlesOK:
		if !isErr || e.Code != 400 || e.MessageCode != "" || len(e.Details) == 0 {
			t.Errorf("checkSchema = %v, want a 400 naming the bad titles", err)
		}
	default:
		if err != nil {
			t.Errorf("checkSchema = %v, want the schema accepted (depth %d, %d nodes)", err, f.depth, f.total)
		}
	}
	if err == nil && (f.depth > testLimits.CategoryMaxDepth || f.total > testLimits.CategoryMaxNodes || f.total == 0 || !f.titlesOK) {
		t.Errorf("accepted a schema breaking the rules: %+v", f)
	}
}

// FuzzCategorySchema decodes arbitrary JSON as a schema, optionally grafts a
// long chain under it, and checks the rules' verdict.
func FuzzCategorySchema(f *testing.F) {
	f.Add([]byte(`[{"title":"Office Location","categories":[{"title":"USA","categories":[{"title":"Maine"}]},{"title":"Canada"}]}]`), uint16(0))
	f.Add([]byte(`[{"title":"A"}]`), uint16(3))
	f.Add([]byte(`[{"title":"A"},{"title":"a"}]`), uint16(0))
	f.Add([]byte(`[{"title":"x/y"}]`), uint16(0))
	f.Add([]byte(`[{"title":"\u2003"}]`), uint16(0))
	f.Add([]byte(`[{"title":"A","categories":[]}]`), uint16(1))
	f.Add([]byte(`null`), uint16(0))
	f.Add([]byte(`[]`), uint16(10_000))
	f.Add([]byte(`[{"title":"Caf\u00e9"},{"title":"Cafe\u0301"}]`), uint16(0))
	f.Add([]byte(`[{"title":"Planning"},{"title":"Plan\u200bning "}]`), uint16(0))
	f.Add([]byte(`[{"title":"USA"},{"title":"\uff35\uff33\uff21"}]`), uint16(0))
	f.Add([]byte(`[{"title":"a\tb"},{"title":"a\u0000"},{"title":"N\uff0fS"}]`), uint16(0))
	f.Add([]byte(`[{"title":"","categories":[{"title":"B"}]}]`), uint16(2))
	f.Fuzz(func(t *testing.T, doc []byte, extra uint16) {
		var nodes []CategoryNode
		if json.Unmarshal(doc, &nodes) != nil {
			return
		}
		checkSchemaRules(t, graft(nodes, int(extra)))
	})
}

// TestSchemaRulesOnDeepTrees: trees far deeper than any JSON document the
// transport can parse are judged at level 4, without walking them.
func TestSchemaRulesOnDeepTrees(t *testing.T) {
	for _, levels := range []int{4, 10_000, 100_000} {
		t.Run(fmt.Sprint(levels), func(t *testing.T) {
			nodes := graft(nil, levels)
			checkSchemaRules(t, nodes)
			if d, c := measure(nodes, 1, testLimits.CategoryMaxDepth); d != 4 || c != 4 {
				t.Errorf("measure = %d levels, %d nodes; want 4 and 4", d, c)
			}
		})
	}
	// Wide and deep at once: the depth is reported, not the size.
	wide := make([]CategoryNode, 500)
	for i := range wide {
		wide[i].Title = fmt.Sprint("W", i)
	}
	wide[499].Categories = graft(nil, 5000)
	checkSchemaRules(t, wide)
}

// FuzzParseQuery parses arbitrary search queries (q is at most 2048
// characters by the contract; the fuzzer goes past that) and matches the
// parsed ones against an item. A query is refused with the 400 envelope
// naming q, never a panic; one that parses matches as it does in
// parentheses and as it does ANDed with itself.
func FuzzParseQuery(f *testing.F) {
	for _, q := range []string{
		`owner:jsmith AND type:"feature service"`, `(id:a OR id:b) AND owner:jsmith`, `roads NOT parcels`,
		`title:"Fire Hydrants" tags:water`, `"`, `owner:"jsmith`, `()`, `)`, `((`, `a OR`, `NOT`, `AND OR NOT`,
		`accountid:0123456789ABCDEF`, `description:"a (b) c"`, `x:`, `:x`, `NOT NOT hydrants`,
	} {
		f.Add(q)
	}
	item := itemFields(ItemView{Item: Item{ID: "93b54c8930ae46d9a00a7820cb3ebbd1", Owner: "jsmith", Title: "Fire Hydrants",
		Type: "Feature Service", Description: "Hydrants of the city (water)", Tags: []string{"water", "city"}, Access: AccessPrivate},
		OrgID: "0123456789ABCDEF"})
	f.Fuzz(func(t *testing.T, q string) {
		parsed, err := ParseQuery(q)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != 400 || len(e.Details) != 1 || !strings.HasPrefix(e.Details[0], "q: ") {
				t.Fatalf("ParseQuery(%q): %v, want the 400 envelope naming q", q, err)
			}
			return
		}
		got := parsed.match(item)
		if strings.TrimSpace(q) == "" {
			if !got {
				t.Fatalf("the empty query %q matches nothing", q)
			}
			return
		}
		for _, same := range []string{"(" + q + ")", q + " AND (" + q + ")"} {
			other, err := ParseQuery(same)
			if err != nil {
				t.Fatalf("%q parses, %q does not: %v", q, same, err)
			}
			if other.match(item) != got {
				t.Fatalf("%q matches %v, %q matches %v", q, got, same, !got)
			}
		}
	})
}
