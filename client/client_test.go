package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorded is what the fake portal saw of one request.
type recorded struct {
	Method, Path string
	Query        url.Values
	Form         url.Values // the POST body's fields only
	Body         string
	Header       http.Header
}

// answer is what the fake portal says back.
type answer struct {
	Status      int    // 200 when zero
	ContentType string // the portal's JSON type when empty
	Body        string
}

func ok(body string) answer { return answer{Body: body} }

// fakePortal records every request and answers through a function of the
// test, as the portal would on the wire: over a real httptest.Server, or in
// process (newPortalInProcess) for tests inside a synctest bubble, where
// network I/O would keep the bubble from ever settling.
type fakePortal struct {
	*httptest.Server // nil in process
	handler          http.Handler
	mu               sync.Mutex
	reqs             []recorded
}

func newPortal(t *testing.T, respond func(r recorded) answer) *fakePortal {
	t.Helper()
	p := newPortalInProcess(t, respond)
	p.Server = httptest.NewServer(p.handler)
	t.Cleanup(p.Close)
	return p
}

// newPortalInProcess is a fakePortal whose clients call its handler
// directly, without a listener.
func newPortalInProcess(t *testing.T, respond func(r recorded) answer) *fakePortal {
	t.Helper()
	p := &fakePortal{}
	p.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the request: %v", err)
		}
		rec := recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Form: url.Values{}, Body: string(body), Header: r.Header.Clone()}
		if r.Method == http.MethodPost {
			if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
				t.Errorf("%s: Content-Type %q", r.URL.Path, ct)
			}
			if rec.Form, err = url.ParseQuery(string(body)); err != nil {
				t.Errorf("%s: body is not a form: %v", r.URL.Path, err)
			}
		}
		p.mu.Lock()
		p.reqs = append(p.reqs, rec)
		p.mu.Unlock()
		a := respond(rec)
		if a.ContentType == "" {
			a.ContentType = "application/json; charset=utf-8"
		}
		if a.Status == 0 {
			a.Status = http.StatusOK
		}
		w.Header().Set("Content-Type", a.ContentType)
		w.WriteHeader(a.Status)
		io.WriteString(w, a.Body)
	})
	return p
}

// handlerTransport serves requests with a handler in the caller's process.
// Like a network transport, it gives up when the request's context ends,
// even if the handler has not answered.
type handlerTransport struct{ h http.Handler }

func (ht handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		// The handler reads the body in another goroutine: give it its own copy.
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(strings.NewReader(string(b)))
	}
	done := make(chan *http.Response, 1)
	go func() {
		rec := httptest.NewRecorder()
		ht.h.ServeHTTP(rec, r)
		done <- rec.Result()
	}()
	select {
	case res := <-done:
		return res, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

func (p *fakePortal) requests() []recorded {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]recorded(nil), p.reqs...)
}

