package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/orgportal/portal-api/client"
)

// clientCall is a client of the target for one subtest: every request it
// sends goes through the suite's validator and is captured.
type clientCall struct {
	s   *suite
	c   *client.Client
	ctx context.Context
	cap *capture
}

func (s *suite) client(t TB, token string) *clientCall {
	t.Helper()
	opts := []client.Option{client.WithHTTPClient(s.http)}
	if token != "" {
		opts = append(opts, client.WithToken(token))
	}
	c, err := client.New(s.base, opts...)
	if err != nil {
		t.Fatalf("client.New(%s): %v", s.base, err)
	}
	cap := &capture{}
	return &clientCall{s: s, c: c, ctx: withCapture(s.ctx(t), cap), cap: cap}
}

// raw returns the body of the last exchange, checking the client sent it to
// the operation op.
func (cc *clientCall) raw(t TB, op string) map[string]any {
	t.Helper()
	ex, ok := cc.cap.last()
	if !ok {
		t.Fatalf("the client sent no request for %s", op)
	}
	if ex.OperationID != op {
		t.Fatalf("the client sent %s %s, which is operation %q, for %s", ex.Method, ex.URL, ex.OperationID, op)
	}
	var body map[string]any
	if err := json.Unmarshal(ex.Body, &body); err != nil {
		t.Fatalf("%s: the answer is no JSON object: %s", op, clip(ex.Body, 300))
	}
	return body
}

// same fails t when the client's view of an answer differs from the raw
// body's.
func same(t TB, what string, fromClient, fromBody any) {
	t.Helper()
	if d := diff(fromBody, fromClient); len(d) > 0 {
		t.Errorf("%s: the client decoded other values than the raw body holds (want is the body, got the client):\n  - %s",
			what, strings.Join(d, "\n  - "))
	}
}

func noErr(t TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s through the client: %v", what, err)
	}
}

// Views: the client's values and the raw body, in one shape, so that they
// can be compared. Absent and empty mean the same on both sides.

func ms(tm time.Time) any {
	if tm.IsZero() {
		return nil
	}
	return float64(tm.UnixMilli())
}

func orEmpty(v any, empty any) any {
	if v == nil {
		return empty
	}
	return v
}

func itemOfClient(it client.Item) map[string]any {
	var folder any
	if it.Folder != "" {
		folder = it.Folder
	}
	tags := []any{}
	for _, tg := range it.Tags {
		tags = append(tags, tg)
	}
	return map[string]any{"id": it.ID, "owner": it.Owner, "ownerFolder": folder, "title": it.Title, "type": it.Type,
		"tags": tags, "description": it.Description, "created": ms(it.Created), "modified": ms(it.Modified)}
}

func itemOfBody(m map[string]any) map[string]any {
	return map[string]any{"id": m["id"], "owner": m["owner"], "ownerFolder": m["ownerFolder"], "title": m["title"], "type": m["type"],
		"tags": orEmpty(m["tags"], []any{}), "description": orEmpty(m["description"], ""), "created": m["created"], "modified": m["modified"]}
}

func folderOfClient(f client.Folder) map[string]any {
	return map[string]any{"id": f.ID, "title": f.Title, "username": f.Owner, "created": ms(f.Created)}
}

func folderOfBody(m map[string]any) map[string]any {
	return map[string]any{"id": m["id"], "title": m["title"], "username": m["username"], "created": m["created"]}
}

func contentOfClient(c *client.Content) map[string]any {
	out := map[string]any{"username": c.Owner, "total": float64(c.Total), "start": float64(c.Start), "num": float64(c.Num),
		"nextStart": float64(c.NextStart), "currentFolder": nil}
	if c.Folder != nil {
		out["currentFolder"] = folderOfClient(*c.Folder)
	}
	items, folders := []any{}, []any{}
	for _, it := range c.Items {
		items = append(items, itemOfClient(it))
	}
	for _, f := range c.Folders {
		folders = append(folders, folderOfClient(f))
	}
	out["items"], out["folders"] = items, folders
	return out
}

