package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

// hostileRulesCatalog is what the rules refuse that the transport lets
// through: look-alike and control-character category titles, schemas empty
// or too deep before anything else is judged, and stored configuration past
// its bounds. None of them may change the store.
func hostileRulesCatalog() []hostileCase {
	schema := func(nodes ...string) string {
		return enc("memberCategorySchema", `{"memberCategorySchema":[`+strings.Join(nodes, ",")+`]}`)
	}
	title := func(t string) string { return `{"title":` + js(t) + `}` }
	under := func(t string, kids ...string) string {
		return `{"title":` + js(t) + `,"categories":[` + strings.Join(kids, ",") + `]}`
	}
	const repeats = "title repeats a sibling's title"
	manyKeys := map[string]int{}
	for i := range 201 {
		manyKeys[fmt.Sprintf("k%03d", i)] = i
	}
	config := func(v any) string { return enc("portalConfigProperties", js(v)) }
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }
	add(
		hostileCase{op: "assignMemberCategorySchema", name: "Café in NFC and NFD", path: hAssign, body: schema(title("Caf\u00e9"), title("Cafe\u0301")), code: 400, detail: "/Caf\u00e9: " + repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "Planning and Planning with a trailing space", path: hAssign, body: schema(under("Department", title("Planning"), title("Planning "))), code: 400, detail: "/Department/Planning: " + repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "USA and fullwidth USA", path: hAssign, body: schema(title("USA"), title("\uff35\uff33\uff21")), code: 400, detail: repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "a zero-width space inside a sibling's title", path: hAssign, body: schema(title("Planning"), title("Plan\u200bning")), code: 400, detail: repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "a zero-width joiner ending a sibling's title", path: hAssign, body: schema(title("Maine"), title("maine\u200d")), code: 400, detail: repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "sharp s and SS", path: hAssign, body: schema(title("Stra\u00dfe"), title("STRASSE")), code: 400, detail: repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "tab in a title", path: hAssign, body: schema(under("Office", title("North\tSouth"))), code: 400, detail: `/Office/"North\tSouth": title holds a control character`},
		hostileCase{op: "assignMemberCategorySchema", name: "newline in a title", path: hAssign, body: schema(title("A\nB")), code: 400, detail: "title holds a control character"},
		hostileCase{op: "assignMemberCategorySchema", name: "escaped NUL in a title", path: hAssign, body: schema(title("A\u0000B")), code: 400, detail: "title holds a control character"},
		hostileCase{op: "assignMemberCategorySchema", name: "line separator in a title", path: hAssign, body: schema(title("A\u2028B")), code: 400, detail: "title holds a control character"},
		hostileCase{op: "assignMemberCategorySchema", name: "fullwidth solidus in a title", path: hAssign, body: schema(title("North\uff0fSouth")), code: 400, detail: "title contains '/'"},
		hostileCase{op: "assignMemberCategorySchema", name: "title of zero-width spaces only", path: hAssign, body: schema(title("A"), under("B", title("\u200b"), title("\u200b\u200b"))), code: 400, detail: "/B/\u200b\u200b: " + repeats},
		hostileCase{op: "assignMemberCategorySchema", name: "129 characters after trimming", path: hAssign, body: schema(title(" " + strings.Repeat("x", 129) + " ")), code: 400, detail: "title is 129 characters, the maximum is 128"},
		hostileCase{op: "assignMemberCategorySchema", name: "4 levels with an empty title", path: hAssign, body: schema(under("A", under("", under("C", title("D"))))), code: 400, detail: "ORG_1132 Unable to assign member category schema. Schema exceeds max tree size: 4 levels, the maximum is 3"},
		hostileCase{op: "assignMemberCategorySchema", name: "4 levels with a 129-character title", path: hAssign, body: schema(under("A", under(strings.Repeat("b", 129), under("C", title("D"))))), code: 400, detail: "ORG_1132"},
		hostileCase{op: "assignMemberCategorySchema", name: "4 levels with a slash in a title", path: hAssign, body: schema(under("A/B", under("B", under("C", title("D"))))), code: 400, detail: "ORG_1132"},
		hostileCase{op: "assignMemberCategorySchema", name: "empty object", path: hAssign, body: enc("memberCategorySchema", `{}`), code: 400, detail: "ORG_1132 Unable to assign member category schema. Schema is empty"},
		hostileCase{op: "assignMemberCategorySchema", name: "null array", path: hAssign, body: enc("memberCategorySchema", `{"memberCategorySchema":null}`), code: 400, detail: "ORG_1132 Unable to assign member category schema. Schema is empty"},
		hostileCase{op: "updateSettings", name: "201 configuration properties", path: hUpdate, body: config(manyKeys), code: 400, detail: "portalConfigProperties: 201 properties would be stored, the maximum is 200"},
		hostileCase{op: "updateSettings", name: "70,000 bytes of configuration", path: hUpdate, body: config(map[string]string{"big": strings.Repeat("x", 70_000)}), code: 400, detail: "bytes of JSON would be stored, the maximum is 65536"},
	)
	return cs
}

