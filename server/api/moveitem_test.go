package api_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// moveOne moves item with the per-item move: from the path's folder when
// pathFolder is not "" (moveItemFromFolder), else without one (moveItem).
func moveOne(t *testing.T, p *pt.Portal, token, user, pathFolder, item, folder string) answer {
	t.Helper()
	path := "/content/users/" + user + "/items/" + item + "/move"
	if pathFolder != "" {
		path = "/content/users/" + user + "/" + pathFolder + "/items/" + item + "/move"
	}
	return post(t, p, path, token, form("folder", folder))
}

// TestMoveItem: the per-item move under moveItems' rules for one item: to
// a folder, to the root by "/", "" and "Root Folder", already there (500),
// an unknown or foreign item (CONT_0001), an unknown destination; the answer
// names the item, its owner and the destination ("/" for the root).
func TestMoveItem(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		a := ok(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, pt.ProjectsFolder))
		if want := `{"folder":"` + pt.ProjectsFolder + `","itemId":"` + pt.RoadsItem + `","owner":"jsmith","success":true}`; js(a.body) != want {
			t.Errorf("answer %s, want %s", js(a.body), want)
		}
		if folderOf(t, p, pt.RoadsItem) != pt.ProjectsFolder {
			t.Fatal("Roads is not in Projects")
		}
		// From folder to folder, the item named without its folder.
		ok(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, pt.ArchiveFolder))
		if folderOf(t, p, pt.RoadsItem) != pt.ArchiveFolder {
			t.Fatal("Roads is not in Archive")
		}
		for _, root := range []string{"/", "Root Folder", " / "} {
			a := ok(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, root))
			if a.body["folder"] != "/" || folderOf(t, p, pt.RoadsItem) != "" {
				t.Errorf("folder %q: %s, Roads in %q", root, a.raw, folderOf(t, p, pt.RoadsItem))
			}
			ok(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, pt.ArchiveFolder))
		}
		// An empty folder is the root, as for moveItems.
		a = ok(t, post(t, p, "/content/users/jsmith/items/"+pt.RoadsItem+"/move", pt.MemberToken, form("folder", "")))
		if a.body["folder"] != "/" || folderOf(t, p, pt.RoadsItem) != "" {
			t.Errorf("folder \"\": %s", a.raw)
		}

		before := dump(t, p)
		for _, root := range []string{"/", "", "Root Folder"} {
			fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, root), 500, "Item already exists in target folder")
		}
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.ParcelsItem, pt.ProjectsFolder), 500, "Item already exists in target folder")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", "00000000000000000000000000000000", "/"), 400, "CONT_0001", "Item does not exist or is inaccessible.")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", otherItem, "/"), 400, "CONT_0001")
		// The administrator may move jsmith's items, as jsmith's, not as its own.
		fails(t, moveOne(t, p, pt.AdminToken, pt.Admin, "", pt.RoadsItem, "/"), 400, "CONT_0001")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, "ffffffffffffffffffffffffffffffff"), 400,
			"Unable to move item.", "folder: ffffffffffffffffffffffffffffffff is not a folder of jsmith")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, otherDir), 400, "is not a folder of jsmith")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, "root folder"), 400, "is not a folder of jsmith")
		fails(t, moveOne(t, p, pt.AdminToken, "nobody", "", pt.RoadsItem, "/"), 400, "User does not exist")
		// The unknown item is judged after the destination, as moveItems does.
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "", "00000000000000000000000000000000", "ffffffffffffffffffffffffffffffff"), 400, "is not a folder of jsmith")
		if dump(t, p) != before {
			t.Error("refused moves changed the store")
		}
	})
}

// TestMoveItemFromFolder: the same move with a folder in the path, as the
// ArcGIS API for Python sends it: the path's folder must be one of the
// user's, the item may be in any of them.
func TestMoveItemFromFolder(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		a := ok(t, moveOne(t, p, pt.MemberToken, pt.Member, pt.ProjectsFolder, pt.ParcelsItem, "Root Folder"))
		if want := `{"folder":"/","itemId":"` + pt.ParcelsItem + `","owner":"jsmith","success":true}`; js(a.body) != want {
			t.Errorf("answer %s, want %s", js(a.body), want)
		}
		if folderOf(t, p, pt.ParcelsItem) != "" {
			t.Fatal("Parcels is not at the root")
		}
		ok(t, moveOne(t, p, pt.MemberToken, pt.Member, pt.ProjectsFolder, pt.ParcelsItem, pt.ArchiveFolder))
		// The path names Projects; Parcels is in Archive: moved all the same.
		ok(t, moveOne(t, p, pt.ContentAdminToken, pt.Member, pt.ProjectsFolder, pt.ParcelsItem, pt.ProjectsFolder))
		if folderOf(t, p, pt.ParcelsItem) != pt.ProjectsFolder {
			t.Fatal("Parcels is not in Projects")
		}
		before := dump(t, p)
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, "ffffffffffffffffffffffffffffffff", pt.ParcelsItem, "/"), 400,
			"folderId: ffffffffffffffffffffffffffffffff is not a folder of jsmith")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, otherDir, pt.ParcelsItem, "/"), 400, "folderId: "+otherDir+" is not a folder of jsmith")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, pt.ProjectsFolder, pt.ParcelsItem, pt.ProjectsFolder), 500, "Item already exists in target folder")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, pt.ProjectsFolder, "00000000000000000000000000000000", "/"), 400, "CONT_0001")
		fails(t, moveOne(t, p, pt.MemberToken, pt.Member, pt.ProjectsFolder, pt.ParcelsItem, "ffffffffffffffffffffffffffffffff"), 400, "folder: ffffffffffffffffffffffffffffffff is not a folder of jsmith")
		fails(t, moveOne(t, p, pt.OtherUserToken, "otheruser", "0c0c0c0c0c0c4c0c8c0c0c0c0c0c0c0c", pt.ParcelsItem, "/"), 400, "CONT_0001")
		if dump(t, p) != before {
			t.Error("refused moves changed the store")
		}
	})
}

