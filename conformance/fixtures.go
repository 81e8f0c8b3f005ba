package conformance

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// fixtureSpec is the contract's x-example-fixtures: the state the examples
// are written against.
type fixtureSpec struct {
	portalID string
	admin    string
	member   string
	folders  []fixtureFolder
	items    []fixtureItem
}

type fixtureFolder struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type fixtureItem struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Type   string  `json:"type"`
	Folder *string `json:"folder"`
}

func loadFixtures(doc *openapi3.T) (fixtureSpec, error) {
	var raw struct {
		PortalID string          `json:"portalId"`
		Admin    string          `json:"admin"`
		Member   string          `json:"member"`
		Folders  []fixtureFolder `json:"folders"`
		Items    []fixtureItem   `json:"items"`
	}
	ext, ok := doc.Extensions["x-example-fixtures"]
	if !ok {
		return fixtureSpec{}, fmt.Errorf("the contract has no x-example-fixtures")
	}
	if err := decode(ext, &raw); err != nil {
		return fixtureSpec{}, fmt.Errorf("x-example-fixtures: %w", err)
	}
	if raw.PortalID == "" || raw.Member == "" || raw.Admin == "" {
		return fixtureSpec{}, fmt.Errorf("x-example-fixtures: portalId, admin and member are required")
	}
	return fixtureSpec{portalID: raw.PortalID, admin: raw.Admin, member: raw.Member, folders: raw.Folders, items: raw.Items}, nil
}

// fixtures is one fresh copy of the example fixtures, created through the
// API for one example pair or scenario, and everything created with it.
type fixtures struct {
	owner   string            // whose content it is
	token   string            // the token creating it
	folders map[string]string // fixture id -> id on the target
	items   map[string]string
	titles  map[string]string // fixture title -> title on the target
	// created lists what to delete at the end, in creation order.
	createdFolders []string
	createdItems   []string
}

// ids reports whether id is something created for these fixtures.
func (f *fixtures) owns(id string) bool {
	for _, c := range f.createdItems {
		if c == id {
			return true
		}
	}
	for _, c := range f.createdFolders {
		if c == id {
			return true
		}
	}
	return false
}

// newFixtures creates the fixtures' folders and items for the content owner,
// with unique titles, and registers their deletion with t.
func (s *suite) newFixtures(t TB) *fixtures {
	t.Helper()
	f := s.emptyFixtures(t, s.owner, s.ownerToken())
	for _, fo := range s.fix.folders {
		title := s.uniqueTitle(fo.Title)
		f.folders[fo.ID] = s.createFolder(t, f, title)
		f.titles[fo.Title] = title
	}
	for _, it := range s.fix.items {
		title := s.uniqueTitle(it.Title)
		folder := ""
		if it.Folder != nil {
			folder = f.folders[*it.Folder]
			if folder == "" {
				t.Fatalf("x-example-fixtures: item %s is in unknown folder %s", it.ID, *it.Folder)
			}
		}
		f.items[it.ID] = s.addItem(t, f, title, it.Type, folder)
		f.titles[it.Title] = title
	}
	return f
}

// emptyFixtures returns fixtures of owner holding nothing yet, for content
// created with token, and registers their deletion with t.
func (s *suite) emptyFixtures(t TB, owner, token string) *fixtures {
	f := &fixtures{owner: owner, token: token, folders: map[string]string{}, items: map[string]string{}, titles: map[string]string{}}
	t.Cleanup(func() { s.removeFixtures(t, f) })
	return f
}

// createFolder creates a folder of f's owner and records it in f.
func (s *suite) createFolder(t TB, f *fixtures, title string) string {
	t.Helper()
	a := s.call(t, "createFolder", f.token, map[string]any{"userName": f.owner}, map[string]any{"title": title, "f": "json"})
	body := ok(t, "createFolder "+title, a)
	var got struct {
		Folder struct {
			ID string `json:"id"`
		} `json:"folder"`
	}
	if err := decode(body, &got); err != nil || got.Folder.ID == "" {
		t.Fatalf("createFolder %s: no folder id in %s", title, clip(a.raw, 300))
	}
	f.createdFolders = append(f.createdFolders, got.Folder.ID)
	return got.Folder.ID
}

// addItem adds an item of f's owner, at the root when folder is "", and
// records it in f.
func (s *suite) addItem(t TB, f *fixtures, title, typ, folder string) string {
	t.Helper()
	op, params := "addItem", map[string]any{"userName": f.owner}
	if folder != "" {
		op = "addItemToFolder"
		params["folderId"] = folder
	}
	a := s.call(t, op, f.token, params, map[string]any{"title": title, "type": typ, "f": "json"})
	body := ok(t, op+" "+title, a)
	id, _ := body["id"].(string)
	if id == "" {
		t.Fatalf("%s %s: no item id in %s", op, title, clip(a.raw, 300))
	}
	f.createdItems = append(f.createdItems, id)
	return id
}