func contentOfBody(m map[string]any) map[string]any {
	out := map[string]any{"username": m["username"], "total": m["total"], "start": m["start"], "num": m["num"],
		"nextStart": m["nextStart"], "currentFolder": nil}
	if f, ok := m["currentFolder"].(map[string]any); ok {
		out["currentFolder"] = folderOfBody(f)
	}
	items, folders := []any{}, []any{}
	for _, it := range asList(m["items"]) {
		items = append(items, itemOfBody(asMap(it)))
	}
	for _, f := range asList(m["folders"]) {
		folders = append(folders, folderOfBody(asMap(f)))
	}
	out["items"], out["folders"] = items, folders
	return out
}

func asList(v any) []any { l, _ := v.([]any); return l }

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func resultsOfClient(rs []client.ItemResult) []any {
	out := []any{}
	for _, r := range rs {
		m := map[string]any{"itemId": r.ItemID, "success": r.Success, "error": nil}
		if r.Err != nil {
			m["error"] = map[string]any{"code": float64(r.Err.Code), "messageCode": r.Err.MessageCode, "message": r.Err.Message}
		}
		out = append(out, m)
	}
	return out
}

func resultsOfBody(body map[string]any) []any {
	out := []any{}
	for _, r := range asList(body["results"]) {
		rm := asMap(r)
		m := map[string]any{"itemId": rm["itemId"], "success": rm["success"], "error": nil}
		if e := asMap(rm["error"]); e != nil {
			m["error"] = map[string]any{"code": e["code"], "messageCode": orEmpty(e["messageCode"], ""), "message": e["message"]}
		}
		out = append(out, m)
	}
	return out
}

// sameError checks the client's error says what the body's error envelope
// says, or that both say there was no error. Whether the portal should have
// refused is for the other checks.
func sameError(t TB, what string, err error, body map[string]any) {
	t.Helper()
	if _, failed := body["error"]; !failed {
		if err != nil {
			t.Errorf("%s: the client returned the error %v, the body holds none: %s", what, err, jsonText(body))
		}
		return
	}
	same(t, what, errorOfClient(err), errorOfBody(body))
}

