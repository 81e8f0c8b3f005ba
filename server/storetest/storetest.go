// Package storetest is the behaviour every server.Store implementation must
// have, as one test body: an implementation's tests call Run with a function
// that opens a fresh, empty store.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgportal/portal-api/server"
)

// Run runs the store test suite. open returns a new empty store each time it
// is called; it is expected to close the store in t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) server.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open func(t *testing.T) server.Store)
	}{
		{"Organizations", testOrganizations},
		{"Roles", testRoles},
		{"Users", testUsers},
		{"Tokens", testTokens},
		{"Settings", testSettings},
		{"PatchSettings", testPatchSettings},
		{"CategorySchema", testCategorySchema},
		{"Folders", testFolders},
		{"FolderTitleKeys", testFolderTitleKeys},
		{"SettingsParts", testSettingsParts},
		{"Items", testItems},
		{"ItemBatches", testItemBatches},
		{"Times", testTimes},
		{"Reset", testReset},
		{"ResetWithSeed", testResetWithSeed},
		{"ConfirmToken", testConfirmToken},
		{"Dump", testDump},
		{"RollbackOnError", testRollbackOnError},
		{"RollbackOnPanic", testRollbackOnPanic},
		{"NestedUpdate", testNestedUpdate},
		{"ViewIsReadOnly", testViewIsReadOnly},
		{"CanceledContext", testCanceledContext},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"Ping", testPing},
		{"RolesList", testRolesList},
		{"OAuth", testOAuth},
		{"RevokeGrant", testRevokeGrant},
		{"TakeOnce", testTakeOnce},
		{"Groups", testGroups},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// ms is a time as the store returns it: UTC, millisecond precision.
func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

func update(t *testing.T, s server.Store, fn func(ctx context.Context, tx server.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.Update(ctx, func(tx server.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s server.Store, fn func(ctx context.Context, tx server.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.View(ctx, func(tx server.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// get runs one lookup in its own View.
func get[T any](t *testing.T, s server.Store, fn func(ctx context.Context, tx server.Tx) (T, error)) (T, error) {
	t.Helper()
	var v T
	var lookupErr error
	view(t, s, func(ctx context.Context, tx server.Tx) error {
		v, lookupErr = fn(ctx, tx)
		return nil
	})
	return v, lookupErr
}

// must is get for a lookup that must succeed.
func must[T any](t *testing.T, s server.Store, fn func(ctx context.Context, tx server.Tx) (T, error)) T {
	t.Helper()
	v, err := get(t, s, fn)
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	return v
}

func isEmpty(t *testing.T, s server.Store) bool {
	t.Helper()
	return must(t, s, func(ctx context.Context, tx server.Tx) (bool, error) { return tx.Empty(ctx) })
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, server.ErrNotFound) {
		t.Errorf("%s: error %v, want one wrapping server.ErrNotFound", what, err)
	}
}

func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

func dump(t *testing.T, s server.Store) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Dump(t.Context(), &b); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

func testOrganizations(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	if empty := isEmpty(t, s); !empty {
		t.Errorf("new store: Empty = false, want true")
	}
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Organization, error) {
		return tx.Organization(ctx, "o1")
	})
	wantNotFound(t, "Organization(o1) of an empty store", err)

	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "First"})
	})
	if empty := isEmpty(t, s); empty {
		t.Errorf("after PutOrganization: Empty = true, want false")
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "Renamed"})
	})
	o := must(t, s, func(ctx context.Context, tx server.Tx) (server.Organization, error) {
		return tx.Organization(ctx, "o1")
	})
	wantEqual(t, "Organization(o1) after upsert", o, server.Organization{ID: "o1", Name: "Renamed"})
	_, err = get(t, s, func(ctx context.Context, tx server.Tx) (server.Organization, error) {
		return tx.Organization(ctx, "O1")
	})
	wantNotFound(t, "Organization(O1): ids are case-sensitive", err)
}

func testRoles(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	roles := []server.CustomRole{
		{OrgID: "o1", ID: "editor", Privileges: []string{server.PrivUpdateItems, server.PrivViewItems}},
		{OrgID: "o1", ID: "none", Privileges: nil},
		{OrgID: "o1", ID: "empty", Privileges: []string{}},
		{OrgID: "o2", ID: "viewer", Privileges: []string{server.PrivViewItems}},
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		for _, r := range roles {
			if err := tx.PutRole(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	for _, want := range roles {
		got := must(t, s, func(ctx context.Context, tx server.Tx) (server.CustomRole, error) {
			return tx.Role(ctx, want.OrgID, want.ID)
		})
		wantEqual(t, "Role("+want.OrgID+", "+want.ID+")", got, want)
	}
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.CustomRole, error) {
		return tx.Role(ctx, "o2", "editor")
	})
	wantNotFound(t, "Role(o2, editor): a role belongs to one organization", err)

	replaced := server.CustomRole{OrgID: "o1", ID: "editor", Privileges: []string{server.PrivDeleteItems}}
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutRole(ctx, replaced) })
	got := must(t, s, func(ctx context.Context, tx server.Tx) (server.CustomRole, error) {
		return tx.Role(ctx, "o1", "editor")
	})
	wantEqual(t, "Role(o1, editor) after upsert", got, replaced)
}

