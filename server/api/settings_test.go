package api_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

const settingsPath = "/portals/" + pt.OrgID + "/settings"

func TestSettingsRoundTrip(t *testing.T) {
	p := pt.New(t)
	banner := `{"text":"Read-only","bgColor":"grey","fontColor":"#FFFFFF","enabled":true}`
	notice := `{"title":"T","text":"Accept?","buttons":"okOnly","enabled":true}`
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", banner, "authenticatedAccessNotice", notice)))
	got := ok(t, get(t, p, settingsPath, pt.MemberToken, nil))
	if js(got.body["informationalBanner"]) != `{"bgColor":"grey","enabled":true,"fontColor":"#FFFFFF","text":"Read-only"}` {
		t.Errorf("banner read back: %s", got.raw)
	}
	if got.body["anonymousAccessNotice"] != nil {
		t.Errorf("a notice never set is present: %s", got.raw)
	}
	// A parameter not given stays; one given replaces wholly.
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"enabled":false}`)))
	got = ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
	if js(got.body["informationalBanner"]) != `{"enabled":false}` || got.body["authenticatedAccessNotice"] == nil {
		t.Errorf("replacement: %s", got.raw)
	}
	// clearEmptyFields turns {} into a cleared setting; without it {} is stored.
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("authenticatedAccessNotice", `{}`)))
	if got = ok(t, get(t, p, settingsPath, pt.AdminToken, nil)); js(got.body["authenticatedAccessNotice"]) != `{}` {
		t.Errorf("{} without clearEmptyFields: %s", got.raw)
	}
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("authenticatedAccessNotice", `{}`, "clearEmptyFields", "true")))
	if got = ok(t, get(t, p, settingsPath, pt.AdminToken, nil)); got.body["authenticatedAccessNotice"] != nil {
		t.Errorf("{} with clearEmptyFields was not cleared: %s", got.raw)
	}
}

func TestPortalConfigMerge(t *testing.T) {
	p := pt.New(t)
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("portalConfigProperties",
		`{"tokenExpiration":120,"httpsDomains":["example.org"],"someUnnamedFlag":true,"appList":"a,b"}`)))
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("portalConfigProperties",
		`{"tokenExpiration":null,"searchHostedEnabled":false}`)))
	got := ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
	want := `{"appList":"a,b","httpsDomains":["example.org"],"searchHostedEnabled":false,"someUnnamedFlag":true}`
	if js(got.body["portalConfigProperties"]) != want {
		t.Errorf("merged properties = %s, want %s", js(got.body["portalConfigProperties"]), want)
	}
	// Anonymous readers, and members of other organizations, see the notices
	// but never the properties.
	for _, token := range []string{"", pt.OtherAdminToken} {
		public := ok(t, get(t, p, settingsPath, token, nil))
		if _, has := public.body["portalConfigProperties"]; has {
			t.Errorf("read with token %q shows portalConfigProperties: %s", token, public.raw)
		}
	}
}

func TestSettingsRejectsBadValues(t *testing.T) {
	p := pt.New(t)
	cases := []struct {
		name, field, value, detail string
	}{
		{"buttons", "anonymousAccessNotice", `{"buttons":"yesNo"}`, "anonymousAccessNotice.buttons"},
		{"notice enabled without title", "anonymousAccessNotice", `{"text":"x","buttons":"okOnly","enabled":true}`, "anonymousAccessNotice.title: required when the notice is enabled"},
		{"notice unknown field", "authenticatedAccessNotice", `{"titel":"x"}`, "authenticatedAccessNotice"},
		{"notice not an object", "authenticatedAccessNotice", `[1]`, "authenticatedAccessNotice"},
		{"notice broken JSON", "authenticatedAccessNotice", `{"title":`, "authenticatedAccessNotice"},
		{"enabled is a string", "informationalBanner", `{"enabled":"yes"}`, "informationalBanner.enabled"},
		{"banner enabled without text", "informationalBanner", `{"bgColor":"navy","fontColor":"white","enabled":true}`, "informationalBanner.text: required when the banner is enabled"},
		{"bad hex color", "informationalBanner", `{"text":"x","bgColor":"#12345","fontColor":"white"}`, `informationalBanner.bgColor: "#12345"`},
		{"unknown color name", "informationalBanner", `{"text":"x","bgColor":"navy","fontColor":"blurple"}`, `informationalBanner.fontColor: "blurple"`},
		{"relative URL", "portalConfigProperties", `{"extentService":"/tiles"}`, "portalConfigProperties.extentService"},
		{"ftp URL", "portalConfigProperties", `{"surveyUrl":"ftp://x.org/a"}`, "portalConfigProperties.surveyUrl"},
		{"zero expiration", "portalConfigProperties", `{"tokenExpiration":0}`, "portalConfigProperties.tokenExpiration"},
		{"fractional expiration", "portalConfigProperties", `{"longTokenExpiration":1.5}`, "portalConfigProperties.longTokenExpiration"},
		{"bad host", "portalConfigProperties", `{"httpsDomains":["exa mple.org"]}`, "portalConfigProperties.httpsDomains"},
		{"boolean as string", "portalConfigProperties", `{"sceneViewerEnabled":"true"}`, "portalConfigProperties.sceneViewerEnabled"},
		{"footer link without url or email", "portalConfigProperties", `{"footerLinks":[{"title":"x"}]}`, "portalConfigProperties.footerLinks"},
		{"footer link bad type", "portalConfigProperties", `{"footerLinks":[{"title":"x","email":"a@b.org","type":"spam"}]}`, "portalConfigProperties.footerLinks"},
		{"unnamed object property", "portalConfigProperties", `{"someObject":{"a":1}}`, "portalConfigProperties.someObject: must be a JSON scalar or array"},
		{"properties not an object", "portalConfigProperties", `"x"`, "portalConfigProperties"},
	}
	before := dump(t, p)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A valid banner rides along: nothing may be stored when any part is invalid.
			valid := form("informationalBanner", `{"text":"ok","bgColor":"red","fontColor":"white","enabled":true}`)
			if c.field == "informationalBanner" {
				valid = form("anonymousAccessNotice", `{"title":"t","text":"x","buttons":"okOnly","enabled":true}`)
			}
			valid.Set(c.field, c.value)
			a := post(t, p, settingsPath+"/update", pt.AdminToken, valid)
			fails(t, a, 400, c.detail, "Unable to update organization settings.")
			if after := dump(t, p); after != before {
				t.Errorf("the rejected update changed the store")
			}
		})
	}
	if after := dump(t, p); after != before {
		t.Errorf("rejected updates changed the store")
	}
}

func TestSettingsAcceptsColorForms(t *testing.T) {
	p := pt.New(t)
	for _, c := range []string{"#abc", "#ABCD", "#a1b2c3", "#a1b2c3d4", "NAVY", "rebeccapurple", "transparent"} {
		ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner",
			fmt.Sprintf(`{"text":"x","bgColor":%q,"fontColor":"white","enabled":true}`, c))))
	}
	// Low contrast is advice, not a rule.
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"text":"x","bgColor":"white","fontColor":"white","enabled":true}`)))
}

