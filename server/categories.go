package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Member category schema limits (seed, section 8).
const (
	MaxCategoryDepth    = 3
	MaxCategoryNodes    = 200
	MaxMemberCategories = 20
)

// AssignMemberCategorySchema replaces the organization's schema. A tree
// deeper than 3 levels, larger than 200 nodes, or empty is ORG_1132; a bad
// title is a 400 naming the node's path. Members' categories that no longer
// exist are removed from them.
func (s *Service) AssignMemberCategorySchema(ctx context.Context, p Principal, portalID string, nodes []CategoryNode) error {
	if err := checkSchema(nodes); err != nil {
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
	return s.store.Update(ctx, func(tx Tx) error {
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
		org, err := resolveOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		if err := p.requireMember(org.ID); err != nil {
			return err
		}
		out, err = tx.CategorySchema(ctx, org.ID)
		return err
	})
	if out == nil {
		out = []CategoryNode{}
	}
	return out, wrap("read member category schema", err)
}

// SchemaTooDeep is ORG_1132 for a schema too deeply nested to be read at all.
func SchemaTooDeep() *Error {
	return schemaTooBig(fmt.Sprintf("Schema exceeds max tree size: more than %d levels, the maximum is %d", MaxCategoryDepth+1, MaxCategoryDepth))
}

func schemaTooBig(detail string) *Error {
	return &Error{Code: 400, MessageCode: MsgCodeSchemaTooBig, Message: msgAssignSchema, Details: []string{detail}}
}

// checkSchema applies the tree limits first (they are the portal's ORG_1132),
// then the title rules.
func checkSchema(nodes []CategoryNode) error {
	if len(nodes) == 0 {
		return schemaTooBig("Schema is empty: it must hold at least one category")
	}
	depth, count := measure(nodes, 1)
	if depth > MaxCategoryDepth {
		levels := fmt.Sprintf("%d levels", depth)
		if hasLevel(nodes, depth+1) {
			levels = fmt.Sprintf("more than %d levels", depth)
		}
		return schemaTooBig(fmt.Sprintf("Schema exceeds max tree size: %s, the maximum is %d", levels, MaxCategoryDepth))
	}
	if count > MaxCategoryNodes {
		return schemaTooBig(fmt.Sprintf("Schema exceeds max tree size: %d categories, the maximum is %d", count, MaxCategoryNodes))
	}
	var problems []string
	checkTitles(nodes, "", &problems)
	if len(problems) > 0 {
		return Invalid(problems...)
	}
	return nil
}

// measure returns the depth and node count of a forest whose roots are at
// level. It stops descending past the depth limit, so a hostile, very deep
// tree costs no more than a legal one.
func measure(nodes []CategoryNode, level int) (depth, count int) {
	if len(nodes) == 0 {
		return level - 1, 0
	}
	depth = level
	for _, n := range nodes {
		count++
		if level > MaxCategoryDepth {
			continue
		}
		d, c := measure(n.Categories, level+1)
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

func checkTitles(nodes []CategoryNode, parent string, problems *[]string) {
	seen := map[string]bool{}
	for _, n := range nodes {
		path := parent + "/" + n.Title
		switch {
		case strings.TrimSpace(n.Title) == "":
			*problems = append(*problems, parent+"/: title is empty")
		case strings.Contains(n.Title, "/"):
			*problems = append(*problems, fmt.Sprintf("%s/%q: title contains '/'", parent, n.Title))
		case seen[strings.ToLower(n.Title)]:
			*problems = append(*problems, path+": title repeats a sibling's title")
		}
		seen[strings.ToLower(n.Title)] = true
		checkTitles(n.Categories, path, problems)
	}
}

// categoryPaths returns every node's path, "/Office Location/USA" style.
func categoryPaths(nodes []CategoryNode) map[string]bool {
	out := map[string]bool{}
	var walk func([]CategoryNode, string)
	walk = func(ns []CategoryNode, parent string) {
		for _, n := range ns {
			p := parent + "/" + n.Title
			out[strings.ToLower(p)] = true
			walk(n.Categories, p)
		}
	}
	walk(nodes, "")
	return out
}

func pruneMemberCategories(ctx context.Context, tx Tx, orgID string, valid map[string]bool) error {
	users, err := tx.Users(ctx, orgID)
	if err != nil {
		return err
	}
	for _, u := range users {
		kept := slices.DeleteFunc(slices.Clone(u.Categories), func(c string) bool { return !valid[strings.ToLower(c)] })
		if len(kept) != len(u.Categories) {
			u.Categories = kept
			if err := tx.PutUser(ctx, u); err != nil {
				return err
			}
		}
	}
	return nil
}

// Member returns a member of the caller's organization.
func (s *Service) Member(ctx context.Context, p Principal, username string) (User, error) {
	var out User
	err := s.store.View(ctx, func(tx Tx) error {
		u, err := resolveUser(ctx, tx, username)
		if err != nil {
			return err
		}
		if p.Anonymous() {
			return clone(ErrTokenRequired)
		}
		if u.OrgID != p.User.OrgID {
			return notFound(msgUserNotFound) // members of other organizations are invisible
		}
		out = u
		return nil
	})
	return out, wrap("read member", err)
}

// SetMemberCategories replaces a member's categories: each path must exist
// in the schema; at most 20.
func (s *Service) SetMemberCategories(ctx context.Context, p Principal, username string, paths []string) (User, error) {
	var out User
	err := s.store.Update(ctx, func(tx Tx) error {
		u, err := resolveUser(ctx, tx, username)
		if err != nil {
			return err
		}
		if err := p.require(u.OrgID, PrivUpdateUsers); err != nil {
			if p.User.OrgID != u.OrgID && !p.Anonymous() {
				return notFound(msgUserNotFound)
			}
			return err
		}
		if len(paths) > MaxMemberCategories {
			return Invalid(fmt.Sprintf("categories: %d categories, the maximum per member is %d", len(paths), MaxMemberCategories))
		}
		schema, err := tx.CategorySchema(ctx, u.OrgID)
		if err != nil {
			return err
		}
		valid := categoryPaths(schema)
		var problems []string
		seen := map[string]bool{}
		cats := make([]string, 0, len(paths))
		for i, c := range paths {
			key := strings.ToLower(c)
			switch {
			case !valid[key]:
				problems = append(problems, fmt.Sprintf("categories[%d]: %s is not in the member category schema", i, c))
			case !seen[key]:
				seen[key] = true
				cats = append(cats, c)
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
	Total, Start, Num, NextStart int
	Users                        []User
}

// Members lists the organization's members, filtered by category.
func (s *Service) Members(ctx context.Context, p Principal, portalID string, q MemberQuery) (MemberList, error) {
	var out MemberList
	err := s.store.View(ctx, func(tx Tx) error {
		org, err := resolveOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		if err := p.requireMember(org.ID); err != nil {
			return err
		}
		users, err := tx.Users(ctx, org.ID)
		if err != nil {
			return err
		}
		if len(q.Categories) > 0 {
			users = slices.DeleteFunc(users, func(u User) bool { return !holdsAny(u.Categories, q.Categories) })
		}
		lo, hi, next := q.Page.window(len(users))
		out = MemberList{Total: len(users), Start: q.Page.Start, Num: q.Page.Num, NextStart: next, Users: users[lo:hi]}
		return nil
	})
	return out, wrap("list members", err)
}

// holdsAny reports whether one of held is one of want or below it.
func holdsAny(held, want []string) bool {
	for _, h := range held {
		h = strings.ToLower(h)
		for _, w := range want {
			w = strings.ToLower(strings.TrimRight(w, "/"))
			if h == w || strings.HasPrefix(h, w+"/") {
				return true
			}
		}
	}
	return false
}
