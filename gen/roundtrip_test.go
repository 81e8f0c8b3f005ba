package gen_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/wire"
)

// recorder implements the three seeded operations and keeps what the
// generated server bound; the other operations are not called here.
type recorder struct {
	gen.StrictServerInterface
	settings gen.UpdateSettingsRequestObject
	schema   gen.AssignMemberCategorySchemaRequestObject
	move     gen.MoveItemsRequestObject
}

func (r *recorder) UpdateSettings(_ context.Context, req gen.UpdateSettingsRequestObject) (gen.UpdateSettingsResponseObject, error) {
	r.settings = req
	ok := true
	return gen.UpdateSettings200JSONResponse{Success: &ok}, nil
}

func (r *recorder) AssignMemberCategorySchema(_ context.Context, req gen.AssignMemberCategorySchemaRequestObject) (gen.AssignMemberCategorySchemaResponseObject, error) {
	r.schema = req
	ok := true
	return gen.AssignMemberCategorySchema200JSONResponse{Success: &ok}, nil
}

func (r *recorder) MoveItems(_ context.Context, req gen.MoveItemsRequestObject) (gen.MoveItemsResponseObject, error) {
	r.move = req
	results := []gen.ItemResult{}
	return gen.MoveItems200JSONResponse{Results: &results}, nil
}

func ptr[T any](v T) *T { return &v }

// The generated client puts JSON-in-form fields and id lists on the wire as
// the portal does, and the generated server binds them back to equal values.
func TestFormRoundTrip(t *testing.T) {
	rec := &recorder{}
	var bodies []string
	e := echo.New()
	e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			b, _ := io.ReadAll(c.Request().Body)
			bodies = append(bodies, string(b))
			c.Request().Body = io.NopCloser(strings.NewReader(string(b)))
			return next(c)
		}
	})
	gen.RegisterHandlersWithBaseURL(e, gen.NewStrictHandler(rec, nil), "/sharing/rest")
	srv := httptest.NewServer(e)
	defer srv.Close()
	cl, err := gen.NewClientWithResponses(srv.URL + "/sharing/rest/")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	banner := gen.InformationalBanner{Text: ptr("Read-only & \"quoted\""), BgColor: ptr("grey"), FontColor: ptr("#FFFFFF"), Enabled: ptr(true)}
	notice := gen.AccessNotice{Title: ptr("Terms"), Text: ptr("Accept?"), Buttons: ptr(gen.AcceptAndDecline), Enabled: ptr(false)}
	props := gen.PortalConfigProperties{"tokenExpiration": 120.0, "httpsDomains": []any{"example.org"},
		"webEditorInstalled": true} // a property the contract does not name
	resp, err := cl.UpdateSettingsWithFormdataBodyWithResponse(ctx, "self", gen.UpdateSettingsForm{
		InformationalBanner:    ptr(wire.MustEncodeJSON(banner)),
		AnonymousAccessNotice:  ptr(wire.MustEncodeJSON(notice)),
		PortalConfigProperties: ptr(wire.MustEncodeJSON(props)),
	})
	if err != nil || resp.JSON200 == nil || !*resp.JSON200.Success {
		t.Fatalf("update settings: %v %s", err, resp.Body)
	}
	form := mustParse(t, bodies[0])
	if got := form.Get("informationalBanner"); got != `{"bgColor":"grey","enabled":true,"fontColor":"#FFFFFF","text":"Read-only \u0026 \"quoted\""}` {
		t.Errorf("banner on the wire = %s", got)
	}
	if !strings.Contains(bodies[0], "informationalBanner=%7B%22") {
		t.Errorf("banner is not one URL-encoded JSON field: %s", bodies[0])
	}
	for k := range form {
		if strings.Contains(k, "[") {
			t.Errorf("exploded field %q on the wire", k)
		}
	}
	gotBanner, err := rec.settings.Body.InformationalBanner.Decode()
	if err != nil || !reflect.DeepEqual(gotBanner, banner) {
		t.Errorf("server decoded banner %+v, %v", gotBanner, err)
	}
	gotNotice, _ := rec.settings.Body.AnonymousAccessNotice.Decode()
	if !reflect.DeepEqual(gotNotice, notice) {
		t.Errorf("server decoded notice %+v", gotNotice)
	}
	gotProps, _ := rec.settings.Body.PortalConfigProperties.Decode()
	if !reflect.DeepEqual(gotProps, props) {
		t.Errorf("server decoded properties %+v", gotProps)
	}
	if rec.settings.PortalId != "self" {
		t.Errorf("portalId = %q", rec.settings.PortalId)
	}

	schema := gen.MemberCategorySchema{MemberCategorySchema: []gen.CategoryNode{
		{Title: "Office", Categories: &[]gen.CategoryNode{{Title: "USA", Categories: &[]gen.CategoryNode{{Title: "Maine"}}}}},
	}}
	if _, err := cl.AssignMemberCategorySchemaWithFormdataBodyWithResponse(ctx, "0123456789ABCDEF", gen.AssignMemberCategorySchemaForm{
		MemberCategorySchema: wire.MustEncodeJSON(schema),
	}); err != nil {
		t.Fatal(err)
	}
	if got := mustParse(t, bodies[1]).Get("memberCategorySchema"); got != `{"memberCategorySchema":[{"categories":[{"categories":[{"title":"Maine"}],"title":"USA"}],"title":"Office"}]}` {
		t.Errorf("schema on the wire = %s", got)
	}
	gotSchema, _ := rec.schema.Body.MemberCategorySchema.Decode()
	if !reflect.DeepEqual(gotSchema, schema) {
		t.Errorf("server decoded schema %+v", gotSchema)
	}

	if _, err := cl.MoveItemsWithFormdataBodyWithResponse(ctx, "jsmith", gen.MoveItemsForm{
		Items: wire.Join("a1", "b2"), Folder: ptr("/"),
	}); err != nil {
		t.Fatal(err)
	}
	moved := mustParse(t, bodies[2])
	if moved.Get("items") != "a1,b2" || moved.Get("folder") != "/" || len(moved["items"]) != 1 {
		t.Errorf("move on the wire = %s", bodies[2])
	}
	if got := rec.move.Body.Items.Values(); !reflect.DeepEqual(got, []string{"a1", "b2"}) {
		t.Errorf("server decoded items %v", got)
	}
	if rec.move.UserName != "jsmith" || *rec.move.Body.Folder != "/" {
		t.Errorf("server bound %+v", rec.move)
	}
}

func mustParse(t *testing.T, body string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var _ http.Handler = echo.New()