func errorOfClient(err error) any {
	var e *client.Error
	if !errors.As(err, &e) {
		return map[string]any{"not a *client.Error": errString(err)}
	}
	details := []any{}
	for _, d := range e.Details {
		details = append(details, d)
	}
	return map[string]any{"code": float64(e.Code), "messageCode": e.MessageCode, "message": e.Message, "details": details}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func errorOfBody(body map[string]any) any {
	e := asMap(body["error"])
	return map[string]any{"code": e["code"], "messageCode": orEmpty(e["messageCode"], ""), "message": e["message"],
		"details": orEmpty(e["details"], []any{})}
}

func memberOfClient(m client.Member) map[string]any {
	cats := []any{}
	for _, c := range m.Categories {
		cats = append(cats, c)
	}
	return map[string]any{"username": m.Username, "fullName": m.FullName, "orgId": m.OrgID, "role": m.Role, "roleId": m.RoleID, "categories": cats}
}

func memberOfBody(m map[string]any) map[string]any {
	return map[string]any{"username": m["username"], "fullName": orEmpty(m["fullName"], ""), "orgId": m["orgId"], "role": m["role"],
		"roleId": orEmpty(m["roleId"], ""), "categories": orEmpty(m["categories"], []any{})}
}

func treeOfClient(cs []client.Category) []any {
	out := []any{}
	for _, c := range cs {
		n := map[string]any{"title": c.Title}
		if len(c.Categories) > 0 {
			n["categories"] = treeOfClient(c.Categories)
		}
		out = append(out, n)
	}
	return out
}

func treeOfBody(v any) []any {
	out := []any{}
	for _, c := range asList(v) {
		cm := asMap(c)
		n := map[string]any{"title": cm["title"]}
		if kids := asList(cm["categories"]); len(kids) > 0 {
			n["categories"] = treeOfBody(kids)
		}
		out = append(out, n)
	}
	return out
}

func noticeOfClient(n *client.AccessNotice) any {
	if n == nil {
		return nil
	}
	return map[string]any{"title": n.Title, "text": n.Text, "buttons": n.Buttons, "enabled": n.Enabled}
}

func bannerOfClient(b *client.Banner) any {
	if b == nil {
		return nil
	}
	return map[string]any{"text": b.Text, "bgColor": b.BgColor, "fontColor": b.FontColor, "enabled": b.Enabled}
}

func objectOfBody(v any, keys ...string) any {
	m := asMap(v)
	if m == nil {
		return nil
	}
	out := map[string]any{}
	for _, k := range keys {
		if k == "enabled" {
			out[k] = orEmpty(m[k], false)
		} else {
			out[k] = orEmpty(m[k], "")
		}
	}
	return out
}

func propsView(v any) any {
	m := asMap(v)
	if len(m) == 0 {
		return nil
	}
	return m
}

func settingsOfClient(st *client.Settings) map[string]any {
	var props any
	if len(st.PortalConfigProperties) > 0 {
		props = normalize(st.PortalConfigProperties)
	}
	return map[string]any{"anonymousAccessNotice": noticeOfClient(st.AnonymousAccessNotice),
		"authenticatedAccessNotice": noticeOfClient(st.AuthenticatedAccessNotice),
		"informationalBanner":       bannerOfClient(st.InformationalBanner), "portalConfigProperties": props}
}

func settingsOfBody(body map[string]any) map[string]any {
	return map[string]any{
		"anonymousAccessNotice":     objectOfBody(body["anonymousAccessNotice"], "title", "text", "buttons", "enabled"),
		"authenticatedAccessNotice": objectOfBody(body["authenticatedAccessNotice"], "title", "text", "buttons", "enabled"),
		"informationalBanner":       objectOfBody(body["informationalBanner"], "text", "bgColor", "fontColor", "enabled"),
		"portalConfigProperties":    propsView(body["portalConfigProperties"])}
}

// clientScenarios calls every operation through the client package: the
// validator proves the server took what the client sent and answered per
// the contract; each subtest checks the client decoded what the raw body
// holds.
func (s *suite) clientScenarios(t TB) {
	t.Run("content", s.clientContent)
	t.Run("settings", s.clientSettings)
	t.Run("memberCategories", s.clientCategories)
	t.Run("generateToken", s.clientToken)
	t.Run("discovery", s.clientDiscovery)
	t.Run("oauth", s.clientOAuth)
}

func (s *suite) clientContent(t TB) {
	w := s.world(t)
	f, projects, archive, roads, parcels, hydrants := w.f, w.projects, w.archive, w.roads, w.parcels, w.hydrants
	var created string // a folder created through the client

	t.Run("createFolder", func(t TB) {
		cc := s.client(t, s.ownerToken())
		title := s.uniqueTitle("Client Folder")
		got, err := cc.c.CreateFolder(cc.ctx, s.owner, title)
		body := cc.raw(t, "createFolder")
		if id, ok := asMap(body["folder"])["id"].(string); ok {
			f.createdFolders = append(f.createdFolders, id)
		}
		noErr(t, "createFolder", err)
		same(t, "createFolder", folderOfClient(got), folderOfBody(asMap(body["folder"])))
		if got.Title != title || got.Owner != s.owner {
			t.Errorf("createFolder: got folder %+v, want title %q of %s", got, title, s.owner)
		}
		created = got.ID
		// An error, decoded the same way: the title is taken now.
		_, err = cc.c.CreateFolder(cc.ctx, s.owner, strings.ToUpper(title))
		sameError(t, "createFolder of a taken title", err, cc.raw(t, "createFolder"))
	})
	addAndRead := func(t TB, op, folder string) {
		cc := s.client(t, s.ownerToken())
		want := client.NewItem{Title: s.uniqueTitle("Client Item"), Type: "Web Map", Tags: []string{"conformance", "client"}, Description: "Added through the client"}
		id, err := cc.c.AddItem(cc.ctx, s.owner, folder, want)
		body := cc.raw(t, op)
		if rid, ok := body["id"].(string); ok {
			f.createdItems = append(f.createdItems, rid)
		}
		noErr(t, op, err)
		same(t, op, map[string]any{"id": id}, map[string]any{"id": body["id"]})
		var wantFolder any
		if folder != "" {
			wantFolder = folder
		}
		if !jsonEqual(body["folder"], wantFolder) {
			t.Errorf("%s: the answer's folder is %v, want %v", op, body["folder"], wantFolder)
		}
		it, err := cc.c.Item(cc.ctx, id)
		noErr(t, "getItem", err)
		same(t, "getItem", itemOfClient(*it), itemOfBody(cc.raw(t, "getItem")))
		if it.Title != want.Title || it.Type != want.Type || it.Description != want.Description || !jsonEqual(it.Tags, want.Tags) || it.Folder != folder || it.Owner != s.owner {
			t.Errorf("getItem after %s: got %+v, want the item added (%+v) in folder %q of %s", op, *it, want, folder, s.owner)
		}
	}
	t.Run("addItem", func(t TB) { addAndRead(t, "addItem", "") })
	t.Run("addItemToFolder", func(t TB) { addAndRead(t, "addItemToFolder", projects) })
	t.Run("getItem", func(t TB) {
		cc := s.client(t, s.ownerToken())
		it, err := cc.c.Item(cc.ctx, parcels)
		noErr(t, "getItem", err)
		same(t, "getItem", itemOfClient(*it), itemOfBody(cc.raw(t, "getItem")))
		if it.Folder != projects {
			t.Errorf("getItem of Parcels through the client: folder %q, want Projects (%s)", it.Folder, projects)
		}
		_, err = cc.c.Item(cc.ctx, unknownItemID)
		sameError(t, "getItem of an unknown item", err, cc.raw(t, "getItem"))
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("getItem of an unknown item: the client's error %v is not client.ErrNotFound", err)
		}
	})
	t.Run("getUserContent", func(t TB) {
		cc := s.client(t, s.ownerToken())
		got, err := cc.c.UserContent(cc.ctx, s.owner, "", client.Page{Num: 100})
		noErr(t, "getUserContent", err)
		same(t, "getUserContent", contentOfClient(got), contentOfBody(cc.raw(t, "getUserContent")))
	})
	t.Run("getFolderContent", func(t TB) {
		cc := s.client(t, s.ownerToken())
		got, err := cc.c.UserContent(cc.ctx, s.owner, projects, client.Page{})
		noErr(t, "getFolderContent", err)
		same(t, "getFolderContent", contentOfClient(got), contentOfBody(cc.raw(t, "getFolderContent")))
		_, err = cc.c.UserContent(cc.ctx, s.owner, unknownFolderID, client.Page{})
		sameError(t, "getFolderContent of an unknown folder", err, cc.raw(t, "getFolderContent"))
	})
	t.Run("moveItems", func(t TB) {
		cc := s.client(t, s.ownerToken())
		ids := []string{roads, parcels, unknownItemID}
		got, err := cc.c.MoveItems(cc.ctx, s.owner, ids, projects)
		noErr(t, "moveItems", err)
		body := cc.raw(t, "moveItems")
		same(t, "moveItems", resultsOfClient(got), resultsOfBody(body))
		if len(got) == 3 && (!got[0].Success || got[1].Success || got[2].Success || !errors.Is(got[2].Err, client.ErrNotFound)) {
			t.Errorf("moveItems %v to Projects through the client: got %s", ids, jsonText(resultsOfClient(got)))
		}
		got, err = cc.c.MoveItems(cc.ctx, s.owner, []string{roads}, "")
		noErr(t, "moveItems to the root", err)
		same(t, "moveItems to the root", resultsOfClient(got), resultsOfBody(cc.raw(t, "moveItems")))
		_, err = cc.c.MoveItems(cc.ctx, s.owner, []string{roads}, unknownFolderID)
		sameError(t, "moveItems to an unknown folder", err, cc.raw(t, "moveItems"))
		anon := s.client(t, "")
		_, err = anon.c.MoveItems(anon.ctx, s.owner, []string{roads}, projects)
		sameError(t, "moveItems without a token", err, anon.raw(t, "moveItems"))
		if !errors.Is(err, client.ErrTokenRequired) {
			t.Errorf("moveItems without a token: the client's error %v is not client.ErrTokenRequired", err)
		}
	})
	t.Run("moveItem", func(t TB) {
		cc := s.client(t, s.ownerToken())
		noErr(t, "moveItem", cc.c.MoveItem(cc.ctx, s.owner, parcels, archive))
		if body := cc.raw(t, "moveItem"); body["success"] != true || body["folder"] != archive {
			t.Errorf("moveItem: the client reported success, the body says %s", jsonText(body))
		}
		noErr(t, "moveItem to the root", cc.c.MoveItem(cc.ctx, s.owner, parcels, ""))
		if body := cc.raw(t, "moveItem"); body["success"] != true || body["folder"] != "/" {
			t.Errorf("moveItem to the root: the client reported success, the body says %s", jsonText(body))
		}
		err := cc.c.MoveItem(cc.ctx, s.owner, unknownItemID, "")
		sameError(t, "moveItem of an unknown item", err, cc.raw(t, "moveItem"))
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("moveItem of an unknown item: the client's error %v is not client.ErrNotFound", err)
		}
		err = cc.c.MoveItem(cc.ctx, s.owner, parcels, "")
		sameError(t, "moveItem to where the item is", err, cc.raw(t, "moveItem"))
	})
	t.Run("deleteItems", func(t TB) {
		cc := s.client(t, s.ownerToken())
		got, err := cc.c.DeleteItems(cc.ctx, s.owner, []string{hydrants, unknownItemID})
		noErr(t, "deleteItems", err)
		same(t, "deleteItems", resultsOfClient(got), resultsOfBody(cc.raw(t, "deleteItems")))
	})
	t.Run("deleteFolder", func(t TB) {
		cc := s.client(t, s.ownerToken())
		for _, id := range []string{archive, created} {
			if id == "" {
				continue
			}
			err := cc.c.DeleteFolder(cc.ctx, s.owner, id)
			noErr(t, "deleteFolder", err)
			if body := cc.raw(t, "deleteFolder"); body["success"] != true {
				t.Errorf("deleteFolder: the client reported success, the body says %s", jsonText(body))
			}
		}
		err := cc.c.DeleteFolder(cc.ctx, s.owner, unknownFolderID)
		sameError(t, "deleteFolder of an unknown folder", err, cc.raw(t, "deleteFolder"))
	})
}