// TestHostileRules sends the catalog on SQLite and PostgreSQL and checks
// every answer and that the store is unchanged.
func TestHostileRules(t *testing.T) {
	catalog := hostileRulesCatalog()
	t.Run("sqlite", func(t *testing.T) { runHostile(t, pt.New(t), catalog) })
	t.Run("postgres", func(t *testing.T) { runHostile(t, postgresPortal(t), catalog) })
}

// onEveryStore runs fn on a fresh server on SQLite and one on PostgreSQL.
func onEveryStore(t *testing.T, fn func(t *testing.T, p *pt.Portal)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, pt.New(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, postgresPortal(t)) })
}

// TestNumZeroAnswersTheTotal: num=0 asks for the total only; its nextStart
// is -1, so a client that follows nextStart stops.
func TestNumZeroAnswersTheTotal(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		for _, tc := range []struct{ path, list string }{
			{"/content/users/" + pt.Member, "items"},
			{hUsers, "users"},
		} {
			for _, start := range []string{"1", "2"} {
				a := ok(t, get(t, p, tc.path, pt.AdminToken, url.Values{"num": {"0"}, "start": {start}}))
				list, _ := a.body[tc.list].([]any)
				total, _ := a.body["total"].(float64)
				if total < 2 || len(list) != 0 || a.body["nextStart"] != -1.0 || a.body["num"] != 0.0 {
					t.Errorf("%s num=0 start=%s: want the total (at least 2), no %s, nextStart -1; got %s", tc.path, start, tc.list, a.raw)
				}
			}
		}
	})
}

// TestCategorySpelling: titles are stored trimmed and in NFC; members'
// categories take the schema's spelling, whatever the caller sent, and
// follow a rename that only changes case.
func TestCategorySpelling(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		schemaOf := func(usa string) []any {
			return []any{map[string]any{"title": "  Office Location ", "categories": []any{
				map[string]any{"title": usa}, map[string]any{"title": "Cafe\u0301"}}}}
		}
		ok(t, assign(t, p, pt.AdminToken, schemaOf("USA")))
		got := ok(t, get(t, p, schemaPath+"/memberCategorySchema", pt.MemberToken, nil))
		if want := "{\"memberCategorySchema\":[{\"categories\":[{\"title\":\"USA\"},{\"title\":\"Caf\u00e9\"}],\"title\":\"Office Location\"}]}"; js(got.body) != want {
			t.Errorf("schema read back: %s, want %s", js(got.body), want)
		}
		member := func() string {
			return js(ok(t, get(t, p, hMember, pt.AdminToken, nil)).body["categories"])
		}
		ok(t, post(t, p, hMember+"/update", pt.AdminToken, form("categories", `["/office location/usa","/OFFICE LOCATION/CAFE\u0301"]`)))
		if got, want := member(), "[\"/Office Location/USA\",\"/Office Location/Caf\u00e9\"]"; got != want {
			t.Errorf("member categories after an update in other case: %s, want %s", got, want)
		}
		ok(t, assign(t, p, pt.AdminToken, schemaOf("Usa")))
		if got, want := member(), "[\"/Office Location/Usa\",\"/Office Location/Caf\u00e9\"]"; got != want {
			t.Errorf("member categories after a case-only rename: %s, want %s", got, want)
		}
		list := ok(t, get(t, p, hUsers, pt.AdminToken, url.Values{"categories": {"/OFFICE location/usa"}}))
		if list.body["total"] != 1.0 {
			t.Errorf("members filtered by /OFFICE location/usa: %s, want the one member", list.raw)
		}
	})
}

