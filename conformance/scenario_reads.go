package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// readScenarios checks the reads a script makes around the three
// operations: search, the group search and read, a user's tags, and the user
// and portal documents' fields that clients read, each against what the
// caller may see.
func (s *suite) readScenarios(t TB) {
	t.Run("searchItems", s.readSearchItems)
	t.Run("searchGroups", s.readSearchGroups)
	t.Run("getGroup", s.readGetGroup)
	t.Run("userTags", s.readUserTags)
	t.Run("userDocument", s.readUserDocument)
	t.Run("portalHelpers", s.readPortalHelpers)
}

// searchPage is a search's answer.
type searchPage struct {
	Total     int              `json:"total"`
	Start     int              `json:"start"`
	Num       int              `json:"num"`
	NextStart int              `json:"nextStart"`
	Results   []map[string]any `json:"results"`
}

func (s *suite) search(t TB, op, token string, params map[string]any) searchPage {
	t.Helper()
	var p searchPage
	body := ok(t, fmt.Sprintf("%s %v", op, params), s.call(t, op, token, params, nil))
	if err := decode(body, &p); err != nil {
		t.Fatalf("%s %v: %v", op, params, err)
	}
	return p
}

// The retries of searchIndexed: the first after indexPollFirst, each next
// one after twice as long, at most indexPollMax.
const (
	indexPollFirst = 100 * time.Millisecond
	indexPollMax   = 2 * time.Second
)

// indexWait is Target.IndexWait, or its default.
func (s *suite) indexWait() time.Duration {
	if s.target.IndexWait > 0 {
		return s.target.IndexWait
	}
	return defaultIndexWait
}

// searchIndexed is search for what the suite wrote at written, on a portal
// whose search index may lag its writes (untilIndexed).
func (s *suite) searchIndexed(t TB, written time.Time, op, token string, params map[string]any, found func(searchPage) bool) searchPage {
	t.Helper()
	return untilIndexed(s, t, written, fmt.Sprintf("%s %v", op, params), func() searchPage { return s.search(t, op, token, params) }, found)
}

// untilIndexed reads (read) what the portal answers from its index about
// what the suite wrote at written: it reads again until found says the
// answer holds what it must, or until IndexWait has passed since written,
// and returns the last answer, for the caller to judge as it would judge a
// single read. An answer that holds it at once is returned at once: waiting
// never decides a check, the answers do. A check that something is NOT
// found must read once: waiting for it to be missing would pass a portal
// that shows it until the wait ends.
func untilIndexed[T any](s *suite, t TB, written time.Time, what string, read func() T, found func(T) bool) T {
	t.Helper()
	deadline := written.Add(s.indexWait())
	pause := indexPollFirst
	for n := 1; ; n++ {
		v := read()
		if found(v) {
			if n > 1 {
				t.Logf("%s: found at read %d, %s after the write (the index lags)", what, n, time.Since(written).Round(time.Millisecond))
			}
			return v
		}
		left := time.Until(deadline)
		if left <= 0 {
			t.Logf("%s: not found, read %d times until %s after the write (Target.IndexWait %s)", what, n, time.Since(written).Round(time.Millisecond), s.indexWait())
			return v
		}
		timer := time.NewTimer(min(pause, left))
		select {
		case <-timer.C:
		case <-t.Context().Done():
			timer.Stop()
			return v
		}
		pause = min(2*pause, indexPollMax)
	}
}

// holds reports whether a search's results hold every one of ids.
func holds(ids ...string) func(searchPage) bool {
	return func(p searchPage) bool {
		got := resultIDs(p.Results)
		for _, id := range ids {
			if !slices.Contains(got, id) {
				return false
			}
		}
		return true
	}
}

// totalAtLeast reports whether a search's total is n or more.
func totalAtLeast(n int) func(searchPage) bool {
	return func(p searchPage) bool { return p.Total >= n }
}

func resultIDs(rs []map[string]any) []string {
	var out []string
	for _, r := range rs {
		id, _ := r["id"].(string)
		out = append(out, id)
	}
	return out
}