func testUsers(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) {
		return tx.User(ctx, "alice")
	})
	wantNotFound(t, "User(alice) of an empty store", err)

	// Inserted out of order; listed in byte order, so upper case sorts
	// before lower case and non-ASCII last.
	users := []server.User{
		{Username: "carol", OrgID: "o1", FullName: "Carol", Role: server.RoleUser},
		{Username: "Émile", OrgID: "o1", FullName: "Émile", Role: "editor", Categories: []string{"/a"}},
		{Username: "alice", OrgID: "o1", FullName: "Alice", Role: server.RoleAdmin, PasswordHash: "h1", Categories: []string{"/x/y", "/z"}},
		{Username: "Bob", OrgID: "o1", FullName: "Bob", Role: server.RolePublisher, Categories: []string{}},
		{Username: "dave", OrgID: "o2", FullName: "Dave", Role: server.RoleAdmin},
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		for _, u := range users {
			if err := tx.PutUser(ctx, u); err != nil {
				return err
			}
		}
		return nil
	})
	for _, want := range users {
		got := must(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) {
			return tx.User(ctx, want.Username)
		})
		wantEqual(t, "User("+want.Username+")", got, want)
	}
	list := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.User, error) {
		return tx.Users(ctx, "o1")
	})
	var names []string
	for _, u := range list {
		names = append(names, u.Username)
	}
	wantEqual(t, "Users(o1) names", names, []string{"Bob", "alice", "carol", "Émile"})
	if len(list) == 4 {
		wantEqual(t, "Users(o1)[1]", list[1], users[2])
	}
	if none := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.User, error) {
		return tx.Users(ctx, "nobody")
	}); len(none) != 0 {
		t.Errorf("Users(nobody) = %v, want none", none)
	}

	// An upsert replaces every field, including the organization.
	moved := server.User{Username: "alice", OrgID: "o2", FullName: "Alice B.", Role: server.RoleUser, PasswordHash: "h2"}
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutUser(ctx, moved) })
	got := must(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) {
		return tx.User(ctx, "alice")
	})
	wantEqual(t, "User(alice) after upsert", got, moved)
	o2 := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.User, error) {
		return tx.Users(ctx, "o2")
	})
	wantEqual(t, "Users(o2) after moving alice", o2, []server.User{moved, users[4]})
	_, err = get(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) {
		return tx.User(ctx, "Alice")
	})
	wantNotFound(t, "User(Alice): user names are case-sensitive", err)
}

func testTokens(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Token, error) {
		return tx.Token(ctx, "t1")
	})
	wantNotFound(t, "Token(t1) of an empty store", err)

	never := server.Token{Token: "static", Username: "alice"}
	expiring := server.Token{Token: "t1", Username: "bob", Expires: ms(1_700_000_123_456)}
	expired := server.Token{Token: "t2", Username: "bob", Expires: ms(1_000)}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(tx.PutToken(ctx, never), tx.PutToken(ctx, expiring), tx.PutToken(ctx, expired))
	})
	for _, want := range []server.Token{never, expiring, expired} {
		got := must(t, s, func(ctx context.Context, tx server.Tx) (server.Token, error) {
			return tx.Token(ctx, want.Token)
		})
		wantEqual(t, "Token("+want.Token+")", got, want)
	}
	got := must(t, s, func(ctx context.Context, tx server.Tx) (server.Token, error) {
		return tx.Token(ctx, "static")
	})
	if !got.Expires.IsZero() {
		t.Errorf("Token(static).Expires = %v, want the zero time (never expires)", got.Expires)
	}

	renewed := server.Token{Token: "t1", Username: "bob", Expires: ms(1_800_000_000_000)}
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutToken(ctx, renewed) })
	got = must(t, s, func(ctx context.Context, tx server.Tx) (server.Token, error) {
		return tx.Token(ctx, "t1")
	})
	wantEqual(t, "Token(t1) after upsert", got, renewed)
}

// testSettings replaces the settings wholly (AllSettingsParts);
// testPatchSettings replaces parts.
func testSettings(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"})
	})
	settings := func(org string) server.Settings {
		return must(t, s, func(ctx context.Context, tx server.Tx) (server.Settings, error) {
			return tx.Settings(ctx, org, server.AllSettingsParts)
		})
	}
	put := func(org string, st server.Settings) {
		t.Helper()
		update(t, s, func(ctx context.Context, tx server.Tx) error {
			return tx.PatchSettings(ctx, org, st, server.AllSettingsParts)
		})
	}
	wantEqual(t, "Settings of an organization with none", settings("o1"), server.Settings{})

	full := server.Settings{
		AnonymousAccessNotice: &server.AccessNotice{Title: ptr("Terms"), Text: ptr("<b>Accept</b> & go"), Buttons: ptr("acceptAndDecline"), Enabled: ptr(true)},
		// Only some fields set, and a false that must stay a false.
		AuthenticatedAccessNotice: &server.AccessNotice{Text: ptr(""), Enabled: ptr(false)},
		InformationalBanner:       &server.Banner{Text: ptr("Maintenance ☂"), BgColor: ptr("#fff"), FontColor: ptr("black"), Enabled: ptr(true)},
		PortalConfig: map[string]json.RawMessage{
			"number":    json.RawMessage(`1.5`),
			"object":    json.RawMessage(`{"x":[1,2,{"y":null}],"a":"<z>"}`),
			"string":    json.RawMessage(`"text & <tags>"`),
			"null":      json.RawMessage(`null`),
			"false":     json.RawMessage(`false`),
			"key.dot/x": json.RawMessage(`[]`),
		},
	}
	put("o1", full)
	wantEqual(t, "Settings(o1) round trip", settings("o1"), full)
	wantEqual(t, "Settings(o2) untouched", settings("o2"), server.Settings{})

	// Replacing all parts replaces the whole: what is nil now reads as nil.
	bannerOnly := server.Settings{InformationalBanner: &server.Banner{Enabled: ptr(false)}}
	put("o1", bannerOnly)
	got := settings("o1")
	wantEqual(t, "Settings(o1) after replacing with a banner only", got, bannerOnly)
	if got.PortalConfig != nil || got.AnonymousAccessNotice != nil || got.AuthenticatedAccessNotice != nil {
		t.Errorf("Settings(o1) after replacing: unset fields not nil: %#v", got)
	}

	// An empty PortalConfig is no configuration.
	put("o1", server.Settings{AnonymousAccessNotice: &server.AccessNotice{}, PortalConfig: map[string]json.RawMessage{}})
	got = settings("o1")
	if got.PortalConfig != nil {
		t.Errorf("PortalConfig after storing an empty map = %#v, want nil", got.PortalConfig)
	}
	wantEqual(t, "empty notice round trip", got.AnonymousAccessNotice, &server.AccessNotice{})

	configOnly := server.Settings{PortalConfig: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}}
	put("o1", configOnly)
	wantEqual(t, "Settings(o1) with PortalConfig only", settings("o1"), configOnly)

	put("o1", server.Settings{})
	wantEqual(t, "Settings(o1) after storing zero settings", settings("o1"), server.Settings{})

	// A value that is not JSON cannot be stored, and the store is unchanged.
	put("o1", configOnly)
	err := s.Update(t.Context(), func(tx server.Tx) error {
		return tx.PatchSettings(t.Context(), "o1", server.Settings{PortalConfig: map[string]json.RawMessage{"bad": json.RawMessage(`{`)}}, server.AllSettingsParts)
	})
	if err == nil {
		t.Errorf("replacing the settings with invalid JSON in PortalConfig succeeded")
	}
	wantEqual(t, "Settings(o1) after a failed put", settings("o1"), configOnly)
}

