package portaltest_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/portaltest"
)

// README: the example of "Testing your automation against the emulator".
func TestNightlyBannerScript(t *testing.T) {
	p := portaltest.New(t)
	ctx := t.Context()
	// The script under test signs in with a password, as a scheduled job does.
	script := p.Client("", client.WithCredentials(portaltest.Admin, portaltest.AdminPassword))
	banner := client.SettingsUpdate{InformationalBanner: &client.Banner{
		Text: "Maintenance tonight", BgColor: "#FFCC00", FontColor: "black", Enabled: true}}

	// Its token expires mid-run: the portal answers 498 once.
	p.Fault(t, portaltest.Fault{Operation: "updateSettings", Error: &client.Error{Code: 498}})
	if err := script.UpdateSettings(ctx, "", banner); err != nil {
		t.Fatalf("the script gave up on an expired token: %v", err)
	}

	// It sent exactly this banner, once it had a fresh token.
	calls := p.Requests(t, "updateSettings")
	if len(calls) != 2 || *calls[0].Answer.Code != 498 || !calls[1].Answer.Success {
		t.Fatalf("updateSettings calls: %+v", calls)
	}
	if got := calls[1].Params["informationalBanner"].(map[string]any)["text"]; got != "Maintenance tonight" {
		t.Errorf("banner text %q", got)
	}

	// Tomorrow, the same job with a generated token that has expired by then.
	p.Snapshot(t, "banner-set")
	tok, err := p.Client("").GenerateToken(ctx, portaltest.Admin, portaltest.AdminPassword, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p.AdvanceClock(25 * time.Hour)
	if _, err := p.Client(tok.Token).Settings(ctx, ""); err == nil {
		t.Error("a token generated for an hour still works a day later")
	}
	p.Restore(t, "banner-set")
}

// The README shows the test above as it is.
func TestReadmeShowsTheExampleTest(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(src), "func TestNightlyBannerScript")
	end := strings.Index(string(src), "\n}\n") + 3
	if start < 0 || end < start {
		t.Fatal("readme_test.go: TestNightlyBannerScript not found")
	}
	if !strings.Contains(string(readme), string(src[start:end])) {
		t.Errorf("README.md does not hold TestNightlyBannerScript as in portaltest/readme_test.go:\n%s", src[start:end])
	}
}
