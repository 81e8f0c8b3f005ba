package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/orgportal/portal-api/server"
)

const groupColumns = "id, org_id, owner, title, access, description, tags, created_ms, modified_ms"

func scanGroup(sc scanner) (server.Group, error) {
	var g server.Group
	var tags string
	var created, modified int64
	if err := sc.Scan(&g.ID, &g.OrgID, &g.Owner, &g.Title, &g.Access, &g.Description, &tags, &created, &modified); err != nil {
		return server.Group{}, err
	}
	if err := json.Unmarshal([]byte(tags), &g.Tags); err != nil {
		return server.Group{}, fmt.Errorf("sqlstore: group %s tags: %w", g.ID, err)
	}
	g.Created, g.Modified = fromMS(created), fromMS(modified)
	return g, nil
}

func (t *tx) Group(ctx context.Context, id string) (server.Group, error) {
	g, err := scanGroup(t.queryRow(ctx, "SELECT "+groupColumns+" FROM portal_groups WHERE id = ?", id))
	if err != nil {
		return server.Group{}, notFound(err, "group", id)
	}
	gs, err := t.withMembers(ctx, []server.Group{g}, "SELECT group_id, username, member_type FROM group_members WHERE group_id = ?", id)
	if err != nil {
		return server.Group{}, err
	}
	return gs[0], nil
}

func (t *tx) Groups(ctx context.Context) ([]server.Group, error) {
	gs, err := t.groups(ctx, "SELECT "+groupColumns+" FROM portal_groups ORDER BY created_ms, id COLLATE BINARY")
	if err != nil {
		return nil, err
	}
	return t.withMembers(ctx, gs, "SELECT group_id, username, member_type FROM group_members")
}

func (t *tx) UserGroups(ctx context.Context, username string) ([]server.Group, error) {
	gs, err := t.groups(ctx, "SELECT "+groupColumns+` FROM portal_groups
		WHERE id IN (SELECT group_id FROM group_members WHERE username = ?)
		ORDER BY created_ms, id COLLATE BINARY`, username)
	if err != nil {
		return nil, err
	}
	return t.withMembers(ctx, gs, `SELECT group_id, username, member_type FROM group_members
		WHERE group_id IN (SELECT group_id FROM group_members WHERE username = ?)`, username)
}

// groups reads the groups q selects, without their members.
func (t *tx) groups(ctx context.Context, q string, args ...any) ([]server.Group, error) {
	return queryAll(ctx, t, "groups", scanGroup, q, args...)
}

// withMembers fills the members of gs from the rows q selects (group_id,
// username, member_type), ordered by user name.
func (t *tx) withMembers(ctx context.Context, gs []server.Group, q string, args ...any) ([]server.Group, error) {
	rows, err := t.query(ctx, q+" ORDER BY username COLLATE BINARY", args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list group members: %w", err)
	}
	defer rows.Close()
	at := make(map[string]int, len(gs))
	for i := range gs {
		at[gs[i].ID] = i
		gs[i].Members = []server.GroupMember{}
	}
	for rows.Next() {
		var id string
		var m server.GroupMember
		if err := rows.Scan(&id, &m.Username, &m.Type); err != nil {
			return nil, fmt.Errorf("sqlstore: list group members: %w", err)
		}
		if i, ok := at[id]; ok {
			gs[i].Members = append(gs[i].Members, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list group members: %w", err)
	}
	return gs, nil
}

func (t *tx) PutGroup(ctx context.Context, g server.Group) error {
	tags, err := marshal(g.Tags)
	if err != nil {
		return fmt.Errorf("sqlstore: put group: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO portal_groups (`+groupColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, owner = excluded.owner,
			title = excluded.title, access = excluded.access, description = excluded.description,
			tags = excluded.tags, created_ms = excluded.created_ms, modified_ms = excluded.modified_ms`,
		g.ID, g.OrgID, g.Owner, g.Title, g.Access, g.Description, tags, toMS(g.Created), toMS(g.Modified))
	if err != nil {
		return fmt.Errorf("sqlstore: put group: %w", err)
	}
	if _, err := t.exec(ctx, "DELETE FROM group_members WHERE group_id = ?", g.ID); err != nil {
		return fmt.Errorf("sqlstore: put group members: %w", err)
	}
	for _, m := range g.Members {
		if _, err := t.exec(ctx, "INSERT INTO group_members (group_id, username, member_type) VALUES (?, ?, ?)", g.ID, m.Username, m.Type); err != nil {
			return fmt.Errorf("sqlstore: put group members: %w", err)
		}
	}
	return nil
}

func (t *tx) AllItems(ctx context.Context, owner, org string) ([]server.Item, error) {
	var where []string
	var args []any
	if owner != "" {
		// User names match ignoring case in a query, as the portal's do.
		where, args = append(where, "lower(owner) = lower(?)"), append(args, owner)
	}
	if org != "" {
		where, args = append(where, "owner IN (SELECT username FROM users WHERE org_id = ?)"), append(args, org)
	}
	q := "SELECT " + itemColumns + " FROM items"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return queryAll(ctx, t, "items", scanItem, q+" ORDER BY created_ms, id COLLATE BINARY", args...)
}
