package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// TooDeepMaxDepth is the depth limit named by SchemaTooDeep, the answer to
// a schema too deeply nested to be parsed at all. The transport refuses to
// start on a contract whose x-max-depth differs.
const TooDeepMaxDepth = 3

// AssignMemberCategorySchema replaces the organization's schema. A tree
// deeper than x-max-depth, larger than x-max-nodes, or empty is ORG_1132; a
// bad title is a 400 naming the node's path. Titles are stored trimmed and in
// NFC. Members' categories that no longer exist are removed from them, and
// the others take the new schema's spelling.
func (s *Service) AssignMemberCategorySchema(ctx context.Context, p Principal, portalID string, nodes []CategoryNode) error {
	nodes, err := checkSchema(nodes, &s.gates.Limits)
	if err != nil {
		return err
	}
	return wrap("assign member category schema", s.replaceSchema(ctx, p, portalID, nodes))
}

// DeleteMemberCategorySchema removes the schema and every member's categories.
func (s *Service) DeleteMemberCategorySchema(ctx context.Context, p Principal, portalID string) error {
	return wrap("delete member category schema", s.replaceSchema(ctx, p, portalID, nil))
}

// replaceSchema stores nodes (nil deletes the schema) and removes from
// members the categories that no longer exist, in one transaction.
func (s *Service) replaceSchema(ctx context.Context, p Principal, portalID string, nodes []CategoryNode) error {
	return s.update(ctx, p, func(tx Tx) error {
		org, err := resolveOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		if err := p.require(org.ID, PrivUpdateMemberCategorySchema); err != nil {
			return err
		}
		if err := tx.PutCategorySchema(ctx, org.ID, nodes); err != nil {
			return err
		}
		return pruneMemberCategories(ctx, tx, org.ID, categoryPaths(nodes))
	})
}

// MemberCategorySchema returns the schema (empty when none), for members of the organization.
func (s *Service) MemberCategorySchema(ctx context.Context, p Principal, portalID string) ([]CategoryNode, error) {
	var out []CategoryNode
	err := s.store.View(ctx, func(tx Tx) error {
		orgID, err := memberOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		out, err = tx.CategorySchema(ctx, orgID)
		return err
	})
	if out == nil {
		out = []CategoryNode{}
	}
	return out, wrap("read member category schema", err)
}

// SchemaTooDeep is ORG_1132 for a schema too deeply nested to be read at all.
func SchemaTooDeep() *Error {
	return schemaTooBig(fmt.Sprintf("Schema exceeds max tree size: more than %d levels, the maximum is %d", TooDeepMaxDepth+1, TooDeepMaxDepth))
}

func schemaTooBig(detail string) *Error {
	return &Error{Code: 400, MessageCode: MsgCodeSchemaTooBig, Message: msgAssignSchema, Details: []string{detail}}
}

// checkSchema applies the tree limits first (they are the portal's ORG_1132),
// then the title rules, and returns the tree with its titles as stored:
// trimmed, in NFC.
func checkSchema(nodes []CategoryNode, lim *Limits) ([]CategoryNode, error) {
	if len(nodes) == 0 {
		return nil, schemaTooBig("Schema is empty: it must hold at least one category")
	}
	depth, count := measure(nodes, 1, lim.CategoryMaxDepth)
	if depth > lim.CategoryMaxDepth {
		levels := fmt.Sprintf("%d levels", depth)
		if hasLevel(nodes, depth+1) {
			levels = fmt.Sprintf("more than %d levels", depth)
		}
		return nil, schemaTooBig(fmt.Sprintf("Schema exceeds max tree size: %s, the maximum is %d", levels, lim.CategoryMaxDepth))
	}
	if count > lim.CategoryMaxNodes {
		return nil, schemaTooBig(fmt.Sprintf("Schema exceeds max tree size: %d categories, the maximum is %d", count, lim.CategoryMaxNodes))
	}
	if count < lim.CategoryMinNodes {
		return nil, schemaTooBig(fmt.Sprintf("Schema has %d categories, the minimum is %d", count, lim.CategoryMinNodes))
	}
	var problems []string
	out := cleanTitles(nodes, "", lim.CategoryTitleMaxLength, &problems)
	if len(problems) > 0 {
		return nil, Invalid(problems...)
	}
	return out, nil
}

// measure returns the depth and node count of a forest whose roots are at
// level. It stops descending past maxDepth, so a hostile, very deep tree
// costs no more than a legal one.
func measure(nodes []CategoryNode, level, maxDepth int) (depth, count int) {
	if len(nodes) == 0 {
		return level - 1, 0
	}
	depth = level
	for _, n := range nodes {
		count++
		if level > maxDepth {
			continue
		}
		d, c := measure(n.Categories, level+1, maxDepth)
		depth, count = max(depth, d), count+c
	}
	return depth, count
}

