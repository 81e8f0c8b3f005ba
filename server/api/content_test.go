package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

const movePath = "/content/users/" + pt.Member + "/moveItems"

func move(t *testing.T, p *pt.Portal, token, items, folder string) answer {
	t.Helper()
	return post(t, p, movePath, token, form("items", items, "folder", folder))
}

// results renders moveItems results as "id:ok" or "id:code".
func results(t *testing.T, a answer) string {
	t.Helper()
	ok(t, a)
	var out []string
	for _, r := range a.body["results"].([]any) {
		m := r.(map[string]any)
		if m["success"] == true {
			out = append(out, m["itemId"].(string)+":ok")
			if m["error"] != nil {
				t.Errorf("success with an error: %v", m)
			}
		} else {
			e := m["error"].(map[string]any)
			out = append(out, fmt.Sprintf("%s:%v", m["itemId"], e["code"]))
		}
	}
	return strings.Join(out, " ")
}

// folderOf returns the folder holding item, read back through the API ("" = root).
func folderOf(t *testing.T, p *pt.Portal, item string) string {
	t.Helper()
	a := ok(t, get(t, p, "/content/items/"+item, pt.MemberToken, nil))
	f, _ := a.body["ownerFolder"].(string)
	return f
}

func TestMoveItems(t *testing.T) {
	p := pt.New(t)
	// One moved, one already there, one unknown, in request order.
	got := results(t, move(t, p, pt.MemberToken, pt.RoadsItem+","+pt.ParcelsItem+",nope", pt.ProjectsFolder))
	if want := pt.RoadsItem + ":ok " + pt.ParcelsItem + ":500 nope:400"; got != want {
		t.Errorf("results = %s, want %s", got, want)
	}
	a := move(t, p, pt.MemberToken, pt.ParcelsItem, pt.ProjectsFolder)
	if !strings.Contains(a.raw, `"message":"Item already exists in target folder"`) {
		t.Errorf("already-there message: %s", a.raw)
	}
	if folderOf(t, p, pt.RoadsItem) != pt.ProjectsFolder {
		t.Error("Roads did not change folder")
	}
	// "/" is the root, and so is an empty folder; spaces and empty entries are ignored.
	if got := results(t, move(t, p, pt.AdminToken, " "+pt.RoadsItem+" ,,", "/")); got != pt.RoadsItem+":ok" {
		t.Errorf("to root = %s", got)
	}
	if folderOf(t, p, pt.RoadsItem) != "" {
		t.Error("Roads is not at the root")
	}
	if got := results(t, move(t, p, pt.MemberToken, pt.RoadsItem, "")); got != pt.RoadsItem+":500" {
		t.Errorf("empty folder is the root: %s", got)
	}
	// A repeated id is reported once per occurrence: moved, then already there.
	if got := results(t, move(t, p, pt.MemberToken, pt.HydrantsItem+","+pt.HydrantsItem, pt.ArchiveFolder)); got != pt.HydrantsItem+":ok "+pt.HydrantsItem+":500" {
		t.Errorf("repeated id = %s", got)
	}
	// The JSON-array form of the list, as the official Python client sends it.
	if got := results(t, move(t, p, pt.MemberToken, `["`+pt.HydrantsItem+`"]`, "/")); got != pt.HydrantsItem+":ok" {
		t.Errorf("JSON array list = %s", got)
	}
	// Another user's item is not this user's: CONT_0001, and it does not move.
	if got := results(t, move(t, p, pt.MemberToken, "0d0d0d0d0d0d4d0d8d0d0d0d0d0d0d0d", "/")); got != "0d0d0d0d0d0d4d0d8d0d0d0d0d0d0d0d:400" {
		t.Errorf("foreign item = %s", got)
	}
}

