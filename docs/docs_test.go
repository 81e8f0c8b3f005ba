package docs_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/docs"
	"github.com/orgportal/portal-api/portaltest"
)

// operation is what the reference must show for one operation of the contract.
type operation struct{ id, summary string }

func contractOperations(t *testing.T) (version string, ops []operation) {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	return doc.Info.Version, docOperations(t, doc)
}

var (
	scriptRe = regexp.MustCompile(`(?is)<script\b[^>]*>.*?</script>`)
	tagRe    = regexp.MustCompile(`<[^>]*>`)
	// The hydration state Redoc's page script starts from; build-docs writes
	// it right after the prerendered container.
	stateRe = regexp.MustCompile(`const __redoc_state = (\{.*\});\n`)
	// The prerendered markup of the container, up to the script holding the state.
	prerenderedRe = regexp.MustCompile(`(?s)(<div id="redoc">).*?(</div>\s*<script>\s*const __redoc_state )`)
	headingRe     = regexp.MustCompile(`(?s)<h2\b[^>]*>(.*?)</h2>`)
	// A menu label Redoc's script has marked as the current location.
	activeLabelRe = regexp.MustCompile(`<label class="[^"]*\bactive\b[^"]*">`)
)

// withoutScripts drops script elements, so that what remains is markup: the
// page's scripts embed the whole contract (summaries included) as data.
func withoutScripts(page []byte) string { return scriptRe.ReplaceAllString(string(page), "") }

func text(markup string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(markup, " "))), " ")
}

// The committed page is built from this contract: same version, same
// operations. Catches a change to openapi.yaml without `make docs` in a plain
// `go test`; `make check-docs` compares the whole page.
func TestReferenceMatchesContract(t *testing.T) {
	version, ops := contractOperations(t)
	m := stateRe.FindSubmatch(docs.ReferenceHTML)
	if m == nil {
		t.Fatal("reference.html: no Redoc state (const __redoc_state = {...};)")
	}
	var state struct {
		Spec struct {
			Data struct {
				Info struct{ Version string }
				// A path item's operations, and its servers or
				// parameters, which are no objects.
				Paths map[string]map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(m[1], &state); err != nil {
		t.Fatalf("reference.html: Redoc state: %v", err)
	}
	if got := state.Spec.Data.Info.Version; got != version {
		t.Errorf("reference.html documents version %q, openapi.yaml is %q: run make docs", got, version)
	}
	var got, want []string
	for _, item := range state.Spec.Data.Paths {
		for _, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) == nil && op.OperationID != "" {
				got = append(got, op.OperationID)
			}
		}
	}
	for _, op := range ops {
		want = append(want, op.id)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("reference.html documents operations\n%v\nopenapi.yaml has\n%v\nrun make docs", got, want)
	}
}

// The pages load nothing from another origin: they must render offline and
// under a Content-Security-Policy of 'self'. Their icon is the server's.
func TestReferenceSelfContained(t *testing.T) {
	external := regexp.MustCompile(`(?i)<(?:script|img|iframe)\b[^>]*\bsrc="(?:https?:)?//|<link\b[^>]*\bhref="(?:https?:)?//|cdn\.redoc`)
	for name, page := range map[string][]byte{"reference.html": docs.ReferenceHTML, "emulator.html": docs.EmulatorHTML} {
		if loc := external.FindIndex(page); loc != nil {
			t.Errorf("%s loads from another origin: %.200s", name, page[loc[0]:])
		}
		if !bytes.Contains(page, []byte("Redoc.hydrate(")) {
			t.Errorf("%s does not start Redoc", name)
		}
		if !bytes.Contains(page, []byte(`<link rel="icon" href="/favicon.ico">`)) {
			t.Errorf("%s does not link the favicon /favicon.ico", name)
		}
	}
}

// The favicon is an ICO of PNG images, each of the size its entry says.
func TestFavicon(t *testing.T) {
	ico := docs.Favicon
	if len(ico) < 6 || binary.LittleEndian.Uint16(ico[0:]) != 0 || binary.LittleEndian.Uint16(ico[2:]) != 1 {
		t.Fatalf("not an ICO file (%d bytes)", len(ico))
	}
	n := int(binary.LittleEndian.Uint16(ico[4:]))
	if n == 0 || len(ico) < 6+16*n {
		t.Fatalf("%d images in %d bytes", n, len(ico))
	}
	for i := range n {
		e := ico[6+16*i:]
		size, offset := binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:])
		if uint64(offset)+uint64(size) > uint64(len(ico)) {
			t.Fatalf("image %d: %d bytes at %d, past the end", i, size, offset)
		}
		img, err := png.Decode(bytes.NewReader(ico[offset : offset+size]))
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if b := img.Bounds(); b.Dx() != int(e[0]) || b.Dy() != int(e[1]) {
			t.Errorf("image %d: %v, the entry says %dx%d", i, b.Size(), e[0], e[1])
		}
	}
}