// noteCreated records what an example's own request created, so that it
// is deleted with the fixtures.
func (f *fixtures) noteCreated(op string, a *answer) {
	if a.err != nil || a.body == nil {
		return
	}
	switch op {
	case "createFolder":
		if fo, ok := a.body["folder"].(map[string]any); ok {
			if id, ok := fo["id"].(string); ok && id != "" {
				f.createdFolders = append(f.createdFolders, id)
			}
		}
	case "addItem", "addItemToFolder":
		if id, ok := a.body["id"].(string); ok && id != "" {
			f.createdItems = append(f.createdItems, id)
		}
	}
}

// removeFixtures deletes what f created. Things an example already deleted
// are answered with per-item errors or an error envelope, which is fine;
// the answers are still checked against the contract.
func (s *suite) removeFixtures(t TB, f *fixtures) {
	t.Helper()
	owner := map[string]any{"userName": f.owner}
	for start := 0; start < len(f.createdItems); start += 100 {
		end := min(start+100, len(f.createdItems))
		s.call(t, "deleteItems", s.adminToken, owner, map[string]any{"items": f.createdItems[start:end], "f": "json"})
	}
	for _, id := range f.createdFolders {
		s.call(t, "deleteFolder", s.adminToken, map[string]any{"userName": f.owner, "folderId": id}, map[string]any{"f": "json"})
	}
	// Verify nothing of ours is left, so that a failed deletion is seen.
	left := s.ownContentLeft(t, f)
	if len(left) > 0 {
		t.Errorf("cleanup left content the suite created for %s: %v", f.owner, left)
	}
}

// ownContentLeft lists the ids of f still present in the owner's content.
func (s *suite) ownContentLeft(t TB, f *fixtures) []string {
	t.Helper()
	var left []string
	for _, id := range f.createdItems {
		a := s.call(t, "getItem", s.adminToken, map[string]any{"itemId": id}, nil)
		if a.err == nil {
			left = append(left, "item "+id)
		}
	}
	for _, id := range f.createdFolders {
		a := s.call(t, "getFolderContent", s.adminToken, map[string]any{"userName": f.owner, "folderId": id, "num": 1.0}, nil)
		if a.err == nil {
			left = append(left, "folder "+id)
		}
	}
	return left
}

// exampleGroup is a group an example pair reads and must find.
type exampleGroup struct {
	pair  string // operationId/exampleName
	id    string
	title string // as the example shows it
}

// exampleGroups lists the groups p, or one of its x-setup pairs, reads and
// must find: the groupId of a pair whose response example is no error. The
// API has no operation that creates a group, so the suite cannot make these
// as it makes the fixtures' folders and items: they are groups of the
// emulator's demo organization.
func (s *suite) exampleGroups(p *pair) []exampleGroup {
	var out []exampleGroup
	for _, name := range append(s.setupChain(p), p.op.id+"/"+p.name) {
		q := s.pairs[name]
		if q == nil || q.wantsError() != 0 {
			continue
		}
		if id, _ := q.params["groupId"].(string); id != "" {
			title, _ := asMap(q.want)["title"].(string)
			out = append(out, exampleGroup{pair: name, id: id, title: title})
		}
	}
	return out
}

// missingGroup says why p cannot be replayed on the target when the target's
// organization does not hold a group p reads (exampleGroups), or "". The
// administrator reads the group, once per run: the error envelope (the
// contract's answer for a group that does not exist), or a group of another
// organization (the demo organization's, read from another organization of
// the emulator), means the target does not hold it. Any other answer means
// it does, and p is replayed and judged: a portal holding the group that
// answers the example's caller wrongly still fails.
func (s *suite) missingGroup(t TB, p *pair) string {
	t.Helper()
	for _, g := range s.exampleGroups(p) {
		s.mu.Lock()
		why, known := s.groups[g.id]
		s.mu.Unlock()
		if !known {
			why = s.groupHeld(t, g.id)
			s.mu.Lock()
			if s.groups == nil {
				s.groups = map[string]string{}
			}
			s.groups[g.id] = why
			s.mu.Unlock()
		}
		if why != "" {
			name := g.id
			if g.title != "" {
				name = fmt.Sprintf("%s (%q)", g.id, g.title)
			}
			return fmt.Sprintf("%s reads the examples' group %s, which %s; the API has no operation that creates a group, so the suite cannot make one (the emulator's demo organization holds it)", g.pair, name, why)
		}
	}
	return ""
}

// groupHeld reads group id as the administrator and says why the target's
// organization does not hold it, or "" when it does.
func (s *suite) groupHeld(t TB, id string) string {
	t.Helper()
	a := s.call(t, "getGroup", s.adminToken, map[string]any{"groupId": id}, nil)
	if a.err != nil {
		if a.err.Code == 400 {
			return fmt.Sprintf("the target does not hold (getGroup as the administrator: %s)", a.err.Message)
		}
		return "" // not the contract's unknown group: replay the pair and judge
	}
	if org, _ := a.body["orgId"].(string); org != "" && org != s.portalID {
		return fmt.Sprintf("is organization %s's, not the target's %s", org, s.portalID)
	}
	return ""
}