// hasLevel reports whether the forest reaches level (its roots are level 1),
// descending no further than that.
func hasLevel(nodes []CategoryNode, level int) bool {
	if level <= 1 {
		return len(nodes) > 0
	}
	for _, n := range nodes {
		if hasLevel(n.Categories, level-1) {
			return true
		}
	}
	return false
}

// cleanTitles checks the titles of a forest (already within the tree
// limits) and returns it with each title trimmed and in NFC.
func cleanTitles(nodes []CategoryNode, parent string, maxLen int, problems *[]string) []CategoryNode {
	if len(nodes) == 0 {
		return nil
	}
	out := make([]CategoryNode, len(nodes))
	seen := map[string]bool{}
	for i, n := range nodes {
		title := norm.NFC.String(strings.TrimSpace(n.Title))
		path := parent + "/" + title
		key := TitleKey(title)
		switch {
		case title == "":
			*problems = append(*problems, parent+"/: title is empty")
		case !OneLine(title):
			*problems = append(*problems, fmt.Sprintf("%s/%q: title %s", parent, title, NotOneLine))
		case strings.Contains(norm.NFKC.String(title), "/"):
			*problems = append(*problems, fmt.Sprintf("%s/%q: title contains '/'", parent, title))
		case utf8.RuneCountInString(title) > maxLen:
			*problems = append(*problems, fmt.Sprintf("%s: title is %d characters, the maximum is %d", path, utf8.RuneCountInString(title), maxLen))
		case seen[key]:
			*problems = append(*problems, path+": title repeats a sibling's title")
		default:
			seen[key] = true
		}
		out[i] = CategoryNode{Title: title, Categories: cleanTitles(n.Categories, path, maxLen, problems)}
	}
	return out
}

