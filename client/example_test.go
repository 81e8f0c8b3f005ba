package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/orgportal/portal-api/client"
)

func ExampleNew() {
	portal := startPortal() // a stand-in; use your portal's base URL
	defer portal.Close()

	// The token is obtained on first use, shared and renewed as needed.
	c, err := client.New(portal.URL+"/sharing/rest", client.WithCredentials("jsmith", "jsmith-password"))
	if err != nil {
		log.Fatal(err)
	}
	content, err := c.UserContent(context.Background(), "jsmith", "", client.Page{})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range content.Items {
		fmt.Printf("item %s (%s)\n", it.Title, it.Type)
	}
	for _, f := range content.Folders {
		fmt.Printf("folder %s\n", f.Title)
	}
	// Output:
	// item Roads (Feature Service)
	// item Hydrants (CSV)
	// folder Projects
	// folder Archive
}

func ExampleClient_UpdateSettings() {
	portal := startPortal()
	defer portal.Close()
	c, err := client.New(portal.URL+"/sharing/rest", client.WithToken("demo-admin-token"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	err = c.UpdateSettings(ctx, "self", client.SettingsUpdate{
		AnonymousAccessNotice: &client.AccessNotice{
			Title:   "Terms of use",
			Text:    "This system is for authorized use only.",
			Buttons: client.ButtonsAcceptAndDecline,
			Enabled: true,
		},
		InformationalBanner: &client.Banner{Text: "Read-only until 18:00 UTC", BgColor: "grey", FontColor: "#FFFFFF", Enabled: true},
		// Merged key by key; nil removes a key.
		PortalConfigProperties: map[string]any{"tokenExpiration": 120, "surveyUrl": nil},
	})
	if err != nil {
		log.Fatal(err)
	}
	s, err := c.Settings(ctx, "self")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("notice: %s [%s]\n", s.AnonymousAccessNotice.Title, s.AnonymousAccessNotice.Buttons)
	fmt.Printf("banner: %s (%s on %s)\n", s.InformationalBanner.Text, s.InformationalBanner.FontColor, s.InformationalBanner.BgColor)
	fmt.Println("tokenExpiration:", s.PortalConfigProperties["tokenExpiration"])

	// A zero banner with ClearEmptyFields clears the banner.
	err = c.UpdateSettings(ctx, "self", client.SettingsUpdate{InformationalBanner: &client.Banner{}, ClearEmptyFields: true})
	if err != nil {
		log.Fatal(err)
	}
	if s, err = c.Settings(ctx, "self"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("banner cleared:", s.InformationalBanner == nil)
	// Output:
	// notice: Terms of use [acceptAndDecline]
	// banner: Read-only until 18:00 UTC (#FFFFFF on grey)
	// tokenExpiration: 120
	// banner cleared: true
}

func ExampleClient_AssignMemberCategorySchema() {
	portal := startPortal()
	defer portal.Close()
	c, err := client.New(portal.URL+"/sharing/rest", client.WithToken("demo-admin-token"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	err = c.AssignMemberCategorySchema(ctx, "self", []client.Category{
		{Title: "Office Location", Categories: []client.Category{
			{Title: "USA", Categories: []client.Category{{Title: "Maine"}, {Title: "California"}}},
			{Title: "Canada"},
		}},
		{Title: "Department", Categories: []client.Category{{Title: "Planning"}, {Title: "Public Works"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	schema, err := c.MemberCategorySchema(ctx, "self")
	if err != nil {
		log.Fatal(err)
	}
	var show func(cats []client.Category, indent string)
	show = func(cats []client.Category, indent string) {
		for _, cat := range cats {
			fmt.Println(indent + cat.Title)
			show(cat.Categories, indent+"  ")
		}
	}
	show(schema, "")

	// Four levels are one too many.
	err = c.AssignMemberCategorySchema(ctx, "self", []client.Category{
		{Title: "A", Categories: []client.Category{{Title: "B", Categories: []client.Category{{Title: "C", Categories: []client.Category{{Title: "D"}}}}}}},
	})
	var e *client.Error
	if errors.As(err, &e) && e.MessageCode == "ORG_1132" {
		fmt.Println(e.Message, e.Details)
	}
	// Output:
	// Office Location
	//   USA
	//     Maine
	//     California
	//   Canada
	// Department
	//   Planning
	//   Public Works
	// Unable to assign member category schema. [Schema exceeds max tree size: 4 levels, the maximum is 3]
}

func ExampleClient_MoveItems() {
	portal := startPortal()
	defer portal.Close()
	c, err := client.New(portal.URL+"/sharing/rest", client.WithToken("demo-user-token"))
	if err != nil {
		log.Fatal(err)
	}
	const projects = "1a9ad803da604628b08c968ce602a231"
	results, err := c.MoveItems(context.Background(), "jsmith", []string{
		"93b54c8930ae46d9a00a7820cb3ebbd1", // Roads, at the root
		"2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8", // Parcels, already in Projects
		"00000000000000000000000000000000", // no such item
	}, projects)
	if err != nil {
		log.Fatal(err) // the whole request failed, e.g. an unknown folder
	}
	// Each item succeeds or fails on its own.
	for _, r := range results {
		switch {
		case r.Success:
			fmt.Println(r.ItemID, "moved")
		case errors.Is(r.Err, client.ErrNotFound):
			fmt.Println(r.ItemID, "not found")
		default:
			fmt.Println(r.ItemID, "failed:", r.Err.Message)
		}
	}
	// Output:
	// 93b54c8930ae46d9a00a7820cb3ebbd1 moved
	// 2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8 failed: Item already exists in target folder
	// 00000000000000000000000000000000 not found
}

// The portal states errors in the body of an HTTP 200 answer; the client
// turns them into *client.Error values that match the sentinels.
func Example_errors() {
	portal := startPortal()
	defer portal.Close()
	ctx := context.Background()
	banner := client.SettingsUpdate{InformationalBanner: &client.Banner{Text: "Hello", BgColor: "white", FontColor: "black", Enabled: true}}

	for _, opts := range [][]client.Option{
		{client.WithToken("demo-user-token")}, // a member without the privilege
		{client.WithToken("expired-token")},   // unknown or expired
		nil,                                   // no token at all
	} {
		c, err := client.New(portal.URL+"/sharing/rest", opts...)
		if err != nil {
			log.Fatal(err)
		}
		err = c.UpdateSettings(ctx, "self", banner)
		switch {
		case errors.Is(err, client.ErrForbidden):
			fmt.Println("forbidden:", err)
		case errors.Is(err, client.ErrInvalidToken):
			fmt.Println("sign in again:", err)
		case errors.Is(err, client.ErrTokenRequired):
			fmt.Println("sign in:", err)
		}
	}

	c, err := client.New(portal.URL+"/sharing/rest", client.WithToken("demo-user-token"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Item(ctx, "00000000000000000000000000000000")
	var e *client.Error
	if errors.Is(err, client.ErrNotFound) && errors.As(err, &e) {
		fmt.Println("not found:", e.MessageCode)
	}
	// Output:
	// forbidden: updateSettings: You do not have permissions to access this resource or perform this operation. (code 403, GWM_0003)
	// sign in again: updateSettings: Invalid token. (code 498)
	// sign in: updateSettings: Token Required. (code 499, GWM_0003)
	// not found: CONT_0001
}

// startPortal starts a small stand-in for a portal, with the demo
// organization's user jsmith, its items and folders, an administrator's
// token, and the answers the real portal gives for the operations the
// examples call.
func startPortal() *httptest.Server {
	s := &stand{
		tokens:   map[string]string{"demo-admin-token": "admin", "demo-user-token": "jsmith"},
		settings: map[string]json.RawMessage{},
		props:    map[string]any{"surveyUrl": "https://survey.example.org"},
		folders:  []standFolder{{"1a9ad803da604628b08c968ce602a231", "Projects"}, {"6c5b4a39281746e5b0a9f8e7d6c5b4a3", "Archive"}},
		items: []*standItem{
			{"93b54c8930ae46d9a00a7820cb3ebbd1", "Roads", "Feature Service", ""},
			{"2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8", "Parcels", "Web Map", "1a9ad803da604628b08c968ce602a231"},
			{"7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3", "Hydrants", "CSV", ""},
		},
	}
	return httptest.NewServer(s)
}

type stand struct {
	mu       sync.Mutex
	tokens   map[string]string // token: user
	settings map[string]json.RawMessage
	props    map[string]any
	schema   json.RawMessage
	folders  []standFolder
	items    []*standItem
}

type standFolder struct{ id, title string }

type standItem struct{ id, title, typ, folder string }

func (s *stand) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	reply := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	fail := func(code int, messageCode, message string, details ...string) {
		body := map[string]any{"code": code, "message": message, "details": append([]string{}, details...)}
		if messageCode != "" {
			body["messageCode"] = messageCode
		}
		reply(map[string]any{"error": body})
	}
	_ = r.ParseForm()
	path := strings.TrimPrefix(r.URL.Path, "/sharing/rest/")
	if path == "generateToken" {
		if r.Form.Get("username") != "jsmith" || r.Form.Get("password") != "jsmith-password" {
			fail(400, "", "Unable to generate token.", "Invalid username or password.")
			return
		}
		s.tokens["issued-token"] = "jsmith"
		reply(map[string]any{"token": "issued-token", "expires": 4102444800000, "ssl": false})
		return
	}
	user, known := s.tokens[r.Form.Get("token")]
	switch {
	case r.Form.Get("token") == "":
		fail(499, "GWM_0003", "Token Required.")
		return
	case !known:
		fail(498, "", "Invalid token.")
		return
	}
	admin := user == "admin"
	forbidden := func() {
		fail(403, "GWM_0003", "You do not have permissions to access this resource or perform this operation.")
	}

	switch {
	case path == "portals/self/settings/update":
		if !admin {
			forbidden()
			return
		}
		for _, key := range []string{"anonymousAccessNotice", "authenticatedAccessNotice", "informationalBanner"} {
			if v := r.Form.Get(key); v != "" {
				if v == "{}" && r.Form.Get("clearEmptyFields") == "true" {
					delete(s.settings, key)
				} else {
					s.settings[key] = json.RawMessage(v)
				}
			}
		}
		var props map[string]any
		_ = json.Unmarshal([]byte(r.Form.Get("portalConfigProperties")), &props)
		for k, v := range props {
			if v == nil {
				delete(s.props, k)
			} else {
				s.props[k] = v
			}
		}
		reply(map[string]any{"success": true})
	case path == "portals/self/settings":
		out := map[string]any{"portalConfigProperties": s.props}
		for k, v := range s.settings {
			out[k] = v
		}
		reply(out)
	case path == "portals/self/assignMemberCategorySchema":
		if !admin {
			forbidden()
			return
		}
		var doc struct {
			Schema json.RawMessage `json:"memberCategorySchema"`
		}
		_ = json.Unmarshal([]byte(r.Form.Get("memberCategorySchema")), &doc)
		if d := depth(doc.Schema); d > 3 {
			fail(400, "ORG_1132", "Unable to assign member category schema.", fmt.Sprintf("Schema exceeds max tree size: %d levels, the maximum is 3", d))
			return
		}
		s.schema = doc.Schema
		reply(map[string]any{"success": true})
	case path == "portals/self/memberCategorySchema":
		reply(map[string]any{"memberCategorySchema": s.schema})
	case path == "content/users/jsmith":
		items, folders := []any{}, []any{}
		for _, it := range s.items {
			if it.folder == "" {
				items = append(items, map[string]any{"id": it.id, "owner": "jsmith", "ownerFolder": nil, "title": it.title, "type": it.typ})
			}
		}
		for _, f := range s.folders {
			folders = append(folders, map[string]any{"id": f.id, "title": f.title, "username": "jsmith"})
		}
		reply(map[string]any{"username": "jsmith", "total": len(items), "start": 1, "num": 10, "nextStart": -1, "currentFolder": nil, "items": items, "folders": folders})
	case path == "content/users/jsmith/moveItems":
		results := []any{}
		for _, id := range strings.Split(r.Form.Get("items"), ",") {
			it := s.item(id)
			switch {
			case it == nil:
				results = append(results, map[string]any{"itemId": id, "success": false, "error": map[string]any{"code": 400, "messageCode": "CONT_0001", "message": "Item does not exist or is inaccessible."}})
			case it.folder == r.Form.Get("folder"):
				results = append(results, map[string]any{"itemId": id, "success": false, "error": map[string]any{"code": 500, "message": "Item already exists in target folder"}})
			default:
				it.folder = r.Form.Get("folder")
				results = append(results, map[string]any{"itemId": id, "success": true})
			}
		}
		reply(map[string]any{"results": results})
	case strings.HasPrefix(path, "content/items/") && s.item(strings.TrimPrefix(path, "content/items/")) == nil:
		fail(400, "CONT_0001", "Item does not exist or is inaccessible.")
	default:
		w.WriteHeader(http.StatusNotFound)
		fail(404, "", "Not found.")
	}
}

func (s *stand) item(id string) *standItem {
	for _, it := range s.items {
		if it.id == id {
			return it
		}
	}
	return nil
}

// depth is the number of levels of a schema's category array.
func depth(cats json.RawMessage) int {
	var nodes []struct {
		Categories json.RawMessage `json:"categories"`
	}
	if json.Unmarshal(cats, &nodes) != nil || len(nodes) == 0 {
		return 0
	}
	deepest := 0
	for _, n := range nodes {
		deepest = max(deepest, depth(n.Categories))
	}
	return 1 + deepest
}