// readSearchItems: items the owner adds (private) are found by their
// owner, by id and by a quoted title; never by an anonymous caller; pages
// follow nextStart to the end. A portal's search index may lag the writes:
// each search that must find the items waits for them (searchIndexed), the
// anonymous search, which must not, comes after those and does not wait.
func (s *suite) readSearchItems(t TB) {
	f := s.emptyFixtures(t, s.owner, s.ownerToken())
	title := s.uniqueTitle("Search Roads")
	a := s.addItem(t, f, title, "Feature Service", "")
	titleB := s.uniqueTitle("Search Parcels")
	b := s.addItem(t, f, titleB, "Web Map", "")
	written := time.Now()

	byTitle := s.searchIndexed(t, written, "searchItems", s.ownerToken(), map[string]any{"q": `title:"` + title + `" owner:` + s.owner}, holds(a))
	if got := resultIDs(byTitle.Results); !slices.Equal(got, []string{a}) || byTitle.Total != 1 {
		t.Errorf("search title:%q as its owner: ids %v (total %d), want [%s]", title, got, byTitle.Total, a)
	}
	if len(byTitle.Results) == 1 {
		r := byTitle.Results[0]
		if r["owner"] != s.owner || r["title"] != title || r["type"] != "Feature Service" || r["access"] != "private" {
			t.Errorf("search found %s", jsonText(r))
		}
	}

	both := fmt.Sprintf("(id:%s OR id:%s) AND owner:%s", a, b, s.owner)
	all := s.searchIndexed(t, written, "searchItems", s.ownerToken(), map[string]any{"q": both, "sortField": "title", "sortOrder": "desc"}, holds(a, b))
	want := []string{a, b}
	if strings.ToLower(title) < strings.ToLower(titleB) {
		want = []string{b, a}
	}
	if got := resultIDs(all.Results); !slices.Equal(got, want) {
		t.Errorf("search %s sorted by title, descending: ids %v, want %v", both, got, want)
	}
	// One a page: the first page points at the second, which ends.
	first := s.searchIndexed(t, written, "searchItems", s.ownerToken(), map[string]any{"q": both, "num": 1}, totalAtLeast(2))
	if first.Total != 2 || len(first.Results) != 1 || first.NextStart != 2 {
		t.Errorf("search %s, num=1: total %d, %d results, nextStart %d; want 2, 1, 2", both, first.Total, len(first.Results), first.NextStart)
	}
	second := s.searchIndexed(t, written, "searchItems", s.ownerToken(), map[string]any{"q": both, "num": 1, "start": 2}, totalAtLeast(2))
	if len(second.Results) != 1 || second.NextStart != -1 || slices.Equal(resultIDs(second.Results), resultIDs(first.Results)) {
		t.Errorf("search %s, num=1, start=2: %v, nextStart %d; want the other item and -1", both, resultIDs(second.Results), second.NextStart)
	}
	count := s.searchIndexed(t, written, "searchItems", s.ownerToken(), map[string]any{"q": both, "num": 0}, totalAtLeast(2))
	if count.Total != 2 || len(count.Results) != 0 || count.NextStart != -1 {
		t.Errorf("search %s, num=0: total %d, %d results, nextStart %d; want 2, 0, -1", both, count.Total, len(count.Results), count.NextStart)
	}

	// What must not be found is searched once, after the searches above
	// found the items indexed.
	anon := s.search(t, "searchItems", "", map[string]any{"q": both})
	if anon.Total != 0 || len(anon.Results) != 0 {
		t.Errorf("an anonymous search finds private items: %v", resultIDs(anon.Results))
	}
	if s.adminToken != "" {
		admin := s.searchIndexed(t, written, "searchItems", s.adminToken, map[string]any{"q": both}, totalAtLeast(2))
		if admin.Total != 2 {
			t.Errorf("the administrator's search %s: total %d, want 2 (an administrator sees the organization's private items)", both, admin.Total)
		}
	}
}

// readSearchGroups: every group anonymous callers find is public; every
// group found is readable by its id with the same title and owner; the
// caller's membership is in each.
func (s *suite) readSearchGroups(t TB) {
	anon := s.search(t, "searchGroups", "", map[string]any{"q": "accountid:" + s.portalID, "num": 100})
	for _, g := range anon.Results {
		if g["access"] != "public" {
			t.Errorf("an anonymous group search finds a group of access %v: %s", g["access"], jsonText(g["id"]))
		}
	}
	mine := s.search(t, "searchGroups", s.ownerToken(), map[string]any{"q": "accountid:" + s.portalID, "sortField": "title", "num": 100})
	if mine.Total < anon.Total {
		t.Errorf("%s finds %d groups, an anonymous caller %d: a member sees at least the public ones", s.owner, mine.Total, anon.Total)
	}
	for _, g := range mine.Results {
		id, _ := g["id"].(string)
		m := asMap(g["userMembership"])
		if m == nil || m["memberType"] == nil {
			t.Errorf("group %s found without userMembership.memberType: %s", id, jsonText(g))
		}
		read := ok(t, "getGroup "+id, s.call(t, "getGroup", s.ownerToken(), map[string]any{"groupId": id}, nil))
		if read["title"] != g["title"] || read["owner"] != g["owner"] || read["access"] != g["access"] {
			t.Errorf("group %s: the search says %s, the group %s", id, jsonText(g), jsonText(read))
		}
	}
	count := s.search(t, "searchGroups", s.ownerToken(), map[string]any{"q": "accountid:" + s.portalID, "num": 0})
	if count.Total != mine.Total || len(count.Results) != 0 || count.NextStart != -1 {
		t.Errorf("group search, num=0: total %d, %d results, nextStart %d; want %d, 0, -1", count.Total, len(count.Results), count.NextStart, mine.Total)
	}
}

