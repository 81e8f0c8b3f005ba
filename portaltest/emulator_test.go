package portaltest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/gen/emulatorapi"
	"github.com/orgportal/portal-api/portaltest"
)

// dump is the store's content, password hashes included: a state compare
// within one store.
func dump(t *testing.T, p *portaltest.Portal) string {
	t.Helper()
	var b bytes.Buffer
	if err := p.Store.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func isCode(err error, code int) bool {
	var e *client.Error
	return errors.As(err, &e) && e.Code == code
}

// skip passes calls untouched, times fire, and then the rule is spent.
func TestFaultSkipAndTimes(t *testing.T) {
	p := portaltest.New(t)
	id := p.Fault(t, portaltest.Fault{Operation: "getSettings", Skip: 1, Times: 2, Error: &client.Error{Code: 498}})
	c := p.Client(portaltest.AdminToken)
	var got []bool
	for range 5 {
		_, err := c.Settings(t.Context(), "")
		if err != nil && !isCode(err, 498) {
			t.Fatalf("settings: %v", err)
		}
		got = append(got, err != nil)
	}
	if want := []bool{false, true, true, false, false}; !reflect.DeepEqual(got, want) {
		t.Fatalf("failed calls %v, want %v", got, want)
	}
	fs := p.Faults(t)
	if len(fs) != 1 || *fs[0].Id != id || *fs[0].Matched != 3 || *fs[0].Fired != 2 || *fs[0].Remaining != 0 {
		t.Errorf("faults %s", mustJSON(fs))
	}
	// The journal names the rule that fired, and only on those calls.
	var fired []string
	for _, r := range p.Requests(t, "getSettings") {
		fired = append(fired, deref(r.Fault))
	}
	if want := []string{"", id, id, "", ""}; !reflect.DeepEqual(fired, want) {
		t.Errorf("journal faults %q, want %q", fired, want)
	}
}

// A rule matches by path parameter, by the caller's user name and by the
// caller's token; other calls pass.
func TestFaultMatch(t *testing.T) {
	p := portaltest.New(t)
	p.Fault(t, portaltest.Fault{Operation: "getSettings", Times: portaltest.Always, Match: map[string]string{"portalId": portaltest.OtherOrgID}, Error: &client.Error{Code: 403}})
	p.Fault(t, portaltest.Fault{Operation: "getItem", Times: portaltest.Always, Match: map[string]string{"userName": portaltest.Member}, Error: &client.Error{Code: 500, MessageCode: "X_1"}})
	p.Fault(t, portaltest.Fault{Operation: "getUserContent", Times: portaltest.Always, Match: map[string]string{"token": portaltest.PublisherToken}, Error: &client.Error{Code: 499}})
	admin, member, publisher := p.Client(portaltest.AdminToken), p.Client(portaltest.MemberToken), p.Client(portaltest.PublisherToken)
	ctx := t.Context()
	if _, err := admin.Settings(ctx, portaltest.OrgID); err != nil {
		t.Errorf("settings of the demo organization: %v", err)
	}
	if _, err := p.Client(portaltest.OtherAdminToken).Settings(ctx, portaltest.OtherOrgID); !isCode(err, 403) {
		t.Errorf("settings of the other organization: %v, want the injected 403", err)
	}
	if _, err := member.Item(ctx, portaltest.RoadsItem); !isCode(err, 500) {
		t.Errorf("item as jsmith: %v, want the injected 500", err)
	}
	if _, err := admin.Item(ctx, portaltest.RoadsItem); err != nil {
		t.Errorf("item as admin: %v", err)
	}
	if _, err := publisher.UserContent(ctx, "jdoe", "", client.Page{}); !isCode(err, 499) {
		t.Errorf("content with the publisher's token: %v, want the injected 499", err)
	}
	if _, err := member.UserContent(ctx, portaltest.Member, "", client.Page{}); err != nil {
		t.Errorf("content with the member's token: %v", err)
	}
}

// A whole-request fault changes nothing; a 429 carries its headers and the
// envelope; a dropped call gets no answer; a delay alone lets the call
// run.
func TestFaultEffects(t *testing.T) {
	p := portaltest.New(t)
	ctx := t.Context()
	admin := p.Client(portaltest.AdminToken)
	banner := client.SettingsUpdate{InformationalBanner: &client.Banner{Text: "Maintenance tonight", BgColor: "red", FontColor: "white", Enabled: true}}

	before := dump(t, p)
	p.Fault(t, portaltest.Fault{Operation: "updateSettings", Error: &client.Error{Code: 500, MessageCode: "GWM_0001", Message: "Boom.", Details: []string{"injected"}}})
	err := admin.UpdateSettings(ctx, "", banner)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != 500 || ce.MessageCode != "GWM_0001" || ce.Message != "Boom." || !reflect.DeepEqual(ce.Details, []string{"injected"}) {
		t.Fatalf("update: %v, want the injected envelope", err)
	}
	if after := dump(t, p); after != before {
		t.Fatal("a faulted settings/update changed the store")
	}

	p.Fault(t, portaltest.Fault{Operation: "moveItems", Status: 429, Headers: map[string]string{"Retry-After": "7"}})
	form := strings.NewReader("items=" + portaltest.RoadsItem + "&folder=" + portaltest.ArchiveFolder + "&f=json&token=" + portaltest.MemberToken)
	resp, err := http.Post(p.URL+"/content/users/jsmith/moveItems", "application/x-www-form-urlencoded", form)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Error struct{ Code int } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || env.Error.Code != 429 {
		t.Errorf("throttled: HTTP %d, Retry-After %q, code %d", resp.StatusCode, resp.Header.Get("Retry-After"), env.Error.Code)
	}
	if after := dump(t, p); after != before {
		t.Fatal("a throttled moveItems changed the store")
	}

	// A POST: Go's transport sends an idempotent GET again on a connection
	// closed without an answer.
	p.Fault(t, portaltest.Fault{Operation: "updateSettings", Drop: true})
	if err := admin.UpdateSettings(ctx, "", banner); err == nil {
		t.Error("a dropped call was answered")
	} else if ce = nil; errors.As(err, &ce) {
		t.Errorf("dropped: %v, want a transport error", err)
	}
	if after := dump(t, p); after != before {
		t.Fatal("a dropped settings/update changed the store")
	}

	p.Fault(t, portaltest.Fault{Operation: "updateSettings", Delay: time.Millisecond})
	if err := admin.UpdateSettings(ctx, "", banner); err != nil {
		t.Fatalf("a delayed update: %v", err)
	}
	s, err := admin.Settings(ctx, "")
	if err != nil || s.InformationalBanner == nil || s.InformationalBanner.Text != "Maintenance tonight" {
		t.Errorf("after the delayed update: %v %+v", err, s)
	}

	var answers []emulatorapi.RequestAnswer
	for _, r := range p.Requests(t, "") {
		answers = append(answers, r.Answer)
	}
	if len(answers) != 5 || deref(answers[0].Code) != 500 || answers[1].Status != 429 || !deref(answers[2].Dropped) ||
		!answers[3].Success || !answers[4].Success {
		t.Errorf("journal answers %s", mustJSON(answers))
	}
}

// Per-item errors fail those items and leave them alone; the others move.
func TestFaultItemErrors(t *testing.T) {
	p := portaltest.New(t)
	p.Fault(t, portaltest.Fault{Operation: "moveItems", ItemErrors: map[string]*client.Error{
		portaltest.RoadsItem: {Code: 500, Message: "Item already exists in target folder"},
	}})
	member := p.Client(portaltest.MemberToken)
	res, err := member.MoveItems(t.Context(), portaltest.Member, []string{portaltest.RoadsItem, portaltest.HydrantsItem}, portaltest.ArchiveFolder)
	if err != nil || len(res) != 2 {
		t.Fatalf("moveItems: %v %+v", err, res)
	}
	if res[0].Success || !isCode(res[0].Err, 500) || !res[1].Success {
		t.Fatalf("results %+v", res)
	}
	for id, want := range map[string]string{portaltest.RoadsItem: "", portaltest.HydrantsItem: portaltest.ArchiveFolder} {
		it, err := member.Item(t.Context(), id)
		if err != nil || it.Folder != want {
			t.Errorf("%s: %v, folder %q, want %q", id, err, it.Folder, want)
		}
	}
	rs := p.Requests(t, "moveItems")
	if len(rs) != 1 || deref(rs[0].Answer.FailedItems) != 1 || !rs[0].Answer.Success {
		t.Errorf("journal %s", mustJSON(rs))
	}
	// "*" fails every item of deleteItems, which then deletes nothing.
	p.Fault(t, portaltest.Fault{Operation: "deleteItems", ItemErrors: map[string]*client.Error{"*": {Code: 403}}})
	before := dump(t, p)
	res, err = member.DeleteItems(t.Context(), portaltest.Member, []string{portaltest.RoadsItem, portaltest.HydrantsItem})
	if err != nil || len(res) != 2 || res[0].Success || res[1].Success {
		t.Fatalf("deleteItems: %v %+v", err, res)
	}
	if dump(t, p) != before {
		t.Error("deleteItems with every item failed changed the store")
	}
}

// The journal holds the decoded banner a client sent, the ids as an array,
// the caller, and never a token or a password.
func TestJournalDecodesParams(t *testing.T) {
	p := portaltest.New(t)
	admin := p.Client(portaltest.AdminToken)
	banner := &client.Banner{Text: "Read-only from 18:00", BgColor: "#FFCC00", FontColor: "black", Enabled: true}
	if err := admin.UpdateSettings(t.Context(), "", client.SettingsUpdate{InformationalBanner: banner}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client(portaltest.MemberToken).MoveItems(t.Context(), portaltest.Member, []string{portaltest.RoadsItem, portaltest.HydrantsItem}, "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client("").GenerateToken(t.Context(), portaltest.Admin, portaltest.AdminPassword, 0); err != nil {
		t.Fatal(err)
	}
	rs := p.Requests(t, "updateSettings")
	if len(rs) != 1 {
		t.Fatalf("journal: %s", mustJSON(rs))
	}
	if byPath := p.Requests(t, "settings/update"); !reflect.DeepEqual(byPath, rs) {
		t.Errorf("by path: %s, want %s", mustJSON(byPath), mustJSON(rs))
	}
	r := rs[0]
	want := map[string]any{"text": "Read-only from 18:00", "bgColor": "#FFCC00", "fontColor": "black", "enabled": true}
	if !reflect.DeepEqual(r.Params["informationalBanner"], want) {
		t.Errorf("banner in the journal: %#v, want %#v", r.Params["informationalBanner"], want)
	}
	if r.Params["portalId"] != "self" || r.Params["token"] != portaltest.Admin || deref(r.Caller) != portaltest.Admin || r.Method != "POST" ||
		!strings.HasSuffix(r.Path, "/portals/self/settings/update") || !r.Answer.Success || r.Answer.Status != 200 {
		t.Errorf("entry %s", mustJSON(r))
	}
	mv := p.Requests(t, "moveItems")
	if len(mv) != 1 || !reflect.DeepEqual(mv[0].Params["items"], []any{portaltest.RoadsItem, portaltest.HydrantsItem}) {
		t.Errorf("moveItems entry %s", mustJSON(mv))
	}
	all := mustJSON(p.Requests(t, ""))
	for _, secret := range []string{portaltest.AdminToken, portaltest.MemberToken, portaltest.AdminPassword} {
		if strings.Contains(all, secret) {
			t.Errorf("the journal holds %q: %s", secret, all)
		}
	}
	p.ClearRequests(t)
	if rs := p.Requests(t, ""); len(rs) != 0 {
		t.Errorf("after clearing: %d entries", len(rs))
	}
}

// Advancing the clock past a generated token's expiry makes it answer 498;
// generateToken's expires reads the clock.
func TestAdvancingTheClockExpiresAToken(t *testing.T) {
	p := portaltest.New(t)
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	p.SetClock(at)
	tok, err := p.Client("").GenerateToken(t.Context(), portaltest.Admin, portaltest.AdminPassword, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := tok.Expires.Sub(at); d < time.Hour-time.Second || d > time.Hour+time.Second {
		t.Errorf("expires %v, want an hour after the emulator's clock %v", tok.Expires, at)
	}
	c := p.Client(tok.Token)
	if _, err := c.Settings(t.Context(), ""); err != nil {
		t.Fatalf("a fresh token: %v", err)
	}
	// Through HTTP, as a script in any language would.
	req, _ := http.NewRequest(http.MethodPost, p.Root+"/emulator/clock", strings.NewReader(`{"advance":"2h"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st emulatorapi.ClockState
	_ = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if resp.StatusCode != 200 || st.Offset == "0s" || !st.Now.After(at.Add(2*time.Hour-time.Second)) {
		t.Fatalf("clock: HTTP %d %+v", resp.StatusCode, st)
	}
	if _, err := c.Settings(t.Context(), ""); !isCode(err, 498) {
		t.Fatalf("two hours later: %v, want 498", err)
	}
	// Static tokens never expire.
	if _, err := p.Client(portaltest.AdminToken).Settings(t.Context(), ""); err != nil {
		t.Errorf("a static token: %v", err)
	}
	// Created and modified times read the clock too.
	member := p.Client(portaltest.MemberToken)
	id, err := member.AddItem(t.Context(), portaltest.Member, "", client.NewItem{Title: "Later", Type: "CSV"})
	if err != nil {
		t.Fatal(err)
	}
	it, err := member.Item(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if d := it.Created.Sub(at.Add(2 * time.Hour)); d < 0 || d > time.Minute || !it.Modified.Equal(it.Created) {
		t.Errorf("created %v, modified %v: want the emulator's clock, two hours after %v", it.Created, it.Modified, at)
	}
}

// A clock change out of range panics and leaves the clock alone: the
// methods take no testing.TB, and a silent wrap gave tests a time they did
// not ask for.
func TestClockChangesOutOfRangePanic(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := portaltest.New(t, portaltest.WithClock(func() time.Time { return base }))
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	p.SetClock(at)
	for name, change := range map[string]func(){
		"advance 2562047h":  func() { p.AdvanceClock(2562047 * time.Hour) },
		"advance -2562047h": func() { p.AdvanceClock(-2562047 * time.Hour) },
		"set year 1":        func() { p.SetClock(time.Time{}) },
		"set 9999":          func() { p.SetClock(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			change()
		}()
		if now := p.Now(); !now.Equal(at) {
			t.Fatalf("%s: the clock moved to %s", name, now)
		}
	}
}

// The client signed in with credentials renews its token on an injected
// 498 and sends the call again, without the test's help.
func TestCredentialRenewalRecoversFromInjected498(t *testing.T) {
	p := portaltest.New(t)
	c := p.Client("", client.WithCredentials(portaltest.Admin, portaltest.AdminPassword))
	if _, err := c.Settings(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	p.Fault(t, portaltest.Fault{Operation: "updateSettings", Error: &client.Error{Code: 498}})
	err := c.UpdateSettings(t.Context(), "", client.SettingsUpdate{InformationalBanner: &client.Banner{Text: "renewed", Enabled: false}})
	if err != nil {
		t.Fatalf("update after an injected 498: %v", err)
	}
	var codes []int
	for _, r := range p.Requests(t, "updateSettings") {
		codes = append(codes, deref(r.Answer.Code))
	}
	if !reflect.DeepEqual(codes, []int{498, 0}) {
		t.Errorf("updateSettings answers %v, want [498 0]", codes)
	}
	if n := len(p.Requests(t, "generateToken")); n != 2 {
		t.Errorf("generateToken called %d times, want 2 (sign-in and renewal)", n)
	}
}

// Two organizations created side by side do not see each other, and a
// taken id is refused.
func TestOrganizationsSideBySide(t *testing.T) {
	p := portaltest.New(t)
	org := func(n string) emulatorapi.Organization {
		return emulatorapi.Organization{Id: "ORG" + n, Name: "Test " + n, Users: &[]emulatorapi.OrganizationUser{{
			Username: "admin" + n, Password: "pw" + n, Role: "org_admin", Tokens: &[]string{"token" + n},
			Folders: &[]emulatorapi.OrganizationFolder{{Id: "folder" + n, Title: "Work"}},
			Items:   &[]emulatorapi.OrganizationItem{{Id: "item" + n, Title: "Roads", Type: "CSV"}},
		}}, Apps: &[]emulatorapi.OrganizationApp{{ClientId: "app" + n, ClientSecret: ptrTo("secret" + n), RedirectUris: []string{"http://127.0.0.1/cb"}}}}
	}
	p.CreateOrganization(t, org("A"))
	p.CreateOrganization(t, org("B"))
	a, b := p.Client("tokenA"), p.Client("tokenB")
	ctx := t.Context()
	if err := a.UpdateSettings(ctx, "", client.SettingsUpdate{InformationalBanner: &client.Banner{Text: "A only", BgColor: "red", FontColor: "white", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	if s, err := b.Settings(ctx, ""); err != nil || s.InformationalBanner != nil {
		t.Errorf("B's settings: %v %+v", err, s)
	}
	if err := b.UpdateSettings(ctx, "ORGA", client.SettingsUpdate{InformationalBanner: &client.Banner{Text: "B was here"}}); !isCode(err, 403) {
		t.Errorf("B updating A's settings: %v, want 403", err)
	}
	if _, err := b.Item(ctx, "itemA"); err == nil {
		t.Error("B read A's private item")
	}
	if it, err := a.Item(ctx, "itemA"); err != nil || it.Owner != "adminA" {
		t.Errorf("A's item: %v %+v", err, it)
	}
	// A's application signs in with its credentials; its token reads A.
	appTok, err := p.Client("").AppToken(ctx, "appA", "secretA", time.Hour)
	if err != nil {
		t.Fatalf("A's application token: %v", err)
	}
	if pa, err := p.Client(appTok.Token).Portal(ctx, "self"); err != nil || pa.ID != "ORGA" {
		t.Errorf("portals/self with A's application token: %v %+v", err, pa)
	}
	if _, err := p.Client("").AppToken(ctx, "appA", "secretB", time.Hour); !isCode(err, 400) {
		t.Errorf("A's application with B's secret: %v, want 400", err)
	}

	// Taken: the id, a user name, a token, a folder id, an item id, a client id.
	taken := org("A")
	taken.Id = "ORGC"
	before := dump(t, p)
	r, err := p.Emulator().CreateOrganizationWithResponse(ctx, taken)
	if err != nil || r.StatusCode() != 409 {
		t.Fatalf("a taken organization: %v %s", err, r.Body)
	}
	for _, want := range []string{"adminA", "tokenA", "folderA", "itemA", "appA"} {
		if !bytes.Contains(r.Body, []byte(want)) {
			t.Errorf("409 does not name %s: %s", want, r.Body)
		}
	}
	r, err = p.Emulator().CreateOrganizationWithResponse(ctx, emulatorapi.Organization{Id: portaltest.OrgID, Name: "again"})
	if err != nil || r.StatusCode() != 409 {
		t.Fatalf("the demo organization's id: %v %s", err, r.Body)
	}
	if dump(t, p) != before {
		t.Error("a refused organization changed the store")
	}

	p.DeleteOrganization(t, "ORGA")
	if _, err := a.Settings(ctx, ""); !isCode(err, 498) {
		t.Errorf("A's token after A was removed: %v, want 498", err)
	}
	if _, err := p.Client(appTok.Token).Portal(ctx, "self"); !isCode(err, 498) {
		t.Errorf("A's application token after A was removed: %v, want 498", err)
	}
	if _, err := p.Client("").AppToken(ctx, "appA", "secretA", time.Hour); !isCode(err, 400) {
		t.Errorf("A's application after A was removed: %v, want 400", err)
	}
	if _, err := b.Settings(ctx, ""); err != nil {
		t.Errorf("B after A was removed: %v", err)
	}
	dr, err := p.Emulator().DeleteOrganizationWithResponse(ctx, "ORGA", emulatorapi.DeleteOrganizationJSONRequestBody{})
	if err != nil || dr.StatusCode() != 404 {
		t.Errorf("removing it again: %v %s", err, dr.Body)
	}
}

// Snapshot, change, restore: the store is as saved, and tokens issued in
// between stop working.
func TestSnapshotAndRestore(t *testing.T) {
	p := portaltest.New(t)
	snapshotRoundTrip(t, p)
}

func snapshotRoundTrip(t *testing.T, p *portaltest.Portal) {
	t.Helper()
	ctx := t.Context()
	p.Snapshot(t, "before")
	saved := dump(t, p)
	member := p.Client(portaltest.MemberToken)
	if _, err := member.MoveItems(ctx, portaltest.Member, []string{portaltest.RoadsItem}, portaltest.ArchiveFolder); err != nil {
		t.Fatal(err)
	}
	tok, err := p.Client("").GenerateToken(ctx, portaltest.Admin, portaltest.AdminPassword, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client(tok.Token).Settings(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if dump(t, p) == saved {
		t.Fatal("the store did not change")
	}
	p.Restore(t, "before")
	if got := dump(t, p); got != saved {
		t.Errorf("after restore:\n%s\nwant:\n%s", got, saved)
	}
	if _, err := p.Client(tok.Token).Settings(ctx, ""); !isCode(err, 498) {
		t.Errorf("a token issued after the snapshot: %v, want 498", err)
	}
	p.Snapshot(t, "after")
	names := []string{}
	for _, s := range p.Snapshots(t) {
		names = append(names, s.Name)
	}
	if !reflect.DeepEqual(names, []string{"after", "before"}) {
		t.Errorf("snapshots %v", names)
	}
	p.DeleteSnapshot(t, "after")
	r, err := p.Emulator().RestoreSnapshotWithResponse(ctx, "after", emulatorapi.RestoreSnapshotJSONRequestBody{})
	if err != nil || r.StatusCode() != 404 {
		t.Errorf("restoring a deleted snapshot: %v %s", err, r.Body)
	}
	r2, err := p.Emulator().SaveSnapshotWithResponse(ctx, "no/slash", emulatorapi.SaveSnapshotJSONRequestBody{})
	if err != nil || r2.StatusCode() == 200 {
		t.Errorf("a bad snapshot name: %v %s", err, r2.Body)
	}
}

// Reset clears the fault rules, the journal and the clock's offset too.
func TestResetClearsFaultsJournalAndClock(t *testing.T) {
	p := portaltest.New(t)
	p.Fault(t, portaltest.Fault{Operation: "getSettings", Times: portaltest.Always, Error: &client.Error{Code: 500}})
	p.AdvanceClock(time.Hour)
	if _, err := p.Client(portaltest.AdminToken).Settings(t.Context(), ""); !isCode(err, 500) {
		t.Fatalf("settings: %v", err)
	}
	r, err := p.Emulator().ResetWithResponse(t.Context(), emulatorapi.ResetJSONRequestBody{})
	if err != nil || r.StatusCode() != 200 {
		t.Fatalf("reset: %v %s", err, r.Body)
	}
	if fs := p.Faults(t); len(fs) != 0 {
		t.Errorf("faults after reset: %s", mustJSON(fs))
	}
	if rs := p.Requests(t, ""); len(rs) != 0 {
		t.Errorf("journal after reset: %s", mustJSON(rs))
	}
	if d := time.Until(p.Now()); d > time.Minute || d < -time.Minute {
		t.Errorf("clock off by %v after reset", d)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Each rule counts the calls it matches whatever the others do: the first
// call is the first rule's, the second the second's, skipped by one.
func TestFaultRulesCountIndependently(t *testing.T) {
	p := portaltest.New(t)
	first := p.Fault(t, portaltest.Fault{Operation: "getItem", Error: &client.Error{Code: 500}})
	second := p.Fault(t, portaltest.Fault{Operation: "getItem", Skip: 1, Status: 429, Headers: map[string]string{"Retry-After": "5"}})
	c := p.Client(portaltest.MemberToken)
	var codes []int
	for range 3 {
		_, err := c.Item(t.Context(), portaltest.RoadsItem)
		var ce *client.Error
		if errors.As(err, &ce) {
			codes = append(codes, ce.Code)
		} else if err != nil {
			t.Fatal(err)
		} else {
			codes = append(codes, 0)
		}
	}
	if !reflect.DeepEqual(codes, []int{500, 429, 0}) {
		t.Errorf("codes %v, want [500 429 0]", codes)
	}
	var fired []string
	for _, r := range p.Requests(t, "getItem") {
		fired = append(fired, deref(r.Fault))
	}
	if want := []string{first, second, ""}; !reflect.DeepEqual(fired, want) {
		t.Errorf("rules fired %q, want %q", fired, want)
	}
}

// Reset forgets failed sign-ins: a user throttled before it signs in after.
func TestResetForgetsFailedSignins(t *testing.T) {
	p := portaltest.New(t)
	anon := p.Client("")
	ctx := t.Context()
	for range 5 {
		if _, err := anon.GenerateToken(ctx, portaltest.Admin, "wrong", 0); !isCode(err, 400) {
			t.Fatalf("a wrong password: %v, want 400", err)
		}
	}
	if _, err := anon.GenerateToken(ctx, portaltest.Admin, portaltest.AdminPassword, 0); !isCode(err, 429) {
		t.Fatalf("the right password after 5 failures: %v, want 429", err)
	}
	p.Reset(t)
	if _, err := anon.GenerateToken(ctx, portaltest.Admin, portaltest.AdminPassword, 0); err != nil {
		t.Errorf("the right password after a reset: %v", err)
	}
}

// The journal keeps no secret of the OAuth 2.0 sign-in: passwords, client
// secrets, codes, verifiers and refresh tokens are redacted, whatever the
// answer, while the other parameters stay as sent.
func TestJournalRedactsSecrets(t *testing.T) {
	p := portaltest.New(t)
	post := func(path string, form map[string]string) {
		t.Helper()
		v := make([]string, 0, len(form))
		for k, x := range form {
			v = append(v, k+"="+x)
		}
		resp, err := http.Post(p.URL+path, "application/x-www-form-urlencoded", strings.NewReader(strings.Join(v, "&")))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	secrets := map[string]string{"client_secret": "s3cret-one", "code": "s3cret-two", "code_verifier": strings.Repeat("v", 43),
		"refresh_token": "s3cret-three"}
	post("/oauth2/token", map[string]string{"grant_type": "authorization_code", "client_id": "demo-app", "redirect_uri": "http://127.0.0.1/cb",
		"client_secret": secrets["client_secret"], "code": secrets["code"], "code_verifier": secrets["code_verifier"]})
	post("/oauth2/token", map[string]string{"grant_type": "refresh_token", "client_id": "demo-app", "refresh_token": secrets["refresh_token"]})
	post("/generateToken", map[string]string{"username": "jsmith", "password": "s3cret-four"})
	raw := mustJSON(p.Requests(t, ""))
	for name, v := range secrets {
		if strings.Contains(raw, v) {
			t.Errorf("the journal keeps %s: %s", name, raw)
		}
	}
	if strings.Contains(raw, "s3cret-four") {
		t.Errorf("the journal keeps the password: %s", raw)
	}
	rs := p.Requests(t, "oauthToken")
	if len(rs) != 2 || rs[0].Params["client_secret"] != "(redacted)" || rs[0].Params["client_id"] != "demo-app" ||
		rs[1].Params["refresh_token"] != "(redacted)" || rs[1].Params["grant_type"] != "refresh_token" {
		t.Errorf("oauthToken calls as journaled: %s", mustJSON(rs))
	}
}

func ptrTo[T any](v T) *T { return &v }

// Unmatched lists what the code under test called that the emulator does
// not have, over HTTPS too, and none of the calls it has.
func TestUnmatched(t *testing.T) {
	p := portaltest.New(t, portaltest.WithTLS(), portaltest.WithContext("/portal"))
	if _, err := p.Client(portaltest.MemberToken).Item(t.Context(), portaltest.RoadsItem); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{p.Root + "/portal/info?f=json", p.URL + "/community/users?q=roads&f=json&token=" + portaltest.MemberToken} {
		resp, err := p.HTTPClient().Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s: %s", u, resp.Status)
		}
	}
	got := p.Unmatched(t)
	if len(got) != 2 || got[0].Path != "/portal/info" || got[1].Path != "/portal/sharing/rest/community/users" {
		t.Fatalf("Unmatched: %s", mustJSON(got))
	}
	second := got[1]
	if second.Operation != "(unmatched)" || deref(second.Caller) != portaltest.Member || second.Params["q"] != "(not kept)" ||
		second.Params["f"] != "json" || second.Params["token"] != portaltest.Member || second.Answer.Status != 404 {
		t.Errorf("entry %s", mustJSON(second))
	}
	if all := p.Requests(t, ""); len(all) != 3 || all[0].Operation != "getItem" {
		t.Errorf("the whole journal: %s", mustJSON(all))
	}
	if same := p.Requests(t, "(unmatched)"); !reflect.DeepEqual(same, got) {
		t.Errorf(`Requests(t, "(unmatched)"): %s`, mustJSON(same))
	}
}