// TestFilterByTitleWithComma: a category whose title holds a comma is
// assigned and filtered by in the JSON-array form of categories.
func TestFilterByTitleWithComma(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		ok(t, assign(t, p, pt.AdminToken, []any{map[string]any{"title": "Cities", "categories": []any{
			map[string]any{"title": "Portland, Maine"}, map[string]any{"title": "Portland"}}}}))
		ok(t, post(t, p, hMember+"/update", pt.AdminToken, form("categories", `["/Cities/Portland, Maine"]`)))
		users := func(filter string) []string {
			a := ok(t, get(t, p, hUsers, pt.AdminToken, url.Values{"categories": {filter}}))
			var names []string
			list, _ := a.body["users"].([]any)
			for _, u := range list {
				names = append(names, fmt.Sprint(u.(map[string]any)["username"]))
			}
			return names
		}
		if got := users(`["/Cities/Portland, Maine"]`); len(got) != 1 || got[0] != pt.Member {
			t.Errorf(`filter ["/Cities/Portland, Maine"]: %v, want [%s]`, got, pt.Member)
		}
		if got := users(`["/Cities/Portland"]`); len(got) != 0 {
			t.Errorf(`filter ["/Cities/Portland"]: %v, want nobody`, got)
		}
		if got := users(`/Cities/Portland,/Cities/Portland, Maine`); len(got) != 0 {
			t.Errorf("comma-separated filter splits the title: %v, want nobody", got)
		}
	})
}

// TestFolderTitleLookAlikes: one key computed in Go decides a user's folder
// titles on both stores: İ after i is a folder of its own (no failure of
// the database's index), look-alikes of a title are refused.
func TestFolderTitleLookAlikes(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		cf := hContent + "/createFolder"
		for _, title := range []string{"i", "\u0130", "Caf\u00e9"} {
			ok(t, post(t, p, cf, pt.MemberToken, form("title", title)))
		}
		before := dump(t, p)
		for _, title := range []string{"I", "CAFE\u0301", " caf\u00e9 ", "\uff29", "\u0130"} {
			fails(t, post(t, p, cf, pt.MemberToken, form("title", title)), 400, "title: a folder named")
		}
		fails(t, post(t, p, cf, pt.MemberToken, form("title", "\u200b")), 400, "title: required")
		if dump(t, p) != before {
			t.Error("a refused folder changed the store")
		}
	})
}

// TestPortalConfigBounds: stored configuration properties stop at 200 keys
// and 64 KiB of JSON, whatever the number of updates that add them; an
// update that removes keys is taken.
func TestPortalConfigBounds(t *testing.T) {
	onEveryStore(t, func(t *testing.T, p *pt.Portal) {
		batch := func(from, n int) string {
			m := map[string]any{}
			for i := from; i < from+n; i++ {
				m[fmt.Sprintf("k%03d", i)] = i
			}
			return js(m)
		}
		update := func(doc string) answer {
			return post(t, p, hUpdate, pt.AdminToken, form("portalConfigProperties", doc))
		}
		ok(t, update(batch(0, 150)))
		ok(t, update(batch(150, 50)))
		fails(t, update(batch(200, 1)), 400, "portalConfigProperties: 201 properties would be stored, the maximum is 200")
		ok(t, update(`{"k000":null,"k001":null}`))
		ok(t, update(batch(200, 2)))
		// Bytes: 30 KB values, the third passes 64 KiB.
		drop := map[string]any{}
		for i := 2; i < 12; i++ {
			drop[fmt.Sprintf("k%03d", i)] = nil
		}
		ok(t, update(js(drop)))
		big := strings.Repeat("x", 30_000)
		ok(t, update(js(map[string]string{"big1": big})))
		ok(t, update(js(map[string]string{"big2": big})))
		fails(t, update(js(map[string]string{"big3": big})), 400, "bytes of JSON would be stored, the maximum is 65536")
		got := ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
		cfg, _ := got.body["portalConfigProperties"].(map[string]any)
		if len(cfg) != 192 || cfg["big3"] != nil || cfg["big2"] == nil {
			t.Errorf("stored properties: %d keys (big3 %v), want 192 without big3", len(cfg), cfg["big3"] != nil)
		}
		anon := ok(t, get(t, p, settingsPath, "", nil))
		if _, shown := anon.body["portalConfigProperties"]; shown {
			t.Errorf("the anonymous settings read shows portalConfigProperties: %.300s", anon.raw)
		}
	})
}