func testPatchSettings(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
			tx.PutOrganization(ctx, server.Organization{ID: "o2", Name: "Two"}))
	})
	settings := func(org string) server.Settings {
		return must(t, s, func(ctx context.Context, tx server.Tx) (server.Settings, error) {
			return tx.Settings(ctx, org, server.AllSettingsParts)
		})
	}
	patch := func(org string, st server.Settings, parts server.SettingsParts) error {
		return s.Update(t.Context(), func(tx server.Tx) error { return tx.PatchSettings(t.Context(), org, st, parts) })
	}
	settingsRows := func() string {
		var b bytes.Buffer
		if err := s.Dump(t.Context(), &b); err != nil {
			t.Fatalf("Dump: %v", err)
		}
		var rows []string
		for line := range strings.SplitSeq(b.String(), "\n") {
			if strings.HasPrefix(line, "settings ") {
				rows = append(rows, line)
			}
		}
		return strings.Join(rows, "\n")
	}

	banner := &server.Banner{Text: ptr("Maintenance"), Enabled: ptr(true)}
	notice := &server.AccessNotice{Title: ptr("Terms"), Enabled: ptr(false)}
	config := map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}
	steps := []struct {
		name  string
		st    server.Settings
		parts server.SettingsParts
		want  server.Settings
	}{
		{"a banner on no settings", server.Settings{InformationalBanner: banner}, server.PartInformationalBanner,
			server.Settings{InformationalBanner: banner}},
		// Parts not named are kept, whatever s holds for them.
		{"a notice beside the banner", server.Settings{AnonymousAccessNotice: notice}, server.PartAnonymousAccessNotice,
			server.Settings{AnonymousAccessNotice: notice, InformationalBanner: banner}},
		{"configuration, the others given but not named", server.Settings{PortalConfig: config, AnonymousAccessNotice: &server.AccessNotice{}},
			server.PartPortalConfig, server.Settings{AnonymousAccessNotice: notice, InformationalBanner: banner, PortalConfig: config}},
		{"the banner cleared", server.Settings{}, server.PartInformationalBanner,
			server.Settings{AnonymousAccessNotice: notice, PortalConfig: config}},
		{"nothing named", server.Settings{InformationalBanner: banner}, 0,
			server.Settings{AnonymousAccessNotice: notice, PortalConfig: config}},
		{"two parts at once", server.Settings{AuthenticatedAccessNotice: notice, PortalConfig: map[string]json.RawMessage{}},
			server.PartAuthenticatedAccessNotice | server.PartPortalConfig,
			server.Settings{AnonymousAccessNotice: notice, AuthenticatedAccessNotice: notice}},
	}
	for _, st := range steps {
		if err := patch("o1", st.st, st.parts); err != nil {
			t.Fatalf("%s: PatchSettings: %v", st.name, err)
		}
		wantEqual(t, "Settings(o1) after "+st.name, settings("o1"), st.want)
	}
	wantEqual(t, "Settings(o2) untouched", settings("o2"), server.Settings{})

	// Clearing every part leaves no row, as storing zero settings does.
	if err := patch("o1", server.Settings{}, server.PartAnonymousAccessNotice|server.PartAuthenticatedAccessNotice); err != nil {
		t.Fatalf("clearing: %v", err)
	}
	wantEqual(t, "Settings(o1) with every part cleared", settings("o1"), server.Settings{})
	if rows := settingsRows(); rows != "" {
		t.Errorf("settings rows after clearing every part:\n%s\nwant none", rows)
	}

	// An unknown organization is ErrNotFound, with parts or without, and
	// gets no row.
	for _, parts := range []server.SettingsParts{server.PartInformationalBanner, 0} {
		if err := patch("nope", server.Settings{InformationalBanner: banner}, parts); !errors.Is(err, server.ErrNotFound) {
			t.Errorf("PatchSettings(nope, parts %b) = %v, want ErrNotFound", parts, err)
		}
	}
	if rows := settingsRows(); rows != "" {
		t.Errorf("settings rows after patching an unknown organization:\n%s\nwant none", rows)
	}

	// A value that is not JSON cannot be stored, and the store is unchanged.
	if err := patch("o2", server.Settings{PortalConfig: config}, server.PartPortalConfig); err != nil {
		t.Fatal(err)
	}
	err := patch("o2", server.Settings{PortalConfig: map[string]json.RawMessage{"bad": json.RawMessage(`{`)}, InformationalBanner: banner},
		server.PartPortalConfig|server.PartInformationalBanner)
	if err == nil {
		t.Errorf("PatchSettings with invalid JSON in PortalConfig succeeded")
	}
	wantEqual(t, "Settings(o2) after a failed patch", settings("o2"), server.Settings{PortalConfig: config})
}

