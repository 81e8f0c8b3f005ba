package api

// The member category operations: the schema and each member's categories (rules: server/categories.go).

import (
	"context"
	"fmt"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

func (h *handlers) AssignMemberCategorySchema(ctx context.Context, r gen.AssignMemberCategorySchemaRequestObject) (gen.AssignMemberCategorySchemaResponseObject, error) {
	// The document as the validator decoded it, not parsed a second time.
	var doc any
	if rs := stateOf(ctx); rs != nil {
		doc = rs.fields["memberCategorySchema"]
	}
	obj, _ := doc.(map[string]any)
	nodes, err := categoryNodes(obj["memberCategorySchema"], "memberCategorySchema.memberCategorySchema")
	if err != nil {
		return nil, err
	}
	if err := h.svc.AssignMemberCategorySchema(ctx, principal(ctx), r.PortalId, nodes); err != nil {
		return nil, err
	}
	return gen.AssignMemberCategorySchema200JSONResponse(succeeded), nil
}

// categoryNodes reads a category tree from its decoded JSON value, which the
// contract's schema has already checked.
func categoryNodes(v any, path string) ([]server.CategoryNode, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, server.Invalid(path + ": must be an array")
	}
	out := make([]server.CategoryNode, len(list))
	for i, item := range list {
		at := fmt.Sprintf("%s[%d]", path, i)
		node, ok := item.(map[string]any)
		if !ok {
			return nil, server.Invalid(at + ": must be an object")
		}
		if t, present := node["title"]; present && t != nil {
			title, ok := t.(string)
			if !ok {
				return nil, server.Invalid(at + ".title: must be a string")
			}
			out[i].Title = title
		}
		kids, err := categoryNodes(node["categories"], at+".categories")
		if err != nil {
			return nil, err
		}
		out[i].Categories = kids
	}
	return out, nil
}

func (h *handlers) DeleteMemberCategorySchema(ctx context.Context, r gen.DeleteMemberCategorySchemaRequestObject) (gen.DeleteMemberCategorySchemaResponseObject, error) {
	if err := h.svc.DeleteMemberCategorySchema(ctx, principal(ctx), r.PortalId); err != nil {
		return nil, err
	}
	return gen.DeleteMemberCategorySchema200JSONResponse(succeeded), nil
}

func (h *handlers) GetMemberCategorySchema(ctx context.Context, r gen.GetMemberCategorySchemaRequestObject) (gen.GetMemberCategorySchemaResponseObject, error) {
	nodes, err := h.svc.MemberCategorySchema(ctx, principal(ctx), r.PortalId)
	if err != nil {
		return nil, err
	}
	var out gen.MemberCategorySchemaResponse
	if err := out.FromMemberCategorySchema(gen.MemberCategorySchema{MemberCategorySchema: toGenNodes(nodes)}); err != nil {
		return nil, err
	}
	return gen.GetMemberCategorySchema200JSONResponse(out), nil
}

func toGenNodes(nodes []server.CategoryNode) []gen.CategoryNode {
	out := make([]gen.CategoryNode, len(nodes))
	for i, n := range nodes {
		out[i] = gen.CategoryNode{Title: n.Title}
		if len(n.Categories) > 0 {
			out[i].Categories = ptr(toGenNodes(n.Categories))
		}
	}
	return out
}

func toGenMember(p server.Profile) gen.Member {
	cats := p.Categories
	if cats == nil {
		cats = []string{}
	}
	m := gen.Member{Username: p.Username, OrgId: p.OrgID, Role: p.Role, Categories: cats}
	if p.FullName != "" {
		m.FullName = ptr(p.FullName)
	}
	if p.RoleID != "" {
		m.RoleId = ptr(p.RoleID)
	}
	return m
}

func (h *handlers) GetMember(ctx context.Context, r gen.GetMemberRequestObject) (gen.GetMemberResponseObject, error) {
	p, err := h.svc.Member(ctx, principal(ctx), r.UserName)
	if err != nil {
		return nil, err
	}
	return gen.GetMember200JSONResponse(memberAnswer(p)), nil
}

func (h *handlers) UpdateMember(ctx context.Context, r gen.UpdateMemberRequestObject) (gen.UpdateMemberResponseObject, error) {
	u, err := h.svc.SetMemberCategories(ctx, principal(ctx), r.UserName, list(ctx, "categories", r.Body.Categories))
	if err != nil {
		return nil, err
	}
	return gen.UpdateMember200JSONResponse{Success: successTrue, Username: ptr(u.Username)}, nil
}

func (h *handlers) ListMembers(ctx context.Context, r gen.ListMembersRequestObject) (gen.ListMembersResponseObject, error) {
	q := server.MemberQuery{Page: page(r.Params.Start, r.Params.Num)}
	if r.Params.Categories != nil {
		q.Categories = *r.Params.Categories
	}
	l, err := h.svc.Members(ctx, principal(ctx), r.PortalId, q)
	if err != nil {
		return nil, err
	}
	users := make([]gen.Member, len(l.Users))
	for i, p := range l.Users {
		users[i] = toGenMember(p)
	}
	return gen.ListMembers200JSONResponse{Total: ptr(int32(l.Total)), Start: ptr(int32(l.Start)), Num: ptr(int32(l.Num)),
		NextStart: ptr(int32(l.NextStart)), Users: &users}, nil
}
