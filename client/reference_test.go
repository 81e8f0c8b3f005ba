package client_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/portaltest"
)

// The client against the reference server: every operation, its effects
// read back, and the errors it states.
func TestAgainstReferenceServer(t *testing.T) {
	p := portaltest.New(t)
	ctx := context.Background()
	admin := mustNew(t, p.URL, client.WithToken(p.AdminToken))
	member := mustNew(t, p.URL, client.WithCredentials(portaltest.Member, "jsmith-password"))
	anonymous := mustNew(t, p.URL)

	t.Run("settings", func(t *testing.T) {
		notice := client.AccessNotice{Title: "Terms", Text: "Accept?", Buttons: client.ButtonsOKOnly, Enabled: true}
		banner := client.Banner{Text: "Read-only", BgColor: "grey", FontColor: "#FFFFFF", Enabled: true}
		err := admin.UpdateSettings(ctx, portaltest.OrgID, client.SettingsUpdate{
			AnonymousAccessNotice:  &notice,
			InformationalBanner:    &banner,
			PortalConfigProperties: map[string]any{"tokenExpiration": 120, "httpsDomains": []string{"example.org"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := admin.Settings(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.AnonymousAccessNotice, &notice) || !reflect.DeepEqual(s.InformationalBanner, &banner) || s.AuthenticatedAccessNotice != nil {
			t.Errorf("settings %+v", s)
		}
		if s.PortalConfigProperties["tokenExpiration"] != float64(120) {
			t.Errorf("properties %v", s.PortalConfigProperties)
		}

		// A key sent as null is removed; a zero banner with ClearEmptyFields clears it.
		err = admin.UpdateSettings(ctx, "", client.SettingsUpdate{
			InformationalBanner:    &client.Banner{},
			PortalConfigProperties: map[string]any{"tokenExpiration": nil},
			ClearEmptyFields:       true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if s, err = anonymous.Settings(ctx, portaltest.OrgID); err != nil {
			t.Fatal(err)
		}
		if s.InformationalBanner != nil || s.PortalConfigProperties != nil || !reflect.DeepEqual(s.AnonymousAccessNotice, &notice) {
			t.Errorf("anonymous settings %+v", s)
		}
		if s, err = admin.Settings(ctx, "self"); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.PortalConfigProperties["tokenExpiration"]; ok {
			t.Errorf("tokenExpiration not removed: %v", s.PortalConfigProperties)
		}

		err = admin.UpdateSettings(ctx, "", client.SettingsUpdate{AnonymousAccessNotice: &client.AccessNotice{Title: "T", Text: "x", Buttons: "yesNo", Enabled: true}})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != 400 || len(e.Details) != 1 {
			t.Errorf("invalid buttons: %v", err)
		}
		err = member.UpdateSettings(ctx, "", client.SettingsUpdate{InformationalBanner: &banner})
		if !errors.Is(err, client.ErrForbidden) {
			t.Errorf("member: %v", err)
		}
		err = anonymous.UpdateSettings(ctx, "", client.SettingsUpdate{InformationalBanner: &banner})
		if !errors.Is(err, client.ErrTokenRequired) {
			t.Errorf("anonymous: %v", err)
		}
		if _, err = admin.Settings(ctx, "FFFFFFFFFFFFFFFF"); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown portal: %v", err)
		}
		_, err = mustNew(t, p.URL, client.WithToken("no-such-token")).Settings(ctx, "self")
		if !errors.Is(err, client.ErrInvalidToken) {
			t.Errorf("unknown token: %v", err)
		}
	})

	t.Run("member categories", func(t *testing.T) {
		schema := []client.Category{
			{Title: "Office Location", Categories: []client.Category{{Title: "USA", Categories: []client.Category{{Title: "Maine"}}}}},
			{Title: "Department", Categories: []client.Category{{Title: "Planning"}}},
		}
		if err := admin.AssignMemberCategorySchema(ctx, portaltest.OrgID, schema); err != nil {
			t.Fatal(err)
		}
		got, err := member.MemberCategorySchema(ctx, "")
		if err != nil || !reflect.DeepEqual(got, schema) {
			t.Errorf("schema %+v, %v", got, err)
		}
		paths := []string{"/Office Location/USA/Maine", "/Department/Planning"}
		if err := admin.SetMemberCategories(ctx, portaltest.Member, paths); err != nil {
			t.Fatal(err)
		}
		m, err := member.Member(ctx, portaltest.Member)
		if err != nil || !reflect.DeepEqual(m.Categories, paths) || m.OrgID != portaltest.OrgID {
			t.Errorf("member %+v, %v", m, err)
		}
		page, err := admin.Members(ctx, "", client.MemberQuery{Categories: []string{"/Office Location/USA"}})
		if err != nil || len(page.Members) != 1 || page.Members[0].Username != portaltest.Member || page.NextStart != -1 {
			t.Errorf("members %+v, %v", page, err)
		}

		err = admin.AssignMemberCategorySchema(ctx, "", []client.Category{{Title: "A", Categories: []client.Category{{Title: "B", Categories: []client.Category{{Title: "C", Categories: []client.Category{{Title: "D"}}}}}}}})
		var e *client.Error
		if !errors.As(err, &e) || e.MessageCode != "ORG_1132" || len(e.Details) == 0 {
			t.Errorf("four levels: %v", err)
		}
		if err := admin.AssignMemberCategorySchema(ctx, "", nil); !errors.As(err, &e) || e.MessageCode != "ORG_1132" {
			t.Errorf("empty schema: %v", err)
		}
		if err := admin.DeleteMemberCategorySchema(ctx, ""); err != nil {
			t.Fatal(err)
		}
		if got, err := admin.MemberCategorySchema(ctx, ""); err != nil || len(got) != 0 {
			t.Errorf("schema after delete %+v, %v", got, err)
		}
		if _, err := admin.Member(ctx, "nobody"); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown member: %v", err)
		}
	})

	t.Run("content", func(t *testing.T) {
		const user = portaltest.Member
		res, err := member.MoveItems(ctx, user, []string{portaltest.RoadsItem, portaltest.ParcelsItem, "00000000000000000000000000000000"}, portaltest.ProjectsFolder)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 3 || !res[0].Success || res[1].Success || res[1].Err.Code != 500 || !errors.Is(res[2].Err, client.ErrNotFound) {
			t.Errorf("move results %+v", res)
		}
		it, err := member.Item(ctx, portaltest.RoadsItem)
		if err != nil || it.Folder != portaltest.ProjectsFolder || it.Title != "Roads" {
			t.Errorf("item %+v, %v", it, err)
		}
		if res, err = admin.MoveItems(ctx, user, []string{portaltest.RoadsItem}, ""); err != nil || !res[0].Success {
			t.Errorf("move to the root %+v, %v", res, err)
		}
		if _, err := member.MoveItems(ctx, user, []string{portaltest.RoadsItem}, "ffffffffffffffffffffffffffffffff"); err == nil || errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown folder: %v", err)
		}

		f, err := member.CreateFolder(ctx, user, "Field Work")
		if err != nil || f.Title != "Field Work" || f.Owner != user || f.ID == "" {
			t.Fatalf("folder %+v, %v", f, err)
		}
		id, err := member.AddItem(ctx, user, f.ID, client.NewItem{Title: "Trails", Type: "Feature Service", Tags: []string{"a", "b"}, Description: "d"})
		if err != nil {
			t.Fatal(err)
		}
		rootID, err := member.AddItem(ctx, user, "", client.NewItem{Title: "Zoning", Type: "Web Map"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := member.UserContent(ctx, user, f.ID, client.Page{})
		if err != nil || c.Folder == nil || c.Folder.ID != f.ID || len(c.Items) != 1 || c.Items[0].ID != id || !reflect.DeepEqual(c.Items[0].Tags, []string{"a", "b"}) {
			t.Errorf("folder content %+v, %v", c, err)
		}
		root, err := member.UserContent(ctx, user, "", client.Page{Num: 100})
		if err != nil || root.Folder != nil || len(root.Folders) != 3 || root.Total != len(root.Items) {
			t.Errorf("root content %+v, %v", root, err)
		}
		res, err = member.DeleteItems(ctx, user, []string{rootID, "00000000000000000000000000000000"})
		if err != nil || len(res) != 2 || !res[0].Success || !errors.Is(res[1].Err, client.ErrNotFound) {
			t.Errorf("delete results %+v, %v", res, err)
		}
		if err := member.DeleteFolder(ctx, user, f.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := member.Item(ctx, id); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("item of a deleted folder: %v", err)
		}
		if _, err := member.UserContent(ctx, user, "ffffffffffffffffffffffffffffffff", client.Page{}); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown folder: %v", err)
		}
	})

	t.Run("tokens", func(t *testing.T) {
		tok, err := anonymous.GenerateToken(ctx, portaltest.Member, "jsmith-password", 0)
		if err != nil || tok.Token == "" || tok.Expires.IsZero() {
			t.Fatalf("token %+v, %v", tok, err)
		}
		if _, err := mustNew(t, p.URL, client.WithToken(tok.Token)).Member(ctx, portaltest.Member); err != nil {
			t.Error(err)
		}
		if _, err := anonymous.GenerateToken(ctx, portaltest.Member, "wrong", 0); err == nil {
			t.Error("wrong password accepted")
		}
	})
}

func mustNew(t *testing.T, baseURL string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(baseURL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