func testCategorySchema(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	schema := func(org string) []server.CategoryNode {
		return must(t, s, func(ctx context.Context, tx server.Tx) ([]server.CategoryNode, error) {
			return tx.CategorySchema(ctx, org)
		})
	}
	put := func(org string, nodes []server.CategoryNode) {
		t.Helper()
		update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutCategorySchema(ctx, org, nodes) })
	}
	if got := schema("o1"); got != nil {
		t.Errorf("CategorySchema of an organization with none = %#v, want nil", got)
	}
	nodes := []server.CategoryNode{
		{Title: "Region", Categories: []server.CategoryNode{
			{Title: "North", Categories: []server.CategoryNode{{Title: "Fjords & <lakes>"}}},
			{Title: "South"},
		}},
		{Title: "Topic"},
	}
	put("o1", nodes)
	wantEqual(t, "CategorySchema(o1)", schema("o1"), nodes)
	if got := schema("o2"); got != nil {
		t.Errorf("CategorySchema(o2) = %#v, want nil", got)
	}
	replaced := []server.CategoryNode{{Title: "Only"}}
	put("o1", replaced)
	wantEqual(t, "CategorySchema(o1) after upsert", schema("o1"), replaced)
	put("o1", nil)
	if got := schema("o1"); got != nil {
		t.Errorf("CategorySchema(o1) after deleting = %#v, want nil", got)
	}
	put("o1", nil) // deleting what is not there is no error
}

func testFolders(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	folder := func(owner, id string) (server.Folder, error) {
		return get(t, s, func(ctx context.Context, tx server.Tx) (server.Folder, error) {
			return tx.Folder(ctx, owner, id)
		})
	}
	folders := func(owner string) []server.Folder {
		return must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Folder, error) {
			return tx.Folders(ctx, owner)
		})
	}
	_, err := folder("alice", "f1")
	wantNotFound(t, "Folder(alice, f1) of an empty store", err)
	if got := folders("alice"); len(got) != 0 {
		t.Errorf("Folders(alice) of an empty store = %v", got)
	}

	// Ordered by creation time, then id (f3 and f2 were created at once).
	f1 := server.Folder{ID: "f1", Owner: "alice", Title: "Later", Created: ms(3000)}
	f2 := server.Folder{ID: "f2", Owner: "alice", Title: "Same time b", Created: ms(2000)}
	f3 := server.Folder{ID: "f3", Owner: "alice", Title: "Same time a", Created: ms(2000)}
	f4 := server.Folder{ID: "f4", Owner: "alice", Title: "First", Created: ms(1000)}
	fb := server.Folder{ID: "fb", Owner: "bob", Title: "Later", Created: ms(1500)}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		for _, f := range []server.Folder{f1, f3, fb, f2, f4} {
			if err := tx.PutFolder(ctx, f); err != nil {
				return err
			}
		}
		return nil
	})
	wantEqual(t, "Folders(alice)", folders("alice"), []server.Folder{f4, f2, f3, f1})
	wantEqual(t, "Folders(bob)", folders("bob"), []server.Folder{fb})
	got, err := folder("alice", "f2")
	if err != nil {
		t.Fatalf("Folder(alice, f2): %v", err)
	}
	wantEqual(t, "Folder(alice, f2)", got, f2)
	_, err = folder("bob", "f2")
	wantNotFound(t, "Folder(bob, f2): the folder is alice's", err)

	renamed := f2
	renamed.Title = "Renamed"
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutFolder(ctx, renamed) })
	got, err = folder("alice", "f2")
	if err != nil {
		t.Fatalf("Folder(alice, f2): %v", err)
	}
	wantEqual(t, "Folder(alice, f2) after upsert", got, renamed)

	err = s.Update(t.Context(), func(tx server.Tx) error { return tx.DeleteFolder(t.Context(), "bob", "f2") })
	wantNotFound(t, "DeleteFolder(bob, f2) of alice's folder", err)
	if _, err := folder("alice", "f2"); err != nil {
		t.Errorf("Folder(alice, f2) after bob's failed delete: %v", err)
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.DeleteFolder(ctx, "alice", "f2") })
	_, err = folder("alice", "f2")
	wantNotFound(t, "Folder(alice, f2) after DeleteFolder", err)
	wantEqual(t, "Folders(alice) after DeleteFolder", folders("alice"), []server.Folder{f4, f3, f1})
	err = s.Update(t.Context(), func(tx server.Tx) error { return tx.DeleteFolder(t.Context(), "alice", "f2") })
	wantNotFound(t, "DeleteFolder(alice, f2) again", err)
}

// testFolderTitleKeys: a user's folder titles are unique by server.TitleKey,
// on every store alike, whatever the database's own case rules.
func testFolderTitleKeys(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	put := func(f server.Folder) error {
		return s.Update(t.Context(), func(tx server.Tx) error { return tx.PutFolder(t.Context(), f) })
	}
	for i, title := range []string{"i", "\u0130", "Caf\u00e9", "Planning", "USA", "\u00df"} {
		if err := put(server.Folder{ID: fmt.Sprint("k", i), Owner: "alice", Title: title, Created: ms(int64(i))}); err != nil {
			t.Fatalf("PutFolder(%q): %v", title, err)
		}
	}
	for _, title := range []string{"I", "Cafe\u0301", "planning", "Plan\u200bning", "\uff35\uff33\uff21", "SS", " usa "} {
		if err := put(server.Folder{ID: "dup", Owner: "alice", Title: title, Created: ms(100)}); err == nil {
			t.Errorf("PutFolder(%q) beside a folder whose title reads the same: stored", title)
		}
	}
	if err := put(server.Folder{ID: "b1", Owner: "bob", Title: "CAF\u00c9", Created: ms(1)}); err != nil {
		t.Errorf("bob's CAF\u00c9 beside alice's Caf\u00e9: %v", err)
	}
	// Renaming a folder to a spelling of its own title keeps it unique.
	if err := put(server.Folder{ID: "k3", Owner: "alice", Title: "PLANNING", Created: ms(3)}); err != nil {
		t.Errorf("renaming alice's Planning to PLANNING: %v", err)
	}
	got := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Folder, error) { return tx.Folders(ctx, "alice") })
	if len(got) != 6 || got[3].Title != "PLANNING" {
		t.Errorf("Folders(alice) = %v, want the 6 folders first stored, k3 renamed", got)
	}
}

