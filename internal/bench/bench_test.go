package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgportal/portal-api/emulator"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
)

// Batch sizes of the moveItems benchmarks; the last is the largest batch
// the API accepts.
var batchSizes = []int{1, 10, 100, 1000}

// Bench fixtures beside the demo organization: two folders of jsmith's and,
// for each batch size, that many items of jsmith's in folderA.
const (
	folderA = "bbbbbbbbbbbbbbbbbbbbbbbbbbbb000a"
	folderB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbb000b"
)

// batchItems returns the ids of the items moved by the benchmark of size n.
func batchItems(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08d%024d", n, i)
	}
	return ids
}

// portal is the real handler (routing, validation, authentication, rules)
// on a SQLite store.
type portal struct {
	h    http.Handler
	base string
}

// stores are the stores a write benchmark runs on: a SQLite file as portald
// runs it, where every write is a durable commit (an fsync), and an
// in-memory one, which shows what the request costs without the fsync.
// The "postgres" one is a fresh schema of the PostgreSQL test database
// (pgtest), skipped when none is set.
var stores = []struct{ name, dsn string }{{"file", ""}, {"memory", ":memory:"}, {"postgres", "postgres"}}

// newPortal returns the handler on dsn, a SQLite file in a temporary
// directory when empty.
func newPortal(b testing.TB, dsn string) *portal {
	b.Helper()
	ctx := context.Background()
	switch dsn {
	case "":
		dsn = filepath.Join(b.TempDir(), "portal.db")
	case "postgres":
		dsn = pgtest.DSN(b)
	}
	srv, err := emulator.New(ctx, emulator.Options{DSN: dsn})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	now := time.Now()
	err = srv.Store().Update(ctx, func(tx server.Tx) error {
		for _, id := range []string{folderA, folderB} {
			if err := tx.PutFolder(ctx, server.Folder{ID: id, Owner: pt.Member, Title: "Bench " + id[len(id)-1:], Created: now}); err != nil {
				return err
			}
		}
		for _, n := range batchSizes {
			for i, id := range batchItems(n) {
				it := server.Item{ID: id, Owner: pt.Member, FolderID: folderA, Title: fmt.Sprintf("Bench %d/%d", n, i),
					Type: "CSV", Created: now, Modified: now}
				if err := tx.PutItem(ctx, it); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return &portal{h: srv, base: "/sharing/rest"}
}

// serve sends one request to h and fails the benchmark unless the answer is
// a 200 without the error envelope.
func serve(b testing.TB, h http.Handler, method, target string, form url.Values) *httptest.ResponseRecorder {
	var req *http.Request
	if method == http.MethodGet {
		req = httptest.NewRequest(method, target+"?"+form.Encode(), nil)
	} else {
		req = httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"error"`)) {
		b.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	return rec
}

// poster posts form bodies to a handler as a server hands requests over,
// reusing its own buffers between requests: httptest's request and
// recorder, and url.Values, cost the client about 30 allocations a request,
// which the server does not spend and which would hide what it does. One
// goroutine uses a poster.
type poster struct {
	h      http.Handler
	url    url.URL
	header http.Header // read-only to the handler: it gets a form
	body   []byte
	reader requestBody
	rec    recorder
}

func newPoster(h http.Handler, target string) *poster {
	u, err := url.ParseRequestURI(target)
	if err != nil {
		panic(err)
	}
	return &poster{h: h, url: *u, header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		rec: recorder{header: http.Header{}}}
}

// settings posts settingsForm(n), failing b unless the answer is a 200
// without the error envelope.
func (p *poster) settings(b testing.TB, n int) {
	p.body = AppendSettingsBody(p.body[:0], pt.AdminToken, n)
	p.post(b)
}

func (p *poster) post(b testing.TB) {
	p.reader.Reset(p.body)
	u := p.url
	req := &http.Request{Method: http.MethodPost, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: p.header, Body: &p.reader, ContentLength: int64(len(p.body)), Host: "example.com",
		RemoteAddr: "192.0.2.1:1234", RequestURI: p.url.RequestURI()}
	p.rec.reset()
	p.h.ServeHTTP(&p.rec, req)
	if p.rec.code != http.StatusOK || bytes.Contains(p.rec.body.Bytes(), []byte(`"error"`)) {
		b.Fatalf("POST %s: %d %s", p.url.Path, p.rec.code, p.rec.body.Bytes())
	}
}

type requestBody struct{ bytes.Reader }

func (*requestBody) Close() error { return nil }

// recorder is a ResponseWriter kept from one request to the next.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

func (r *recorder) reset() {
	clear(r.header)
	r.code = 0
	r.body.Reset()
}

func settingsForm(n int) url.Values { return SettingsForm(pt.AdminToken, n) }

func BenchmarkSettingsUpdate(b *testing.B) {
	for _, st := range stores {
		b.Run("store="+st.name, func(b *testing.B) {
			p := newPortal(b, st.dsn)
			c := newPoster(p.h, p.base+"/portals/self/settings/update")
			b.ReportAllocs()
			n := 0
			cpu := cpuTime(b)
			for b.Loop() {
				n++
				c.settings(b, n)
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkSettingsUpdateParallel is settings/update from 8 goroutines per
// CPU on a SQLite file, as under load: concurrent writes share commits.
func BenchmarkSettingsUpdateParallel(b *testing.B) {
	p := newPortal(b, stores[0].dsn)
	target := p.base + "/portals/self/settings/update"
	b.ReportAllocs()
	b.SetParallelism(8)
	var n atomic.Int64
	cpu := cpuTime(b)
	b.RunParallel(func(pb *testing.PB) {
		c := newPoster(p.h, target)
		for pb.Next() {
			c.settings(b, int(n.Add(1)))
		}
	})
	reportCPU(b, cpu)
}

// reportCPU reports the process's CPU time per operation from since (a
// cpuTime reading) to now: what an operation costs whatever the number of
// CPUs, which ns/op under RunParallel does not tell.
func reportCPU(b *testing.B, since time.Duration) {
	if since < 0 {
		return
	}
	b.ReportMetric(float64(cpuTime(b)-since)/float64(b.N), "cpu-ns/op")
}

// BenchmarkFloor is settings/update's form through the floor handler: what
// echo, form parsing and one JSON decode cost alone.
func BenchmarkFloor(b *testing.B) {
	c := newPoster(Floor(), "/sharing/rest/portals/self/settings/update")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		c.settings(b, n)
	}
}

// categorySchema is a schema of 3 levels and 40 nodes.
func categorySchema() string {
	var top []string
	for i := range 4 {
		var mid []string
		for j := range 3 {
			var leaves []string
			for k := range 2 {
				leaves = append(leaves, fmt.Sprintf(`{"title":"Leaf %d.%d.%d"}`, i, j, k))
			}
			mid = append(mid, fmt.Sprintf(`{"title":"Group %d.%d","categories":[%s]}`, i, j, strings.Join(leaves, ",")))
		}
		top = append(top, fmt.Sprintf(`{"title":"Top %d","categories":[%s]}`, i, strings.Join(mid, ",")))
	}
	return `{"memberCategorySchema":[` + strings.Join(top, ",") + `]}`
}

func BenchmarkAssignMemberCategorySchema(b *testing.B) {
	p := newPortal(b, "")
	target := p.base + "/portals/self/assignMemberCategorySchema"
	form := url.Values{"f": {"json"}, "token": {pt.AdminToken}, "memberCategorySchema": {categorySchema()}}
	b.ReportAllocs()
	for b.Loop() {
		serve(b, p.h, http.MethodPost, target, form)
	}
}

// BenchmarkMoveItems moves a batch of n items back and forth between two
// folders: every item of every request moves.
func BenchmarkMoveItems(b *testing.B) {
	for _, st := range stores {
		b.Run("store="+st.name, func(b *testing.B) { benchmarkMoveItems(b, st.dsn) })
	}
}

func benchmarkMoveItems(b *testing.B, dsn string) {
	p := newPortal(b, dsn)
	target := p.base + "/content/users/" + pt.Member + "/moveItems"
	for _, n := range batchSizes {
		items := strings.Join(batchItems(n), ",")
		inA := true // where the batch is, across the runs of b.Run's function
		b.Run(fmt.Sprintf("ids=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				dest := folderB
				if !inA {
					dest = folderA
				}
				rec := serve(b, p.h, http.MethodPost, target, url.Values{"f": {"json"}, "token": {pt.MemberToken}, "items": {items}, "folder": {dest}})
				if bytes.Contains(rec.Body.Bytes(), []byte(`"success":false`)) {
					b.Fatalf("an item did not move: %.300s", rec.Body)
				}
				inA = !inA
			}
		})
	}
}

func BenchmarkReads(b *testing.B) {
	for _, st := range []string{"", "postgres"} {
		name := "file"
		if st != "" {
			name = st
		}
		b.Run("store="+name, func(b *testing.B) { benchmarkReads(b, st) })
	}
}

func benchmarkReads(b *testing.B, dsn string) {
	p := newPortal(b, dsn)
	// A schema to read back.
	serve(b, p.h, http.MethodPost, p.base+"/portals/self/assignMemberCategorySchema",
		url.Values{"f": {"json"}, "token": {pt.AdminToken}, "memberCategorySchema": {categorySchema()}})
	serve(b, p.h, http.MethodPost, p.base+"/portals/self/settings/update", settingsForm(0))
	reads := []struct{ name, path, token string }{
		{"settings", "/portals/self/settings", pt.AdminToken},
		{"memberCategorySchema", "/portals/self/memberCategorySchema", pt.AdminToken},
		{"userContent", "/content/users/" + pt.Member, pt.MemberToken},
		{"folderContent", "/content/users/" + pt.Member + "/" + pt.ProjectsFolder, pt.MemberToken},
		{"item", "/content/items/" + pt.RoadsItem, pt.MemberToken},
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			form := url.Values{"f": {"json"}, "token": {r.token}}
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				serve(b, p.h, http.MethodGet, p.base+r.path, form)
			}
			reportCPU(b, cpu)
		})
	}
}

// The requests the benchmarks send succeed, so that `make test` notices
// when a change of the API breaks them.
func TestBenchmarkRequests(t *testing.T) {
	p := newPortal(t, ":memory:")
	serve(t, p.h, http.MethodPost, p.base+"/portals/self/settings/update", settingsForm(1))
	serve(t, p.h, http.MethodPost, p.base+"/portals/self/assignMemberCategorySchema",
		url.Values{"f": {"json"}, "token": {pt.AdminToken}, "memberCategorySchema": {categorySchema()}})
	for _, n := range batchSizes {
		for _, dest := range []string{folderB, folderA} {
			rec := serve(t, p.h, http.MethodPost, p.base+"/content/users/"+pt.Member+"/moveItems",
				url.Values{"f": {"json"}, "token": {pt.MemberToken}, "items": {strings.Join(batchItems(n), ",")}, "folder": {dest}})
			if bytes.Contains(rec.Body.Bytes(), []byte(`"success":false`)) {
				t.Fatalf("moveItems of %d ids: an item did not move: %.300s", n, rec.Body)
			}
		}
	}
	// The poster's body is settingsForm's, and the poster sees the answer.
	for _, tok := range []string{pt.AdminToken, "a token/with+signs&"} {
		got, err := url.ParseQuery(string(AppendSettingsBody(nil, tok, 42)))
		if want := SettingsForm(tok, 42); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("AppendSettingsBody: %v, %v; want %v", got, err, want)
		}
	}
	c := newPoster(p.h, p.base+"/portals/self/settings/update")
	c.settings(t, 7)
	if got := strings.TrimSpace(c.rec.body.String()); got != `{"success":true}` {
		t.Fatalf("settings/update answered %s", got)
	}
	if got := serve(t, p.h, http.MethodGet, p.base+"/portals/self/settings", url.Values{"f": {"json"}, "token": {pt.AdminToken}}); !strings.Contains(got.Body.String(), "Maintenance window 7") {
		t.Fatalf("the settings read after the poster's update: %s", got.Body)
	}
	floor := serve(t, Floor(), http.MethodPost, "/sharing/rest/portals/self/settings/update", settingsForm(1))
	if got := strings.TrimSpace(floor.Body.String()); got != `{"success":true}` {
		t.Fatalf("floor answered %s", got)
	}
	bad, req := httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("informationalBanner=%7B"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	Floor().ServeHTTP(bad, req)
	if !strings.Contains(bad.Body.String(), `"error"`) {
		t.Fatalf("floor accepted a broken banner: %s", bad.Body)
	}
}
