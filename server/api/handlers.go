package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/runtime"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/wire"
)

// handlers adapts the generated strict-server interface to server.Service:
// generated types in, domain values to the service, generated types out.
// Errors are returned as Go errors and leave through the error handler.
type handlers struct {
	svc     *server.Service
	context string // Config.Context: the segment before /sharing
}

var _ gen.StrictServerInterface = (*handlers)(nil)

func ptr[T any](v T) *T { return &v }

func raw[T any](j *wire.JSON[T]) json.RawMessage {
	if j == nil {
		return nil
	}
	return json.RawMessage(*j)
}

func page(start, num *int32) server.Page {
	p := server.DefaultPage
	if start != nil {
		p.Start = int(*start)
	}
	if num != nil {
		p.Num = int(*num)
	}
	return p
}

// list is a list field as the validator decoded it (a JSON array or the
// comma-separated form), read as wire.List.Values reads it: entries trimmed,
// empty ones dropped.
func list(ctx context.Context, name string, l wire.List) []string {
	cl := callOf(ctx)
	if cl == nil {
		return l.Values()
	}
	arr, decoded := cl.fields[name].([]any)
	if !decoded {
		return l.Values()
	}
	var out []string
	for _, v := range arr {
		if s, isText := v.(string); isText {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func millis(t time.Time) *int64 { return ptr(t.UnixMilli()) }

var successTrue = ptr(true)

// direct are the operations served from what serve decoded and validated,
// without the generated binder, which would read the form again by
// reflection: settings/update, the hottest write.
var direct = map[string]func(s *srv, c echo.Context, cl *call) error{
	"updateSettings": (*srv).updateSettings,
}

// updateSettings serves settings/update directly (see direct); the
// generated handler's UpdateSettings below is what it replaces.
func (s *srv) updateSettings(c echo.Context, cl *call) error {
	// The path parameter bound as the generated wrapper binds it.
	var portalID gen.PortalId
	err := runtime.BindStyledParameterWithOptions("simple", "portalId", c.Param("portalId"), &portalID,
		runtime.BindStyledParameterOptions{ParamLocation: runtime.ParamLocationPath, Required: true, Type: "string",
			ValueIsUnescaped: c.Request().URL.RawPath == ""})
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Invalid format for parameter portalId: %s", err))
	}
	var portalConfig json.RawMessage
	if v, sent := cl.form["portalConfigProperties"]; sent {
		portalConfig = json.RawMessage(v[0])
	}
	clearEmpty, _ := cl.fields["clearEmptyFields"].(bool)
	_, err = writeResponse(func(echo.Context, any) (any, error) {
		resp, err := updateSettings(cl, s.svc, portalID, cl.fields, portalConfig, clearEmpty)
		if err != nil {
			return nil, err
		}
		return resp, nil
	}, "UpdateSettings")(c, nil)
	return err
}

func (h *handlers) UpdateSettings(ctx context.Context, r gen.UpdateSettingsRequestObject) (gen.UpdateSettingsResponseObject, error) {
	b := r.Body
	var fields map[string]any
	if cl := callOf(ctx); cl != nil {
		fields = cl.fields
	}
	resp, err := updateSettings(ctx, h.svc, r.PortalId, fields, raw(b.PortalConfigProperties), b.ClearEmptyFields != nil && *b.ClearEmptyFields)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// updateSettings takes the notices and the banner as the transport decoded
// and validated them (fields), not parsed again from their text.
func updateSettings(ctx context.Context, svc *server.Service, portalID string, fields map[string]any, portalConfig json.RawMessage, clearEmpty bool) (exact, error) {
	u := server.SettingsUpdate{PortalConfigProperties: portalConfig, ClearEmptyFields: clearEmpty}
	var err error
	if u.AnonymousAccessNotice, err = decodedNotice("anonymousAccessNotice", fields); err != nil {
		return exact{}, err
	}
	if u.AuthenticatedAccessNotice, err = decodedNotice("authenticatedAccessNotice", fields); err != nil {
		return exact{}, err
	}
	if u.InformationalBanner, err = decodedBanner(fields); err != nil {
		return exact{}, err
	}
	if err := svc.UpdateSettings(ctx, principal(ctx), portalID, u); err != nil {
		return exact{}, err
	}
	return succeeded, nil
}

func (h *handlers) GetSettings(ctx context.Context, r gen.GetSettingsRequestObject) (gen.GetSettingsResponseObject, error) {
	s, err := h.svc.Settings(ctx, principal(ctx), r.PortalId)
	if err != nil {
		return nil, err
	}
	out := settingsAnswer{AnonymousAccessNotice: s.AnonymousAccessNotice, AuthenticatedAccessNotice: s.AuthenticatedAccessNotice, InformationalBanner: s.InformationalBanner}
	if s.PortalConfig != nil {
		out.PortalConfigProperties = &s.PortalConfig
	}
	return exact{out}, nil
}

// settingsAnswer is the settings read as stored: the generated type would
// drop the advanced configuration properties whose names the contract does
// not list, which the read must return.
type settingsAnswer struct {
	AnonymousAccessNotice     *server.AccessNotice        `json:"anonymousAccessNotice,omitempty"`
	AuthenticatedAccessNotice *server.AccessNotice        `json:"authenticatedAccessNotice,omitempty"`
	InformationalBanner       *server.Banner              `json:"informationalBanner,omitempty"`
	PortalConfigProperties    *map[string]json.RawMessage `json:"portalConfigProperties,omitempty"` // a pointer, so an empty set reads {}
}

// exact is the answer of the operations whose generated response types
// cannot say it: the settings read (unnamed configuration properties) and
// the answers holding a null that the contract requires (currentFolder,
// ownerFolder, folder), which the generated marshallers drop, and the member
// category schema read, whose schema is a union the generated type cannot fill.
// It also answers {"success":true}, which the generated union types
// marshal through a map and a second JSON pass, on the hottest path.
type exact struct{ v any }

var succeeded = exact{struct {
	Success bool `json:"success"`
}{true}}

func (a exact) MarshalJSON() ([]byte, error) { return json.Marshal(a.v) }

func (a exact) visit(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	return json.NewEncoder(w).Encode(a.v)
}

// The Visit methods are called only if writeResponse did not write first.
func (a exact) VisitGetSettingsResponse(w http.ResponseWriter) error      { return a.visit(w) }
func (a exact) VisitGetUserContentResponse(w http.ResponseWriter) error   { return a.visit(w) }
func (a exact) VisitGetFolderContentResponse(w http.ResponseWriter) error { return a.visit(w) }
func (a exact) VisitGetItemResponse(w http.ResponseWriter) error          { return a.visit(w) }
func (a exact) VisitAddItemResponse(w http.ResponseWriter) error          { return a.visit(w) }
func (a exact) VisitAddItemToFolderResponse(w http.ResponseWriter) error  { return a.visit(w) }
func (a exact) VisitUpdateSettingsResponse(w http.ResponseWriter) error   { return a.visit(w) }
func (a exact) VisitAssignMemberCategorySchemaResponse(w http.ResponseWriter) error {
	return a.visit(w)
}
func (a exact) VisitDeleteMemberCategorySchemaResponse(w http.ResponseWriter) error {
	return a.visit(w)
}
func (a exact) VisitGetMemberCategorySchemaResponse(w http.ResponseWriter) error {
	return a.visit(w)
}

func (h *handlers) AssignMemberCategorySchema(ctx context.Context, r gen.AssignMemberCategorySchemaRequestObject) (gen.AssignMemberCategorySchemaResponseObject, error) {
	// The document as the validator decoded it, not parsed a second time.
	var doc any
	if cl := callOf(ctx); cl != nil {
		doc = cl.fields["memberCategorySchema"]
	}
	obj, _ := doc.(map[string]any)
	nodes, err := categoryNodes(obj["memberCategorySchema"], "memberCategorySchema.memberCategorySchema")
	if err != nil {
		return nil, err
	}
	if err := h.svc.AssignMemberCategorySchema(ctx, principal(ctx), r.PortalId, nodes); err != nil {
		return nil, err
	}
	return succeeded, nil
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
	return succeeded, nil
}

func (h *handlers) GetMemberCategorySchema(ctx context.Context, r gen.GetMemberCategorySchemaRequestObject) (gen.GetMemberCategorySchemaResponseObject, error) {
	nodes, err := h.svc.MemberCategorySchema(ctx, principal(ctx), r.PortalId)
	if err != nil {
		return nil, err
	}
	return exact{gen.MemberCategorySchema{MemberCategorySchema: toGenNodes(nodes)}}, nil
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

func addedItem(it server.Item) exact {
	var folder *string
	if it.FolderID != "" {
		folder = ptr(it.FolderID)
	}
	return exact{struct {
		Success bool    `json:"success"`
		ID      string  `json:"id"`
		Folder  *string `json:"folder"`
	}{true, it.ID, folder}}
}

func (h *handlers) AddItem(ctx context.Context, r gen.AddItemRequestObject) (gen.AddItemResponseObject, error) {
	it, err := h.svc.AddItem(ctx, principal(ctx), r.UserName, "", newItem(r.Body))
	if err != nil {
		return nil, err
	}
	return addedItem(it), nil
}

func (h *handlers) AddItemToFolder(ctx context.Context, r gen.AddItemToFolderRequestObject) (gen.AddItemToFolderResponseObject, error) {
	it, err := h.svc.AddItem(ctx, principal(ctx), r.UserName, r.FolderId, newItem(r.Body))
	if err != nil {
		return nil, err
	}
	return addedItem(it), nil
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

// contentAnswer is the user content read; currentFolder is null at the root.
type contentAnswer struct {
	Username      string       `json:"username"`
	Total         int          `json:"total"`
	Start         int          `json:"start"`
	Num           int          `json:"num"`
	NextStart     int          `json:"nextStart"`
	CurrentFolder *gen.Folder  `json:"currentFolder"`
	Items         []gen.Item   `json:"items"`
	Folders       []gen.Folder `json:"folders"`
}

func (h *handlers) content(ctx context.Context, user, folder string, start, num *int32) (exact, error) {
	c, err := h.svc.UserContent(ctx, principal(ctx), user, folder, page(start, num))
	if err != nil {
		return exact{}, err
	}
	out := contentAnswer{Username: c.Username, Total: c.Total, Start: c.Start, Num: c.Num, NextStart: c.Next,
		Items: make([]gen.Item, len(c.Items)), Folders: make([]gen.Folder, len(c.Folders))}
	for i, it := range c.Items {
		out.Items[i] = toGenItem(it)
	}
	for i, f := range c.Folders {
		out.Folders[i] = toGenFolder(f)
	}
	if c.CurrentFolder != nil {
		out.CurrentFolder = ptr(toGenFolder(*c.CurrentFolder))
	}
	return exact{out}, nil
}

func (h *handlers) GetUserContent(ctx context.Context, r gen.GetUserContentRequestObject) (gen.GetUserContentResponseObject, error) {
	out, err := h.content(ctx, r.UserName, "", r.Params.Start, r.Params.Num)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (h *handlers) GetFolderContent(ctx context.Context, r gen.GetFolderContentRequestObject) (gen.GetFolderContentResponseObject, error) {
	out, err := h.content(ctx, r.UserName, r.FolderId, r.Params.Start, r.Params.Num)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (h *handlers) GetItem(ctx context.Context, r gen.GetItemRequestObject) (gen.GetItemResponseObject, error) {
	it, err := h.svc.Item(ctx, principal(ctx), r.ItemId)
	if err != nil {
		return nil, err
	}
	return exact{toGenItem(it)}, nil
}

func (h *handlers) GenerateToken(ctx context.Context, r gen.GenerateTokenRequestObject) (gen.GenerateTokenResponseObject, error) {
	_, _, tls := h.where(ctx)
	req := server.TokenRequest{Username: r.Body.Username, Password: r.Body.Password, SSL: tls}
	if b := r.Body; b.Client != nil {
		req.Binding.Client = string(*b.Client)
		if b.Referer != nil {
			req.Binding.Referer = *b.Referer
		}
		if b.Ip != nil {
			req.Binding.IP = *b.Ip
		}
	}
	if r.Body.Expiration != nil {
		req.Expiration = time.Duration(*r.Body.Expiration) * time.Minute
	}
	t, err := h.svc.GenerateToken(ctx, req)
	if err != nil {
		return nil, err
	}
	return gen.GenerateToken200JSONResponse{Token: ptr(t.Token), Expires: ptr(t.Expires.UnixMilli()), Ssl: ptr(t.SSL)}, nil
}
