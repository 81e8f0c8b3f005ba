package conformance

import (
	"strings"
)

func (s *suite) updateSettings(t TB, token string, body map[string]any) *answer {
	t.Helper()
	body["f"] = "json"
	return s.call(t, "updateSettings", token, map[string]any{"portalId": s.portalID}, body)
}

func (s *suite) mustUpdateSettings(t TB, what string, body map[string]any) {
	t.Helper()
	a := s.updateSettings(t, s.adminToken, body)
	if a.err != nil || a.body["success"] != true {
		t.Fatalf("updateSettings (%s): want {\"success\":true}, got %s", what, clip(a.raw, 400))
	}
}

// wantSettings fails t unless the settings read back as want.
func (s *suite) wantSettings(t TB, what string, want map[string]any) {
	t.Helper()
	got := s.readSettings(t)
	if d := diff(want, got); len(d) > 0 {
		t.Errorf("%s: the settings read back differ:\n  - %s", what, strings.Join(d, "\n  - "))
	}
}

// settingsScenarios checks the rules of settings/update through the
// settings read.
func (s *suite) settingsScenarios(t TB) {
	anon := map[string]any{"title": "Conformance notice", "text": "Please accept the terms.", "buttons": "acceptAndDecline", "enabled": true}
	auth := map[string]any{"title": "Members notice", "text": "Use responsibly.", "buttons": "okOnly", "enabled": true}
	banner := map[string]any{"text": "Conformance check in progress", "bgColor": "#005EA2", "fontColor": "white", "enabled": true}

	t.Run("roundTrip", func(t TB) {
		s.freshOrg(t)
		s.mustUpdateSettings(t, "two notices and a banner", map[string]any{
			"anonymousAccessNotice": anon, "authenticatedAccessNotice": auth, "informationalBanner": banner})
		s.wantSettings(t, "after setting two notices and a banner", map[string]any{
			"anonymousAccessNotice": anon, "authenticatedAccessNotice": auth, "informationalBanner": banner})
	})
	t.Run("objectReplacedWholeOthersKept", func(t TB) {
		s.freshOrg(t)
		s.mustUpdateSettings(t, "two notices and a banner", map[string]any{
			"anonymousAccessNotice": anon, "authenticatedAccessNotice": auth, "informationalBanner": banner})
		disabled := map[string]any{"enabled": false}
		s.mustUpdateSettings(t, "a disabled banner alone", map[string]any{"informationalBanner": disabled})
		s.wantSettings(t, "after sending only {\"enabled\":false} as the banner (it replaces the banner wholly; the notices stay)", map[string]any{
			"anonymousAccessNotice": anon, "authenticatedAccessNotice": auth, "informationalBanner": disabled})
	})
	t.Run("clearEmptyFields", func(t TB) {
		s.freshOrg(t)
		s.mustUpdateSettings(t, "a notice and a banner", map[string]any{"anonymousAccessNotice": anon, "informationalBanner": banner})
		s.mustUpdateSettings(t, "the banner as {} with clearEmptyFields=true", map[string]any{
			"informationalBanner": map[string]any{}, "clearEmptyFields": true})
		s.wantSettings(t, "after clearing the banner", map[string]any{"anonymousAccessNotice": anon})
	})
	t.Run("lowContrastAccepted", func(t TB) {
		s.freshOrg(t)
		pale := map[string]any{"text": "Pale", "bgColor": "white", "fontColor": "#FEFEFE", "enabled": true}
		s.mustUpdateSettings(t, "a banner of low contrast, which is advice, not a rule", map[string]any{"informationalBanner": pale})
		s.wantSettings(t, "after a low-contrast banner", map[string]any{"informationalBanner": pale})
	})
	t.Run("enabledBannerWithoutTextStoresNothing", func(t TB) {
		s.freshOrg(t)
		s.mustUpdateSettings(t, "a notice", map[string]any{"anonymousAccessNotice": anon})
		before := s.readSettings(t)
		a := s.updateSettings(t, s.adminToken, map[string]any{
			"authenticatedAccessNotice": auth, // valid, but must not be stored either
			"informationalBanner":       map[string]any{"bgColor": "navy", "fontColor": "white", "enabled": true},
		})
		switch {
		case a.err == nil:
			t.Errorf("an enabled banner without text: accepted (%s); want the error envelope with code 400", clip(a.raw, 200))
		case a.err.Code != 400:
			t.Errorf("an enabled banner without text: got %s; want code 400", a.err)
		case !a.err.detailsContain("informationalBanner.text"):
			t.Errorf("an enabled banner without text: no detail names informationalBanner.text: %q", a.err.Details)
		}
		s.wantSettings(t, "after a rejected request (nothing of it may be stored)", before)
	})
	t.Run("portalConfigPropertiesMerged", func(t TB) {
		s.freshOrg(t)
		custom := "conformance" + s.runID // a property without a name in the contract
		first := map[string]any{"tokenExpiration": 120.0, "httpsDomains": []any{"example.org", "maps.example.org"}, custom: true}
		a := s.updateSettings(t, s.adminToken, map[string]any{"portalConfigProperties": first})
		if why := s.gated(s.ops["updateSettings"], map[string]any{"portalConfigProperties": first}, a); why != "" {
			s.notRun(t, "%s", why)
		}
		if a.err != nil || a.body["success"] != true {
			t.Fatalf("updateSettings with portalConfigProperties %s: want success, got %s", jsonText(first), clip(a.raw, 400))
		}
		s.wantSettings(t, "after the first properties", map[string]any{"portalConfigProperties": first})

		s.mustUpdateSettings(t, "more properties", map[string]any{"portalConfigProperties": map[string]any{"longTokenExpiration": 20160.0, "tokenExpiration": 60.0}})
		merged := map[string]any{"tokenExpiration": 60.0, "longTokenExpiration": 20160.0, "httpsDomains": first["httpsDomains"], custom: true}
		s.wantSettings(t, "after more properties (merged key by key)", map[string]any{"portalConfigProperties": merged})

		s.mustUpdateSettings(t, "tokenExpiration and the unnamed property as null", map[string]any{
			"portalConfigProperties": map[string]any{"tokenExpiration": nil, custom: nil}})
		delete(merged, "tokenExpiration")
		delete(merged, custom)
		s.wantSettings(t, "after sending keys as null (removed, others kept)", map[string]any{"portalConfigProperties": merged})
	})
}
