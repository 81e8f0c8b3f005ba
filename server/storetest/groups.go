package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/server"
)

// testGroups: groups with their members, read by id, all of them and a
// user's, in creation order; PutGroup replaces the members; items keep
// their access and users their email; a reset removes groups too.
func testGroups(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	g1 := server.Group{ID: "g1", OrgID: "A", Owner: "alice", Title: "Planning", Access: server.AccessOrg, Description: "d",
		Tags: []string{"x"}, Created: ms(2000), Modified: ms(3000),
		Members: []server.GroupMember{{Username: "alice", Type: server.MemberOwner}, {Username: "bob", Type: server.MemberMember}}}
	g0 := server.Group{ID: "g0", OrgID: "A", Owner: "bob", Title: "Later", Access: server.AccessPrivate, Tags: []string{},
		Created: ms(5000), Modified: ms(5000), Members: []server.GroupMember{{Username: "bob", Type: server.MemberOwner}}}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		if err := tx.PutGroup(ctx, g0); err != nil {
			return err
		}
		if err := tx.PutUser(ctx, server.User{Username: "alice", OrgID: "A", Role: server.RoleUser, Email: "alice@example.org", Created: ms(1)}); err != nil {
			return err
		}
		if err := tx.PutItem(ctx, server.Item{ID: "i1", Owner: "alice", Title: "T", Type: "CSV", Access: server.AccessPublic, Created: ms(7), Modified: ms(7)}); err != nil {
			return err
		}
		return tx.PutGroup(ctx, g1)
	})
	wantEqual(t, "Group(g1)", must(t, s, func(ctx context.Context, tx server.Tx) (server.Group, error) { return tx.Group(ctx, "g1") }), g1)
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Group, error) { return tx.Group(ctx, "nope") })
	wantNotFound(t, "Group(nope)", err)
	wantEqual(t, "Groups", must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.Groups(ctx) }), []server.Group{g1, g0})
	wantEqual(t, "UserGroups(bob)", must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.UserGroups(ctx, "bob") }), []server.Group{g1, g0})
	wantEqual(t, "UserGroups(alice)", must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.UserGroups(ctx, "alice") }), []server.Group{g1})
	wantEqual(t, "UserGroups(carol)", len(must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.UserGroups(ctx, "carol") })), 0)

	// Replacing a group replaces its members.
	g1.Members = []server.GroupMember{{Username: "alice", Type: server.MemberOwner}, {Username: "carol", Type: server.MemberAdmin}}
	update(t, s, func(ctx context.Context, tx server.Tx) error { return tx.PutGroup(ctx, g1) })
	wantEqual(t, "UserGroups(bob) after the members changed", must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.UserGroups(ctx, "bob") }), []server.Group{g0})
	wantEqual(t, "UserGroups(carol) after the members changed", must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.UserGroups(ctx, "carol") }), []server.Group{g1})

	u := must(t, s, func(ctx context.Context, tx server.Tx) (server.User, error) { return tx.User(ctx, "alice") })
	wantEqual(t, "alice's email", u.Email, "alice@example.org")
	items := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Item, error) { return tx.AllItems(ctx, "ALICE", "") })
	if len(items) != 1 || items[0].Access != server.AccessPublic {
		t.Errorf("AllItems(ALICE) = %+v, want i1, public", items)
	}
	for _, c := range []struct{ owner, org string }{{"", "A"}, {"alice", "A"}} {
		if items := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Item, error) {
			return tx.AllItems(ctx, c.owner, c.org)
		}); len(items) != 1 {
			t.Errorf("AllItems(%q, %q) = %+v, want i1", c.owner, c.org, items)
		}
	}
	for _, c := range []struct{ owner, org string }{{"", "B"}, {"bob", ""}, {"alice", "B"}} {
		if items := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Item, error) {
			return tx.AllItems(ctx, c.owner, c.org)
		}); len(items) != 0 {
			t.Errorf("AllItems(%q, %q) = %+v, want none", c.owner, c.org, items)
		}
	}
	if d := dump(t, s); !strings.Contains(d, "portal_groups ") || !strings.Contains(d, "group_members ") {
		t.Errorf("the dump holds no groups:\n%s", d)
	}
	if err := s.Reset(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "Groups after a reset", len(must(t, s, func(ctx context.Context, tx server.Tx) ([]server.Group, error) { return tx.Groups(ctx) })), 0)
}