func TestVersionAndDeploymentGates(t *testing.T) {
	props := `{"tokenExpiration":60}`
	iot := `{"iotViewerUrl":"https://velocity.example.org"}`
	cases := []struct {
		version, deployment, props string
		wantDetail                 string // "" = accepted
	}{
		{"11.5", "enterprise", props, ""},
		{"11.0", "enterprise", props, ""},
		{"10.9", "enterprise", props, "portalConfigProperties: requires version 11.0; this portal is 10.9"},
		{"11.0", "enterprise", iot, "portalConfigProperties.iotViewerUrl: requires version 11.1; this portal is 11.0"},
		{"11.1", "enterprise", iot, ""},
		{"11.5", "online", props, "portalConfigProperties: not available on online deployments"},
	}
	for _, c := range cases {
		t.Run(c.version+"-"+c.deployment+"-"+c.props, func(t *testing.T) {
			p := pt.New(t, pt.WithVersion(c.version), pt.WithDeployment(c.deployment))
			a := post(t, p, settingsPath+"/update", pt.AdminToken, form("portalConfigProperties", c.props))
			if c.wantDetail == "" {
				ok(t, a)
			} else {
				fails(t, a, 400, c.wantDetail)
			}
		})
	}
	t.Run("notices work on online", func(t *testing.T) {
		p := pt.New(t, pt.WithDeployment("online"))
		ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"enabled":false}`)))
		if got := ok(t, get(t, p, settingsPath, pt.AdminToken, nil)); got.body["portalConfigProperties"] != nil {
			t.Errorf("online read shows portalConfigProperties: %s", got.raw)
		}
	})
	t.Run("settings/update does not exist before 10.8", func(t *testing.T) {
		p := pt.New(t, pt.WithVersion("10.7"))
		a := post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"enabled":false}`))
		if a.status != 404 || a.errCode() != 404 {
			t.Errorf("got %d %s", a.status, a.raw)
		}
		ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
	})
}