func (p *fakePortal) client(t *testing.T, opts ...Option) *Client {
	t.Helper()
	base := "http://portal.invalid"
	if p.Server != nil {
		base = p.URL
	} else {
		opts = append([]Option{WithHTTPClient(&http.Client{Transport: handlerTransport{p.handler}})}, opts...)
	}
	c, err := New(base+"/sharing/rest", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	base     = "/sharing/rest"
	orgID    = "0123456789ABCDEF"
	folderID = "1a9ad803da604628b08c968ce602a231"
	roads    = "93b54c8930ae46d9a00a7820cb3ebbd1"
	parcels  = "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8"
	epochMs  = 1767225600000
)

var epoch = time.UnixMilli(epochMs)

// Each method puts the portal's wire format on the wire (method, path, every
// form field or query parameter, the token where the portal's JavaScript
// client puts it) and decodes the success answer into the domain values.
func TestWireAndDecoding(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		call   func(ctx context.Context, c *Client) (any, error)
		method string
		path   string
		params map[string]string // the form of a POST or the query of a GET, exactly
		want   any
	}{
		{
			name:   "update settings",
			answer: `{"success":true}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.UpdateSettings(ctx, orgID, SettingsUpdate{
					AnonymousAccessNotice:     &AccessNotice{Title: "Terms", Text: "Accept?", Buttons: ButtonsAcceptAndDecline, Enabled: true},
					AuthenticatedAccessNotice: &AccessNotice{},
					InformationalBanner:       &Banner{Text: `Read-only & "quoted"`, BgColor: "grey", FontColor: "#FFFFFF", Enabled: true},
					PortalConfigProperties:    map[string]any{"tokenExpiration": 120, "surveyUrl": nil, "httpsDomains": []string{"example.org"}},
					ClearEmptyFields:          true,
				})
			},
			method: "POST", path: base + "/portals/" + orgID + "/settings/update",
			params: map[string]string{
				"anonymousAccessNotice":     `{"title":"Terms","text":"Accept?","buttons":"acceptAndDecline","enabled":true}`,
				"authenticatedAccessNotice": `{}`,
				"informationalBanner":       `{"text":"Read-only \u0026 \"quoted\"","bgColor":"grey","fontColor":"#FFFFFF","enabled":true}`,
				"portalConfigProperties":    `{"httpsDomains":["example.org"],"surveyUrl":null,"tokenExpiration":120}`,
				"clearEmptyFields":          "true",
				"f":                         "json",
				"token":                     "tok",
			},
		},
		{
			name:   "update settings: nothing given, a disabled notice",
			answer: `{"success":true}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.UpdateSettings(ctx, "", SettingsUpdate{AnonymousAccessNotice: &AccessNotice{Title: "Old"}})
			},
			method: "POST", path: base + "/portals/self/settings/update",
			params: map[string]string{"anonymousAccessNotice": `{"title":"Old","enabled":false}`, "f": "json", "token": "tok"},
		},
		{
			name: "read settings",
			answer: `{"anonymousAccessNotice":{"title":"T","text":"X","buttons":"okOnly","enabled":true},
				"authenticatedAccessNotice":null,
				"informationalBanner":{"text":"Hi","bgColor":"navy","fontColor":"white","enabled":false},
				"portalConfigProperties":{"tokenExpiration":120,"httpsDomains":["example.org"]}}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Settings(ctx, orgID)
			},
			method: "GET", path: base + "/portals/" + orgID + "/settings",
			params: map[string]string{"f": "json", "token": "tok"},
			want: &Settings{
				AnonymousAccessNotice:  &AccessNotice{Title: "T", Text: "X", Buttons: ButtonsOKOnly, Enabled: true},
				InformationalBanner:    &Banner{Text: "Hi", BgColor: "navy", FontColor: "white"},
				PortalConfigProperties: map[string]any{"tokenExpiration": float64(120), "httpsDomains": []any{"example.org"}},
			},
		},
		{
			name:   "assign member category schema",
			answer: `{"success":true}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.AssignMemberCategorySchema(ctx, orgID, []Category{
					{Title: "Office Location", Categories: []Category{{Title: "USA", Categories: []Category{{Title: "Maine"}}}}},
					{Title: "Department"},
				})
			},
			method: "POST", path: base + "/portals/" + orgID + "/assignMemberCategorySchema",
			params: map[string]string{
				"memberCategorySchema": `{"memberCategorySchema":[{"title":"Office Location","categories":[{"title":"USA","categories":[{"title":"Maine"}]}]},{"title":"Department"}]}`,
				"f":                    "json", "token": "tok",
			},
		},
		{
			name:   "assign an empty member category schema",
			answer: `{"success":true}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.AssignMemberCategorySchema(ctx, "", nil)
			},
			method: "POST", path: base + "/portals/self/assignMemberCategorySchema",
			params: map[string]string{"memberCategorySchema": `{"memberCategorySchema":[]}`, "f": "json", "token": "tok"},
		},
		{
			name:   "read member category schema",
			answer: `{"memberCategorySchema":[{"title":"Office Location","categories":[{"title":"USA","categories":[{"title":"Maine"},{"title":"California"}]},{"title":"Canada"}]}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MemberCategorySchema(ctx, "self")
			},
			method: "GET", path: base + "/portals/self/memberCategorySchema",
			params: map[string]string{"f": "json", "token": "tok"},
			want: []Category{{Title: "Office Location", Categories: []Category{
				{Title: "USA", Categories: []Category{{Title: "Maine"}, {Title: "California"}}},
				{Title: "Canada"},
			}}},
		},
		{
			name:   "read an empty member category schema",
			answer: `{"memberCategorySchema":[]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MemberCategorySchema(ctx, "")
			},
			method: "GET", path: base + "/portals/self/memberCategorySchema",
			params: map[string]string{"f": "json", "token": "tok"},
			want:   []Category{},
		},
		{
			name:   "delete member category schema",
			answer: `{"success":true}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteMemberCategorySchema(ctx, orgID)
			},
			method: "POST", path: base + "/portals/" + orgID + "/deleteMemberCategorySchema",
			params: map[string]string{"f": "json", "token": "tok"},
		},
		{
			name: "move items",
			answer: `{"results":[{"itemId":"` + roads + `","success":true},
				{"itemId":"` + parcels + `","success":false,"error":{"code":500,"message":"Item already exists in target folder"}},
				{"itemId":"0000","success":false,"error":{"code":400,"messageCode":"CONT_0001","message":"Item does not exist or is inaccessible."}}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MoveItems(ctx, "jsmith", []string{roads, parcels, "0000"}, folderID)
			},
			method: "POST", path: base + "/content/users/jsmith/moveItems",
			params: map[string]string{"items": roads + "," + parcels + ",0000", "folder": folderID, "f": "json", "token": "tok"},
			want: []ItemResult{
				{ItemID: roads, Success: true},
				{ItemID: parcels, Err: &Error{Code: 500, Message: "Item already exists in target folder"}},
				{ItemID: "0000", Err: &Error{Code: 400, MessageCode: "CONT_0001", Message: "Item does not exist or is inaccessible."}},
			},
		},
		{
			name:   "move items to the root",
			answer: `{"results":[{"itemId":"a","success":true}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MoveItems(ctx, "jsmith", []string{"a"}, "")
			},
			method: "POST", path: base + "/content/users/jsmith/moveItems",
			params: map[string]string{"items": "a", "folder": "/", "f": "json", "token": "tok"},
			want:   []ItemResult{{ItemID: "a", Success: true}},
		},
		{
			name:   "move items whose id holds a comma",
			answer: `{"results":[]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MoveItems(ctx, "jsmith", []string{"a,b", "c"}, "/")
			},
			method: "POST", path: base + "/content/users/jsmith/moveItems",
			params: map[string]string{"items": `["a,b","c"]`, "folder": "/", "f": "json", "token": "tok"},
			want:   []ItemResult{},
		},
		{
			name:   "delete items",
			answer: `{"results":[{"itemId":"a","success":true},{"itemId":"b","success":false,"error":{"code":400,"messageCode":"CONT_0001","message":"Item does not exist or is inaccessible."}}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.DeleteItems(ctx, "jsmith", []string{"a", "b"})
			},
			method: "POST", path: base + "/content/users/jsmith/deleteItems",
			params: map[string]string{"items": "a,b", "f": "json", "token": "tok"},
			want: []ItemResult{
				{ItemID: "a", Success: true},
				{ItemID: "b", Err: &Error{Code: 400, MessageCode: "CONT_0001", Message: "Item does not exist or is inaccessible."}},
			},
		},
		{
			name:   "create folder",
			answer: `{"success":true,"folder":{"id":"f1","title":"Field Work","username":"jsmith","created":1767225600000}}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateFolder(ctx, "jsmith", "Field Work")
			},
			method: "POST", path: base + "/content/users/jsmith/createFolder",
			params: map[string]string{"title": "Field Work", "f": "json", "token": "tok"},
			want:   Folder{ID: "f1", Title: "Field Work", Owner: "jsmith", Created: epoch},
		},
		{
			name:   "delete folder",
			answer: `{"success":true,"folder":{"id":"f1","title":"Archive","username":"jsmith"}}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteFolder(ctx, "jsmith", "f1")
			},
			method: "POST", path: base + "/content/users/jsmith/f1/delete",
			params: map[string]string{"f": "json", "token": "tok"},
		},
		{
			name:   "add item at the root",
			answer: `{"success":true,"id":"new1","folder":null}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.AddItem(ctx, "jsmith", "", NewItem{Title: "Trails", Type: "Feature Service", Tags: []string{"transport", "outdoor"}, Description: "Hiking trails"})
			},
			method: "POST", path: base + "/content/users/jsmith/addItem",
			params: map[string]string{"title": "Trails", "type": "Feature Service", "tags": "transport,outdoor", "description": "Hiking trails", "f": "json", "token": "tok"},
			want:   "new1",
		},
		{
			name:   "add item in a folder",
			answer: `{"success":true,"id":"new2","folder":"` + folderID + `"}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.AddItem(ctx, "jsmith", folderID, NewItem{Title: "Zoning", Type: "Web Map"})
			},
			method: "POST", path: base + "/content/users/jsmith/" + folderID + "/addItem",
			params: map[string]string{"title": "Zoning", "type": "Web Map", "f": "json", "token": "tok"},
			want:   "new2",
		},
		{
			name: "list the root folder",
			answer: `{"username":"jsmith","total":2,"start":1,"num":10,"nextStart":-1,"currentFolder":null,
				"items":[{"id":"` + roads + `","owner":"jsmith","ownerFolder":null,"title":"Roads","type":"Feature Service","tags":[],"description":"","created":1767225600000,"modified":1767225600000}],
				"folders":[{"id":"` + folderID + `","title":"Projects","username":"jsmith","created":1767225600000}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UserContent(ctx, "jsmith", "/", Page{Start: 11, Num: 5})
			},
			method: "GET", path: base + "/content/users/jsmith",
			params: map[string]string{"start": "11", "num": "5", "f": "json", "token": "tok"},
			want: &Content{
				Owner: "jsmith", Total: 2, Start: 1, Num: 10, NextStart: -1,
				Items:   []Item{{ID: roads, Owner: "jsmith", Title: "Roads", Type: "Feature Service", Tags: []string{}, Created: epoch, Modified: epoch}},
				Folders: []Folder{{ID: folderID, Title: "Projects", Owner: "jsmith", Created: epoch}},
			},
		},
		{
			name: "list a folder",
			answer: `{"username":"jsmith","total":1,"start":1,"num":10,"nextStart":-1,
				"currentFolder":{"id":"` + folderID + `","title":"Projects","username":"jsmith","created":1767225600000},
				"items":[{"id":"` + parcels + `","owner":"jsmith","ownerFolder":"` + folderID + `","title":"Parcels","type":"Web Map"}],"folders":[]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UserContent(ctx, "jsmith", folderID, Page{})
			},
			method: "GET", path: base + "/content/users/jsmith/" + folderID,
			params: map[string]string{"f": "json", "token": "tok"},
			want: &Content{
				Owner: "jsmith", Total: 1, Start: 1, Num: 10, NextStart: -1,
				Folder: &Folder{ID: folderID, Title: "Projects", Owner: "jsmith", Created: epoch},
				Items:  []Item{{ID: parcels, Owner: "jsmith", Folder: folderID, Title: "Parcels", Type: "Web Map"}},
			},
		},
		{
			name:   "read an item",
			answer: `{"id":"` + parcels + `","owner":"jsmith","ownerFolder":"` + folderID + `","title":"Parcels","type":"Web Map","tags":["land"],"description":"d","created":1767225600000,"modified":1767225600000}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Item(ctx, parcels)
			},
			method: "GET", path: base + "/content/items/" + parcels,
			params: map[string]string{"f": "json", "token": "tok"},
			want:   &Item{ID: parcels, Owner: "jsmith", Folder: folderID, Title: "Parcels", Type: "Web Map", Tags: []string{"land"}, Description: "d", Created: epoch, Modified: epoch},
		},
		{
			name:   "read a member",
			answer: `{"username":"jsmith","fullName":"Jane Smith","orgId":"` + orgID + `","role":"org_user","categories":["/Office Location/USA/Maine"]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Member(ctx, "jsmith")
			},
			method: "GET", path: base + "/community/users/jsmith",
			params: map[string]string{"f": "json", "token": "tok"},
			want:   &Member{Username: "jsmith", FullName: "Jane Smith", OrgID: orgID, Role: "org_user", Categories: []string{"/Office Location/USA/Maine"}},
		},
		{
			name:   "set a member's categories",
			answer: `{"success":true,"username":"jsmith"}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetMemberCategories(ctx, "jsmith", []string{"/Office Location/USA/Maine", "/Department/Planning"})
			},
			method: "POST", path: base + "/community/users/jsmith/update",
			params: map[string]string{"categories": "/Office Location/USA/Maine,/Department/Planning", "f": "json", "token": "tok"},
		},
		{
			name:   "a category path holding a comma goes as a JSON array",
			answer: `{"success":true,"username":"jsmith"}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetMemberCategories(ctx, "jsmith", []string{"/Office/Portland, Maine"})
			},
			method: "POST", path: base + "/community/users/jsmith/update",
			params: map[string]string{"categories": `["/Office/Portland, Maine"]`, "f": "json", "token": "tok"},
		},
		{
			name:   "remove a member's categories",
			answer: `{"success":true,"username":"jsmith"}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetMemberCategories(ctx, "jsmith", nil)
			},
			method: "POST", path: base + "/community/users/jsmith/update",
			params: map[string]string{"categories": "", "f": "json", "token": "tok"},
		},
		{
			name: "list members by category",
			answer: `{"total":2,"start":1,"num":10,"nextStart":-1,"users":[
				{"username":"jsmith","fullName":"Jane Smith","orgId":"` + orgID + `","role":"org_user","categories":["/Office Location/USA/Maine"]},
				{"username":"viewer","orgId":"` + orgID + `","role":"org_user","roleId":"viewer","categories":[]}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Members(ctx, "", MemberQuery{Categories: []string{"/Office Location/USA", "/Department"}, Num: 10})
			},
			method: "GET", path: base + "/portals/self/users",
			params: map[string]string{"categories": "/Office Location/USA,/Department", "num": "10", "f": "json", "token": "tok"},
			want: &MemberPage{Total: 2, Start: 1, Num: 10, NextStart: -1, Members: []Member{
				{Username: "jsmith", FullName: "Jane Smith", OrgID: orgID, Role: "org_user", Categories: []string{"/Office Location/USA/Maine"}},
				{Username: "viewer", OrgID: orgID, Role: "org_user", RoleID: "viewer", Categories: []string{}},
			}},
		},
		{
			name:   "generate a token",
			answer: `{"token":"3NKHt6i2urmWtqOuugvr9Q","expires":1767229200000,"ssl":true}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GenerateToken(ctx, "jsmith", "jsmith-password", 89*time.Minute+30*time.Second)
			},
			method: "POST", path: base + "/generateToken",
			// The client's own token is not sent to generateToken.
			params: map[string]string{"username": "jsmith", "password": "jsmith-password", "expiration": "90", "f": "json"},
			want:   Token{Token: "3NKHt6i2urmWtqOuugvr9Q", Expires: time.UnixMilli(1767229200000), SSL: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPortal(t, func(recorded) answer { return ok(tt.answer) })
			c := p.client(t, WithToken("tok"))
			got, err := tt.call(context.Background(), c)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			reqs := p.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != tt.method || r.Path != tt.path {
				t.Errorf("request %s %s, want %s %s", r.Method, r.Path, tt.method, tt.path)
			}
			// The parameters travel in the form of a POST and the query of a
			// GET, never split between the two.
			params, other := r.Form, r.Query
			if r.Method == http.MethodGet {
				params, other = r.Query, r.Form
			}
			if len(other) != 0 {
				t.Errorf("unexpected parameters %v", other)
			}
			want := url.Values{}
			for k, v := range tt.params {
				want.Set(k, v)
			}
			if !reflect.DeepEqual(params, want) {
				t.Errorf("parameters\n got  %v\n want %v", params, want)
			}
			for k := range params {
				if strings.Contains(k, "[") {
					t.Errorf("exploded field %q", k)
				}
			}
		})
	}
}

// A JSON document stays one URL-encoded form field, and a GET keeps the
// literal commas of its lists.
func TestRawEncoding(t *testing.T) {
	p := newPortal(t, func(r recorded) answer {
		if r.Method == http.MethodGet {
			return ok(`{"total":0,"start":1,"num":10,"nextStart":-1,"users":[]}`)
		}
		return ok(`{"success":true}`)
	})
	c := p.client(t, WithToken("a b&c"))
	ctx := context.Background()
	if err := c.UpdateSettings(ctx, "", SettingsUpdate{InformationalBanner: &Banner{Text: "x", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Members(ctx, "", MemberQuery{Categories: []string{"/A", "/B"}}); err != nil {
		t.Fatal(err)
	}
	reqs := p.requests()
	if !strings.Contains(reqs[0].Body, "informationalBanner=%7B%22text%22%3A%22x%22%2C%22enabled%22%3Atrue%7D") {
		t.Errorf("banner is not one URL-encoded JSON field: %s", reqs[0].Body)
	}
	if got := reqs[0].Form.Get("token"); got != "a b&c" {
		t.Errorf("form token %q", got)
	}
	if got := reqs[1].Query.Get("token"); got != "a b&c" {
		t.Errorf("query token %q", got)
	}
	if cats := reqs[1].Query["categories"]; len(cats) != 1 || cats[0] != "/A,/B" {
		t.Errorf("categories %q", cats)
	}
}

func TestNoTokenWhenAnonymous(t *testing.T) {
	p := newPortal(t, func(recorded) answer { return ok(`{}`) })
	c := p.client(t)
	s, err := c.Settings(context.Background(), "self")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, &Settings{}) {
		t.Errorf("settings %+v", s)
	}
	r := p.requests()[0]
	if r.Query.Has("token") || r.Header.Get("Authorization") != "" || r.Header.Get("Referer") != "" {
		t.Errorf("anonymous request carries credentials: %v %v", r.Query, r.Header)
	}
}

func TestBaseURL(t *testing.T) {
	p := newPortal(t, func(recorded) answer { return ok(`{"memberCategorySchema":[]}`) })
	for _, tt := range []struct{ base, path string }{
		{p.URL + "/sharing/rest", "/sharing/rest/portals/self/memberCategorySchema"},
		{p.URL + "/sharing/rest/", "/sharing/rest/portals/self/memberCategorySchema"},
		{p.URL + "/portal/sharing/rest//", "/portal/sharing/rest/portals/self/memberCategorySchema"},
	} {
		c, err := New(tt.base)
		if err != nil {
			t.Fatalf("New(%q): %v", tt.base, err)
		}
		if _, err := c.MemberCategorySchema(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
		reqs := p.requests()
		if got := reqs[len(reqs)-1].Path; got != tt.path {
			t.Errorf("New(%q): path %s, want %s", tt.base, got, tt.path)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:8080/sharing/rest", "ftp://h/sharing/rest", "http:///sharing/rest", "http://h/sharing/rest?f=json", "http://h/%zz"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) succeeded", bad)
		}
	}
	if _, err := New(p.URL, WithToken("t"), WithCredentials("u", "p")); err == nil {
		t.Error("WithToken and WithCredentials together accepted")
	}
	if _, err := New(p.URL, WithToken("")); err == nil {
		t.Error("empty token accepted")
	}
}

// An empty path parameter would address another operation: it fails before
// anything is sent.
func TestEmptyPathParameters(t *testing.T) {
	p := newPortal(t, func(recorded) answer { return ok(`{}`) })
	c := p.client(t, WithToken("tok"))
	ctx := context.Background()
	calls := map[string]func() error{
		"MoveItems":           func() error { _, err := c.MoveItems(ctx, "", []string{"a"}, "/"); return err },
		"DeleteItems":         func() error { _, err := c.DeleteItems(ctx, "", []string{"a"}); return err },
		"CreateFolder":        func() error { _, err := c.CreateFolder(ctx, "", "x"); return err },
		"DeleteFolder":        func() error { return c.DeleteFolder(ctx, "jsmith", "") },
		"AddItem":             func() error { _, err := c.AddItem(ctx, "", "", NewItem{}); return err },
		"UserContent":         func() error { _, err := c.UserContent(ctx, "", "", Page{}); return err },
		"Item":                func() error { _, err := c.Item(ctx, ""); return err },
		"Member":              func() error { _, err := c.Member(ctx, ""); return err },
		"SetMemberCategories": func() error { return c.SetMemberCategories(ctx, "", nil) },
	}
	for name, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := len(p.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// Every error answer becomes an *Error that keeps the code, message code and
// details, and matches the right sentinels.
func TestErrors(t *testing.T) {
	sentinels := []error{ErrTokenRequired, ErrInvalidToken, ErrForbidden, ErrNotFound}
	tests := []struct {
		name        string
		answer      answer
		is          error // the one sentinel that matches; nil for none
		code        int
		messageCode string
		details     []string
		message     string // a part of Message
	}{
		{
			name:   "token required",
			answer: ok(`{"error":{"code":499,"messageCode":"GWM_0003","message":"Token Required.","details":[]}}`),
			is:     ErrTokenRequired, code: 499, messageCode: "GWM_0003", details: []string{}, message: "Token Required.",
		},
		{
			name:   "invalid token",
			answer: ok(`{"error":{"code":498,"message":"Invalid token.","details":[]}}`),
			is:     ErrInvalidToken, code: 498, details: []string{}, message: "Invalid token.",
		},
		{
			name:   "forbidden",
			answer: ok(`{"error":{"code":403,"messageCode":"GWM_0003","message":"You do not have permissions to access this resource or perform this operation.","details":[]}}`),
			is:     ErrForbidden, code: 403, messageCode: "GWM_0003", details: []string{}, message: "You do not have permissions",
		},
		{
			name:   "unknown item",
			answer: ok(`{"error":{"code":400,"messageCode":"CONT_0001","message":"Item does not exist or is inaccessible.","details":[]}}`),
			is:     ErrNotFound, code: 400, messageCode: "CONT_0001", details: []string{}, message: "Item does not exist",
		},
		{
			name:   "unknown portal, without message code",
			answer: ok(`{"error":{"code":400,"message":"Portal does not exist or is inaccessible.","details":[]}}`),
			is:     ErrNotFound, code: 400, details: []string{}, message: "Portal does not exist",
		},
		{
			name:   "schema too deep",
			answer: ok(`{"error":{"code":400,"messageCode":"ORG_1132","message":"Unable to assign member category schema.","details":["Schema exceeds max tree size: 4 levels, the maximum is 3"]}}`),
			code:   400, messageCode: "ORG_1132", details: []string{"Schema exceeds max tree size: 4 levels, the maximum is 3"}, message: "Unable to assign",
		},
		{
			name:   "unknown destination folder is a validation error",
			answer: ok(`{"error":{"code":400,"message":"Unable to move items.","details":["folder: ffff is not a folder of jsmith"]}}`),
			code:   400, details: []string{"folder: ffff is not a folder of jsmith"}, message: "Unable to move items.",
		},
		{
			name:   "unexpected failure",
			answer: ok(`{"error":{"code":500,"message":"Internal error.","details":[]}}`),
			code:   500, details: []string{}, message: "Internal error.",
		},
		{
			name:   "envelope without details",
			answer: ok(`{"error":{"code":400,"message":"Bad."}}`),
			code:   400, message: "Bad.",
		},
		{
			name:   "unknown path, with the envelope",
			answer: answer{Status: 404, Body: `{"error":{"code":404,"message":"Not found.","details":[]}}`},
			is:     ErrNotFound, code: 404, details: []string{}, message: "Not found.",
		},
		{
			name:   "body too large, with the envelope",
			answer: answer{Status: 413, Body: `{"error":{"code":413,"message":"Request body too large.","details":["the limit is 1048576 bytes"]}}`},
			code:   413, details: []string{"the limit is 1048576 bytes"}, message: "too large",
		},
		{
			name:   "HTML 404 of a wrong base URL",
			answer: answer{Status: 404, ContentType: "text/html", Body: "<html>Not Found</html>"},
			is:     ErrNotFound, code: 404, message: "unexpected answer: HTTP 404 Not Found, text/html, not a JSON object",
		},
		{
			name:   "proxy failure",
			answer: answer{Status: 502, ContentType: "text/html", Body: "<html>Bad Gateway</html>"},
			code:   502, message: "HTTP 502 Bad Gateway",
		},
		{
			name:   "HTML with HTTP 200",
			answer: answer{ContentType: "text/html", Body: "<html>sign in</html>"},
			code:   200, message: `not a JSON object: "<html>sign in</html>"`,
		},
		{
			name:   "empty body",
			answer: ok(""),
			code:   200, message: "not a JSON object",
		},
		{
			name:   "JSON without an envelope and a failure status",
			answer: answer{Status: 500, Body: `{"message":"boom"}`},
			code:   500, message: "no error envelope",
		},
		{
			name:   "malformed envelope",
			answer: ok(`{"error":"boom"}`),
			code:   200, message: "malformed error envelope",
		},
		{
			name:   "success answer without success",
			answer: ok(`{}`),
			code:   200, message: `no "success":true`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPortal(t, func(recorded) answer { return tt.answer })
			c := p.client(t, WithToken("tok"))
			err := c.UpdateSettings(context.Background(), "", SettingsUpdate{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "updateSettings: ") {
				t.Errorf("error %q does not name the operation", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is no *Error", err, err)
			}
			if e.Code != tt.code || e.MessageCode != tt.messageCode || !reflect.DeepEqual(e.Details, tt.details) {
				t.Errorf("got code %d, message code %q, details %#v; want %d, %q, %#v", e.Code, e.MessageCode, e.Details, tt.code, tt.messageCode, tt.details)
			}
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("message %q does not hold %q", e.Message, tt.message)
			}
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (s == tt.is) {
					t.Errorf("errors.Is(err, %v) = %v", s, got)
				}
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Code: 400, MessageCode: "ORG_1132", Message: "Unable to assign member category schema.", Details: []string{"a", "b"}}
	if got, want := e.Error(), "Unable to assign member category schema. (code 400, ORG_1132): a; b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{Code: 498, Message: "Invalid token."}
	if got, want := e.Error(), "Invalid token. (code 498)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The portal's JSON is read whatever Content-Type labels it.
func TestJSONLabelledAsText(t *testing.T) {
	p := newPortal(t, func(recorded) answer {
		return answer{ContentType: "text/plain; charset=utf-8", Body: `{"success":true}`}
	})
	if err := p.client(t).UpdateSettings(context.Background(), "", SettingsUpdate{}); err != nil {
		t.Fatal(err)
	}
}

// Failed items are results, not errors, and their errors match sentinels.
func TestItemFailuresAreResults(t *testing.T) {
	p := newPortal(t, func(recorded) answer {
		return ok(`{"results":[{"itemId":"x","success":false,"error":{"code":400,"messageCode":"CONT_0001","message":"Item does not exist or is inaccessible."}}]}`)
	})
	res, err := p.client(t, WithToken("tok")).MoveItems(context.Background(), "jsmith", []string{"x"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Success || !errors.Is(res[0].Err, ErrNotFound) || res[0].Err.MessageCode != "CONT_0001" {
		t.Errorf("results %+v", res)
	}
}

func TestContextCancelled(t *testing.T) {
	p := newPortal(t, func(recorded) answer { return ok(`{"success":true}`) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := p.client(t, WithToken("tok")).UpdateSettings(ctx, "", SettingsUpdate{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v", err)
	}
}

// clock is a settable clock for token expiry.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// tokenPortal issues tokens valid 60 minutes by clk, rejects the tokens in
// revoked with 498, and answers every other request with success.
type tokenPortal struct {
	*fakePortal
	clk *clock

	mu      sync.Mutex
	issued  int
	revoked map[string]bool
	gate    chan struct{} // when non-nil, generateToken waits for it to close
	entered chan struct{} // receives once per generateToken request, when non-nil
}

func newTokenPortal(t *testing.T) *tokenPortal {
	return newTokenPortalOn(t, newPortal)
}

func newTokenPortalOn(t *testing.T, newPortal func(*testing.T, func(recorded) answer) *fakePortal) *tokenPortal {
	tp := &tokenPortal{clk: &clock{t: epoch}, revoked: map[string]bool{}}
	tp.fakePortal = newPortal(t, func(r recorded) answer {
		if r.Path == base+"/generateToken" {
			tp.mu.Lock()
			gate, entered := tp.gate, tp.entered
			tp.mu.Unlock()
			if entered != nil {
				entered <- struct{}{}
			}
			if gate != nil {
				<-gate
			}
			if r.Form.Get("username") != "jsmith" || r.Form.Get("password") != "jsmith-password" {
				return ok(`{"error":{"code":400,"message":"Unable to generate token.","details":["Invalid username or password."]}}`)
			}
			tp.mu.Lock()
			tp.issued++
			n := tp.issued
			tp.mu.Unlock()
			return ok(fmt.Sprintf(`{"token":"tok-%d","expires":%d,"ssl":false}`, n, tp.clk.now().Add(time.Hour).UnixMilli()))
		}
		tp.mu.Lock()
		defer tp.mu.Unlock()
		if tok := r.Form.Get("token"); tp.revoked[tok] {
			return ok(`{"error":{"code":498,"message":"Invalid token.","details":[]}}`)
		}
		return ok(`{"success":true}`)
	})
	return tp
}

func (tp *tokenPortal) client(t *testing.T, opts ...Option) *Client {
	return tp.fakePortal.client(t, append([]Option{WithCredentials("jsmith", "jsmith-password"), withClock(tp.clk.now)}, opts...)...)
}

func (tp *tokenPortal) generated() int {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.issued
}

// tokensSent lists the token of every request but generateToken.
func (tp *tokenPortal) tokensSent() []string {
	var toks []string
	for _, r := range tp.requests() {
		if r.Path != base+"/generateToken" {
			toks = append(toks, r.Form.Get("token"))
		}
	}
	return toks
}

func TestCredentialsReuseAndRenew(t *testing.T) {
	tp := newTokenPortal(t)
	c := tp.client(t)
	ctx := context.Background()
	update := func() {
		t.Helper()
		if err := c.UpdateSettings(ctx, "", SettingsUpdate{}); err != nil {
			t.Fatal(err)
		}
	}
	update()
	update()
	update()
	if n := tp.generated(); n != 1 {
		t.Fatalf("generateToken called %d times, want 1", n)
	}
	gt := tp.requests()[0]
	want := url.Values{"username": {"jsmith"}, "password": {"jsmith-password"}, "expiration": {"60"}, "f": {"json"}}
	if gt.Path != base+"/generateToken" || !reflect.DeepEqual(gt.Form, want) {
		t.Errorf("generateToken request %s %v", gt.Path, gt.Form)
	}

	// A 60-minute token is renewed once less than 5 minutes are left.
	tp.clk.advance(54 * time.Minute)
	update()
	if n := tp.generated(); n != 1 {
		t.Fatalf("renewed with 6 minutes left: generateToken called %d times", n)
	}
	tp.clk.advance(2 * time.Minute)
	update()
	update()
	if n := tp.generated(); n != 2 {
		t.Fatalf("generateToken called %d times, want 2", n)
	}
	if got, want := tp.tokensSent(), []string{"tok-1", "tok-1", "tok-1", "tok-1", "tok-2", "tok-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tokens sent %v, want %v", got, want)
	}
}

// A token the portal rejects as invalid is renewed and the request sent once
// more; a second rejection is the caller's error.
func TestCredentialsRenewOnInvalidToken(t *testing.T) {
	tp := newTokenPortal(t)
	c := tp.client(t)
	ctx := context.Background()
	if err := c.UpdateSettings(ctx, "", SettingsUpdate{}); err != nil {
		t.Fatal(err)
	}
	tp.mu.Lock()
	tp.revoked["tok-1"] = true
	tp.mu.Unlock()
	if err := c.UpdateSettings(ctx, "", SettingsUpdate{}); err != nil {
		t.Fatal(err)
	}
	if got, want := tp.tokensSent(), []string{"tok-1", "tok-1", "tok-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tokens sent %v, want %v", got, want)
	}

	tp.mu.Lock()
	tp.revoked["tok-2"], tp.revoked["tok-3"] = true, true
	tp.mu.Unlock()
	err := c.UpdateSettings(ctx, "", SettingsUpdate{})
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("error %v, want ErrInvalidToken", err)
	}
	if got, want := tp.tokensSent()[3:], []string{"tok-2", "tok-3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tokens sent %v, want %v", got, want)
	}
}

// A static token is never renewed.
func TestStaticTokenInvalid(t *testing.T) {
	p := newPortal(t, func(recorded) answer { return ok(`{"error":{"code":498,"message":"Invalid token.","details":[]}}`) })
	err := p.client(t, WithToken("old")).UpdateSettings(context.Background(), "", SettingsUpdate{})
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("error %v", err)
	}
	if n := len(p.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCredentialsRejected(t *testing.T) {
	tp := newTokenPortal(t)
	c := tp.fakePortal.client(t, WithCredentials("jsmith", "wrong"))
	err := c.UpdateSettings(context.Background(), "", SettingsUpdate{})
	var e *Error
	if !errors.As(err, &e) || e.Code != 400 || !reflect.DeepEqual(e.Details, []string{"Invalid username or password."}) {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "updateSettings: generateToken: ") {
		t.Errorf("error %q does not say where it failed", err)
	}
	if got := tp.tokensSent(); len(got) != 0 {
		t.Errorf("requests sent without a token: %v", got)
	}
}

// Concurrent calls that all need a token wait for one generateToken.
func TestCredentialsConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tp := newTokenPortalOn(t, newPortalInProcess)
		tp.gate, tp.entered = make(chan struct{}), make(chan struct{}, 100)
		c := tp.client(t)
		const callers = 20
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for range callers {
			wg.Go(func() {
				errs <- c.UpdateSettings(context.Background(), "", SettingsUpdate{})
			})
		}
		<-tp.entered
		// Every other caller is now blocked: waiting for the sign-in in
		// flight, not starting one of its own.
		synctest.Wait()
		if n := len(tp.requests()); n != 1 {
			t.Errorf("%d requests while signing in, want the one generateToken", n)
		}
		close(tp.gate)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if n := tp.generated(); n != 1 {
			t.Errorf("generateToken called %d times, want 1", n)
		}
		if got := tp.tokensSent(); len(got) != callers {
			t.Errorf("%d requests, want %d", len(got), callers)
		}
	})
}

// A caller waiting for another's sign-in is not failed by the end of the
// other's context: it signs in itself.
func TestCredentialsLeaderGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tp := newTokenPortalOn(t, newPortalInProcess)
		tp.gate, tp.entered = make(chan struct{}), make(chan struct{}, 10)
		c := tp.client(t)
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan error, 1)
		go func() { first <- c.UpdateSettings(ctx, "", SettingsUpdate{}) }()
		<-tp.entered
		second := make(chan error, 1)
		go func() { second <- c.UpdateSettings(context.Background(), "", SettingsUpdate{}) }()
		synctest.Wait() // the second caller waits for the first one's sign-in
		cancel()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Errorf("first caller: %v", err)
		}
		// The second caller signs in itself, on its own context.
		<-tp.entered
		close(tp.gate)
		if err := <-second; err != nil {
			t.Errorf("second caller: %v", err)
		}
		if got := tp.tokensSent(); len(got) != 1 {
			t.Errorf("updates sent with tokens %v, want the second caller's only", got)
		}
	})
}

func TestReferer(t *testing.T) {
	tp := newTokenPortal(t)
	c := tp.client(t, WithReferer("https://apps.example.org"))
	if err := c.UpdateSettings(context.Background(), "", SettingsUpdate{}); err != nil {
		t.Fatal(err)
	}
	reqs := tp.requests()
	if f := reqs[0].Form; f.Get("client") != "referer" || f.Get("referer") != "https://apps.example.org" {
		t.Errorf("generateToken form %v", f)
	}
	for _, r := range reqs {
		if got := r.Header.Get("Referer"); got != "https://apps.example.org" {
			t.Errorf("%s: Referer %q", r.Path, got)
		}
	}
}

func TestRenewalTime(t *testing.T) {
	for _, tt := range []struct {
		life, renewAfter time.Duration
	}{
		{60 * time.Minute, 55 * time.Minute},
		{20 * time.Minute, 18 * time.Minute},
		{14 * 24 * time.Hour, 14*24*time.Hour - 5*time.Minute},
		{-time.Minute, 55 * time.Minute}, // the portal's clock far behind: the lifetime asked for
	} {
		if got := renewalTime(epoch, epoch.Add(tt.life)).Sub(epoch); got != tt.renewAfter {
			t.Errorf("lifetime %v: renewed after %v, want %v", tt.life, got, tt.renewAfter)
		}
	}
}
