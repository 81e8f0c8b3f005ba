package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// The floor's statements do on portald's schema what settings/update and
// the settings read do: what one writes the other reads, and an unknown
// token writes nothing. bench-pg's ratios mean nothing otherwise.
func TestPGFloorStatements(t *testing.T) {
	dsn := pgtest.DSN(t)
	p := pt.New(t, pt.WithDSN(dsn))
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	f := PGFloor{Pool: pool, Org: pt.OrgID}
	admin := p.Client(pt.AdminToken)

	written := client.Banner{Text: "From the floor", BgColor: "#003366", FontColor: "white", Enabled: true}
	doc, err := json.Marshal(written)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write(ctx, pt.AdminToken, string(doc)); err != nil {
		t.Fatalf("floor write: %v", err)
	}
	s, err := admin.Settings(ctx, pt.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	if s.InformationalBanner == nil || *s.InformationalBanner != written {
		t.Fatalf("portald reads %+v after the floor wrote %+v", s.InformationalBanner, written)
	}

	if err := f.Write(ctx, "no-such-token", `{"text":"lost","enabled":false}`); err == nil {
		t.Error("the floor wrote with an unknown token")
	}
	updated := client.Banner{Text: "From portald", BgColor: "red", FontColor: "white", Enabled: true}
	if err := admin.UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{InformationalBanner: &updated}); err != nil {
		t.Fatal(err)
	}
	answer, err := f.Read(ctx)
	if err != nil {
		t.Fatalf("floor read: %v", err)
	}
	var read client.Banner
	if err := json.Unmarshal(answer["informationalBanner"], &read); err != nil || read != updated {
		t.Errorf("the floor reads %s (%v) after portald wrote %+v", answer["informationalBanner"], err, updated)
	}
}
