package api

// The content operations: listings, items, folders, moves and deletions (rules: server/content.go).

import (
	"context"
	"strings"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

func itemResults(rs []server.ItemResult) *[]gen.ItemResult {
	out := make([]gen.ItemResult, len(rs))
	for i, r := range rs {
		out[i] = gen.ItemResult{ItemId: r.ItemID, Success: r.Err == nil}
		if r.Err != nil {
			out[i].Error = &gen.ItemError{Code: int32(r.Err.Code), Message: r.Err.Message}
			if r.Err.MessageCode != "" {
				out[i].Error.MessageCode = ptr(r.Err.MessageCode)
			}
		}
	}
	return &out
}

func folderParam(f *string) string {
	if f == nil {
		return ""
	}
	return *f
}

func (h *handlers) MoveItems(ctx context.Context, r gen.MoveItemsRequestObject) (gen.MoveItemsResponseObject, error) {
	rs, err := h.svc.MoveItems(ctx, principal(ctx), r.UserName, list(ctx, "items", r.Body.Items), folderParam(r.Body.Folder))
	if err != nil {
		return nil, err
	}
	return gen.MoveItems200JSONResponse{Results: itemResults(rs)}, nil
}

func (h *handlers) DeleteItems(ctx context.Context, r gen.DeleteItemsRequestObject) (gen.DeleteItemsResponseObject, error) {
	rs, err := h.svc.DeleteItems(ctx, principal(ctx), r.UserName, list(ctx, "items", r.Body.Items))
	if err != nil {
		return nil, err
	}
	return gen.DeleteItems200JSONResponse{Results: itemResults(rs)}, nil
}

func toGenFolder(f server.Folder) gen.Folder {
	return gen.Folder{Id: f.ID, Title: f.Title, Username: f.Owner, Created: millis(f.Created)}
}

func (h *handlers) CreateFolder(ctx context.Context, r gen.CreateFolderRequestObject) (gen.CreateFolderResponseObject, error) {
	f, err := h.svc.CreateFolder(ctx, principal(ctx), r.UserName, r.Body.Title)
	if err != nil {
		return nil, err
	}
	return gen.CreateFolder200JSONResponse{Success: successTrue, Folder: ptr(toGenFolder(f))}, nil
}

func (h *handlers) DeleteFolder(ctx context.Context, r gen.DeleteFolderRequestObject) (gen.DeleteFolderResponseObject, error) {
	f, err := h.svc.DeleteFolder(ctx, principal(ctx), r.UserName, r.FolderId)
	if err != nil {
		return nil, err
	}
	return gen.DeleteFolder200JSONResponse{Success: successTrue, Folder: ptr(toGenFolder(f))}, nil
}

func newItem(b *gen.AddItemForm) server.NewItem {
	in := server.NewItem{Title: b.Title, Type: b.Type}
	if b.Description != nil {
		in.Description = *b.Description
	}
	if b.Tags != nil {
		in.Tags = strings.Split(*b.Tags, ",")
	}
	return in
}

func addedItem(it server.Item) gen.NewItemResponse {
	out := gen.NewItemResponse{Success: successTrue, Id: ptr(it.ID)}
	if it.FolderID != "" {
		out.Folder = ptr(it.FolderID) // else null: the root
	}
	return out
}

func (h *handlers) AddItem(ctx context.Context, r gen.AddItemRequestObject) (gen.AddItemResponseObject, error) {
	it, err := h.svc.AddItem(ctx, principal(ctx), r.UserName, "", newItem(r.Body))
	if err != nil {
		return nil, err
	}
	return gen.AddItem200JSONResponse(addedItem(it)), nil
}

func (h *handlers) AddItemToFolder(ctx context.Context, r gen.AddItemToFolderRequestObject) (gen.AddItemToFolderResponseObject, error) {
	it, err := h.svc.AddItem(ctx, principal(ctx), r.UserName, r.FolderId, newItem(r.Body))
	if err != nil {
		return nil, err
	}
	return gen.AddItemToFolder200JSONResponse(addedItem(it)), nil
}

func toGenItem(it server.Item) gen.Item {
	out := gen.Item{Id: it.ID, Owner: it.Owner, Title: it.Title, Type: it.Type, TypeKeywords: ptr([]string{}), Tags: ptr(it.Tags),
		Description: ptr(it.Description), Created: millis(it.Created), Modified: millis(it.Modified)}
	if out.Tags == nil || *out.Tags == nil {
		out.Tags = ptr([]string{})
	}
	if it.FolderID != "" {
		out.OwnerFolder = ptr(it.FolderID)
	}
	return out
}

// content is the user content read; currentFolder is null at the root.
func (h *handlers) content(ctx context.Context, user, folder string, start, num *int32) (gen.UserContentResponse, error) {
	c, err := h.svc.UserContent(ctx, principal(ctx), user, folder, page(start, num))
	if err != nil {
		return gen.UserContentResponse{}, err
	}
	items, folders := make([]gen.Item, len(c.Items)), make([]gen.Folder, len(c.Folders))
	for i, it := range c.Items {
		items[i] = toGenItem(it)
	}
	for i, f := range c.Folders {
		folders[i] = toGenFolder(f)
	}
	out := gen.UserContentResponse{Username: ptr(c.Username), Total: ptr(int32(c.Total)), Start: ptr(int32(c.Start)),
		Num: ptr(int32(c.Num)), NextStart: ptr(int32(c.Next)), Items: &items, Folders: &folders}
	if c.CurrentFolder != nil {
		out.CurrentFolder = ptr(toGenFolder(*c.CurrentFolder))
	}
	return out, nil
}

func (h *handlers) GetUserContent(ctx context.Context, r gen.GetUserContentRequestObject) (gen.GetUserContentResponseObject, error) {
	out, err := h.content(ctx, r.UserName, "", r.Params.Start, r.Params.Num)
	if err != nil {
		return nil, err
	}
	return gen.GetUserContent200JSONResponse(out), nil
}

func (h *handlers) GetFolderContent(ctx context.Context, r gen.GetFolderContentRequestObject) (gen.GetFolderContentResponseObject, error) {
	out, err := h.content(ctx, r.UserName, r.FolderId, r.Params.Start, r.Params.Num)
	if err != nil {
		return nil, err
	}
	return gen.GetFolderContent200JSONResponse(out), nil
}

func (h *handlers) GetItem(ctx context.Context, r gen.GetItemRequestObject) (gen.GetItemResponseObject, error) {
	it, err := h.svc.Item(ctx, principal(ctx), r.ItemId)
	if err != nil {
		return nil, err
	}
	i := toGenItem(it)
	return gen.GetItem200JSONResponse{Id: &i.Id, Owner: &i.Owner, Title: &i.Title, Type: &i.Type, TypeKeywords: i.TypeKeywords,
		Tags: i.Tags, Description: i.Description, Created: i.Created, Modified: i.Modified, OwnerFolder: i.OwnerFolder}, nil
}

func (h *handlers) MoveItem(ctx context.Context, r gen.MoveItemRequestObject) (gen.MoveItemResponseObject, error) {
	m, err := h.svc.MoveItem(ctx, principal(ctx), r.UserName, "", r.ItemId, r.Body.Folder)
	if err != nil {
		return nil, err
	}
	return gen.MoveItem200JSONResponse(movedItem(m)), nil
}

func (h *handlers) MoveItemFromFolder(ctx context.Context, r gen.MoveItemFromFolderRequestObject) (gen.MoveItemFromFolderResponseObject, error) {
	m, err := h.svc.MoveItem(ctx, principal(ctx), r.UserName, r.FolderId, r.ItemId, r.Body.Folder)
	if err != nil {
		return nil, err
	}
	return gen.MoveItemFromFolder200JSONResponse(movedItem(m)), nil
}

func movedItem(m server.MovedItem) gen.MovedItemResponse {
	folder := m.FolderID
	if folder == "" {
		folder = "/"
	}
	return gen.MovedItemResponse{Success: successTrue, ItemId: ptr(m.ItemID), Owner: ptr(m.Owner), Folder: ptr(folder)}
}
