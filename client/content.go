package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/wire"
)

// Item is an item of a user's content.
type Item struct {
	ID          string
	Owner       string
	Folder      string // the id of the folder holding the item; "" at the root
	Title       string
	Type        string // such as "Feature Service", "Web Map", "CSV"
	Tags        []string
	Description string
	Created     time.Time // zero when the portal does not say
	Modified    time.Time
}

// Folder is one of a user's folders.
type Folder struct {
	ID      string
	Title   string
	Owner   string
	Created time.Time // zero when the portal does not say
}

// Content is a page of a user's root folder or of one of its folders.
type Content struct {
	// Owner is the user whose content is listed.
	Owner string
	// Folder is the folder listed; nil for the root.
	Folder *Folder
	// Items are the page's items of the folder listed.
	Items []Item
	// Folders are all the user's folders when the root is listed; empty
	// inside a folder.
	Folders           []Folder
	Total, Start, Num int // Total counts the items of the folder listed
	NextStart         int // Start of the next page; -1 on the last page
}

// NewItem describes an item for AddItem.
type NewItem struct {
	Title       string // required
	Type        string // required, such as "Feature Service" or "Web Map"
	Tags        []string
	Description string
}

// ItemResult is the outcome for one id of MoveItems or DeleteItems.
type ItemResult struct {
	ItemID  string
	Success bool
	// Err says why the item failed; nil on success. An unknown item, or one
	// the user does not own, matches ErrNotFound (message code CONT_0001);
	// an item already in the destination folder has code 500 and the
	// message "Item already exists in target folder".
	Err *Error
}

// MoveItems moves the items ids of user to folder, a folder id of user; ""
// or "/" is the root folder. Each item is moved on its own: the results, one
// per id in the order of ids, tell which moved, and a failed item is not an
// error. An unknown destination folder fails the whole call and moves
// nothing. At most 1,000 ids. Callers: the user, or in its organization an
// org_admin or a role holding portal:admin:updateItems.
func (c *Client) MoveItems(ctx context.Context, user string, ids []string, folder string) ([]ItemResult, error) {
	const op = "moveItems"
	if err := need("user name", user); err != nil {
		return nil, wrap(op, err)
	}
	if folder == "" {
		folder = "/" // said explicitly: the portal has no default destination
	}
	form := gen.MoveItemsForm{Items: idList(ids), Folder: &folder, F: jsonFormat()}
	var out gen.ItemResultsResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.MoveItemsWithFormdataBody(ctx, user, form, edit)
	}, &out); err != nil {
		return nil, err
	}
	return itemResults(op, out)
}

// MoveItem moves one item of user, in any of user's folders, to folder: a
// folder id of user, or "" or "/" for the root. Unlike MoveItems, the item's
// failure is the call's: an unknown item matches ErrNotFound (CONT_0001), an
// item already there has code 500. Callers as for MoveItems.
func (c *Client) MoveItem(ctx context.Context, user, itemID, folder string) error {
	const op = "moveItem"
	if err := need("user name", user); err != nil {
		return wrap(op, err)
	}
	if err := need("item id", itemID); err != nil {
		return wrap(op, err)
	}
	if folder == "" {
		folder = "/"
	}
	form := gen.MoveItemForm{Folder: folder, F: jsonFormat()}
	var out gen.MovedItemResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.MoveItemWithFormdataBody(ctx, user, itemID, form, edit)
	}, &out); err != nil {
		return err
	}
	return succeeded(op, out.Success)
}

// DeleteItems deletes the items ids of user, with one result per id in the
// order of ids; a failed item is not an error. Callers as for MoveItems.
func (c *Client) DeleteItems(ctx context.Context, user string, ids []string) ([]ItemResult, error) {
	const op = "deleteItems"
	if err := need("user name", user); err != nil {
		return nil, wrap(op, err)
	}
	form := gen.DeleteItemsForm{Items: idList(ids), F: jsonFormat()}
	var out gen.ItemResultsResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteItemsWithFormdataBody(ctx, user, form, edit)
	}, &out); err != nil {
		return nil, err
	}
	return itemResults(op, out)
}

// idList puts ids in one form field, comma-separated as the portal's
// JavaScript client does; an id holding a comma, which that form cannot
// carry, switches to the JSON array the portal also accepts.
func idList(ids []string) wire.List {
	for _, id := range ids {
		if strings.Contains(id, ",") {
			b, _ := json.Marshal(ids) // a []string always marshals
			return wire.List(b)
		}
	}
	return wire.Join(ids...)
}

func itemResults(op string, out gen.ItemResultsResponse) ([]ItemResult, error) {
	if out.Results == nil {
		return nil, missing(op, "results")
	}
	results := make([]ItemResult, 0, len(*out.Results))
	for _, r := range *out.Results {
		res := ItemResult{ItemID: r.ItemId, Success: r.Success}
		if r.Error != nil {
			res.Err = &Error{Code: int(r.Error.Code), MessageCode: deref(r.Error.MessageCode), Message: r.Error.Message}
		}
		results = append(results, res)
	}
	return results, nil
}

