package api_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// lockedBuffer is a log destination that requests of several goroutines
// may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Each answered request is logged at INFO once written: its method, path,
// status, bytes written and duration, with no caller position (the line
// would always name the middleware's).
func TestRequestLogLine(t *testing.T) {
	var out lockedBuffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo, AddSource: true}))
	p := pt.New(t, pt.WithLogger(log))
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
	line := regexp.MustCompile(`(?m)^time=\S+ level=INFO msg=request method=POST path=/sharing/rest/portals/self/settings/update status=200 bytes=` +
		strconv.Itoa(len(b)) + ` duration=\d+(\.\d+)?(ns|µs|ms|s)$`)
	if got := out.String(); !line.MatchString(got) {
		t.Errorf("no request line for settings/update in the log:\n%s", got)
	}
}
