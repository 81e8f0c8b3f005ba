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
