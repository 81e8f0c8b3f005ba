package conformance

import (
	"fmt"
	"strings"
)

// itemResult is one entry of a moveItems or deleteItems answer.
type itemResult struct {
	ItemID  string `json:"itemId"`
	Success bool   `json:"success"`
	Error   *struct {
		Code        int    `json:"code"`
		MessageCode string `json:"messageCode"`
		Message     string `json:"message"`
	} `json:"error"`
}

func (r itemResult) String() string { return jsonText(r) }

const (
	msgAlreadyThere = "Item already exists in target folder"
	msgItemNotFound = "Item does not exist or is inaccessible."
	unknownItemID   = "00000000000000000000000000000000"
	unknownFolderID = "ffffffffffffffffffffffffffffffff"
)

func (s *suite) move(t TB, token, user string, ids []string, folder string) *answer {
	t.Helper()
	return s.call(t, "moveItems", token, map[string]any{"userName": user}, map[string]any{"items": ids, "folder": folder, "f": "json"})
}

// moveResults moves ids and returns the results, checking there is one per
// id, in request order, and that each failure carries its error.
func (s *suite) moveResults(t TB, ids []string, folder string) []itemResult {
	t.Helper()
	a := s.move(t, s.ownerToken(), s.owner, ids, folder)
	if a.err != nil {
		t.Fatalf("moveItems %v to %s: want results, got error %s", ids, folder, a.err)
	}
	var out struct {
		Results []itemResult `json:"results"`
	}
	if err := decode(a.body, &out); err != nil {
		t.Fatalf("moveItems: unreadable results: %v: %s", err, clip(a.raw, 300))
	}
	if len(out.Results) != len(ids) {
		t.Fatalf("moveItems of %d ids: %d results, want one per requested id: %s", len(ids), len(out.Results), clip(a.raw, 500))
	}
	for i, r := range out.Results {
		if r.ItemID != ids[i] {
			t.Errorf("moveItems result %d is for %s, want %s: results must come in request order", i, r.ItemID, ids[i])
		}
		if !r.Success && r.Error == nil {
			t.Errorf("moveItems result %d (%s) has success:false but no error object saying why", i, r.ItemID)
		}
		if r.Success && r.Error != nil {
			t.Errorf("moveItems result %d (%s) has success:true and an error", i, r.ItemID)
		}
	}
	return out.Results
}

func wantMoved(t TB, r itemResult) {
	t.Helper()
	if !r.Success {
		t.Errorf("moveItems result for %s: want success:true, got %s", r.ItemID, r)
	}
}

func wantAlreadyThere(t TB, r itemResult) {
	t.Helper()
	if r.Success || r.Error == nil || r.Error.Code != 500 || r.Error.Message != msgAlreadyThere {
		t.Errorf("moveItems result for %s, already in the destination: want success:false with error code 500 %q, got %s", r.ItemID, msgAlreadyThere, r)
	}
}

func wantNotFound(t TB, r itemResult) {
	t.Helper()
	if r.Success || r.Error == nil || r.Error.Code != 400 || r.Error.MessageCode != "CONT_0001" || r.Error.Message != msgItemNotFound {
		t.Errorf("moveItems result for %s, no item of the user: want success:false with error code 400 CONT_0001 %q, got %s", r.ItemID, msgItemNotFound, r)
	}
}