func (s *suite) clientSettings(t TB) {
	s.freshOrg(t)
	anon := client.AccessNotice{Title: "Client notice", Text: "Accept?", Buttons: client.ButtonsAcceptAndDecline, Enabled: true}
	auth := client.AccessNotice{Title: "Members", Text: "Hello members", Buttons: client.ButtonsOKOnly, Enabled: true}
	banner := client.Banner{Text: "Client banner", BgColor: "navy", FontColor: "#ffffff", Enabled: true}
	update := client.SettingsUpdate{AnonymousAccessNotice: &anon, AuthenticatedAccessNotice: &auth, InformationalBanner: &banner}
	if s.supportsProps(t) {
		update.PortalConfigProperties = map[string]any{"tokenExpiration": 90, "footerLinks": []any{map[string]any{"title": "Terms", "url": "https://www.example.org/terms"}}}
	}
	t.Run("updateSettings", func(t TB) {
		cc := s.client(t, s.adminToken)
		err := cc.c.UpdateSettings(cc.ctx, s.portalID, update)
		noErr(t, "updateSettings", err)
		if body := cc.raw(t, "updateSettings"); body["success"] != true {
			t.Errorf("updateSettings: the client reported success, the body says %s", jsonText(body))
		}
		bad := client.Banner{BgColor: "navy", FontColor: "white", Enabled: true}
		err = cc.c.UpdateSettings(cc.ctx, s.portalID, client.SettingsUpdate{InformationalBanner: &bad})
		sameError(t, "updateSettings of an enabled banner without text", err, cc.raw(t, "updateSettings"))
	})
	t.Run("getSettings", func(t TB) {
		cc := s.client(t, s.adminToken)
		got, err := cc.c.Settings(cc.ctx, s.portalID)
		noErr(t, "getSettings", err)
		same(t, "getSettings", settingsOfClient(got), settingsOfBody(cc.raw(t, "getSettings")))
		want := &client.Settings{AnonymousAccessNotice: &anon, AuthenticatedAccessNotice: &auth, InformationalBanner: &banner, PortalConfigProperties: update.PortalConfigProperties}
		if d := diff(settingsOfClient(want), settingsOfClient(got)); len(d) > 0 {
			t.Errorf("the settings read through the client differ from those written through it:\n  - %s", strings.Join(d, "\n  - "))
		}
	})
}

