package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/orgportal/portal-api/client"
	pt "github.com/orgportal/portal-api/portaltest"
)

// A SQLite file deleted, then replaced, under a running portald: /health
// answers 503 and writes fail with the envelope instead of being
// acknowledged into a file no one will open again.
func TestSQLiteFileDeleted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "portal.db")
	p := startPortald(t, "-db", db)
	ctx := context.Background()
	c := clientFor(t, p, pt.AdminToken)
	if !p.healthy(ctx) {
		t.Fatal("not healthy at start")
	}
	write := func() error {
		return c.UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{
			InformationalBanner: &client.Banner{Text: "kept", BgColor: "red", FontColor: "white", Enabled: true},
		})
	}
	if err := write(); err != nil {
		t.Fatalf("write before the deletion: %v", err)
	}
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	if p.healthy(ctx) {
		t.Error("/health answers 200 with the store's file deleted")
	}
	if err := write(); !isCode(err, 500) {
		t.Errorf("write with the file deleted: %v, want the envelope with code 500", err)
	}
	// A new file at the path is not the one portald opened either.
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p.healthy(ctx) {
		t.Error("/health answers 200 with the store's file replaced")
	}
	if err := write(); !isCode(err, 500) {
		t.Errorf("write with the file replaced: %v, want the envelope with code 500", err)
	}
}