// testSettingsParts: Settings reads only the parts asked for.
func testSettingsParts(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	all := server.Settings{
		AnonymousAccessNotice: &server.AccessNotice{Title: ptr("a")},
		InformationalBanner:   &server.Banner{Text: ptr("b")},
		PortalConfig:          map[string]json.RawMessage{"k": json.RawMessage(`1`)},
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		if err := tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}); err != nil {
			return err
		}
		return tx.PatchSettings(ctx, "o1", all, server.AllSettingsParts)
	})
	read := func(parts server.SettingsParts) server.Settings {
		return must(t, s, func(ctx context.Context, tx server.Tx) (server.Settings, error) { return tx.Settings(ctx, "o1", parts) })
	}
	wantEqual(t, "Settings(all parts)", read(server.AllSettingsParts), all)
	public := read(server.AllSettingsParts &^ server.PartPortalConfig)
	wantEqual(t, "Settings without the configuration", public, server.Settings{AnonymousAccessNotice: all.AnonymousAccessNotice, InformationalBanner: all.InformationalBanner})
	wantEqual(t, "Settings(configuration only)", read(server.PartPortalConfig), server.Settings{PortalConfig: all.PortalConfig})
}

func testItems(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	item := func(id string) (server.Item, error) {
		return get(t, s, func(ctx context.Context, tx server.Tx) (server.Item, error) {
			return tx.Item(ctx, id)
		})
	}
	items := func(owner, folder string) []server.Item {
		return must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Item, error) {
			return tx.Items(ctx, owner, folder)
		})
	}
	_, err := item("i1")
	wantNotFound(t, "Item(i1) of an empty store", err)

	root1 := server.Item{ID: "r1", Owner: "alice", Title: "Map", Type: "Web Map", Description: "<p>d</p>",
		Tags: []string{"a", "b & c"}, Created: ms(2000), Modified: ms(5000)}
	root2 := server.Item{ID: "r2", Owner: "alice", Title: "Map 2", Type: "Web Map", Tags: nil, Created: ms(1000), Modified: ms(1000)}
	root0 := server.Item{ID: "r0", Owner: "alice", Title: "Same time as r1", Type: "PDF", Tags: []string{}, Created: ms(2000), Modified: ms(2000)}
	in1 := server.Item{ID: "i1", Owner: "alice", FolderID: "f1", Title: "In folder", Type: "CSV", Created: ms(500), Modified: ms(600)}
	bobs := server.Item{ID: "b1", Owner: "bob", Title: "Bob's", Type: "CSV", Created: ms(100), Modified: ms(100)}
	all := []server.Item{root1, in1, bobs, root2, root0}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		for _, it := range all {
			if err := tx.PutItem(ctx, it); err != nil {
				return err
			}
		}
		return nil
	})
	for _, want := range all {
		got, err := item(want.ID)
		if err != nil {
			t.Fatalf("Item(%s): %v", want.ID, err)
		}
		wantEqual(t, "Item("+want.ID+")", got, want)
	}
	wantEqual(t, "Items(alice, root)", items("alice", ""), []server.Item{root2, root0, root1})
	wantEqual(t, "Items(alice, f1)", items("alice", "f1"), []server.Item{in1})
	wantEqual(t, "Items(bob, root)", items("bob", ""), []server.Item{bobs})
	if got := items("bob", "f1"); len(got) != 0 {
		t.Errorf("Items(bob, f1) = %v, want none: f1 holds alice's item", got)
	}

	// Moving an item is an upsert with another folder.
	moved := root1
	moved.FolderID = "f1"
	moved.Modified = ms(9000)
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutItem(ctx, moved) })
	wantEqual(t, "Items(alice, root) after moving r1", items("alice", ""), []server.Item{root2, root0})
	wantEqual(t, "Items(alice, f1) after moving r1", items("alice", "f1"), []server.Item{in1, moved})

	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.DeleteItem(ctx, "r2") })
	_, err = item("r2")
	wantNotFound(t, "Item(r2) after DeleteItem", err)
	wantEqual(t, "Items(alice, root) after DeleteItem", items("alice", ""), []server.Item{root0})
	err = s.Update(t.Context(), func(tx server.Tx) error { return tx.DeleteItem(t.Context(), "r2") })
	wantNotFound(t, "DeleteItem(r2) again", err)
}

// testItemBatches checks the batch methods across more ids than one SQL
// statement takes.
func testItemBatches(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	const n = 1234
	ids := make([]string, n)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		for i := range ids {
			ids[i] = fmt.Sprintf("item%04d", i)
			if err := tx.PutItem(ctx, server.Item{ID: ids[i], Owner: "alice", Title: "T", Type: "CSV", Created: ms(int64(i)), Modified: ms(int64(i))}); err != nil {
				return err
			}
		}
		return nil
	})
	got := must(t, s, func(ctx context.Context, tx server.Tx) (map[string]server.Item, error) {
		return tx.ItemsByID(ctx, append([]string{"missing", "it'; DROP TABLE items; --"}, ids...))
	})
	if len(got) != n || got["item1000"].Created != ms(1000) || got["item0000"].Owner != "alice" {
		t.Fatalf("ItemsByID found %d items, want %d; item1000 = %+v", len(got), n, got["item1000"])
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return tx.SetItemsFolder(ctx, ids[:1001], "f1", ms(99000))
	})
	inF1 := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Item, error) { return tx.Items(ctx, "alice", "f1") })
	if len(inF1) != 1001 || inF1[1000].ID != "item1000" || inF1[0].Modified != ms(99000) {
		t.Fatalf("after SetItemsFolder, f1 holds %d items", len(inF1))
	}
	// A missing id fails the call, and the transaction writes nothing.
	before := dump(t, s)
	err := s.Update(t.Context(), func(tx server.Tx) error {
		return tx.SetItemsFolder(t.Context(), []string{"item1001", "missing"}, "f2", ms(1))
	})
	wantNotFound(t, "SetItemsFolder with a missing id", err)
	err = s.Update(t.Context(), func(tx server.Tx) error { return tx.DeleteItems(t.Context(), []string{"item0001", "missing"}) })
	wantNotFound(t, "DeleteItems with a missing id", err)
	if dump(t, s) != before {
		t.Error("failed batch calls changed the store")
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.DeleteItems(ctx, ids[:1100]) })
	left := must(t, s, func(ctx context.Context, tx server.Tx) (map[string]server.Item, error) { return tx.ItemsByID(ctx, ids) })
	if len(left) != n-1100 {
		t.Errorf("after DeleteItems %d items are left, want %d", len(left), n-1100)
	}
	if empty := must(t, s, func(ctx context.Context, tx server.Tx) (map[string]server.Item, error) { return tx.ItemsByID(ctx, nil) }); len(empty) != 0 {
		t.Errorf("ItemsByID(nil) = %v", empty)
	}
}

