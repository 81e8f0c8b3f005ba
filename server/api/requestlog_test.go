package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

// Each answered request is logged at INFO once written: its method, path,
// status, bytes written and duration, with no caller position (it would
// always be the middleware's line).
func TestRequestLogRecord(t *testing.T) {
	l := &requestLog{done: make(chan slog.Record, 1)}
	p := pt.New(t, pt.WithLogger(slog.New(l)))
	resp, err := http.PostForm(p.URL+"/portals/self/settings/update",
		form("token", pt.AdminToken, "f", "json", "informationalBanner", `{"text":"logged"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"success":true`) {
		t.Fatalf("settings/update: %s", b)
	}
	var r slog.Record
	select {
	case r = <-l.done:
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("no request was logged")
	}
	if r.Level != slog.LevelInfo || r.PC != 0 {
		t.Errorf("level %v, PC %#x; want INFO and no caller position", r.Level, r.PC)
	}
	got := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool { got[a.Key] = a.Value; return true })
	want := map[string]any{"method": "POST", "path": "/sharing/rest/portals/self/settings/update",
		"status": int64(http.StatusOK), "bytes": int64(len(b))}
	for k, v := range want {
		if g, ok := got[k]; !ok || g.Any() != v {
			t.Errorf("%s = %v, want %v", k, g, v)
		}
	}
	if d, ok := got["duration"]; !ok || d.Kind() != slog.KindDuration || d.Duration() <= 0 {
		t.Errorf("duration = %v, want a positive duration", d)
	}
	if len(got) != len(want)+1 {
		t.Errorf("attributes %v, want only method, path, status, bytes and duration", got)
	}
}