// supportsProps reports whether the target takes portalConfigProperties.
func (s *suite) supportsProps(t TB) bool {
	t.Helper()
	body := map[string]any{"portalConfigProperties": map[string]any{}}
	a := s.updateSettings(t, s.adminToken, body)
	if why := s.gated(s.ops["updateSettings"], body, a); why != "" {
		t.Logf("%s: the client is checked without them", why)
		return false
	}
	return true
}

func (s *suite) clientCategories(t TB) {
	s.freshOrg(t)
	tree := []client.Category{
		{Title: "Office Location", Categories: []client.Category{{Title: "USA", Categories: []client.Category{{Title: "Maine"}}}, {Title: "Canada"}}},
		{Title: "Department", Categories: []client.Category{{Title: "Planning"}}},
	}
	paths := []string{"/Office Location/USA/Maine", "/Department/Planning"}
	t.Run("assignMemberCategorySchema", func(t TB) {
		cc := s.client(t, s.adminToken)
		noErr(t, "assignMemberCategorySchema", cc.c.AssignMemberCategorySchema(cc.ctx, s.portalID, tree))
		if body := cc.raw(t, "assignMemberCategorySchema"); body["success"] != true {
			t.Errorf("assignMemberCategorySchema: the client reported success, the body says %s", jsonText(body))
		}
		deep := []client.Category{{Title: "A", Categories: []client.Category{{Title: "B", Categories: []client.Category{{Title: "C", Categories: []client.Category{{Title: "D"}}}}}}}}
		err := cc.c.AssignMemberCategorySchema(cc.ctx, s.portalID, deep)
		sameError(t, "assignMemberCategorySchema of 4 levels", err, cc.raw(t, "assignMemberCategorySchema"))
	})
	t.Run("getMemberCategorySchema", func(t TB) {
		cc := s.client(t, s.ownerToken())
		got, err := cc.c.MemberCategorySchema(cc.ctx, s.portalID)
		noErr(t, "getMemberCategorySchema", err)
		same(t, "getMemberCategorySchema", treeOfClient(got), treeOfBody(cc.raw(t, "getMemberCategorySchema")["memberCategorySchema"]))
		if d := diff(treeOfClient(tree), treeOfClient(got)); len(d) > 0 {
			t.Errorf("the schema read through the client differs from the one assigned through it:\n  - %s", strings.Join(d, "\n  - "))
		}
	})
	t.Run("updateMember", func(t TB) {
		cc := s.client(t, s.adminToken)
		noErr(t, "updateMember", cc.c.SetMemberCategories(cc.ctx, s.owner, paths))
		if body := cc.raw(t, "updateMember"); body["success"] != true || body["username"] != s.owner {
			t.Errorf("updateMember: the client reported success, the body says %s", jsonText(body))
		}
		err := cc.c.SetMemberCategories(cc.ctx, s.owner, []string{"/Office Location/Mars"})
		sameError(t, "updateMember with an unknown category", err, cc.raw(t, "updateMember"))
	})
	t.Run("getMember", func(t TB) {
		cc := s.client(t, s.ownerToken())
		got, err := cc.c.Member(cc.ctx, s.owner)
		noErr(t, "getMember", err)
		same(t, "getMember", memberOfClient(*got), memberOfBody(cc.raw(t, "getMember")))
		if !jsonEqual(got.Categories, paths) {
			t.Errorf("getMember through the client: categories %q, want %q as set through it", got.Categories, paths)
		}
	})
	t.Run("listMembers", func(t TB) {
		cc := s.client(t, s.adminToken)
		got, err := cc.c.Members(cc.ctx, s.portalID, client.MemberQuery{Categories: []string{"/Office Location/USA"}})
		noErr(t, "listMembers", err)
		body := cc.raw(t, "listMembers")
		members := []any{}
		for _, m := range got.Members {
			members = append(members, memberOfClient(m))
		}
		fromBody := []any{}
		for _, m := range asList(body["users"]) {
			fromBody = append(fromBody, memberOfBody(asMap(m)))
		}
		same(t, "listMembers",
			map[string]any{"total": float64(got.Total), "start": float64(got.Start), "num": float64(got.Num), "nextStart": float64(got.NextStart), "users": members},
			map[string]any{"total": body["total"], "start": body["start"], "num": body["num"], "nextStart": body["nextStart"], "users": fromBody})
		found := false
		for _, m := range got.Members {
			found = found || m.Username == s.owner
		}
		if !found {
			t.Errorf("listMembers by /Office Location/USA through the client does not list %s, who holds /Office Location/USA/Maine", s.owner)
		}
	})
	t.Run("deleteMemberCategorySchema", func(t TB) {
		cc := s.client(t, s.adminToken)
		noErr(t, "deleteMemberCategorySchema", cc.c.DeleteMemberCategorySchema(cc.ctx, s.portalID))
		if body := cc.raw(t, "deleteMemberCategorySchema"); body["success"] != true {
			t.Errorf("deleteMemberCategorySchema: the client reported success, the body says %s", jsonText(body))
		}
		if s.hasMember() {
			member := s.client(t, s.memberToken)
			err := member.c.DeleteMemberCategorySchema(member.ctx, s.portalID)
			sameError(t, "deleteMemberCategorySchema by a member", err, member.raw(t, "deleteMemberCategorySchema"))
			if !errors.Is(err, client.ErrForbidden) {
				t.Errorf("deleteMemberCategorySchema by a member: the client's error %v is not client.ErrForbidden", err)
			}
		}
	})
}