// clock is a settable clock for the server.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestSigninThrottle: after 5 failed sign-ins for a user name, even the
// right password is refused for 15 minutes (by the server's clock); after
// 50 failures from one address, every sign-in from it is.
func TestSigninThrottle(t *testing.T) {
	c := &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := pt.New(t, pt.WithClock(c.Now))
	signin := func(user, password string) answer {
		return post(t, p, "/generateToken", "", form("username", user, "password", password))
	}
	for range 5 {
		fails(t, signin(pt.Member, "wrong"), 400, "Invalid username or password.")
	}
	fails(t, signin(pt.Member, "jsmith-password"), 429, "Too many invalid logon attempts.", "username: 5 failed sign-ins in 15 minutes; try again in 15 minutes")
	fails(t, signin("JSMITH", "jsmith-password"), 429, "username: 5 failed sign-ins")
	ok(t, signin("admin", "admin-password")) // another user name is not held up
	c.add(14 * time.Minute)
	fails(t, signin(pt.Member, "jsmith-password"), 429, "try again in 1 minute")
	c.add(time.Minute)
	ok(t, signin(pt.Member, "jsmith-password"))

	// A success clears the user name's count.
	for range 4 {
		fails(t, signin(pt.Member, "wrong"), 400, "Invalid username or password.")
	}
	ok(t, signin(pt.Member, "jsmith-password"))
	for range 4 {
		fails(t, signin(pt.Member, "wrong"), 400, "Invalid username or password.")
	}
	ok(t, signin(pt.Member, "jsmith-password"))

	// Per address: unknown user names count as much as known ones. The 8
	// failures above count too.
	c.add(15 * time.Minute)
	for i := range 50 {
		fails(t, signin(fmt.Sprintf("nobody%d", i), "x"), 400, "Invalid username or password.")
	}
	fails(t, signin("admin", "admin-password"), 429, "50 failed sign-ins from this address")
	c.add(15 * time.Minute)
	a := ok(t, signin("admin", "admin-password"))
	var tok struct{ Token string }
	if err := json.Unmarshal([]byte(a.raw), &tok); err != nil || tok.Token == "" {
		t.Errorf("sign-in after the window: %s", a.raw)
	}
}

// TestSigninSuccessesAreNoFailures: only failed sign-ins count. Five hundred
// right passwords in a row from one address all succeed, and a success takes
// back its own advance count only: failures counted before it stay.
func TestSigninSuccessesAreNoFailures(t *testing.T) {
	c := &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := pt.New(t, pt.WithClock(c.Now))
	signin := func(user, password string) answer {
		return post(t, p, "/generateToken", "", form("username", user, "password", password))
	}
	for i := range 500 {
		if a := signin(pt.Admin, pt.AdminPassword); a.body["token"] == nil {
			t.Fatalf("sign-in %d of 500 from one address: %s", i+1, a.raw)
		}
	}
	// 49 failures from this address, then a success by a known account:
	// the address's count stays at 49, so the next failure is its 50th.
	for i := range 49 {
		fails(t, signin(fmt.Sprintf("nobody%d", i), "x"), 400, "Invalid username or password.")
	}
	ok(t, signin(pt.Admin, pt.AdminPassword))
	fails(t, signin("nobody49", "x"), 400, "Invalid username or password.")
	fails(t, signin(pt.Admin, pt.AdminPassword), 429, "50 failed sign-ins from this address")
}

// TestSigninThrottleConcurrent: attempts sent at once cannot pass a limit
// together: of 12 concurrent wrong passwords for one user name exactly 5 are
// judged, and of 70 concurrent failures from one address exactly 50.
func TestSigninThrottleConcurrent(t *testing.T) {
	p := pt.New(t)
	codes := func(n int, user func(i int) string) map[int]int {
		got := make(chan int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				body := form("username", user(i), "password", "wrong").Encode()
				resp, err := http.Post(p.URL+"/generateToken", "application/x-www-form-urlencoded", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					got <- 0
					return
				}
				defer resp.Body.Close()
				var env struct{ Error struct{ Code int } }
				if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
					t.Error(err)
				}
				got <- env.Error.Code
			})
		}
		wg.Wait()
		close(got)
		count := map[int]int{}
		for c := range got {
			count[c]++
		}
		return count
	}
	if got := codes(12, func(int) string { return pt.Member }); got[400] != 5 || got[429] != 7 {
		t.Errorf("12 concurrent failures for one user name: %v, want 5 judged (400) and 7 refused (429)", got)
	}
	// 5 failures from this address so far: 45 more are judged.
	if got := codes(70, func(i int) string { return fmt.Sprintf("nobody%d", i) }); got[400] != 45 || got[429] != 25 {
		t.Errorf("70 concurrent failures from one address after 5: %v, want 45 judged (400) and 25 refused (429)", got)
	}
}