// testTimes checks that times come back in UTC at millisecond precision
// whatever their location and precision going in.
func testTimes(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	in := time.Date(2024, 2, 29, 23, 59, 58, 123_456_789, zone)
	want := time.Date(2024, 2, 29, 18, 29, 58, 123_000_000, time.UTC)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(
			tx.PutToken(ctx, server.Token{Token: "t", Username: "u", Expires: in}),
			tx.PutFolder(ctx, server.Folder{ID: "f", Owner: "u", Title: "F", Created: in}),
			tx.PutItem(ctx, server.Item{ID: "i", Owner: "u", Created: in, Modified: in.Add(time.Hour)}),
		)
	})
	check := func(what string, got, want time.Time) {
		t.Helper()
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	tk := must(t, s, func(ctx context.Context, tx server.Tx) (server.Token, error) { return tx.Token(ctx, "t") })
	check("Token.Expires", tk.Expires, want)
	f := must(t, s, func(ctx context.Context, tx server.Tx) (server.Folder, error) { return tx.Folder(ctx, "u", "f") })
	check("Folder.Created", f.Created, want)
	it := must(t, s, func(ctx context.Context, tx server.Tx) (server.Item, error) { return tx.Item(ctx, "i") })
	check("Item.Created", it.Created, want)
	check("Item.Modified", it.Modified, want.Add(time.Hour))
}

// populate stores one of everything, in an order given by reverse.
func populate(t *testing.T, s server.Store, reverse bool) {
	t.Helper()
	puts := populatePuts()
	for i := range puts {
		p := puts[i]
		if reverse {
			p = puts[len(puts)-1-i]
		}
		update(t, s, p)
	}
}

// populatePuts are the writes of populate, one Update each there.
func populatePuts() []func(ctx context.Context, tx server.Tx) error {
	return []func(ctx context.Context, tx server.Tx) error{
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutOrganization(ctx, server.Organization{ID: "o2", Name: "Two"})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutRole(ctx, server.CustomRole{OrgID: "o1", ID: "r", Privileges: []string{server.PrivViewItems}})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutUser(ctx, server.User{Username: "alice", OrgID: "o1", FullName: "Alice", Role: "r", Categories: []string{"/a"}})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutUser(ctx, server.User{Username: "Bob", OrgID: "o1", FullName: "Bob", Role: server.RoleUser})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutToken(ctx, server.Token{Token: "tok", Username: "alice", Expires: ms(123_456)})
		},
		func(ctx context.Context, tx server.Tx) error {
			// Settings need their organization: it is put here too (the
			// same row), so that the puts run in either order.
			return errors.Join(tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
				tx.PatchSettings(ctx, "o1", server.Settings{
					InformationalBanner: &server.Banner{Text: ptr("hi")},
					PortalConfig:        map[string]json.RawMessage{"b": json.RawMessage(`2`), "a": json.RawMessage(`1`)},
				}, server.AllSettingsParts))
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutCategorySchema(ctx, "o1", []server.CategoryNode{{Title: "T"}})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutFolder(ctx, server.Folder{ID: "f", Owner: "alice", Title: "F", Created: ms(1)})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutItem(ctx, server.Item{ID: "i2", Owner: "alice", FolderID: "f", Title: "I2", Created: ms(2), Modified: ms(3)})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutItem(ctx, server.Item{ID: "i1", Owner: "alice", Title: "I1", Tags: []string{"t"}, Created: ms(2), Modified: ms(3)})
		},
	}
}

func testReset(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	emptyDump := dump(t, s)
	populate(t, s, false)
	if err := s.Reset(t.Context(), nil); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if empty := isEmpty(t, s); !empty {
		t.Errorf("after Reset: Empty = false")
	}
	if got := dump(t, s); got != emptyDump {
		t.Errorf("Dump after Reset:\n%s\nwant the dump of a new store:\n%s", got, emptyDump)
	}
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) { return tx.User(ctx, "alice") })
	wantNotFound(t, "User(alice) after Reset", err)
	_, err = get(t, s, func(ctx context.Context, tx server.Tx) (server.Item, error) { return tx.Item(ctx, "i1") })
	wantNotFound(t, "Item(i1) after Reset", err)
	if got := must(t, s, func(ctx context.Context, tx server.Tx) (server.Settings, error) {
		return tx.Settings(ctx, "o1", server.AllSettingsParts)
	}); !reflect.DeepEqual(got, server.Settings{}) {
		t.Errorf("Settings(o1) after Reset = %#v, want zero", got)
	}

	// The store still works after a Reset.
	populate(t, s, false)
	if empty := isEmpty(t, s); empty {
		t.Errorf("after Reset and populate: Empty = true")
	}
}

