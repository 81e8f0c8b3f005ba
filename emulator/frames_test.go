package emulator_test

import (
	"database/sql"
	"database/sql/driver"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"modernc.org/sqlite"

	"github.com/orgportal/portal-api/emulator"
)

// maxSettingsUpdateFrames bounds the functions of this module a settings/update
// passes through from the connection to its SQL, on every goroutine it
// crosses, so that a request's path stays short enough to read in one
// sitting (24 before the store's and the transport's layers were cut).
const maxSettingsUpdateFrames = 14

var registerCapture sync.Once

// stacks holds the goroutine dumps taken by the SQL function capture_stacks.
var stacks struct {
	sync.Mutex
	dumps []string
}

// TestSettingsUpdateFrames follows one settings/update on the default store (a
// SQLite file, writes through the group commit) from net/http's connection to
// its UPSERT: a trigger on the settings table calls a Go function that dumps
// every goroutine's stack while the statement runs. The goroutine running the
// statement and, were it another, the request's goroutine are counted (the
// group commit runs each fn on its caller's goroutine).
func TestSettingsUpdateFrames(t *testing.T) {
	registerCapture.Do(func() {
		err := sqlite.RegisterScalarFunction("capture_stacks", 0, func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			stacks.Lock()
			stacks.dumps = append(stacks.dumps, string(buf[:n]))
			stacks.Unlock()
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	path := filepath.Join(t.TempDir(), "portal.db")
	_, hs := start(t, emulator.Options{DSN: path})
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, event := range []string{"INSERT", "UPDATE"} {
		if _, err := db.Exec("CREATE TRIGGER capture_" + event + " AFTER " + event + " ON settings BEGIN SELECT capture_stacks(); END"); err != nil {
			t.Fatal(err)
		}
	}
	stacks.Lock()
	stacks.dumps = nil
	stacks.Unlock()

	form := url.Values{"token": {"demo-admin-token"}, "f": {"json"},
		"informationalBanner": {`{"text":"Frames","bgColor":"grey","fontColor":"black","enabled":true}`}}
	resp, err := http.PostForm(hs.URL+"/sharing/rest/portals/self/settings/update", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stacks.Lock()
	dumps := stacks.dumps
	stacks.Unlock()
	if len(dumps) != 1 {
		t.Fatalf("the settings/update ran the settings trigger %d times, want once", len(dumps))
	}

	goroutines := strings.Split(dumps[0], "\n\n")
	// The first goroutine of the dump is the one taking it: the statement's.
	counted := []string{goroutines[0]}
	if !strings.Contains(goroutines[0], "net/http.(*conn).serve") {
		for _, g := range goroutines[1:] {
			if strings.Contains(g, "net/http.(*conn).serve") && strings.Contains(g, "UpdateSettings") {
				counted = append(counted, g)
			}
		}
		if len(counted) != 2 {
			t.Fatalf("found %d request goroutines serving the settings/update, want 1:\n%s", len(counted)-1, dumps[0])
		}
	}
	var frames []string
	for _, g := range counted {
		for line := range strings.SplitSeq(g, "\n") {
			if strings.HasPrefix(line, "github.com/orgportal/portal-api/") && !strings.Contains(line, "_test.") {
				name, _, _ := strings.Cut(strings.TrimPrefix(line, "github.com/orgportal/portal-api/"), "(0x")
				name, _, _ = strings.Cut(name, "(...)")
				frames = append(frames, name)
			}
		}
	}
	t.Logf("%d frames of this module on %d goroutines, the statement's first:\n  %s", len(frames), len(counted), strings.Join(frames, "\n  "))
	if len(frames) > maxSettingsUpdateFrames {
		t.Errorf("settings/update reaches its SQL through %d frames of this module, want at most %d", len(frames), maxSettingsUpdateFrames)
	}
}