// TestDocsInBrowser loads both pages in headless Chromium, driven through
// the DevTools protocol, served by the reference server (portaltest), with
// every host but 127.0.0.1 unresolvable.
//
// build-docs prerenders the whole reference as static markup, so finding the
// summaries in the served page proves nothing about its script. Two loads
// do:
//   - the page as served, at #operation/<id>: only Redoc's script follows
//     the fragment and marks a menu entry active;
//   - the same page with the prerendered markup removed from its container,
//     leaving the script and its embedded state: every operation's section
//     (its h2 heading) and menu entry must then be rendered by the script.
//
// Summaries are looked for in markup only, with script elements removed,
// because the embedded state holds them too.
//
// Each load reports no console error, no uncaught exception and no failed
// request (a hydration mismatch between the prerendered markup and Redoc's
// render shows as React errors #418 and #423), and requests nothing from
// another origin. The page links a favicon the server serves. Every payload
// sample the served page shows, one per example, is sent as shown and
// answered as its example says.
func TestDocsInBrowser(t *testing.T) {
	if os.Getenv("PORTAL_TEST_BROWSER") != "1" {
		t.Skip("set PORTAL_TEST_BROWSER=1 to load the reference in headless Chromium (make test-docs)")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("PORTAL_TEST_BROWSER=1 but no chromium: %v (make tools-chromium installs Debian's)", err)
	}
	cs := contracts(t)
	portal, emu := cs[0].doc, cs[1].doc
	p := portaltest.New(t)
	pages := []struct {
		name, path string
		html       []byte
		doc        *openapi3.T
		replay     func(*testing.T, *portaltest.Portal, *openapi3.T, []shownSample)
	}{
		{"reference", "/docs", docs.ReferenceHTML, portal, replayPortalSamples},
		{"emulator", "/docs/emulator", docs.EmulatorHTML, emu, replayEmulatorSamples},
	}
	// The pages as portald serves them, and each without its prerendered
	// markup beside it.
	mux := http.NewServeMux()
	mux.Handle("/", p.Server)
	for _, pg := range pages {
		clientOnly := prerenderedRe.ReplaceAll(pg.html, []byte("$1$2"))
		if bytes.Equal(clientOnly, pg.html) {
			t.Fatalf(`%s: no prerendered <div id="redoc"> before the Redoc state`, pg.name)
		}
		if strings.Contains(withoutScripts(clientOnly), `id="operation/`) {
			t.Fatalf("%s: removing the prerendered markup left operation sections in the page", pg.name)
		}
		if activeLabelRe.MatchString(withoutScripts(pg.html)) {
			t.Fatalf("%s: the prerendered page already marks a menu entry active: the menu check would prove nothing", pg.name)
		}
		mux.HandleFunc("GET "+pg.path+"-client-rendered", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(clientOnly)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b := startBrowser(t, chromium)

	for _, pg := range pages {
		ops := docOperations(t, pg.doc)
		t.Run(pg.name, func(t *testing.T) {
			t.Run("served", func(t *testing.T) {
				target := ops[len(ops)/2]
				tab := b.open(t, srv.URL+pg.path+"#operation/"+target.id)
				checkOperations(t, withoutScripts([]byte(tab.dom(t))), ops)
				// The browser scrolls to the prerendered section by itself; only
				// the script rewrites the fragment into the form of its menu's
				// ids (tag/<tag>/operation/<id>, or the tag's own entry when the
				// scroll spy settles just before the operation).
				var hash string
				tab.eval(t, "location.hash", &hash)
				if !strings.HasPrefix(hash, "#tag/") {
					t.Errorf("at #operation/%s the fragment is %q: the page's script did not follow it", target.id, hash)
				}
				// Exactly one entry is marked once the reader picks one in the
				// menu. Which one is not asserted: after the jump, Redoc's scroll
				// spy may settle on the entry or the one before it. (The entry of
				// the fragment the page was loaded at is not marked: the script
				// marks it before it hydrates the prerendered menu, and React
				// keeps the prerendered attributes.)
				var active int
				tab.eval(t, fmt.Sprintf(pickMenuEntry, strconv.Quote("operation/"+ops[0].id)), &active)
				if active != 1 {
					t.Errorf("%d active menu entries after picking %s in the menu, want 1: the page's script does not render its menu", active, ops[0].id)
				}
				checkFavicon(t, tab, srv.URL)
				checkServerURLs(t, tab, pg.doc)
				checkMenuUnique(t, tab)
				samples := tab.readSamples(t)
				checkSampleOrigin(t, tab, srv.URL)
				// Clicking through the samples must not fail either.
				checkClean(t, tab, srv.URL)
				t.Run("payload", func(t *testing.T) { pg.replay(t, p, pg.doc, samples) })
			})
			t.Run("client-rendered", func(t *testing.T) {
				tab := b.open(t, srv.URL+pg.path+"-client-rendered")
				checkOperations(t, withoutScripts([]byte(tab.dom(t))), ops)
				// Hydrating the emptied container is a mismatch by construction
				// (React reports it and renders anew): only the requests count.
				_, requested := tab.problems()
				checkSameOrigin(t, requested, srv.URL)
			})
		})
	}
}

// pickMenuEntry clicks the menu entry whose data-item-id ends with %s and
// resolves with the number of active entries once the page has rendered it
// (at most a hundred frames later).
const pickMenuEntry = `(async () => {
  const label = [...document.querySelectorAll("li[data-item-id]")]
    .find((li) => li.getAttribute("data-item-id").endsWith(%s)).querySelector("label");
  label.click();
  const count = () => document.querySelectorAll("label.active").length;
  for (let i = 0; i < 100 && count() !== 1; i++) await new Promise((r) => requestAnimationFrame(r));
  return count();
})()`

// shownServers lists, for each path given, the server URLs the page shows
// before it: Redoc writes each as a span followed by the path as text.
const shownServers = `((paths) => {
  const out = {};
  for (const span of document.querySelectorAll("span")) {
    const next = span.nextSibling;
    if (next && next.nodeType === Node.TEXT_NODE && paths.includes(next.data)) {
      (out[next.data] ??= []).push(span.textContent);
    }
  }
  return out;
})(%s)`

// checkServerURLs wants every operation's endpoint to show its servers as
// paths on the page's own server (relative), never another host: the page
// is served by the server it documents.
func checkServerURLs(t *testing.T, tab *page, doc *openapi3.T) {
	t.Helper()
	paths := make([]string, 0, doc.Paths.Len())
	for path := range doc.Paths.Map() {
		paths = append(paths, path)
	}
	list, _ := json.Marshal(paths)
	var shown map[string][]string
	tab.eval(t, fmt.Sprintf(shownServers, list), &shown)
	for _, path := range paths {
		if len(shown[path]) == 0 {
			t.Errorf("%s: the page shows no server URL for it", path)
		}
		for _, base := range shown[path] {
			if base != "" && !strings.HasPrefix(base, "/") || strings.HasPrefix(base, "//") {
				t.Errorf("%s: the page shows the server %q, not a path on its own server", path, base)
			}
		}
	}
}

// checkMenuUnique wants each top-level entry of the side menu once (Redoc
// adds an "Authentication" section of its own unless the description says
// where the security schemes go).
func checkMenuUnique(t *testing.T, tab *page) {
	t.Helper()
	var labels []string
	tab.eval(t, `[...document.querySelectorAll('li[data-item-id][depth="1"]')].map((li) => li.getAttribute("aria-label"))`, &labels)
	if len(labels) == 0 {
		t.Fatal("no top-level menu entry found")
	}
	seen := map[string]bool{}
	for _, l := range labels {
		if seen[l] {
			t.Errorf("the menu shows %q twice: %q", l, labels)
		}
		seen[l] = true
	}
}

// sampleOrigins reports the request samples of the page's state and the text
// of its rendered sample panels that name the address of `make run` (or of
// `PORTAL_TLS=true make run`), and how many samples name the page's own host.
const sampleOrigins = `((from, tlsFrom) => {
  const out = { stale: [], own: 0 };
  for (const [p, item] of Object.entries(__redoc_state.spec.data.paths)) {
    for (const [m, op] of Object.entries(item)) {
      for (const s of (op && op["x-codeSamples"]) || []) {
        if (s.source.includes(from) || s.source.includes(tlsFrom)) out.stale.push(m + " " + p + " " + s.label);
        if (s.source.includes(location.origin) || s.source.includes("https://" + location.host)) out.own++;
      }
    }
  }
  for (const h of document.querySelectorAll("#redoc h3")) {
    const shown = h.nextElementSibling?.textContent ?? "";
    if (h.textContent.trim() === "Request samples" && (shown.includes(from) || shown.includes(tlsFrom))) {
      out.stale.push("shown: " + h.nextElementSibling.textContent.slice(0, 200));
    }
  }
  return out;
})(%q, %q)`

// checkSampleOrigin wants every request sample, in the state and as shown, to
// address the server serving the page rather than the address of `make run`
// they are written for.
func checkSampleOrigin(t *testing.T, tab *page, origin string) {
	t.Helper()
	if origin == sampleRoot {
		t.Fatalf("the test server is at %s, the samples' own address: the check would prove nothing", origin)
	}
	var got struct {
		Stale []string
		Own   int
	}
	tab.eval(t, fmt.Sprintf(sampleOrigins, sampleRoot, sampleTLSRoot), &got)
	for _, s := range got.Stale {
		t.Errorf("a request sample still names %s: %.300s", sampleRoot, s)
	}
	if got.Own == 0 {
		t.Errorf("no request sample names the page's origin %s", origin)
	}
}

// docOperations lists a contract's operations, sorted by id.
func docOperations(t *testing.T, doc *openapi3.T) []operation {
	t.Helper()
	var ops []operation
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" {
				t.Fatalf("an operation without operationId or summary: %q %q", op.OperationID, op.Summary)
			}
			ops = append(ops, operation{op.OperationID, op.Summary})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	return ops
}

// checkClean wants no error reported by the page and no request to another
// origin than the test server's (data: URLs are no request; a blob: URL is
// of the origin that made it).
func checkClean(t *testing.T, tab *page, origin string) {
	t.Helper()
	errs, requested := tab.problems()
	for _, e := range errs {
		t.Errorf("%s: %.500s", e.kind, e.text)
	}
	checkSameOrigin(t, requested, origin)
}

func checkSameOrigin(t *testing.T, requested []string, origin string) {
	t.Helper()
	if len(requested) == 0 {
		t.Error("no request seen: the page was not loaded through the DevTools protocol")
	}
	for _, r := range requested {
		u, err := url.Parse(strings.TrimPrefix(r, "blob:"))
		switch {
		case err != nil:
			t.Errorf("a request to %q: %v", r, err)
		case u.Scheme == "data":
		case u.Scheme+"://"+u.Host != origin:
			t.Errorf("a request to another origin: %.200s", r)
		}
	}
}

// checkFavicon wants the page's icon link to name an ICO that the server
// serves, whether or not the browser asked for it.
func checkFavicon(t *testing.T, tab *page, origin string) {
	t.Helper()
	var href string
	tab.eval(t, `document.querySelector('link[rel~="icon"]')?.href ?? ""`, &href)
	if !strings.HasPrefix(href, origin+"/") {
		t.Errorf("the page's icon link is %q, want one of %s", href, origin)
		return
	}
	resp, err := http.Get(href)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/x-icon" || !bytes.Equal(body, docs.Favicon) {
		t.Errorf("GET %s: HTTP %d %q, %d bytes, want the favicon", href, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
}

// checkOperations wants, for every operation, a section whose h2 heading
// shows its summary and a menu entry that shows it too.
func checkOperations(t *testing.T, dom string, ops []operation) {
	t.Helper()
	for _, op := range ops {
		// " id=" and not "data-section-id=": the section element itself.
		i := strings.Index(dom, ` id="operation/`+op.id+`"`)
		if i < 0 {
			t.Errorf("%s: no section in the rendered page", op.id)
			continue
		}
		h2 := headingRe.FindStringSubmatch(dom[i:])
		if h2 == nil || !strings.Contains(text(h2[1]), op.summary) {
			t.Errorf("%s: section heading does not show %q", op.id, op.summary)
		}
		if !strings.Contains(text(menuEntry(dom, op.id)), op.summary) {
			t.Errorf("%s: no menu entry showing %q", op.id, op.summary)
		}
	}
}

// menuEntry is the side menu's list item of an operation, or "".
func menuEntry(dom, id string) string {
	return regexp.MustCompile(`(?s)<li\b[^>]*\bdata-item-id="(?:[^"]*/)?operation/` + regexp.QuoteMeta(id) + `"[^>]*>.*?</li>`).FindString(dom)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// The page shows what x-introduced-in, x-deployments and x-privileges say
// (tools/redocly/extensions-in-docs.cjs writes them into descriptions), for
// every operation and every property of the contract that has them.
func TestReferenceShowsExtensions(t *testing.T) {
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	m := stateRe.FindSubmatch(docs.ReferenceHTML)
	if m == nil {
		t.Fatal("reference.html: no Redoc state")
	}
	type described struct {
		Description string
		Properties  map[string]described
	}
	var state struct {
		Spec struct {
			Data struct {
				Paths      map[string]map[string]json.RawMessage
				Components struct{ Schemas map[string]described }
			}
		}
	}
	if err := json.Unmarshal(m[1], &state); err != nil {
		t.Fatal(err)
	}
	want := func(ext map[string]any, privileges bool) []string {
		var out []string
		if v, ok := ext["x-introduced-in"].(string); ok {
			out = append(out, "**Since:** "+v)
		}
		if list, ok := ext["x-deployments"].([]any); ok {
			for _, d := range list {
				out = append(out, "**Deployments:** "+d.(string))
			}
		}
		if list, ok := ext["x-privileges"].([]any); ok && privileges {
			out = append(out, "**Privileges:**")
			for _, p := range list {
				out = append(out, "`"+p.(string)+"`")
			}
		}
		return out
	}
	checked := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var described described
			if err := json.Unmarshal(state.Spec.Data.Paths[path][strings.ToLower(method)], &described); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			desc := described.Description
			for _, w := range want(op.Extensions, true) {
				checked++
				if !strings.Contains(desc, w) {
					t.Errorf("%s: the page does not show %q; run make docs", op.OperationID, w)
				}
			}
		}
	}
	for name, ref := range doc.Components.Schemas {
		for prop, p := range ref.Value.Properties {
			if p.Ref != "" {
				continue // shown where the schema it names is
			}
			desc := state.Spec.Data.Components.Schemas[name].Properties[prop].Description
			for _, w := range want(p.Value.Extensions, false) {
				checked++
				if !strings.Contains(desc, w) {
					t.Errorf("%s.%s: the page does not show %q; run make docs", name, prop, w)
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("%d facts checked: the contract lost its extensions?", checked)
	}
}
