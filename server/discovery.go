package server

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Profile is a user as user documents describe it (community/self,
// community/users/{u}, the member list): the stored user and what its role
// grants. For a custom role, Role is the built-in role it is reported as
// (reportedRole) and RoleID the custom role's id.
type Profile struct {
	User
	ID         string   // UserID
	RoleID     string   // the custom role's id; "" for a built-in role
	Privileges []string // the role's
	// Groups are the user's groups the reader may see (withGroups); Full
	// tells that the reader sees the whole document (the user, or an
	// administrator of its organization): else Email is emptied.
	Groups []GroupView
	Full   bool
}

// PortalView is the portal resource (portals/self, portals/{id}) as one
// caller sees it.
type PortalView struct {
	Organization
	Online bool // the hosted deployment; else self-hosted
	// RESTVersion is the REST API's version of the emulated release.
	RESTVersion string
	// Member is set when the caller is a member of the organization: the
	// members' fields are shown.
	Member            bool
	HasCategorySchema bool
	// User is the caller, when a member; App the application whose token
	// made the request.
	User *Profile
	App  *App
	// AppOwner is the user an application's token answers as the
	// application's owner: the organization's first administrator by name.
	AppOwner string
}

// PortalName is the product name the view carries.
func (v PortalView) PortalName() string { return portalName(v.Online) }

// WithDefaultOrganization sets the organization an anonymous portals/self
// answers: the portal's own, the first of its seed.
func WithDefaultOrganization(id string) Option {
	return func(s *Service) { s.defaultOrg = id }
}

// Portal returns the portal resource portalID names as p sees it: "self"
// is the caller's organization (an application's for its token), or the
// default organization for an anonymous caller. Members of the organization
// see its members' fields; others, its anonymous view.
func (s *Service) Portal(ctx context.Context, p Principal, portalID string) (PortalView, error) {
	out := PortalView{Online: s.gates.Deployment == DeploymentOnline, RESTVersion: s.gates.RESTVersion, App: p.App}
	if portalID == "self" && p.Anonymous() {
		portalID = s.defaultOrg
	}
	err := s.store.View(ctx, func(tx Tx) error {
		id := portalID
		if id == "self" {
			id = p.OrgID()
		}
		org, err := tx.Organization(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return notFound(msgPortalNotFound)
		} else if err != nil {
			return err
		}
		out.Organization = org
		if p.App != nil && p.App.OrgID == org.ID {
			users, err := tx.Users(ctx, org.ID)
			if err != nil {
				return err
			}
			for _, u := range users {
				if u.Role == RoleAdmin {
					out.AppOwner = u.Username
					break
				}
			}
		}
		if !p.userOf(org.ID) {
			return nil
		}
		out.Member = true
		schema, err := tx.CategorySchema(ctx, org.ID)
		if err != nil {
			return err
		}
		out.HasCategorySchema = len(schema) > 0
		u, err := resolveUser(ctx, tx, p.User.Username)
		if err != nil {
			return err
		}
		prof, err := profile(ctx, tx, u)
		if err != nil {
			return err
		}
		prof, err = withGroups(ctx, tx, p, prof)
		out.User = &prof
		return err
	})
	return out, wrap("read portal", err)
}

// Self returns the caller's own user resource (community/self).
func (s *Service) Self(ctx context.Context, p Principal) (Profile, error) {
	if p.Anonymous() {
		return Profile{}, clone(ErrTokenRequired)
	}
	if p.User.Username == "" {
		return Profile{}, clone(ErrForbidden) // an application is no user
	}
	var out Profile
	err := s.store.View(ctx, func(tx Tx) error {
		u, err := resolveUser(ctx, tx, p.User.Username)
		if err != nil {
			return err
		}
		if out, err = profile(ctx, tx, u); err != nil {
			return err
		}
		out, err = withGroups(ctx, tx, p, out)
		return err
	})
	return out, wrap("read self", err)
}

// profile is u as the user resource describes it.
func profile(ctx context.Context, tx Tx, u User) (Profile, error) {
	if _, builtin := builtinPrivileges[u.Role]; builtin {
		return profileWith(u, nil), nil
	}
	r, err := tx.Role(ctx, u.OrgID, u.Role)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Profile{}, err
	}
	return profileWith(u, r.Privileges), nil
}

// profiles is users, members of org, as user documents describe them, their
// custom roles read in one statement.
func profiles(ctx context.Context, tx Tx, org string, users []User) ([]Profile, error) {
	var custom map[string][]string
	out := make([]Profile, len(users))
	for i, u := range users {
		if _, builtin := builtinPrivileges[u.Role]; !builtin && custom == nil {
			roles, err := tx.Roles(ctx, org)
			if err != nil {
				return nil, err
			}
			custom = make(map[string][]string, len(roles))
			for _, r := range roles {
				custom[r.ID] = r.Privileges
			}
		}
		out[i] = profileWith(u, custom[u.Role])
	}
	return out, nil
}

// profileWith is u as user documents describe it, custom being the
// privileges of u's custom role (unused for a built-in role).
func profileWith(u User, custom []string) Profile {
	out := Profile{User: u, ID: UserID(u.Username)}
	if privs, builtin := builtinPrivileges[u.Role]; builtin {
		out.Privileges = slices.Clone(privs)
		return out
	}
	out.RoleID = u.Role
	out.Privileges = slices.Clone(custom)
	if out.Privileges == nil {
		out.Privileges = []string{}
	}
	out.Role = reportedRole(out.Privileges)
	return out
}

// RolePage is a page of an organization's custom roles.
type RolePage struct {
	Paging
	Roles []CustomRole
}

// Roles lists the custom roles of the organization portalID names, to its
// members.
func (s *Service) Roles(ctx context.Context, p Principal, portalID string, page Page) (RolePage, error) {
	var out RolePage
	err := s.store.View(ctx, func(tx Tx) error {
		orgID, err := memberOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		roles, err := tx.Roles(ctx, orgID)
		if err != nil {
			return err
		}
		out.Paging, out.Roles = cut(page, roles)
		return nil
	})
	return out, wrap("list roles", err)
}

// reportedRole is the built-in role a user document names as the role of a
// member whose custom role grants privs, as the portal reports it (clients
// compare role with org_admin): an administrator's when privs hold an
// administrative privilege, else a publisher's when they hold a publisher's,
// else a user's.
func reportedRole(privs []string) string {
	role := RoleUser
	for _, p := range privs {
		switch {
		case strings.HasPrefix(p, "portal:admin:"):
			return RoleAdmin
		case strings.HasPrefix(p, "portal:publisher:"):
			role = RolePublisher
		}
	}
	return role
}