// Reset writes the seed in its own transaction: the store after it is the
// seed's, and a seed that fails leaves the store as it was.
func testResetWithSeed(t *testing.T, open func(t *testing.T) server.Store) {
	want := open(t)
	populate(t, want, false)
	s := open(t)
	populate(t, s, true)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return tx.PutItem(ctx, server.Item{ID: "extra", Owner: "alice", Title: "X", Created: ms(4), Modified: ms(4)})
	})
	before := dump(t, s)
	failed := errors.New("seed failed")
	if err := s.Reset(t.Context(), func(server.Tx) error { return failed }); !errors.Is(err, failed) {
		t.Fatalf("Reset with a failing seed: %v, want the seed's error", err)
	}
	if got := dump(t, s); got != before {
		t.Errorf("a Reset whose seed failed changed the store:\n%s\nwant:\n%s", got, before)
	}
	seed := func(tx server.Tx) error {
		for _, put := range populatePuts() {
			if err := put(t.Context(), tx); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.Reset(t.Context(), seed); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if got, wantDump := dump(t, s), dump(t, want); got != wantDump {
		t.Errorf("Dump after Reset with the seed:\n%s\nwant the seed's:\n%s", got, wantDump)
	}
}

// An Update that confirms a token commits while the token exists; once a
// Reset removed it, the Update reports ErrTokenRemoved and changes nothing,
// even when fn makes light of the error its writes get.
func testConfirmToken(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	populate(t, s, false)
	ctx := t.Context()
	folder := func(id string) func(tx server.Tx) error {
		return func(tx server.Tx) error {
			return tx.PutFolder(ctx, server.Folder{ID: id, Owner: "alice", Title: id, Created: ms(5)})
		}
	}
	confirmed := func(token string, fn func(tx server.Tx) error) error {
		return s.Update(ctx, func(tx server.Tx) error {
			if err := tx.ConfirmToken(ctx, token); err != nil {
				return err
			}
			return fn(tx)
		})
	}
	if err := confirmed("tok", folder("kept")); err != nil {
		t.Fatalf("Update confirming an existing token: %v", err)
	}
	if _, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Folder, error) { return tx.Folder(ctx, "alice", "kept") }); err != nil {
		t.Errorf("the write of an Update confirming an existing token: %v", err)
	}
	if err := s.Reset(ctx, func(tx server.Tx) error {
		for _, put := range populatePuts() {
			if err := put(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// "removed" stands for a generated token the reset deleted: alice and
	// her folders are there again, the token is not.
	for _, tc := range []struct {
		name string
		fn   func(tx server.Tx) error
	}{
		{"a write", folder("lost")},
		{"a write whose error is ignored", func(tx server.Tx) error { _ = folder("lost")(tx); return nil }},
		{"a lookup and a write", func(tx server.Tx) error {
			if _, err := tx.User(ctx, "alice"); err != nil {
				return err
			}
			return folder("lost")(tx)
		}},
	} {
		if err := confirmed("removed", tc.fn); !errors.Is(err, server.ErrTokenRemoved) {
			t.Errorf("%s confirming a token that does not exist: %v, want ErrTokenRemoved", tc.name, err)
		}
	}
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Folder, error) { return tx.Folder(ctx, "alice", "lost") })
	wantNotFound(t, "the write of an Update confirming a removed token", err)
	if err := confirmed("tok", folder("seeded")); err != nil {
		t.Errorf("Update confirming a token the seed wrote: %v", err)
	}
}

func testDump(t *testing.T, open func(t *testing.T) server.Store) {
	a, b := open(t), open(t)
	if da, db := dump(t, a), dump(t, b); da != db {
		t.Errorf("dumps of two new stores differ:\n%s\n---\n%s", da, db)
	}
	populate(t, a, false)
	if empty := isEmpty(t, b); !empty {
		t.Fatalf("a second store opened by the test sees the first one's data")
	}
	populate(t, b, true)
	da, db := dump(t, a), dump(t, b)
	if da != db {
		t.Errorf("dumps of equal states differ:\n%s\n---\n%s", da, db)
	}
	if da == dump(t, open(t)) {
		t.Errorf("dump of a populated store equals the dump of an empty one:\n%s", da)
	}
	if again := dump(t, a); again != da {
		t.Errorf("two dumps of one state differ:\n%s\n---\n%s", da, again)
	}

	// Every kind of change shows.
	changes := []func(ctx context.Context, tx server.Tx) error{
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutItem(ctx, server.Item{ID: "i1", Owner: "alice", Title: "I1", Tags: []string{"t"}, Created: ms(2), Modified: ms(4)})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutToken(ctx, server.Token{Token: "tok", Username: "alice"})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PatchSettings(ctx, "o1", server.Settings{InformationalBanner: &server.Banner{Text: ptr("hi")}}, server.AllSettingsParts)
		},
		func(ctx context.Context, tx server.Tx) error { return tx.DeleteFolder(ctx, "alice", "f") },
		func(ctx context.Context, tx server.Tx) error { return tx.PutCategorySchema(ctx, "o1", nil) },
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutRole(ctx, server.CustomRole{OrgID: "o1", ID: "r"})
		},
		func(ctx context.Context, tx server.Tx) error {
			return tx.PutOrganization(ctx, server.Organization{ID: "o3"})
		},
	}
	prev := da
	for i, change := range changes {
		update(t, a, change)
		next := dump(t, a)
		if next == prev {
			t.Errorf("change %d left the dump unchanged:\n%s", i, next)
		}
		prev = next
	}

	// Storing zero settings is the same state as storing none.
	c, d := open(t), open(t)
	org := func(ctx context.Context, tx server.Tx) error {
		return tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"})
	}
	update(t, c, org)
	update(t, d, org)
	update(t, c, func(ctx context.Context, tx server.Tx) error {
		return tx.PatchSettings(ctx, "o1", server.Settings{PortalConfig: map[string]json.RawMessage{}}, server.AllSettingsParts)
	})
	if dc, dd := dump(t, c), dump(t, d); dc != dd {
		t.Errorf("dump after storing zero settings differs from a new store's:\n%s\n---\n%s", dc, dd)
	}
}

var errAbort = errors.New("abort")