func TestMoveItemsWholeRequestFailures(t *testing.T) {
	p := pt.New(t)
	before := dump(t, p)
	fails(t, move(t, p, pt.MemberToken, pt.RoadsItem, "ffffffffffffffffffffffffffffffff"), 400, "folder: ffffffffffffffffffffffffffffffff is not a folder of jsmith", "Unable to move items.")
	fails(t, move(t, p, pt.MemberToken, pt.RoadsItem, "0c0c0c0c0c0c4c0c8c0c0c0c0c0c0c0c"), 400, "is not a folder of jsmith")
	ids := make([]string, 1001)
	for i := range ids {
		ids[i] = pt.RoadsItem
	}
	fails(t, move(t, p, pt.MemberToken, strings.Join(ids, ","), "/"), 400, "items")
	fails(t, move(t, p, pt.MemberToken, "", "/"), 400, "items")
	fails(t, move(t, p, pt.MemberToken, ",,", "/"), 400, "items")
	fails(t, post(t, p, movePath, pt.MemberToken, form("folder", "/")), 400, "items: property is missing")
	fails(t, move(t, p, pt.PublisherToken, pt.RoadsItem, "/"), 403)
	fails(t, move(t, p, pt.OtherAdminToken, pt.RoadsItem, "/"), 403)
	fails(t, move(t, p, "", pt.RoadsItem, "/"), 499)
	fails(t, post(t, p, "/content/users/nobody/moveItems", pt.AdminToken, form("items", "a")), 400, "User does not exist")
	if after := dump(t, p); after != before {
		t.Error("failed requests changed the store")
	}
	ok(t, move(t, p, pt.ContentAdminToken, pt.RoadsItem, pt.ArchiveFolder))
	// 1,000 ids is allowed: each is reported.
	ids = ids[:1000]
	if a := ok(t, move(t, p, pt.MemberToken, strings.Join(ids, ","), "/")); len(a.body["results"].([]any)) != 1000 {
		t.Error("1,000 ids did not give 1,000 results")
	}
}

func TestFoldersAndItems(t *testing.T) {
	p := pt.New(t)
	user := "/content/users/" + pt.Member
	f := ok(t, post(t, p, user+"/createFolder", pt.MemberToken, form("title", "Field Work")))
	folder := f.body["folder"].(map[string]any)
	id := folder["id"].(string)
	if len(id) != 32 || folder["title"] != "Field Work" || folder["username"] != pt.Member {
		t.Errorf("createFolder: %s", f.raw)
	}
	fails(t, post(t, p, user+"/createFolder", pt.MemberToken, form("title", "field work")), 400, "already exists")
	added := ok(t, post(t, p, user+"/"+id+"/addItem", pt.MemberToken, form("title", "Zoning", "type", "Web Map", "tags", "a, b,")))
	itemID := added.body["id"].(string)
	if added.body["folder"] != id {
		t.Errorf("addItem in folder: %s", added.raw)
	}
	rootAdd := ok(t, post(t, p, user+"/addItem", pt.MemberToken, form("title", "Trails", "type", "Feature Service")))
	if _, has := rootAdd.body["folder"]; !has || rootAdd.body["folder"] != nil {
		t.Errorf("addItem at root must answer folder null: %s", rootAdd.raw)
	}
	fails(t, post(t, p, user+"/addItem", pt.MemberToken, form("title", "x")), 400, "type: property is missing")
	item := ok(t, get(t, p, "/content/items/"+itemID, pt.MemberToken, nil))
	if js(item.body["tags"]) != `["a","b"]` || item.body["ownerFolder"] != id {
		t.Errorf("item: %s", item.raw)
	}
	page := ok(t, get(t, p, user+"/"+id, pt.MemberToken, nil))
	if page.body["total"] != 1.0 || page.body["currentFolder"].(map[string]any)["id"] != id {
		t.Errorf("folder content: %s", page.raw)
	}
	root := ok(t, get(t, p, user, pt.MemberToken, form("num", "1")))
	if root.body["currentFolder"] != nil || root.body["total"] != 3.0 || root.body["nextStart"] != 2.0 || len(root.body["items"].([]any)) != 1 {
		t.Errorf("root page: %s", root.raw)
	}
	if len(root.body["folders"].([]any)) != 3 {
		t.Errorf("root lists %d folders", len(root.body["folders"].([]any)))
	}
	fails(t, get(t, p, user+"/ffffffffffffffffffffffffffffffff", pt.MemberToken, nil), 400, "Folder does not exist")
	fails(t, get(t, p, user, pt.PublisherToken, nil), 403)
	fails(t, get(t, p, "/content/items/"+itemID, pt.OtherAdminToken, nil), 400, "CONT_0001")
	ok(t, get(t, p, "/content/items/"+itemID, pt.AdminToken, nil))

	del := ok(t, post(t, p, user+"/deleteItems", pt.MemberToken, form("items", pt.RoadsItem+",nope")))
	if got := results(t, del); got != pt.RoadsItem+":ok nope:400" {
		t.Errorf("deleteItems = %s", got)
	}
	fails(t, get(t, p, "/content/items/"+pt.RoadsItem, pt.MemberToken, nil), 400, "CONT_0001")
	ok(t, post(t, p, user+"/"+id+"/delete", pt.MemberToken, nil))
	fails(t, get(t, p, "/content/items/"+itemID, pt.MemberToken, nil), 400, "CONT_0001")
	fails(t, post(t, p, user+"/"+id+"/delete", pt.MemberToken, nil), 400, "Folder does not exist")
}

