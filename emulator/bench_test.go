package emulator_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/emulator"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
	"github.com/orgportal/portal-api/server/seed"
	"github.com/orgportal/portal-api/server/sqlstore"
)

// BenchmarkSettingsUpdateJournal is what the journal (and the fault hooks)
// add to settings/update: the API alone, without hooks, against the
// emulator with its journal on, both on an in-memory store so that no fsync
// hides the difference. The two take turns, request by request, so that
// the machine's noise falls on both alike; overhead-% is the journal's
// cost.
func BenchmarkSettingsUpdateJournal(b *testing.B) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ":memory:")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	if err := st.Update(ctx, func(tx server.Tx) error { return seed.Demo().Apply(ctx, tx, time.Now()) }); err != nil {
		b.Fatal(err)
	}
	plain, err := api.New(api.Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := emulator.New(ctx, emulator.Options{JournalSize: benchJournal})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	handlers := [2]http.Handler{plain, srv}
	var spent [2]time.Duration
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i, h := range handlers {
			n++
			form := url.Values{"token": {"demo-admin-token"}, "f": {"json"},
				"informationalBanner": {fmt.Sprintf(`{"text":"Banner %d","bgColor":"#FFCC00","fontColor":"black","enabled":true}`, n)}}
			req := httptest.NewRequest(http.MethodPost, "/sharing/rest/portals/self/settings/update", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(rec, req)
			spent[i] += time.Since(start)
			if rec.Code != 200 || strings.Contains(rec.Body.String(), `"error"`) {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	}
	b.ReportMetric(float64(spent[0])/float64(b.N), "off-ns/op")
	b.ReportMetric(float64(spent[1])/float64(b.N), "on-ns/op")
	b.ReportMetric(100*(float64(spent[1])/float64(spent[0])-1), "overhead-%")
}

// BenchmarkRestoreSnapshot restores a snapshot of the demo store, on an
// in-memory store and on a SQLite file (one durable commit each).
func BenchmarkRestoreSnapshot(b *testing.B) {
	for _, st := range []struct{ name, dsn string }{{"memory", ":memory:"}, {"file", ""}} {
		b.Run("store="+st.name, func(b *testing.B) {
			dsn := st.dsn
			if dsn == "" {
				dsn = b.TempDir() + "/portal.db"
			}
			srv, err := emulator.New(context.Background(), emulator.Options{DSN: dsn})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = srv.Close() })
			if err := srv.SaveSnapshot(b.Context(), "demo"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := srv.RestoreSnapshot(b.Context(), "demo"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var benchJournal = 0
