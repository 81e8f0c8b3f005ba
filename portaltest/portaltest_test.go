package portaltest_test

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/portaltest"
)

func TestNewServesTheDemoOrganization(t *testing.T) {
	p := portaltest.New(t)
	if !strings.HasSuffix(p.URL, "/sharing/rest") || !strings.HasPrefix(p.URL, p.Root) {
		t.Errorf("URL %q, Root %q", p.URL, p.Root)
	}
	it, err := p.Client(portaltest.MemberToken).Item(t.Context(), portaltest.HydrantsItem)
	if err != nil || it.Title != "Hydrants" || it.Owner != portaltest.Member {
		t.Fatalf("item: %v %+v", err, it)
	}
	// Anonymous: the item is not public.
	if _, err := p.Client("").Item(t.Context(), portaltest.HydrantsItem); err == nil {
		t.Error("an anonymous client read a private item")
	}
	resp, err := http.Get(p.Root + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/health: %s", resp.Status)
	}
}

// Two portals do not share a store.
func TestPortalsAreIsolated(t *testing.T) {
	a, b := portaltest.New(t), portaltest.New(t)
	if _, err := a.Client(portaltest.MemberToken).MoveItems(t.Context(), portaltest.Member, []string{portaltest.RoadsItem}, portaltest.ArchiveFolder); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*portaltest.Portal{"a": a, "b": b} {
		it, err := p.Client(portaltest.MemberToken).Item(t.Context(), portaltest.RoadsItem)
		if err != nil {
			t.Fatal(err)
		}
		if moved := it.Folder == portaltest.ArchiveFolder; moved != (name == "a") {
			t.Errorf("%s: roads in folder %q", name, it.Folder)
		}
	}
	a.Reset(t)
	if it, err := a.Client(portaltest.MemberToken).Item(t.Context(), portaltest.RoadsItem); err != nil || it.Folder != "" {
		t.Errorf("after Reset: %v, folder %q", err, it.Folder)
	}
}