// folderOf returns the folder holding item ("" at the root), read with the
// item read and checked against the user content reads: the item is listed
// in that folder and in no other of f.
func (s *suite) folderOf(t TB, f *fixtures, item string) string {
	t.Helper()
	a := s.call(t, "getItem", s.adminToken, map[string]any{"itemId": item}, nil)
	body := ok(t, "getItem "+item, a)
	folder, _ := body["ownerFolder"].(string)
	var listedIn []string
	listed := func(op string, params map[string]any, where string) {
		for start := 1.0; start > 0; {
			params["start"], params["num"] = start, 100.0
			a := s.call(t, op, s.ownerToken(), params, nil)
			body := ok(t, op, a)
			var page struct {
				Items []struct {
					ID          string  `json:"id"`
					OwnerFolder *string `json:"ownerFolder"`
				} `json:"items"`
				NextStart float64 `json:"nextStart"`
			}
			if err := decode(body, &page); err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			for _, it := range page.Items {
				if it.ID == item {
					listedIn = append(listedIn, where)
					if got := deref(it.OwnerFolder); got != where {
						t.Errorf("%s lists %s with ownerFolder %q inside folder %q", op, item, got, where)
					}
				}
			}
			if page.NextStart <= start {
				break
			}
			start = page.NextStart
		}
	}
	for _, id := range f.createdFolders {
		listed("getFolderContent", map[string]any{"userName": f.owner, "folderId": id}, id)
	}
	if folder == "" {
		// The root listing may hold much else of a real user's: look for the
		// item there only when getItem says it is there.
		listed("getUserContent", map[string]any{"userName": f.owner}, "")
	}
	if !jsonEqual(listedIn, []string{folder}) {
		t.Errorf("item %s: getItem says folder %q, the content reads list it in %q", item, folder, listedIn)
	}
	return folder
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// world is one fresh copy of the fixtures, with the ids of those the
// scenarios name.
type world struct {
	f                        *fixtures
	projects, archive        string // folders
	roads, parcels, hydrants string // Roads and Hydrants at the root, Parcels in Projects
	unknown                  string // no item
}

// world creates a fresh copy of the fixtures for t.
func (s *suite) world(t TB) world {
	t.Helper()
	f := s.newFixtures(t)
	w := world{f: f, unknown: unknownItemID}
	for _, fo := range s.fix.folders {
		switch fo.Title {
		case "Projects":
			w.projects = f.folders[fo.ID]
		case "Archive":
			w.archive = f.folders[fo.ID]
		}
	}
	for _, it := range s.fix.items {
		switch it.Title {
		case "Roads":
			w.roads = f.items[it.ID]
		case "Parcels":
			w.parcels = f.items[it.ID]
		case "Hydrants":
			w.hydrants = f.items[it.ID]
		}
	}
	if w.projects == "" || w.archive == "" || w.roads == "" || w.parcels == "" || w.hydrants == "" {
		t.Fatalf("x-example-fixtures lack the folders Projects, Archive or the items Roads, Parcels, Hydrants")
	}
	return w
}

// moveScenarios checks the rules of moveItems on fixtures of their own.
func (s *suite) moveScenarios(t TB) {
	t.Run("resultsInRequestOrder", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.hydrants, w.roads}, w.archive)
		wantMoved(t, rs[0])
		wantMoved(t, rs[1])
		rs = s.moveResults(t, []string{w.roads, w.parcels, w.hydrants}, w.archive)
		wantAlreadyThere(t, rs[0])
		wantMoved(t, rs[1])
		wantAlreadyThere(t, rs[2])
	})
	t.Run("mixedSuccessAndFailure", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.roads, w.parcels, w.unknown, w.hydrants}, w.projects)
		wantMoved(t, rs[0])
		wantAlreadyThere(t, rs[1])
		wantNotFound(t, rs[2])
		wantMoved(t, rs[3])
		for _, id := range []string{w.roads, w.parcels, w.hydrants} {
			if got := s.folderOf(t, w.f, id); got != w.projects {
				t.Errorf("after the mixed move, item %s is in folder %q, want %s", id, got, w.projects)
			}
		}
	})
	t.Run("alreadyInFolder", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.parcels}, w.projects)
		wantAlreadyThere(t, rs[0])
		rs = s.moveResults(t, []string{w.roads}, "/")
		wantAlreadyThere(t, rs[0])
	})
	t.Run("unknownItem", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.unknown}, w.archive)
		wantNotFound(t, rs[0])
	})
	t.Run("itemOfAnotherUser", func(t TB) {
		if s.adminUser == "" || s.adminUser == s.owner {
			s.notRun(t, "needs a content owner other than the administrator, whose user name is known (Target.MemberToken, Target.Username)")
		}
		w := s.world(t)
		other := s.emptyFixtures(t, s.adminUser, s.adminToken)
		foreign := s.addItem(t, other, s.uniqueTitle("Foreign"), "CSV", "")
		rs := s.moveResults(t, []string{foreign, w.roads}, w.archive)
		wantNotFound(t, rs[0])
		wantMoved(t, rs[1])
		a := s.call(t, "getItem", s.adminToken, map[string]any{"itemId": foreign}, nil)
		if body := ok(t, "getItem", a); body["ownerFolder"] != nil || body["owner"] != s.adminUser {
			t.Errorf("moving another user's item through %s's moveItems changed it: %s", s.owner, clip(a.raw, 300))
		}
	})
	t.Run("unknownFolderMovesNothing", func(t TB) {
		w := s.world(t)
		a := s.move(t, s.ownerToken(), s.owner, []string{w.roads, w.hydrants}, unknownFolderID)
		if a.err == nil || a.err.Code != 400 {
			t.Errorf("moveItems to an unknown folder: want the error envelope with code 400 for the whole request, got %s", clip(a.raw, 300))
		} else if a.body["results"] != nil {
			t.Errorf("moveItems to an unknown folder: an error envelope with results: %s", clip(a.raw, 300))
		}
		for _, id := range []string{w.roads, w.hydrants} {
			if got := s.folderOf(t, w.f, id); got != "" {
				t.Errorf("moveItems to an unknown folder moved %s to %q; nothing may move", id, got)
			}
		}
	})
	t.Run("slashIsRoot", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.parcels}, "/")
		wantMoved(t, rs[0])
		if got := s.folderOf(t, w.f, w.parcels); got != "" {
			t.Errorf(`after moving %s to "/", it is in folder %q, want the root`, w.parcels, got)
		}
	})
	t.Run("itemChangesFolder", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.roads}, w.archive)
		wantMoved(t, rs[0])
		if got := s.folderOf(t, w.f, w.roads); got != w.archive {
			t.Errorf("after moving %s to %s, the content reads put it in %q", w.roads, w.archive, got)
		}
		rs = s.moveResults(t, []string{w.roads}, w.projects)
		wantMoved(t, rs[0])
		if got := s.folderOf(t, w.f, w.roads); got != w.projects {
			t.Errorf("after moving %s on to %s, the content reads put it in %q", w.roads, w.projects, got)
		}
	})
	t.Run("repeatedIdOncePerOccurrence", func(t TB) {
		w := s.world(t)
		rs := s.moveResults(t, []string{w.roads, w.roads, w.unknown, w.unknown}, w.archive)
		wantMoved(t, rs[0])
		// Each occurrence is judged on its own, in order: the second finds
		// the item already moved by the first.
		wantAlreadyThere(t, rs[1])
		wantNotFound(t, rs[2])
		wantNotFound(t, rs[3])
		if got := s.folderOf(t, w.f, w.roads); got != w.archive {
			t.Errorf("after moving %s twice to %s, it is in %q", w.roads, w.archive, got)
		}
	})
	t.Run("spacesAndEmptyEntries", func(t TB) {
		w := s.world(t)
		a := s.call(t, "moveItems", s.ownerToken(), map[string]any{"userName": s.owner},
			map[string]any{"items": fmt.Sprintf(" %s , ,%s ", w.roads, w.hydrants), "folder": w.archive, "f": "json"})
		var out struct {
			Results []itemResult `json:"results"`
		}
		if err := decode(a.body, &out); err != nil || len(out.Results) != 2 || out.Results[0].ItemID != w.roads || out.Results[1].ItemID != w.hydrants {
			t.Errorf("items %q: want two results, for %s then %s (spaces trimmed, empty entries ignored), got %s",
				fmt.Sprintf(" %s , ,%s ", w.roads, w.hydrants), w.roads, w.hydrants, clip(a.raw, 400))
		}
		for _, id := range []string{w.roads, w.hydrants} {
			if got := s.folderOf(t, w.f, id); got != w.archive {
				t.Errorf("after moving %s, listed among spaces and empty entries, to %s, the content reads put it in %q", id, w.archive, got)
			}
		}
	})
}