func (s *suite) clientToken(t TB) {
	cc := s.client(t, "")
	user, _ := s.wrongPasswordUser()
	_, err := cc.c.GenerateToken(cc.ctx, user, s.wrongPassword(), time.Hour)
	sameError(t, "generateToken with a wrong password", err, cc.raw(t, "generateToken"))

	p := s.pairs["generateToken/issued"]
	pw, ok := "", false
	if p != nil {
		pw, ok = s.password(p)
		user, _ = p.body["username"].(string)
		user = s.users()[user]
	}
	if !ok && s.target.Username != "" && s.target.Password != "" {
		user, pw, ok = s.target.Username, s.target.Password, true
	}
	if !ok {
		t.Logf("generateToken with good credentials not checked through the client: no password known (Target.Username and Target.Password)")
		return
	}
	tok, err := cc.c.GenerateToken(cc.ctx, user, pw, 30*time.Minute)
	noErr(t, "generateToken", err)
	body := cc.raw(t, "generateToken")
	same(t, "generateToken", map[string]any{"token": tok.Token, "expires": ms(tok.Expires), "ssl": tok.SSL},
		map[string]any{"token": body["token"], "expires": body["expires"], "ssl": body["ssl"]})
	// The token works.
	use := s.client(t, tok.Token)
	m, err := use.c.Member(use.ctx, user)
	noErr(t, "getMember with the generated token", err)
	if m.Username != user {
		t.Errorf("getMember with a token generated for %s read %s", user, m.Username)
	}
}

