package server

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// Access levels of items and groups (the portal's words).
const (
	AccessPrivate = "private"
	AccessOrg     = "org"
	AccessPublic  = "public"
)

// Member types of a group's members (the portal's words).
const (
	MemberOwner  = "owner"
	MemberAdmin  = "admin"
	MemberMember = "member"
)

// ValidAccess reports whether a is an access level of an item or a group.
func ValidAccess(a string) bool { return a == AccessPrivate || a == AccessOrg || a == AccessPublic }

// Group is a group of an organization: its owner is one of its members.
type Group struct {
	ID          string
	OrgID       string
	Owner       string
	Title       string
	Access      string // AccessPrivate, AccessOrg or AccessPublic
	Description string
	Tags        []string
	Created     time.Time
	Modified    time.Time
	Members     []GroupMember // ordered by user name
}

// GroupMember is one member of a group.
type GroupMember struct {
	Username string
	Type     string // MemberOwner, MemberAdmin or MemberMember
}

// memberType is username's type in g; "none" when not a member.
func (g Group) memberType(username string) string {
	for _, m := range g.Members {
		if m.Username == username {
			return m.Type
		}
	}
	return "none"
}

// canSee reports whether p may see g: a public group anyone; an
// organization's group its users; a private group its members and the
// administrators of its organization (who see all of its groups).
func (p Principal) canSee(g Group) bool {
	switch {
	case g.Access == AccessPublic:
		return true
	case p.User.Username == "":
		return false
	case g.memberType(p.User.Username) != "none":
		return true
	case g.Access == AccessOrg && p.userOf(g.OrgID):
		return true
	}
	return p.userOf(g.OrgID) && p.IsAdmin()
}

// GroupView is a group with one user's membership (userMembership): the
// caller's in a group read or search, the user's in a user document.
type GroupView struct {
	Group
	// MemberType is the user's: owner, admin, member or none.
	MemberType string
	// Username is the user's; "" for an anonymous caller or an application.
	Username string
}

func viewGroup(username string, g Group) GroupView {
	return GroupView{Group: g, MemberType: g.memberType(username), Username: username}
}

// GroupPage is a page of a group search.
type GroupPage struct {
	Paging
	Groups []GroupView
}

const msgGroupNotFound = "Group does not exist or is inaccessible."

// GetGroup returns the group id as p sees it; one p may not see is answered
// as absent, as the portal does.
func (s *Service) GetGroup(ctx context.Context, p Principal, id string) (GroupView, error) {
	var out GroupView
	err := s.store.View(ctx, func(tx Tx) error {
		g, err := tx.Group(ctx, id)
		if errors.Is(err, ErrNotFound) || (err == nil && !p.canSee(g)) {
			return notFound(msgGroupNotFound)
		} else if err != nil {
			return err
		}
		out = viewGroup(p.User.Username, g)
		return nil
	})
	return out, wrap("read group", err)
}

// SearchGroups answers community/groups: the groups matching q that p may
// see, sorted and paged.
func (s *Service) SearchGroups(ctx context.Context, p Principal, q, sortField, sortOrder string, page Page) (GroupPage, error) {
	var out GroupPage
	expr, err := ParseQuery(q)
	if err != nil {
		return out, err
	}
	err = s.store.View(ctx, func(tx Tx) error {
		all, err := tx.Groups(ctx)
		if err != nil {
			return err
		}
		var hits []GroupView
		for _, g := range all {
			if p.canSee(g) && expr.match(groupFields(g)) {
				hits = append(hits, viewGroup(p.User.Username, g))
			}
		}
		sortBy(hits, sortField, sortOrder, func(g GroupView) sortKeys {
			return sortKeys{title: g.Title, owner: g.Owner, created: g.Created, modified: g.Modified, id: g.ID}
		})
		out.Paging, out.Groups = cut(page, hits)
		return nil
	})
	return out, wrap("search groups", err)
}

// groupFields are what a query's fields match in a group.
func groupFields(g Group) fieldFunc {
	return func(field string) []string {
		switch field {
		case "id":
			return []string{g.ID}
		case "title":
			return []string{g.Title}
		case "owner":
			return []string{g.Owner}
		case "orgid", "accountid":
			return []string{g.OrgID}
		case "access":
			return []string{g.Access}
		case "tags":
			return g.Tags
		case "description":
			return []string{g.Description}
		case "":
			return append([]string{g.Title, g.Description, g.Owner}, g.Tags...)
		}
		return nil
	}
}

// visibleGroups is groups as p may see them, for the user document of
// another member: an administrator of the organization, or the user itself,
// sees them all.
func visibleGroups(p Principal, u User, groups []Group) []Group {
	if viewerSees(p, u) {
		return groups
	}
	return slices.DeleteFunc(slices.Clone(groups), func(g Group) bool { return !p.canSee(g) })
}

// viewerSees reports whether p sees all of u's document (email and every
// group): u itself, or an administrator of u's organization.
func viewerSees(p Principal, u User) bool {
	return p.User.Username == u.Username || (p.userOf(u.OrgID) && p.IsAdmin())
}

// withGroups completes prof, read for p, with the groups of its user that
// p may see, and hides the email from any other than the user and the
// organization's administrators.
func withGroups(ctx context.Context, tx Tx, p Principal, prof Profile) (Profile, error) {
	groups, err := tx.UserGroups(ctx, prof.Username)
	if err != nil {
		return prof, err
	}
	prof.Groups = make([]GroupView, 0, len(groups))
	for _, g := range visibleGroups(p, prof.User, groups) {
		prof.Groups = append(prof.Groups, viewGroup(prof.Username, g))
	}
	prof.Full = viewerSees(p, prof.User)
	if !prof.Full {
		prof.Email = ""
	}
	return prof, nil
}

// firstLast splits a full name into the first and last names a user
// document carries: the last word is the last name.
func firstLast(full string) (first, last string) {
	full = strings.TrimSpace(full)
	i := strings.LastIndexByte(full, ' ')
	if i < 0 {
		return full, ""
	}
	return strings.TrimSpace(full[:i]), full[i+1:]
}

// FirstLast returns the first and last names of p's full name.
func (p Profile) FirstLast() (first, last string) { return firstLast(p.FullName) }
