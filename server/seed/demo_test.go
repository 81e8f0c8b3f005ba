package seed_test

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/seed"
)

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	demoOrg  = "0123456789ABCDEF"
	otherOrg = "FEDCBA9876543210"
)

type wantUser struct {
	org, username, password, fullName, role, token string
}

// The demo members, as openapi.yaml's examples and the conformance suite
// expect them.
var wantUsers = []wantUser{
	{demoOrg, "admin", "admin-password", "Demo Administrator", "org_admin", "demo-admin-token"},
	{demoOrg, "jsmith", "jsmith-password", "Jane Smith", "org_user", "demo-user-token"},
	{demoOrg, "jdoe", "jdoe-password", "John Doe", "org_publisher", "demo-publisher-token"},
	{demoOrg, "secadmin", "secadmin-password", "Security Admin", "securityAdmin", "demo-secadmin-token"},
	{demoOrg, "catadmin", "catadmin-password", "Category Admin", "categoryAdmin", "demo-catadmin-token"},
	{demoOrg, "contentadmin", "contentadmin-password", "Content Admin", "contentAdmin", "demo-contentadmin-token"},
	{demoOrg, "viewer", "viewer-password", "Custom Viewer", "viewer", "demo-viewer-token"},
	{otherOrg, "otheradmin", "otheradmin-password", "Other Administrator", "org_admin", "demo-other-admin-token"},
	{otherOrg, "otheruser", "otheruser-password", "Other User", "org_user", "demo-other-user-token"},
}

var wantRoles = map[string][]string{
	"securityAdmin": {server.PrivManageSecurity},
	"categoryAdmin": {server.PrivUpdateMemberCategorySchema},
	"contentAdmin":  {server.PrivUpdateItems, server.PrivDeleteItems, server.PrivViewItems, server.PrivUpdateUsers},
	"viewer":        {"portal:user:joinGroup"},
}

func TestDemoValidates(t *testing.T) {
	if err := seed.Demo().Validate(); err != nil {
		t.Fatal(err)
	}
	// The embedded file, parsed directly, is the demo.
	f, err := seed.Parse("demo.yaml", demoYAML(t))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Organizations, seed.Demo().Organizations) {
		t.Fatal("Demo() differs from demo.yaml")
	}
}

func TestDemoTokens(t *testing.T) {
	want := map[string]string{}
	for _, u := range wantUsers {
		want[u.username] = u.token
	}
	if got := seed.DemoTokens(); !maps.Equal(got, want) {
		t.Fatalf("DemoTokens() = %v\nwant %v", got, want)
	}
}

// TestDemoMatchesOpenAPIFixtures checks the demo against openapi.yaml's
// x-example-fixtures, which its examples are written against.
func TestDemoMatchesOpenAPIFixtures(t *testing.T) {
	spec, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Fixtures struct {
			PortalID string `yaml:"portalId"`
			Admin    string `yaml:"admin"`
			Member   string `yaml:"member"`
			Folders  []struct {
				ID, Title, Owner string
			} `yaml:"folders"`
			Items []struct {
				ID, Title, Type, Owner string
				Folder                 *string
			} `yaml:"items"`
		} `yaml:"x-example-fixtures"`
	}
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	fx := doc.Fixtures
	if fx.PortalID == "" || len(fx.Folders) == 0 || len(fx.Items) == 0 {
		t.Fatalf("no x-example-fixtures in openapi.yaml: %+v", fx)
	}

	var org *seed.Organization
	demo := seed.Demo()
	for i := range demo.Organizations {
		if demo.Organizations[i].ID == fx.PortalID {
			org = &demo.Organizations[i]
		}
	}
	if org == nil {
		t.Fatalf("no demo organization %s", fx.PortalID)
	}
	users := map[string]seed.User{}
	for _, u := range org.Users {
		users[u.Username] = u
	}
	if u, ok := users[fx.Admin]; !ok || u.Role != server.RoleAdmin {
		t.Errorf("fixture admin %q: %+v, want an org_admin of %s", fx.Admin, u, fx.PortalID)
	}
	member, ok := users[fx.Member]
	if !ok || member.Role != server.RoleUser {
		t.Fatalf("fixture member %q: %+v, want an org_user of %s", fx.Member, member, fx.PortalID)
	}

	var gotFolders, wantFolders []string
	for _, f := range member.Folders {
		gotFolders = append(gotFolders, fmt.Sprintf("%s %s %s", f.ID, f.Title, member.Username))
	}
	for _, f := range fx.Folders {
		wantFolders = append(wantFolders, fmt.Sprintf("%s %s %s", f.ID, f.Title, f.Owner))
	}
	if !slices.Equal(gotFolders, wantFolders) {
		t.Errorf("member folders:\n%q\nwant %q", gotFolders, wantFolders)
	}
	var gotItems, wantItems []string
	for _, it := range member.Items {
		gotItems = append(gotItems, fmt.Sprintf("%s %s %s %s %q", it.ID, it.Title, it.Type, member.Username, it.Folder))
	}
	for _, it := range fx.Items {
		folder := ""
		if it.Folder != nil {
			folder = *it.Folder
		}
		wantItems = append(wantItems, fmt.Sprintf("%s %s %s %s %q", it.ID, it.Title, it.Type, it.Owner, folder))
	}
	if !slices.Equal(gotItems, wantItems) {
		t.Errorf("member items:\n%q\nwant %q", gotItems, wantItems)
	}
}