// readGetGroup: a group id that does not exist is the portal's error; the
// groups of the owner's own document are readable by the owner.
func (s *suite) readGetGroup(t TB) {
	a := s.call(t, "getGroup", s.ownerToken(), map[string]any{"groupId": "ffffffffffffffffffffffffffffffff"}, nil)
	if a.err == nil || a.err.Code != 400 {
		t.Errorf("getGroup of an unknown id: %s, want the error envelope with code 400", clip(a.raw, 300))
	}
	self := s.readSelf(t, s.ownerToken(), s.owner)
	for _, g := range asList(self["groups"]) {
		id, _ := asMap(g)["id"].(string)
		read := ok(t, "getGroup "+id, s.call(t, "getGroup", s.ownerToken(), map[string]any{"groupId": id}, nil))
		if m := asMap(read["userMembership"]); m["memberType"] == "none" {
			t.Errorf("group %s is in %s's groups, but its userMembership says none", id, s.owner)
		}
	}
}

// readUserDocument: community/self carries what clients read (email,
// groups, provider, access, names, culture and units); another member's
// document read by a non-administrator shows no email.
func (s *suite) readUserDocument(t TB) {
	self := s.readSelf(t, s.ownerToken(), s.owner)
	for _, k := range []string{"email", "firstName", "lastName", "provider", "access", "units", "culture", "created", "modified"} {
		if _, ok := self[k]; !ok {
			t.Errorf("community/self as %s has no %s", s.owner, k)
		}
	}
	if _, ok := self["groups"].([]any); !ok {
		t.Errorf("community/self as %s: groups %s is no array", s.owner, jsonText(self["groups"]))
	}
	if s.adminToken == "" || s.adminUser == "" || s.adminUser == s.owner {
		return
	}
	byAdmin := ok(t, "getMember "+s.owner, s.call(t, "getMember", s.adminToken, map[string]any{"userName": s.owner}, nil))
	if !jsonEqual(byAdmin["email"], self["email"]) {
		t.Errorf("the administrator reads %s's email as %s, the user as %s", s.owner, jsonText(byAdmin["email"]), jsonText(self["email"]))
	}
	if s.ownerToken() == s.adminToken {
		return
	}
	other := s.call(t, "getMember", s.ownerToken(), map[string]any{"userName": s.adminUser}, nil)
	if other.err == nil {
		if _, shown := other.body["email"]; shown {
			t.Errorf("%s reads the administrator %s's email: %s", s.owner, s.adminUser, clip(other.raw, 300))
		}
	}
}

// readPortalHelpers: portals/self carries helperServices and the token
// limits clients read.
func (s *suite) readPortalHelpers(t TB) {
	portal := s.readPortal(t, s.ownerToken(), s.owner)
	if asMap(portal["helperServices"]) == nil {
		t.Errorf("portals/self: helperServices %s is no object", jsonText(portal["helperServices"]))
	}
	if _, ok := portal["maxTokenExpirationMinutes"].(float64); !ok {
		t.Errorf("portals/self: maxTokenExpirationMinutes %s is no number", jsonText(portal["maxTokenExpirationMinutes"]))
	}
}

// readUserTags: a tag of two items the owner adds is counted twice in the
// owner's tags as the owner reads them, each counted tag at least once.
func (s *suite) readUserTags(t TB) {
	f := s.emptyFixtures(t, s.owner, s.ownerToken())
	tag := s.uniqueTitle("tag")
	for _, title := range []string{"Tagged Roads", "Tagged Parcels"} {
		a := s.call(t, "addItem", f.token, map[string]any{"userName": f.owner},
			map[string]any{"title": s.uniqueTitle(title), "type": "CSV", "tags": tag, "f": "json"})
		body := ok(t, "addItem "+title, a)
		id, _ := body["id"].(string)
		if id == "" {
			t.Fatalf("addItem %s: no item id in %s", title, clip(a.raw, 300))
		}
		f.createdItems = append(f.createdItems, id)
	}
	written := time.Now()
	type tagCount struct {
		Tag   string `json:"tag"`
		Count int    `json:"count"`
	}
	type tagCounts struct {
		Tags []tagCount `json:"tags"`
	}
	// The portal may count tags from the index its search uses, which lags
	// the writes: read until the new tag is counted twice (untilIndexed).
	got := untilIndexed(s, t, written, "getUserTags "+s.owner, func() tagCounts {
		var got tagCounts
		body := ok(t, "getUserTags "+s.owner, s.call(t, "getUserTags", s.ownerToken(), map[string]any{"userName": s.owner}, nil))
		if err := decode(body, &got); err != nil {
			t.Fatalf("getUserTags %s: %v", s.owner, err)
		}
		return got
	}, func(got tagCounts) bool {
		return slices.ContainsFunc(got.Tags, func(c tagCount) bool { return c.Tag == tag && c.Count == 2 })
	})
	found := false
	for _, c := range got.Tags {
		if c.Count < 1 {
			t.Errorf("getUserTags %s: tag %q counted %d times", s.owner, c.Tag, c.Count)
		}
		if c.Tag == tag {
			found = true
			if c.Count != 2 {
				t.Errorf("getUserTags %s: %q counted %d times, want 2 (two items carry it)", s.owner, tag, c.Count)
			}
		}
	}
	if !found {
		t.Errorf("getUserTags %s: no %q among %d tags", s.owner, tag, len(got.Tags))
	}
}