// CreateFolder creates a folder titled title for user; titles are unique
// per user (case-insensitive). Callers as for MoveItems.
func (c *Client) CreateFolder(ctx context.Context, user, title string) (Folder, error) {
	const op = "createFolder"
	if err := need("user name", user); err != nil {
		return Folder{}, wrap(op, err)
	}
	form := gen.CreateFolderForm{Title: title, F: jsonFormat()}
	var out gen.FolderResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateFolderWithFormdataBody(ctx, user, form, edit)
	}, &out); err != nil {
		return Folder{}, err
	}
	if out.Folder == nil {
		return Folder{}, missing(op, "folder")
	}
	return toFolder(*out.Folder), nil
}

// DeleteFolder deletes the folder folderID of user and the items in it.
// Callers as for MoveItems.
func (c *Client) DeleteFolder(ctx context.Context, user, folderID string) error {
	const op = "deleteFolder"
	if err := need("user name", user); err != nil {
		return wrap(op, err)
	}
	if err := need("folder id", folderID); err != nil {
		return wrap(op, err)
	}
	form := gen.FormatForm{F: jsonFormat()}
	var out gen.FolderResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteFolderWithFormdataBody(ctx, user, folderID, form, edit)
	}, &out); err != nil {
		return err
	}
	return succeeded(op, out.Success)
}

// AddItem adds an item owned by user to its folder folderID ("" or "/" for
// the root) and returns the new item's id. Callers as for MoveItems.
func (c *Client) AddItem(ctx context.Context, user, folderID string, item NewItem) (string, error) {
	const op = "addItem"
	if err := need("user name", user); err != nil {
		return "", wrap(op, err)
	}
	form := gen.AddItemForm{Title: item.Title, Type: item.Type, F: jsonFormat()}
	if len(item.Tags) > 0 {
		form.Tags = ptr(strings.Join(item.Tags, ","))
	}
	if item.Description != "" {
		form.Description = &item.Description
	}
	var out gen.NewItemResponse
	send := func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		if isRoot(folderID) {
			return c.api.AddItemWithFormdataBody(ctx, user, form, edit)
		}
		return c.api.AddItemToFolderWithFormdataBody(ctx, user, folderID, form, edit)
	}
	if err := c.do(ctx, op, send, &out); err != nil {
		return "", err
	}
	if out.Id == nil || *out.Id == "" {
		return "", missing(op, "id")
	}
	return *out.Id, nil
}

// UserContent lists a page of the items in user's folder folderID ("" or
// "/" for the root, where the user's folders are listed too). Callers: the
// user, or an org_admin of its organization.
func (c *Client) UserContent(ctx context.Context, user, folderID string, page Page) (*Content, error) {
	op := "getFolderContent"
	if isRoot(folderID) {
		op = "getUserContent"
	}
	if err := need("user name", user); err != nil {
		return nil, wrap(op, err)
	}
	start, num := page.params()
	var out gen.UserContentResponse
	send := func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		if isRoot(folderID) {
			return c.api.GetUserContent(ctx, user, &gen.GetUserContentParams{Start: start, Num: num, F: jsonFormat()}, edit)
		}
		return c.api.GetFolderContent(ctx, user, folderID, &gen.GetFolderContentParams{Start: start, Num: num, F: jsonFormat()}, edit)
	}
	if err := c.do(ctx, op, send, &out); err != nil {
		return nil, err
	}
	if out.Items == nil {
		return nil, missing(op, "items")
	}
	content := &Content{
		Owner:     deref(out.Username),
		Total:     int(deref(out.Total)),
		Start:     int(deref(out.Start)),
		Num:       int(deref(out.Num)),
		NextStart: int(deref(out.NextStart)),
		Items:     make([]Item, 0, len(*out.Items)),
	}
	if out.CurrentFolder != nil {
		f := toFolder(*out.CurrentFolder)
		content.Folder = &f
	}
	for _, it := range *out.Items {
		content.Items = append(content.Items, toItem(it))
	}
	for _, f := range deref(out.Folders) {
		content.Folders = append(content.Folders, toFolder(f))
	}
	return content, nil
}

// Item reads one item. Callers: its owner, or an org_admin of the owner's
// organization. An unknown item matches ErrNotFound.
func (c *Client) Item(ctx context.Context, id string) (*Item, error) {
	const op = "getItem"
	if err := need("item id", id); err != nil {
		return nil, wrap(op, err)
	}
	var out gen.ItemResponse
	params := &gen.GetItemParams{F: jsonFormat()}
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetItem(ctx, id, params, edit)
	}, &out); err != nil {
		return nil, err
	}
	if out.Id == nil {
		return nil, missing(op, "id")
	}
	return &Item{
		ID:          *out.Id,
		Owner:       deref(out.Owner),
		Folder:      deref(out.OwnerFolder),
		Title:       deref(out.Title),
		Type:        deref(out.Type),
		Tags:        deref(out.Tags),
		Description: deref(out.Description),
		Created:     millis(out.Created),
		Modified:    millis(out.Modified),
	}, nil
}

func isRoot(folderID string) bool { return folderID == "" || folderID == "/" }

func toItem(it gen.Item) Item {
	return Item{
		ID:          it.Id,
		Owner:       it.Owner,
		Folder:      deref(it.OwnerFolder),
		Title:       it.Title,
		Type:        it.Type,
		Tags:        deref(it.Tags),
		Description: deref(it.Description),
		Created:     millis(it.Created),
		Modified:    millis(it.Modified),
	}
}

func toFolder(f gen.Folder) Folder {
	return Folder{ID: f.Id, Title: f.Title, Owner: f.Username, Created: millis(f.Created)}
}