func TestDemoApply(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	err := store.Update(ctx, func(tx server.Tx) error {
		empty, err := tx.Empty(ctx)
		if err != nil || !empty {
			t.Fatalf("new store: Empty() = %v, %v", empty, err)
		}
		return seed.Demo().Apply(ctx, tx, now)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = store.View(ctx, func(tx server.Tx) error {
		if empty, err := tx.Empty(ctx); err != nil || empty {
			t.Errorf("seeded store: Empty() = %v, %v", empty, err)
		}
		for id, name := range map[string]string{demoOrg: "Demo Organization", otherOrg: "Other Organization"} {
			o, err := tx.Organization(ctx, id)
			if err != nil || o.Name != name {
				t.Errorf("Organization(%s) = %+v, %v; want %q", id, o, err, name)
			}
		}
		for id, privs := range wantRoles {
			r, err := tx.Role(ctx, demoOrg, id)
			if err != nil || !slices.Equal(r.Privileges, privs) {
				t.Errorf("Role(%s) = %+v, %v; want %v", id, r, err, privs)
			}
		}
		for _, org := range []string{demoOrg, otherOrg} {
			var want []string
			for _, u := range wantUsers {
				if u.org == org {
					want = append(want, u.username)
				}
			}
			slices.Sort(want)
			us, err := tx.Users(ctx, org)
			if err != nil {
				return err
			}
			var got []string
			for _, u := range us {
				got = append(got, u.Username)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Users(%s) = %v, want %v", org, got, want)
			}
		}
		for _, w := range wantUsers {
			u, err := tx.User(ctx, w.username)
			if err != nil {
				t.Errorf("User(%s): %v", w.username, err)
				continue
			}
			if u.OrgID != w.org || u.FullName != w.fullName || u.Role != w.role {
				t.Errorf("User(%s) = %+v, want org %s, name %q, role %s", w.username, u, w.org, w.fullName, w.role)
			}
			if !server.CheckPassword(u.PasswordHash, w.password) || server.CheckPassword(u.PasswordHash, w.password+"x") {
				t.Errorf("User(%s): stored hash does not check %q alone", w.username, w.password)
			}
			tok, err := tx.Token(ctx, w.token)
			if err != nil || tok.Username != w.username || !tok.Expires.IsZero() {
				t.Errorf("Token(%s) = %+v, %v; want %s, never expiring", w.token, tok, err, w.username)
			}
		}

		const projects, archive = "1a9ad803da604628b08c968ce602a231", "6c5b4a39281746e5b0a9f8e7d6c5b4a3"
		checkFolders(t, tx, "jsmith", projects+" Projects", archive+" Archive")
		checkItems(t, tx, "jsmith", "", "93b54c8930ae46d9a00a7820cb3ebbd1 Roads Feature Service", "7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3 Hydrants CSV")
		checkItems(t, tx, "jsmith", projects, "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8 Parcels Web Map")
		checkItems(t, tx, "jsmith", archive)
		checkFolders(t, tx, "otheruser", "0c0c0c0c0c0c4c0c8c0c0c0c0c0c0c0c Other Folder")
		checkItems(t, tx, "otheruser", "", "0d0d0d0d0d0d4d0d8d0d0d0d0d0d0d0d Other Item Web Map")
		for _, u := range []string{"admin", "jdoe", "secadmin", "catadmin", "contentadmin", "viewer", "otheradmin"} {
			checkFolders(t, tx, u)
			checkItems(t, tx, u, "")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkFolders(t *testing.T, tx server.Tx, owner string, want ...string) {
	t.Helper()
	fs, err := tx.Folders(t.Context(), owner)
	if err != nil {
		t.Errorf("Folders(%s): %v", owner, err)
		return
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+" "+f.Title)
		if f.Owner != owner || f.Created.After(now) || f.Created.Before(now.Add(-time.Second)) {
			t.Errorf("folder %+v: want owner %s, created just before %v", f, owner, now)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Folders(%s) = %q, want %q", owner, got, want)
	}
}

func checkItems(t *testing.T, tx server.Tx, owner, folder string, want ...string) {
	t.Helper()
	its, err := tx.Items(t.Context(), owner, folder)
	if err != nil {
		t.Errorf("Items(%s, %q): %v", owner, folder, err)
		return
	}
	var got []string
	for _, it := range its {
		got = append(got, it.ID+" "+it.Title+" "+it.Type)
		if it.Owner != owner || it.FolderID != folder || len(it.Tags) != 0 || it.Description != "" ||
			!it.Modified.Equal(it.Created) || it.Created.After(now) || it.Created.Before(now.Add(-time.Second)) {
			t.Errorf("item %+v: want owner %s, folder %q, no tags or description, created just before %v", it, owner, folder, now)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Items(%s, %q) = %q, want %q", owner, folder, got, want)
	}
}

// applySnapshot applies f to a new store and renders what it wrote, read
// back through the Tx, with passwords as "does the hash check".
func applySnapshot(t *testing.T, f *seed.File) string {
	t.Helper()
	ctx := t.Context()
	store := newStore(t)
	if err := store.Update(ctx, func(tx server.Tx) error { return f.Apply(ctx, tx, now) }); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err := store.View(ctx, func(tx server.Tx) error {
		for _, o := range f.Organizations {
			org, err := tx.Organization(ctx, o.ID)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "org %+v\n", org)
			for _, r := range o.Roles {
				role, err := tx.Role(ctx, o.ID, r.ID)
				if err != nil {
					return err
				}
				fmt.Fprintf(&b, "role %+v\n", role)
			}
			us, err := tx.Users(ctx, o.ID)
			if err != nil {
				return err
			}
			for _, u := range us {
				fmt.Fprintf(&b, "user %s %s %q %s\n", u.OrgID, u.Username, u.FullName, u.Role)
				fs, err := tx.Folders(ctx, u.Username)
				if err != nil {
					return err
				}
				folders := []string{""}
				for _, f := range fs {
					fmt.Fprintf(&b, "folder %+v\n", f)
					folders = append(folders, f.ID)
				}
				for _, folder := range folders {
					its, err := tx.Items(ctx, u.Username, folder)
					if err != nil {
						return err
					}
					for _, it := range its {
						fmt.Fprintf(&b, "item %+v\n", it)
					}
				}
			}
			for _, u := range o.Users {
				got, err := tx.User(ctx, u.Username)
				if err != nil {
					return err
				}
				fmt.Fprintf(&b, "password of %s checks: %v\n", u.Username, server.CheckPassword(got.PasswordHash, u.Password))
				for _, tok := range u.Tokens {
					st, err := tx.Token(ctx, tok)
					if err != nil {
						return err
					}
					fmt.Fprintf(&b, "token %+v\n", st)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