// OneLine reports whether a title can be shown on one line: no control
// character (tab, line break, NUL...) and no line or paragraph separator.
// Categories', folders' and items' titles are; NotOneLine says why one is
// refused.
func OneLine(title string) bool {
	return !strings.ContainsFunc(title, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' })
}

// NotOneLine is the detail's end refusing a title that is not OneLine.
const NotOneLine = "holds a control character (tab, line break, NUL...)"

// TitleKey is the form in which two titles that read the same are equal:
// trimmed, NFKC (fullwidth and compatibility forms become plain ones), case
// folded, and without invisible characters (format characters such as
// zero-width spaces and joiners, bidirectional marks, soft hyphens, variation
// selectors). Sibling categories and a user's folders are unique by it; it
// is never shown.
func TitleKey(title string) string {
	if isASCII(title) { // the common case: folding is lowering, nothing else applies
		return strings.ToLower(strings.TrimSpace(title))
	}
	t := strings.Map(dropInvisible, norm.NFKC.String(strings.TrimSpace(title)))
	return strings.TrimSpace(norm.NFKC.String(cases.Fold().String(t)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func dropInvisible(r rune) rune {
	switch {
	case unicode.Is(unicode.Cf, r),
		r == '\u034f',                                                // combining grapheme joiner
		r >= '\ufe00' && r <= '\ufe0f', r >= 0xe0100 && r <= 0xe01ef, // variation selectors
		r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0': // Hangul fillers
		return -1
	}
	return r
}

// pathKey is TitleKey applied to each segment of a category path.
// The root ("/") is "", which every path is below.
func pathKey(path string) string {
	p := strings.TrimPrefix(strings.TrimRight(path, "/"), "/")
	if p == "" {
		return ""
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = TitleKey(s)
	}
	return "/" + strings.Join(segs, "/")
}

// categoryPaths maps the pathKey of every node's path to the path as the
// schema spells it, "/Office Location/USA" style.
func categoryPaths(nodes []CategoryNode) map[string]string {
	out := map[string]string{}
	var walk func([]CategoryNode, string)
	walk = func(ns []CategoryNode, parent string) {
		for _, n := range ns {
			p := parent + "/" + n.Title
			out[pathKey(p)] = p
			walk(n.Categories, p)
		}
	}
	walk(nodes, "")
	return out
}

// pruneMemberCategories removes from members the categories not in valid
// and respells the others as the schema does.
func pruneMemberCategories(ctx context.Context, tx Tx, orgID string, valid map[string]string) error {
	users, err := tx.Users(ctx, orgID)
	if err != nil {
		return err
	}
	for _, u := range users {
		kept := make([]string, 0, len(u.Categories))
		for _, c := range u.Categories {
			if spelled, ok := valid[pathKey(c)]; ok && !slices.Contains(kept, spelled) {
				kept = append(kept, spelled)
			}
		}
		if !slices.Equal(kept, u.Categories) {
			u.Categories = kept
			if err := tx.PutUser(ctx, u); err != nil {
				return err
			}
		}
	}
	return nil
}

// Member returns a member of the caller's organization.
func (s *Service) Member(ctx context.Context, p Principal, username string) (Profile, error) {
	var out Profile
	err := s.store.View(ctx, func(tx Tx) error {
		u, err := resolveUser(ctx, tx, username)
		if err != nil {
			return err
		}
		if p.Anonymous() {
			return clone(ErrTokenRequired)
		}
		if u.OrgID != p.OrgID() {
			return notFound(msgUserNotFound) // members of other organizations are invisible
		}
		if !p.userOf(u.OrgID) {
			return clone(ErrForbidden) // an application of the organization is no member
		}
		if out, err = profile(ctx, tx, u); err != nil {
			return err
		}
		out, err = withGroups(ctx, tx, p, out)
		return err
	})
	return out, wrap("read member", err)
}

// SetMemberCategories replaces a member's categories: each path must exist
// in the schema; at most 20.
func (s *Service) SetMemberCategories(ctx context.Context, p Principal, username string, paths []string) (User, error) {
	var out User
	err := s.update(ctx, p, func(tx Tx) error {
		u, err := resolveUser(ctx, tx, username)
		if err != nil {
			return err
		}
		if err := p.require(u.OrgID, PrivUpdateUsers); err != nil {
			if p.OrgID() != u.OrgID && !p.Anonymous() {
				return notFound(msgUserNotFound)
			}
			return err
		}
		if limit := s.gates.Limits.MemberMaxCategories; len(paths) > limit {
			return Invalid(fmt.Sprintf("categories: %d categories, the maximum per member is %d", len(paths), limit))
		}
		schema, err := tx.CategorySchema(ctx, u.OrgID)
		if err != nil {
			return err
		}
		valid := categoryPaths(schema)
		var problems []string
		cats := make([]string, 0, len(paths))
		for i, c := range paths {
			spelled, ok := valid[pathKey(c)]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("categories[%d]: %s is not in the member category schema", i, c))
			case !slices.Contains(cats, spelled):
				cats = append(cats, spelled) // stored as the schema spells it
			}
		}
		if len(problems) > 0 {
			return Invalid(problems...)
		}
		u.Categories = cats
		out = u
		return tx.PutUser(ctx, u)
	})
	return out, wrap("update member", err)
}

// MemberQuery selects members: those holding any of Categories or a
// descendant of one (all members when empty).
type MemberQuery struct {
	Categories []string
	Page       Page
}

// MemberList is a page of members.
type MemberList struct {
	Paging
	Users []Profile
}

// Members lists the organization's members, filtered by category.
func (s *Service) Members(ctx context.Context, p Principal, portalID string, q MemberQuery) (MemberList, error) {
	var out MemberList
	err := s.store.View(ctx, func(tx Tx) error {
		orgID, err := memberOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		users, err := tx.Users(ctx, orgID)
		if err != nil {
			return err
		}
		want, err := categoryFilter(q.Categories)
		if err != nil {
			return err
		}
		if len(want) > 0 {
			for i, w := range want {
				want[i] = pathKey(w)
			}
			users = slices.DeleteFunc(users, func(u User) bool { return !holdsAny(u.Categories, want) })
		}
		out.Paging, users = cut(q.Page, users)
		out.Users, err = profiles(ctx, tx, orgID, users)
		return err
	})
	return out, wrap("list members", err)
}

// categoryFilter returns the paths of listMembers' categories. They arrive
// split at commas, blank pieces dropped as in every comma list; sent as a
// JSON array of strings (the form a path holding a comma needs, as in
// updateMember), the pieces join back into that array, which must parse.
func categoryFilter(pieces []string) ([]string, error) {
	joined := strings.TrimSpace(strings.Join(pieces, ","))
	if strings.HasPrefix(joined, "[") {
		var paths []string
		if err := json.Unmarshal([]byte(joined), &paths); err != nil {
			return nil, Invalid("categories: not a JSON array of paths: " + strings.TrimPrefix(err.Error(), "json: "))
		}
		for i, p := range paths {
			if strings.TrimSpace(p) == "" {
				return nil, Invalid(fmt.Sprintf("categories[%d]: an empty path", i))
			}
		}
		return paths, nil
	}
	var paths []string
	for _, p := range pieces {
		if strings.TrimSpace(p) != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// holdsAny reports whether one of held is one of want (pathKeys) or below
// it, compared as the schema compares titles.
func holdsAny(held, want []string) bool {
	for _, h := range held {
		h = pathKey(h)
		for _, w := range want {
			if h == w || strings.HasPrefix(h, w+"/") {
				return true
			}
		}
	}
	return false
}