func TestOptions(t *testing.T) {
	t.Run("context", func(t *testing.T) {
		p := portaltest.New(t, portaltest.WithContext("/portal"))
		if p.URL != p.Root+"/portal/sharing/rest" {
			t.Fatalf("URL %q", p.URL)
		}
		if _, err := p.Client(portaltest.MemberToken).Item(t.Context(), portaltest.RoadsItem); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("version", func(t *testing.T) {
		// settings/update came with 10.8: older portals answer 404.
		p := portaltest.New(t, portaltest.WithVersion("10.7"))
		err := p.Client(portaltest.AdminToken).UpdateSettings(t.Context(), "", client.SettingsUpdate{})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != 404 {
			t.Fatalf("settings/update on 10.7: %v, want 404", err)
		}
	})
	t.Run("clock", func(t *testing.T) {
		var mu sync.Mutex
		now := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
		p := portaltest.New(t, portaltest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
		tok, err := p.Client("").GenerateToken(t.Context(), portaltest.Member, portaltest.MemberPassword, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(time.Hour); !tok.Expires.Equal(want) {
			t.Errorf("token expires %v, want %v by the emulator's clock", tok.Expires, want)
		}
		mu.Lock()
		now = now.Add(2 * time.Hour)
		mu.Unlock()
		_, err = p.Client(tok.Token).Item(t.Context(), portaltest.RoadsItem)
		if !errors.Is(err, client.ErrInvalidToken) {
			t.Errorf("after the clock passed its expiry: %v, want an invalid token", err)
		}
	})
	t.Run("seed file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "seed.yaml")
		doc := `organizations:
  - id: AAAAAAAAAAAAAAAA
    name: Acme
    users:
      - username: ann
        fullName: Ann Acme
        role: org_admin
        password: ann-password
        tokens: [ann-token]
`
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		p := portaltest.New(t, portaltest.WithSeedFile(path))
		m, err := p.Client("ann-token").Member(t.Context(), "ann")
		if err != nil || m.FullName != "Ann Acme" {
			t.Fatalf("member of the seed file: %v %+v", err, m)
		}
		if _, err := p.Client(portaltest.AdminToken).Member(t.Context(), portaltest.Member); !errors.Is(err, client.ErrInvalidToken) {
			t.Errorf("demo token on another seed: %v, want an invalid token", err)
		}
	})
	t.Run("bad seed file", func(t *testing.T) {
		if p, err := portaltest.Start(portaltest.WithSeedFile(filepath.Join(t.TempDir(), "none.yaml"))); err == nil {
			p.Close()
			t.Fatal("Start with a missing seed file succeeded")
		}
	})
	t.Run("file store", func(t *testing.T) {
		dsn := filepath.Join(t.TempDir(), "portal.db")
		p := portaltest.New(t, portaltest.WithDSN(dsn))
		if _, err := p.Client(portaltest.MemberToken).MoveItems(t.Context(), portaltest.Member, []string{portaltest.RoadsItem}, portaltest.ArchiveFolder); err != nil {
			t.Fatal(err)
		}
		p.Close()
		q := portaltest.New(t, portaltest.WithDSN(dsn))
		if it, err := q.Client(portaltest.MemberToken).Item(t.Context(), portaltest.RoadsItem); err != nil || it.Folder != portaltest.ArchiveFolder {
			t.Errorf("the file's data was not kept: %v %+v", err, it)
		}
	})
}

// goDirective is the go line of this module's go.mod, which the throwaway
// module repeats so that no other toolchain is asked for.
var goDirective = regexp.MustCompile(`(?m)^go [0-9.]+$`)

// A module outside this one imports portaltest (and the client) and tests
// with it: only public packages are needed. The throwaway module points at
// this tree with a replace directive and reuses its go.sum, so nothing is
// fetched when the module cache holds this module's dependencies.
func TestImportFromAnotherModule(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := goDirective.Find(gomod)
	if goLine == nil {
		t.Fatal("no go directive in go.mod")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/automation\n\n" + string(goLine) + "\n\n" +
			"require github.com/orgportal/portal-api v0.0.0-00010101000000-000000000000\n\n" +
			"replace github.com/orgportal/portal-api => " + root + "\n",
		"go.sum": string(gosum),
		"automation.go": `// Package automation is code that automates a portal.
package automation

import (
	"context"

	"github.com/orgportal/portal-api/client"
)

// Archive moves the user's item to the folder.
func Archive(ctx context.Context, c *client.Client, user, item, folder string) (bool, error) {
	res, err := c.MoveItems(ctx, user, []string{item}, folder)
	if err != nil {
		return false, err
	}
	return len(res) == 1 && res[0].Success, nil
}
`,
		"automation_test.go": `package automation

import (
	"testing"

	"github.com/orgportal/portal-api/portaltest"
)

func TestArchive(t *testing.T) {
	p := portaltest.New(t)
	ok, err := Archive(t.Context(), p.Client(portaltest.MemberToken), portaltest.Member, portaltest.RoadsItem, portaltest.ArchiveFolder)
	if err != nil || !ok {
		t.Fatalf("Archive: %v %v", ok, err)
	}
	it, err := p.Client(portaltest.MemberToken).Item(t.Context(), portaltest.RoadsItem)
	if err != nil || it.Folder != portaltest.ArchiveFolder {
		t.Fatalf("item after Archive: %v %+v", err, it)
	}
}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// go test puts its own toolchain first in the PATH of tests.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in a module that imports portaltest: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "test" && !strings.Contains(string(out), "ok  \texample.com/automation") {
			t.Errorf("go test ran no test:\n%s", out)
		}
	}
}

// BenchmarkNew measures what a test pays for its own emulator: an
// in-memory store seeded with the demo organizations, the API built, a
// loopback listener.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := portaltest.Start()
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