// TestMoveItemCallers: the user, an administrator and a holder of
// portal:admin:updateItems of the same organization move the user's items;
// other members, other organizations and anonymous callers are refused
// and move nothing.
func TestMoveItemCallers(t *testing.T) {
	p := pt.New(t)
	for _, c := range []struct {
		name, token string
		code        int // 0: moved
		detail      string
	}{
		{"owner", pt.MemberToken, 0, ""},
		{"administrator", pt.AdminToken, 0, ""},
		{"updateItems role", pt.ContentAdminToken, 0, ""},
		{"publisher", pt.PublisherToken, 403, "GWM_0003"},
		{"viewer", pt.ViewerToken, 403, "GWM_0003"},
		{"category administrator", pt.CatAdminToken, 403, "GWM_0003"},
		{"other organization's administrator", pt.OtherAdminToken, 403, "GWM_0003"},
		{"other organization's member", pt.OtherUserToken, 403, "GWM_0003"},
		{"anonymous", "", 499, "Token Required."},
		{"bad token", "bogus", 498, "Invalid token."},
	} {
		for _, pathFolder := range []string{"", pt.ProjectsFolder} {
			from, to := folderOf(t, p, pt.ParcelsItem), pt.ArchiveFolder
			if from == pt.ArchiveFolder {
				to = pt.ProjectsFolder
			}
			before := dump(t, p)
			a := moveOne(t, p, c.token, pt.Member, pathFolder, pt.ParcelsItem, to)
			if c.code == 0 {
				ok(t, a)
				if got := folderOf(t, p, pt.ParcelsItem); got != to {
					t.Errorf("%s (path folder %q): Parcels in %q, want %q", c.name, pathFolder, got, to)
				}
				continue
			}
			fails(t, a, c.code, c.detail)
			if dump(t, p) != before {
				t.Errorf("%s (path folder %q): a refused move changed the store", c.name, pathFolder)
			}
		}
	}
}

// TestConcurrentMoveItem: clients move one item between two folders with
// both forms of the per-item move at once. In any serial order successes
// to the two folders alternate, starting from the item's folder, so their
// counts differ by at most one and the last names the folder the item ends
// in; every refusal is "already there". A lost or doubled move breaks that.
func TestConcurrentMoveItem(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		ok(t, moveOne(t, p, pt.MemberToken, pt.Member, "", pt.RoadsItem, pt.ArchiveFolder))
		const clients, rounds = 8, 15
		var mu sync.Mutex
		toProjects, toArchive := 0, 0
		errs := make(chan error, clients*rounds)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(c), 11))
				for range rounds {
					dest := []string{pt.ProjectsFolder, pt.ArchiveFolder}[rng.IntN(2)]
					path := "/content/users/jsmith/items/" + pt.RoadsItem + "/move"
					if rng.IntN(2) == 0 {
						path = "/content/users/jsmith/" + pt.ProjectsFolder + "/items/" + pt.RoadsItem + "/move"
					}
					resp, err := http.PostForm(p.URL+path, url.Values{"folder": {dest}, "token": {pt.MemberToken}})
					if err != nil {
						errs <- err
						return
					}
					var a struct {
						Success bool
						Folder  string
						Error   *struct {
							Code    int
							Message string
						}
					}
					err = json.NewDecoder(resp.Body).Decode(&a)
					resp.Body.Close()
					mu.Lock()
					switch {
					case err != nil:
						errs <- err
					case a.Success && a.Folder == dest && dest == pt.ProjectsFolder:
						toProjects++
					case a.Success && a.Folder == dest:
						toArchive++
					case a.Error == nil || a.Error.Code != 500 || a.Error.Message != "Item already exists in target folder":
						errs <- fmt.Errorf("to %s: %+v", dest, a)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		want := pt.ArchiveFolder
		switch toProjects - toArchive {
		case 1:
			want = pt.ProjectsFolder
		case 0:
		default:
			t.Fatalf("%d moves to Projects, %d to Archive: not alternating", toProjects, toArchive)
		}
		if got := folderOf(t, p, pt.RoadsItem); got != want {
			t.Errorf("Roads ends in %q after %d moves to Projects and %d to Archive, want %q", got, toProjects, toArchive, want)
		}
		// It is in exactly one folder: listed once over the root and both folders.
		seen := 0
		for _, f := range []string{"", "/" + pt.ProjectsFolder, "/" + pt.ArchiveFolder} {
			a := ok(t, get(t, p, hContent+f, pt.MemberToken, form("num", "100")))
			seen += strings.Count(a.raw, `"id":"`+pt.RoadsItem+`"`)
		}
		if seen != 1 {
			t.Errorf("Roads is listed %d times", seen)
		}
		t.Logf("%d moves to Projects, %d to Archive", toProjects, toArchive)
	})
}