func TestSettingsAuth(t *testing.T) {
	p := pt.New(t)
	f := func() map[string][]string { return form("informationalBanner", `{"enabled":false}`) }
	for _, c := range []struct {
		token string
		code  int
	}{
		{"", 499}, {"nope", 498}, {pt.MemberToken, 403}, {pt.PublisherToken, 403}, {pt.CatAdminToken, 403},
		{pt.ViewerToken, 403}, {pt.OtherAdminToken, 403}, {pt.SecAdminToken, 0}, {pt.AdminToken, 0},
	} {
		a := post(t, p, settingsPath+"/update", c.token, f())
		if c.code == 0 {
			ok(t, a)
		} else {
			fails(t, a, c.code)
		}
	}
	if a := get(t, p, "/portals/FFFFFFFFFFFFFFFF/settings", pt.AdminToken, nil); !strings.Contains(a.raw, "Portal does not exist") {
		t.Errorf("unknown portal: %s", a.raw)
	}
	ok(t, post(t, p, "/portals/self/settings/update", pt.SecAdminToken, f()))
}

func TestEmptyPortalConfigReadsAsObject(t *testing.T) {
	p := pt.New(t)
	a := ok(t, get(t, p, settingsPath, pt.AdminToken, nil))
	if js(a.body["portalConfigProperties"]) != `{}` {
		t.Errorf("members read portalConfigProperties as %s, want {}", a.raw)
	}
}

// The caller's own organization is written without a lookup; if it is gone
// meanwhile (here a reset made behind the server's back, as through another
// replica, while the token is still cached), so is the token, which the
// write confirms in its transaction: the update answers 498 and stores
// nothing.
func TestSettingsUpdateOfAnOrganizationGone(t *testing.T) {
	p := pt.New(t)
	ok(t, get(t, p, "/portals/self/settings", pt.AdminToken, nil)) // the token is now cached
	if err := p.Store.Reset(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	var empty bytes.Buffer
	if err := p.Store.Dump(t.Context(), &empty); err != nil {
		t.Fatal(err)
	}
	fails(t, post(t, p, "/portals/self/settings/update", pt.AdminToken, form("informationalBanner", `{"text":"x"}`)),
		498, "Invalid token.")
	var after bytes.Buffer
	if err := p.Store.Dump(t.Context(), &after); err != nil {
		t.Fatal(err)
	}
	if after.String() != empty.String() {
		t.Errorf("the failed update stored something:\n%s", after.String())
	}
}
