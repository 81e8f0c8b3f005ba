package api

import (
	"context"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

func (h *handlers) SearchGroups(ctx context.Context, r gen.SearchGroupsRequestObject) (gen.SearchGroupsResponseObject, error) {
	q := deref(r.Params.Q)
	l, err := h.svc.SearchGroups(ctx, principal(ctx), q, deref(r.Params.SortField), string(deref(r.Params.SortOrder)), page(r.Params.Start, r.Params.Num))
	if err != nil {
		return nil, err
	}
	results := make([]gen.Group, len(l.Groups))
	for i, g := range l.Groups {
		results[i] = toGenGroup(g)
	}
	return gen.SearchGroups200JSONResponse{Query: ptr(q), Total: ptr(int32(l.Total)), Start: ptr(int32(l.Start)),
		Num: ptr(int32(l.Num)), NextStart: ptr(int32(l.NextStart)), Results: &results}, nil
}

func (h *handlers) GetGroup(ctx context.Context, r gen.GetGroupRequestObject) (gen.GetGroupResponseObject, error) {
	g, err := h.svc.GetGroup(ctx, principal(ctx), r.GroupId)
	if err != nil {
		return nil, err
	}
	d := toGenGroup(g)
	access := gen.GroupResponseAccess(d.Access)
	return gen.GetGroup200JSONResponse{Id: &d.Id, Title: &d.Title, Owner: &d.Owner, OrgId: &d.OrgId, Description: d.Description,
		Snippet: d.Snippet, Tags: d.Tags, TypeKeywords: d.TypeKeywords, Thumbnail: d.Thumbnail, Access: &access,
		IsInvitationOnly: d.IsInvitationOnly, IsViewOnly: d.IsViewOnly, Protected: d.Protected, SortField: d.SortField,
		SortOrder: d.SortOrder, Created: &d.Created, Modified: &d.Modified, UserMembership: &d.UserMembership}, nil
}

// toGenGroup is a group document: the stored group, the defaults of what
// the portal answers and the emulator does not keep (no snippet, no
// thumbnail, items sorted by title), and the membership of g's user.
func toGenGroup(g server.GroupView) gen.Group {
	tags := g.Tags
	if tags == nil {
		tags = []string{}
	}
	m := gen.GroupMembership{MemberType: gen.GroupMembershipMemberType(g.MemberType)}
	if g.Username != "" {
		m.Username = ptr(g.Username)
	}
	return gen.Group{Id: g.ID, Title: g.Title, Owner: g.Owner, OrgId: g.OrgID, Description: ptr(g.Description),
		Tags: &tags, TypeKeywords: &[]string{}, Access: gen.GroupAccess(g.Access), IsInvitationOnly: ptr(false),
		IsViewOnly: ptr(false), Protected: ptr(false), SortField: ptr("title"), SortOrder: ptr("asc"),
		Created: g.Created.UnixMilli(), Modified: g.Modified.UnixMilli(), UserMembership: m}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
