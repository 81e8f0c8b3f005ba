package client

import (
	"context"
	"net/http"

	"github.com/orgportal/portal-api/gen"
)

// Category is a node of the member category schema: a title, unique among
// its siblings (case-insensitive) and without "/", and its sub-categories.
// Top-level categories are level 1; the schema has at most 3 levels and 200
// categories in all.
type Category struct {
	Title      string     `json:"title"`
	Categories []Category `json:"categories,omitempty"`
}

// Member is a member of an organization with the category paths assigned to
// it, such as "/Office Location/USA/Maine".
type Member struct {
	Username string
	FullName string
	OrgID    string
	// Role is org_admin, org_publisher or org_user: for a custom role, the
	// one its privileges amount to, as the portal reports it.
	Role       string
	RoleID     string // the custom role's id; "" for a built-in role
	Categories []string
}

// MemberQuery selects members for Members.
type MemberQuery struct {
	// Categories keeps members holding any of these category paths or one
	// of their descendants; empty keeps everyone.
	Categories []string
	// Start and Num select the page as in Page.
	Start, Num int
}

// MemberPage is a page of members.
type MemberPage struct {
	Total, Start, Num int
	NextStart         int // Start of the next page; -1 on the last page
	Members           []Member
}

// AssignMemberCategorySchema replaces the organization's member category
// schema with categories; categories held by members that are no longer in
// it are removed from them. portalID "" means the caller's own organization.
// A schema too deep, too large or empty fails with message code ORG_1132.
// Callers: org_admin, or a role holding
// portal:admin:updateMemberCategorySchema.
func (c *Client) AssignMemberCategorySchema(ctx context.Context, portalID string, categories []Category) error {
	const op = "assignMemberCategorySchema"
	if categories == nil {
		categories = []Category{} // [] rather than null: the portal judges an empty schema
	}
	doc, err := jsonField[gen.MemberCategorySchema](struct {
		Schema []Category `json:"memberCategorySchema"`
	}{categories})
	if err != nil {
		return wrap(op, err)
	}
	form := gen.AssignMemberCategorySchemaForm{MemberCategorySchema: *doc, F: jsonFormat()}
	var out gen.SuccessResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.AssignMemberCategorySchemaWithFormdataBody(ctx, selfIfEmpty(portalID), form, edit)
	}, &out); err != nil {
		return err
	}
	return succeeded(op, out.Success)
}

// MemberCategorySchema reads the organization's member category schema; it
// is empty when none is assigned. portalID "" means the caller's own
// organization.
func (c *Client) MemberCategorySchema(ctx context.Context, portalID string) ([]Category, error) {
	const op = "getMemberCategorySchema"
	var out struct {
		Schema *[]Category `json:"memberCategorySchema"`
	}
	params := &gen.GetMemberCategorySchemaParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetMemberCategorySchema(ctx, selfIfEmpty(portalID), params, edit)
	}, &out); err != nil {
		return nil, err
	}
	if out.Schema == nil {
		return nil, missing(op, "memberCategorySchema")
	}
	return *out.Schema, nil
}

// DeleteMemberCategorySchema removes the organization's member category
// schema and every category held by members. portalID "" means the caller's
// own organization. Callers as for AssignMemberCategorySchema.
func (c *Client) DeleteMemberCategorySchema(ctx context.Context, portalID string) error {
	const op = "deleteMemberCategorySchema"
	form := gen.FormatForm{F: jsonFormat()}
	var out gen.SuccessResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteMemberCategorySchemaWithFormdataBody(ctx, selfIfEmpty(portalID), form, edit)
	}, &out); err != nil {
		return err
	}
	return succeeded(op, out.Success)
}

// Member reads a member of the caller's organization.
func (c *Client) Member(ctx context.Context, user string) (*Member, error) {
	const op = "getMember"
	if err := need("user name", user); err != nil {
		return nil, wrap(op, err)
	}
	var out gen.MemberResponse
	params := &gen.GetMemberParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetMember(ctx, user, params, edit)
	}, &out); err != nil {
		return nil, err
	}
	if out.Username == nil {
		return nil, missing(op, "username")
	}
	return &Member{
		Username:   *out.Username,
		FullName:   deref(out.FullName),
		OrgID:      deref(out.OrgId),
		Role:       deref(out.Role),
		RoleID:     deref(out.RoleId),
		Categories: deref(out.Categories),
	}, nil
}

// SetMemberCategories replaces the categories of member user with paths,
// each a path of the schema such as "/Office Location/USA/Maine"; at most 20.
// An empty paths removes them all. Callers: org_admin, or a role holding
// portal:admin:updateUsers.
func (c *Client) SetMemberCategories(ctx context.Context, user string, paths []string) error {
	const op = "updateMember"
	if err := need("user name", user); err != nil {
		return wrap(op, err)
	}
	form := gen.UpdateMemberForm{Categories: idList(paths), F: jsonFormat()}
	var out gen.MemberUpdateResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateMemberWithFormdataBody(ctx, user, form, edit)
	}, &out); err != nil {
		return err
	}
	return succeeded(op, out.Success)
}

// Members lists a page of the organization's members, filtered by
// category. portalID "" means the caller's own organization.
func (c *Client) Members(ctx context.Context, portalID string, q MemberQuery) (*MemberPage, error) {
	const op = "listMembers"
	params := &gen.ListMembersParams{F: jsonFormat()}
	params.Start, params.Num = Page{Start: q.Start, Num: q.Num}.params()
	if len(q.Categories) > 0 {
		params.Categories = &q.Categories
	}
	var out gen.MemberListResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.ListMembers(ctx, selfIfEmpty(portalID), params, edit)
	}, &out); err != nil {
		return nil, err
	}
	if out.Users == nil {
		return nil, missing(op, "users")
	}
	p := &MemberPage{
		Total:     int(deref(out.Total)),
		Start:     int(deref(out.Start)),
		Num:       int(deref(out.Num)),
		NextStart: int(deref(out.NextStart)),
		Members:   make([]Member, 0, len(*out.Users)),
	}
	for _, m := range *out.Users {
		p.Members = append(p.Members, Member{
			Username:   m.Username,
			FullName:   deref(m.FullName),
			OrgID:      m.OrgId,
			Role:       m.Role,
			RoleID:     deref(m.RoleId),
			Categories: m.Categories,
		})
	}
	return p, nil
}