func userOfClient(u *client.User) map[string]any {
	if u == nil {
		return nil
	}
	m := memberOfClient(u.Member)
	m["id"], m["privileges"], m["created"] = u.ID, orEmpty(toAny(u.Privileges), []any{}), ms(u.Created)
	return m
}

func userOfBody(v any) map[string]any {
	b := asMap(v)
	if b == nil {
		return nil
	}
	m := memberOfBody(b)
	m["id"], m["privileges"], m["created"] = b["id"], orEmpty(b["privileges"], []any{}), b["created"]
	return m
}

func (s *suite) clientDiscovery(t TB) {
	t.Run("getRoot", func(t TB) {
		cc := s.client(t, "")
		v, err := cc.c.RESTVersion(cc.ctx)
		noErr(t, "getRoot", err)
		same(t, "getRoot", map[string]any{"currentVersion": v}, map[string]any{"currentVersion": cc.raw(t, "getRoot")["currentVersion"]})
	})
	t.Run("getInfo", func(t TB) {
		cc := s.client(t, "")
		info, err := cc.c.Info(cc.ctx)
		noErr(t, "getInfo", err)
		body := cc.raw(t, "getInfo")
		same(t, "getInfo", map[string]any{"owningSystemUrl": info.OwningSystemURL, "tokenServicesUrl": info.TokenServicesURL},
			map[string]any{"owningSystemUrl": body["owningSystemUrl"], "tokenServicesUrl": asMap(body["authInfo"])["tokenServicesUrl"]})
	})
	t.Run("getPortal", func(t TB) {
		cc := s.client(t, s.ownerToken())
		p, err := cc.c.Portal(cc.ctx, "self")
		noErr(t, "getPortal", err)
		body := cc.raw(t, "getPortal")
		same(t, "getPortal",
			map[string]any{"id": p.ID, "name": p.Name, "portalName": p.PortalName, "isPortal": p.IsPortal, "currentVersion": p.CurrentVersion,
				"hasMemberCategorySchema": p.HasMemberCategorySchema, "user": userOfClient(p.User)},
			map[string]any{"id": body["id"], "name": orEmpty(body["name"], ""), "portalName": body["portalName"], "isPortal": body["isPortal"],
				"currentVersion": orEmpty(body["currentVersion"], ""), "hasMemberCategorySchema": orEmpty(body["hasMemberCategorySchema"], false),
				"user": userOfBody(body["user"])})
		_, err = cc.c.Portal(cc.ctx, "FFFFFFFFFFFFFFFF")
		sameError(t, "getPortal of an unknown portal", err, cc.raw(t, "getPortal"))
	})
	t.Run("getSelf", func(t TB) {
		cc := s.client(t, s.ownerToken())
		u, err := cc.c.Self(cc.ctx)
		noErr(t, "getSelf", err)
		same(t, "getSelf", userOfClient(u), userOfBody(cc.raw(t, "getSelf")))
		anon := s.client(t, "")
		_, err = anon.c.Self(anon.ctx)
		sameError(t, "getSelf without a token", err, anon.raw(t, "getSelf"))
		if !errors.Is(err, client.ErrTokenRequired) {
			t.Errorf("getSelf without a token: the client's error %v is not client.ErrTokenRequired", err)
		}
	})
	t.Run("listRoles", func(t TB) {
		cc := s.client(t, s.ownerToken())
		p, err := cc.c.Roles(cc.ctx, "", client.Page{Num: 100})
		noErr(t, "listRoles", err)
		body := cc.raw(t, "listRoles")
		roles := []any{}
		for _, r := range p.Roles {
			roles = append(roles, map[string]any{"id": r.ID, "name": r.Name, "description": r.Description})
		}
		same(t, "listRoles",
			map[string]any{"total": float64(p.Total), "start": float64(p.Start), "num": float64(p.Num), "nextStart": float64(p.NextStart), "roles": roles},
			map[string]any{"total": body["total"], "start": body["start"], "num": body["num"], "nextStart": body["nextStart"], "roles": orEmpty(body["roles"], []any{})})
	})
}