func TestGenerateToken(t *testing.T) {
	p := pt.New(t)
	a := ok(t, post(t, p, "/generateToken", "", form("username", "jsmith", "password", "jsmith-password", "expiration", "5")))
	tok := a.body["token"].(string)
	if a.body["expires"].(float64) <= 0 || a.body["ssl"] != false {
		t.Errorf("token answer: %s", a.raw)
	}
	ok(t, get(t, p, "/content/users/jsmith", tok, nil))
	fails(t, post(t, p, "/generateToken", "", form("username", "jsmith", "password", "nope")), 400, "Invalid username or password.")
	fails(t, post(t, p, "/generateToken", "", form("username", "ghost", "password", "nope")), 400, "Invalid username or password.")
	fails(t, post(t, p, "/generateToken", "", form("username", "jsmith", "password", "x", "expiration", "0")), 400, "expiration")
}

// Folders and items are listed in the order they were made, even when made
// within one millisecond.
func TestListingsKeepCreationOrder(t *testing.T) {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := pt.New(t, pt.WithClock(func() time.Time { return frozen }))
	user := "/content/users/" + pt.Member
	var want []string
	for i := range 8 {
		a := ok(t, post(t, p, user+"/createFolder", pt.MemberToken, form("title", fmt.Sprintf("F%d", i))))
		want = append(want, a.body["folder"].(map[string]any)["id"].(string))
	}
	root := ok(t, get(t, p, user, pt.MemberToken, form("num", "100")))
	var got []string
	for _, f := range root.body["folders"].([]any) {
		if id := f.(map[string]any)["id"].(string); id != pt.ProjectsFolder && id != pt.ArchiveFolder {
			got = append(got, id)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("folders listed as %v, made as %v", got, want)
	}
}

// A token's principal is cached briefly, but its expiry is checked on every
// use, and a store reset forgets it.
func TestTokenExpiryAndResetDespiteCache(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	p := pt.New(t, pt.WithClock(clock))
	tok := ok(t, post(t, p, "/generateToken", "", form("username", "jsmith", "password", "jsmith-password", "expiration", "1"))).body["token"].(string)
	advance(55 * time.Second)
	ok(t, get(t, p, "/content/users/jsmith", tok, nil)) // cached now, 5 s before expiry
	advance(6 * time.Second)
	fails(t, get(t, p, "/content/users/jsmith", tok, nil), 498, "Invalid token.")

	tok = ok(t, post(t, p, "/generateToken", "", form("username", "jsmith", "password", "jsmith-password"))).body["token"].(string)
	ok(t, get(t, p, "/content/users/jsmith", tok, nil))
	resp, err := http.Post(p.Root+"/emulator/reset", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v %v", err, resp)
	}
	fails(t, get(t, p, "/content/users/jsmith", tok, nil), 498, "Invalid token.")
}