// moveOne moves item with moveItem, or with moveItemFromFolder naming
// from as its folder when from is not "", as token.
func (s *suite) moveOne(t TB, token, user, from, item, folder string) *answer {
	t.Helper()
	params := map[string]any{"userName": user, "itemId": item}
	op := "moveItem"
	if from != "" {
		op, params["folderId"] = "moveItemFromFolder", from
	}
	return s.call(t, op, token, params, map[string]any{"folder": folder, "f": "json"})
}

// wantMovedTo checks a is the per-item move's success for item of user,
// naming the destination (/ for the root), and that the content reads put
// the item there.
func (s *suite) wantMovedTo(t TB, what string, a *answer, f *fixtures, item, folder string) {
	t.Helper()
	if a.err != nil {
		t.Errorf("%s: want success, got error %s", what, a.err)
		return
	}
	named := folder
	if named == "" {
		named = "/"
	}
	want := map[string]any{"success": true, "itemId": item, "owner": f.owner, "folder": named}
	if d := diff(want, a.body); len(d) > 0 {
		t.Errorf("%s: the answer differs from the documented one:\n  - %s", what, strings.Join(d, "\n  - "))
	}
	if got := s.folderOf(t, f, item); got != folder {
		t.Errorf("%s: the content reads put %s in %q, want %q", what, item, got, folder)
	}
}