func testRollbackOnError(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	populate(t, s, false)
	before := dump(t, s)
	calls := 0
	err := s.Update(t.Context(), func(tx server.Tx) error {
		calls++
		ctx := t.Context()
		if err := errors.Join(
			tx.PutOrganization(ctx, server.Organization{ID: "new"}),
			tx.PutUser(ctx, server.User{Username: "alice", OrgID: "o1", FullName: "Changed"}),
			tx.DeleteItem(ctx, "i1"),
			tx.PatchSettings(ctx, "o1", server.Settings{}, server.AllSettingsParts),
		); err != nil {
			return err
		}
		// The transaction sees its own writes.
		if u, err := tx.User(ctx, "alice"); err != nil || u.FullName != "Changed" {
			t.Errorf("inside the transaction: User(alice) = %v, %v; want the changed user", u, err)
		}
		return fmt.Errorf("wrapped: %w", errAbort)
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	if calls != 1 {
		t.Errorf("fn ran %d times, want once: only conflicts are retried", calls)
	}
	if after := dump(t, s); after != before {
		t.Errorf("a failed Update changed the store:\n%s\n---\n%s", before, after)
	}
}

// An Update made by another's fn with the request's context (or one derived
// from it) is refused, changing nothing, and the outer one goes on; the
// request's Updates one after another are not nested.
func testNestedUpdate(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	populate(t, s, false)
	ctx := server.WithRequest(t.Context())
	var inner error
	err := s.Update(ctx, func(tx server.Tx) error {
		inner = s.Update(context.WithValue(ctx, errAbort, "derived"), func(tx server.Tx) error {
			return tx.PutOrganization(ctx, server.Organization{ID: "inner"})
		})
		return tx.PutOrganization(ctx, server.Organization{ID: "outer"})
	})
	if err != nil {
		t.Fatalf("outer Update: %v", err)
	}
	if !errors.Is(inner, server.ErrNestedUpdate) {
		t.Errorf("nested Update: %v, want ErrNestedUpdate", inner)
	}
	if _, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Organization, error) {
		return tx.Organization(ctx, "inner")
	}); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("the nested Update's organization: %v, want none", err)
	}
	if err := s.Update(ctx, func(tx server.Tx) error {
		_, err := tx.Organization(ctx, "outer")
		return err
	}); err != nil {
		t.Errorf("the request's next Update: %v", err)
	}
}

func testRollbackOnPanic(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	populate(t, s, false)
	before := dump(t, s)
	func() {
		defer func() {
			p := recover()
			if p != "boom" {
				t.Errorf("recovered %v, want the panic of fn", p)
			}
		}()
		_ = s.Update(t.Context(), func(tx server.Tx) error {
			ctx := t.Context()
			_ = tx.PutOrganization(ctx, server.Organization{ID: "new"})
			_ = tx.DeleteFolder(ctx, "alice", "f")
			panic("boom")
		})
		t.Errorf("Update returned after fn panicked")
	}()
	if after := dump(t, s); after != before {
		t.Errorf("a panicking Update changed the store:\n%s\n---\n%s", before, after)
	}
	// The store is usable, for writes too, after the panic.
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return tx.PutOrganization(ctx, server.Organization{ID: "after"})
	})
	if _, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Organization, error) {
		return tx.Organization(ctx, "after")
	}); err != nil {
		t.Errorf("Organization(after): %v", err)
	}
}

func testViewIsReadOnly(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	err := s.View(t.Context(), func(tx server.Tx) error {
		return tx.PutOrganization(t.Context(), server.Organization{ID: "o1"})
	})
	if err == nil {
		t.Errorf("PutOrganization inside View succeeded")
	}
	if empty := isEmpty(t, s); !empty {
		t.Errorf("a write inside View was stored")
	}
}

func testCanceledContext(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	err := s.Update(ctx, func(tx server.Tx) error {
		called = true
		return tx.PutOrganization(ctx, server.Organization{ID: "o1"})
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a canceled context returned %v, want context.Canceled", err)
	}
	if called {
		t.Errorf("Update with a canceled context ran fn")
	}
	if empty := isEmpty(t, s); !empty {
		t.Errorf("Update with a canceled context stored its write")
	}
}

// testConcurrentUpdates runs read-modify-write transactions from several
// goroutines on the same rows: a counter kept in a user's FullName, and an
// item that each transaction moves to the other folder. Serializable
// transactions lose no update, so the counter ends at the number of
// successful Updates and the item in the folder their parity says.
func testConcurrentUpdates(t *testing.T, open func(t *testing.T) server.Store) {
	const goroutines, perGoroutine = 8, 3
	s := open(t)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(
			tx.PutUser(ctx, server.User{Username: "counter", OrgID: "o1", FullName: "0", Role: server.RoleUser}),
			tx.PutFolder(ctx, server.Folder{ID: "a", Owner: "alice", Title: "A", Created: ms(1)}),
			tx.PutFolder(ctx, server.Folder{ID: "b", Owner: "alice", Title: "B", Created: ms(2)}),
			tx.PutItem(ctx, server.Item{ID: "it", Owner: "alice", FolderID: "a", Created: ms(1), Modified: ms(1)}),
		)
	})

	var (
		mu        sync.Mutex
		successes int
		errs      []error
		wg        sync.WaitGroup
	)
	for range goroutines {
		wg.Go(func() {
			ctx := t.Context()
			for range perGoroutine {
				err := s.Update(ctx, func(tx server.Tx) error {
					it, err := tx.Item(ctx, "it")
					if err != nil {
						return err
					}
					if it.FolderID == "a" {
						it.FolderID = "b"
					} else {
						it.FolderID = "a"
					}
					if err := tx.PutItem(ctx, it); err != nil {
						return err
					}
					u, err := tx.User(ctx, "counter")
					if err != nil {
						return err
					}
					n, err := strconv.Atoi(u.FullName)
					if err != nil {
						return err
					}
					u.FullName = strconv.Itoa(n + 1)
					return tx.PutUser(ctx, u)
				})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					successes++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	// Update retries conflicts, and every conflict lost is to a transaction
	// that committed, so under this little contention all succeed.
	if len(errs) > 0 {
		t.Errorf("%d of %d concurrent Updates failed, first: %v", len(errs), goroutines*perGoroutine, errs[0])
	}
	u := must(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) { return tx.User(ctx, "counter") })
	if u.FullName != strconv.Itoa(successes) {
		t.Errorf("counter = %s after %d successful Updates: updates were lost", u.FullName, successes)
	}
	it := must(t, s, func(ctx context.Context, tx server.Tx) (server.Item, error) { return tx.Item(ctx, "it") })
	wantFolder := "a"
	if successes%2 == 1 {
		wantFolder = "b"
	}
	if it.FolderID != wantFolder {
		t.Errorf("item in folder %q after %d moves, want %q: moves were lost", it.FolderID, successes, wantFolder)
	}
}

func testPing(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
