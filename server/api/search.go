package api

import (
	"context"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

func (h *handlers) SearchItems(ctx context.Context, r gen.SearchItemsRequestObject) (gen.SearchItemsResponseObject, error) {
	q := deref(r.Params.Q)
	l, err := h.svc.SearchItems(ctx, principal(ctx), q, deref(r.Params.SortField), string(deref(r.Params.SortOrder)), page(r.Params.Start, r.Params.Num))
	if err != nil {
		return nil, err
	}
	results := make([]gen.SearchItem, len(l.Items))
	for i, it := range l.Items {
		results[i] = toSearchItem(it)
	}
	return gen.SearchItems200JSONResponse{Query: ptr(q), Total: ptr(int32(l.Total)), Start: ptr(int32(l.Start)),
		Num: ptr(int32(l.Num)), NextStart: ptr(int32(l.NextStart)), Results: &results}, nil
}

// toSearchItem is an item as search answers it.
func toSearchItem(v server.ItemView) gen.SearchItem {
	tags := v.Tags
	if tags == nil {
		tags = []string{}
	}
	return gen.SearchItem{Id: v.ID, Owner: v.Owner, OrgId: v.OrgID, Title: v.Title, Type: v.Type, TypeKeywords: &[]string{},
		Tags: &tags, Description: ptr(v.Description), Access: gen.SearchItemAccess(v.Access),
		Created: v.Created.UnixMilli(), Modified: v.Modified.UnixMilli()}
}

func (h *handlers) GetUserTags(ctx context.Context, r gen.GetUserTagsRequestObject) (gen.GetUserTagsResponseObject, error) {
	tags, err := h.svc.UserTags(ctx, principal(ctx), r.UserName)
	if err != nil {
		return nil, err
	}
	out := make([]gen.TagCount, len(tags))
	for i, t := range tags {
		out[i] = gen.TagCount{Tag: t.Tag, Count: int32(t.Count)}
	}
	return gen.GetUserTags200JSONResponse{Tags: &out}, nil
}