// wantMoveError checks a is the per-item move's error with code,
// messageCode ("" for none) and message (when not "").
func (s *suite) wantMoveError(t TB, what string, a *answer, code int, messageCode, message string) {
	t.Helper()
	switch {
	case a.err == nil:
		t.Errorf("%s: answered %s; want the error envelope with code %d", what, clip(a.raw, 300), code)
	case a.err.Code != code || a.err.MessageCode != messageCode || (message != "" && a.err.Message != message):
		t.Errorf("%s: got error %s; want code %d %s %q", what, a.err, code, messageCode, message)
	}
}

// moveItemScenarios checks the per-item move both official clients use,
// moveItem and moveItemFromFolder, on fixtures of their own: the rules of
// moveItems for one item, read back through getItem and the content reads.
func (s *suite) moveItemScenarios(t TB) {
	owner := s.ownerToken()

	t.Run("toFolder", func(t TB) {
		w := s.world(t)
		s.wantMovedTo(t, "moveItem of Roads into Archive", s.moveOne(t, owner, s.owner, "", w.roads, w.archive), w.f, w.roads, w.archive)
		// An item in a folder moves through the same address (ArcGIS REST
		// JS never names the item's folder).
		s.wantMovedTo(t, "moveItem of Roads on to Projects", s.moveOne(t, owner, s.owner, "", w.roads, w.projects), w.f, w.roads, w.projects)
	})
	t.Run("toRoot", func(t TB) {
		w := s.world(t)
		s.wantMovedTo(t, `moveItem of Parcels to "/"`, s.moveOne(t, owner, s.owner, "", w.parcels, "/"), w.f, w.parcels, "")
	})
	t.Run("fromFolder", func(t TB) {
		w := s.world(t)
		s.wantMovedTo(t, "moveItemFromFolder of Parcels from Projects into Archive",
			s.moveOne(t, owner, s.owner, w.projects, w.parcels, w.archive), w.f, w.parcels, w.archive)
		s.wantMovedTo(t, `moveItemFromFolder of Parcels from Archive to "/"`,
			s.moveOne(t, owner, s.owner, w.archive, w.parcels, "/"), w.f, w.parcels, "")
	})
	t.Run("alreadyThere", func(t TB) {
		w := s.world(t)
		s.wantMoveError(t, "moveItem of Parcels into Projects, where it is", s.moveOne(t, owner, s.owner, "", w.parcels, w.projects), 500, "", msgAlreadyThere)
		s.wantMoveError(t, `moveItem of Roads to "/", where it is`, s.moveOne(t, owner, s.owner, "", w.roads, "/"), 500, "", msgAlreadyThere)
		s.wantMoveError(t, "moveItemFromFolder of Parcels into Projects, where it is",
			s.moveOne(t, owner, s.owner, w.projects, w.parcels, w.projects), 500, "", msgAlreadyThere)
		for item, folder := range map[string]string{w.roads: "", w.parcels: w.projects} {
			if got := s.folderOf(t, w.f, item); got != folder {
				t.Errorf("a refused move moved %s to %q", item, got)
			}
		}
	})
	t.Run("unknownItem", func(t TB) {
		w := s.world(t)
		s.wantMoveError(t, "moveItem of an id that is no item", s.moveOne(t, owner, s.owner, "", unknownItemID, w.archive), 400, "CONT_0001", msgItemNotFound)
		s.wantMoveError(t, "moveItemFromFolder of an id that is no item", s.moveOne(t, owner, s.owner, w.projects, unknownItemID, "/"), 400, "CONT_0001", msgItemNotFound)
	})
	t.Run("unknownFolder", func(t TB) {
		w := s.world(t)
		s.wantMoveError(t, "moveItem to a folder that is none of the user's", s.moveOne(t, owner, s.owner, "", w.roads, unknownFolderID), 400, "", "")
		if got := s.folderOf(t, w.f, w.roads); got != "" {
			t.Errorf("a move to an unknown folder moved Roads to %q", got)
		}
	})
	t.Run("byAdministrator", func(t TB) {
		if s.adminUser == "" || s.adminUser == s.owner {
			s.notRun(t, "needs a content owner other than the administrator (Target.MemberToken)")
		}
		w := s.world(t)
		s.wantMovedTo(t, "moveItem of the owner's Roads into Archive by the administrator",
			s.moveOne(t, s.adminToken, s.owner, "", w.roads, w.archive), w.f, w.roads, w.archive)
	})
}
