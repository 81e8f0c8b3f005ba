package client

import (
	"context"
	"net/http"
	"time"

	"github.com/orgportal/portal-api/gen"
)

// RESTVersion reads the portal's REST API version (currentVersion of the
// REST root), such as "2025.1" for ArcGIS Enterprise 11.5: each release has
// its own, which is not the product's version.
func (c *Client) RESTVersion(ctx context.Context) (string, error) {
	const op = "getRoot"
	var out gen.RootResponse
	params := &gen.GetRootParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetRoot(ctx, params, edit)
	}, &out); err != nil {
		return "", err
	}
	if out.CurrentVersion == nil {
		return "", missing(op, "currentVersion")
	}
	return *out.CurrentVersion, nil
}

// Info is how to sign in to the portal, as its info resource says.
type Info struct {
	// OwningSystemURL is the portal's address (scheme, host and context).
	OwningSystemURL string
	// TokenServicesURL is its generateToken.
	TokenServicesURL string
}

// Info reads the portal's info resource.
func (c *Client) Info(ctx context.Context) (Info, error) {
	const op = "getInfo"
	var out gen.InfoResponse
	params := &gen.GetInfoParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetInfo(ctx, params, edit)
	}, &out); err != nil {
		return Info{}, err
	}
	if out.OwningSystemUrl == nil || out.AuthInfo == nil {
		return Info{}, missing(op, "owningSystemUrl or authInfo")
	}
	return Info{OwningSystemURL: *out.OwningSystemUrl, TokenServicesURL: deref(out.AuthInfo.TokenServicesUrl)}, nil
}

// User is a member as the user resource describes it (Self, Portal's User):
// a Member with its id, its role's privileges and its creation time.
type User struct {
	Member
	ID         string   // stable for the user's life
	Privileges []string // what the role grants
	Created    time.Time
}

// Portal is the portal resource: the organization as the caller sees it.
type Portal struct {
	ID, Name string
	// PortalName is "ArcGIS Enterprise" or "ArcGIS Online"; IsPortal is
	// true for a self-hosted portal.
	PortalName string
	IsPortal   bool
	// CurrentVersion is the REST API's version, as RESTVersion reads it.
	CurrentVersion string
	// HasMemberCategorySchema is shown to members of the organization.
	HasMemberCategorySchema bool
	// User is the caller, for a member of the organization; nil otherwise.
	User *User
}

// Portal reads the portal resource portalID names: "" or "self" for the
// caller's organization (the portal's default one for an anonymous client).
func (c *Client) Portal(ctx context.Context, portalID string) (*Portal, error) {
	const op = "getPortal"
	var out gen.PortalResponse
	params := &gen.GetPortalParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetPortal(ctx, selfIfEmpty(portalID), params, edit)
	}, &out); err != nil {
		return nil, err
	}
	if out.Id == nil || out.PortalName == nil {
		return nil, missing(op, "id or portalName")
	}
	p := &Portal{ID: *out.Id, Name: deref(out.Name), PortalName: *out.PortalName, IsPortal: deref(out.IsPortal),
		CurrentVersion: deref(out.CurrentVersion), HasMemberCategorySchema: deref(out.HasMemberCategorySchema)}
	if u := out.User; u != nil {
		p.User = &User{Member: Member{Username: u.Username, FullName: deref(u.FullName), OrgID: u.OrgId, Role: u.Role, RoleID: deref(u.RoleId),
			Categories: u.Categories}, ID: u.Id, Privileges: u.Privileges, Created: msTime(u.Created)}
	}
	return p, nil
}

// Self reads the signed-in user.
func (c *Client) Self(ctx context.Context) (*User, error) {
	const op = "getSelf"
	var out gen.MemberResponse
	params := &gen.GetSelfParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetSelf(ctx, params, edit)
	}, &out); err != nil {
		return nil, err
	}
	return toUser(op, out)
}

func toUser(op string, out gen.MemberResponse) (*User, error) {
	if out.Username == nil || out.Id == nil {
		return nil, missing(op, "username or id")
	}
	return &User{
		Member: Member{Username: *out.Username, FullName: deref(out.FullName), OrgID: deref(out.OrgId), Role: deref(out.Role),
			RoleID: deref(out.RoleId), Categories: deref(out.Categories)},
		ID: *out.Id, Privileges: deref(out.Privileges), Created: millis(out.Created),
	}, nil
}

func msTime(ms int64) time.Time { return millis(&ms) }

// Role is a custom role of an organization.
type Role struct {
	ID, Name, Description string
}

// RolePage is a page of custom roles.
type RolePage struct {
	Total, Start, Num int
	NextStart         int // Start of the next page; -1 on the last page
	Roles             []Role
}

// Roles lists the custom roles of the organization portalID names ("" for
// the caller's); any member may.
func (c *Client) Roles(ctx context.Context, portalID string, page Page) (*RolePage, error) {
	const op = "listRoles"
	start, num := page.params()
	params := &gen.ListRolesParams{Start: start, Num: num, F: jsonFormat()}
	var out gen.RoleListResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.ListRoles(ctx, selfIfEmpty(portalID), params, edit)
	}, &out); err != nil {
		return nil, err
	}
	if out.Roles == nil {
		return nil, missing(op, "roles")
	}
	p := &RolePage{Total: int(deref(out.Total)), Start: int(deref(out.Start)), Num: int(deref(out.Num)), NextStart: int(deref(out.NextStart))}
	for _, r := range *out.Roles {
		p.Roles = append(p.Roles, Role{ID: r.Id, Name: r.Name, Description: r.Description})
	}
	return p, nil
}