func (s *suite) clientOAuth(t TB) {
	t.Run("oauthToken", func(t TB) {
		id, secret := s.needAppSecret(t)
		cc := s.client(t, "")
		tok, err := cc.c.AppToken(cc.ctx, id, secret, 2*time.Hour)
		noErr(t, "oauthToken (client credentials)", err)
		body := cc.raw(t, "oauthToken")
		s.revokeLater(t, id, tok.Token)
		same(t, "oauthToken", map[string]any{"access_token": tok.Token, "ssl": tok.SSL},
			map[string]any{"access_token": body["access_token"], "ssl": orEmpty(body["ssl"], false)})
		_, err = cc.c.AppToken(cc.ctx, id, "conformance-wrong-secret-"+s.runID, time.Hour)
		sameError(t, "oauthToken with a wrong secret", err, cc.raw(t, "oauthToken"))
	})
	t.Run("oauthRevokeToken", func(t TB) {
		id := s.needApp(t)
		cc := s.client(t, "")
		noErr(t, "oauthRevokeToken", cc.c.RevokeToken(cc.ctx, id, "conformance-never-issued-"+s.runID))
		if body := cc.raw(t, "oauthRevokeToken"); body["success"] != true {
			t.Errorf("oauthRevokeToken: the client reported success, the body says %s", jsonText(body))
		}
	})
}
