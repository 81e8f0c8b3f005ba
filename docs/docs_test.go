package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/docs"
)

// operation is what the reference must show for one operation of the contract.
type operation struct{ id, summary string }

func contractOperations(t *testing.T) (version string, ops []operation) {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" {
				t.Fatalf("an operation without operationId or summary: %q %q", op.OperationID, op.Summary)
			}
			ops = append(ops, operation{op.OperationID, op.Summary})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	return doc.Info.Version, ops
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
				Info  struct{ Version string }
				Paths map[string]map[string]struct {
					OperationID string `json:"operationId"`
				}
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
		for _, op := range item {
			if op.OperationID != "" {
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

// The page loads nothing from another origin: it must render offline and
// under a Content-Security-Policy of 'self'.
func TestReferenceSelfContained(t *testing.T) {
	page := string(docs.ReferenceHTML)
	external := regexp.MustCompile(`(?i)<(?:script|img|iframe)\b[^>]*\bsrc="(?:https?:)?//|<link\b[^>]*\bhref="(?:https?:)?//`)
	if loc := external.FindStringIndex(page); loc != nil {
		t.Errorf("reference.html loads from another origin: %.200s", page[loc[0]:])
	}
	if !strings.Contains(page, "Redoc.hydrate(") {
		t.Error("reference.html does not start Redoc")
	}
}

// TestDocsInBrowser loads the page in headless Chromium, with every host but
// 127.0.0.1 unresolvable, and reads the DOM after its scripts ran.
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
func TestDocsInBrowser(t *testing.T) {
	if os.Getenv("PORTAL_TEST_BROWSER") != "1" {
		t.Skip("set PORTAL_TEST_BROWSER=1 to load the reference in headless Chromium (make test-docs)")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("PORTAL_TEST_BROWSER=1 but no chromium: %v (make tools-chromium installs Debian's)", err)
	}
	_, ops := contractOperations(t)

	clientOnly := prerenderedRe.ReplaceAll(docs.ReferenceHTML, []byte("$1$2"))
	if bytes.Equal(clientOnly, docs.ReferenceHTML) {
		t.Fatal(`reference.html: no prerendered <div id="redoc"> before the Redoc state`)
	}
	if strings.Contains(withoutScripts(clientOnly), `id="operation/`) {
		t.Fatal("removing the prerendered markup left operation sections in the page")
	}
	if activeLabelRe.MatchString(withoutScripts(docs.ReferenceHTML)) {
		t.Fatal("the prerendered page already marks a menu entry active: the fragment check would prove nothing")
	}

	mux := http.NewServeMux()
	serve := func(page []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(page)
		}
	}
	mux.HandleFunc("GET /docs", serve(docs.ReferenceHTML))
	mux.HandleFunc("GET /docs-client-rendered", serve(clientOnly))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	t.Run("served", func(t *testing.T) {
		t.Parallel()
		target := ops[len(ops)/2]
		dom := withoutScripts(dumpDOM(t, chromium, srv.URL+"/docs#operation/"+target.id))
		checkOperations(t, dom, ops)
		// Exactly one: the page marks the entry of the location it scrolled
		// to. Which one is not asserted: after the jump, Redoc's scroll spy
		// may settle on the fragment's entry or the one before it.
		if n := len(activeLabelRe.FindAllString(dom, -1)); n != 1 {
			t.Errorf("%d active menu entries at #operation/%s, want 1: the page's script did not run or did not follow the fragment", n, target.id)
		}
	})
	t.Run("client-rendered", func(t *testing.T) {
		t.Parallel()
		checkOperations(t, withoutScripts(dumpDOM(t, chromium, srv.URL+"/docs-client-rendered")), ops)
	})
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

func dumpDOM(t *testing.T, chromium, url string) []byte {
	t.Helper()
	// A guard against a hung browser, not a performance assertion.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		// Any request to another host fails, so the page must be self-contained to render.
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		"--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=10000",
		"--dump-dom", url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, tail(stderr.String(), 2000))
	}
	if !bytes.Contains(out, []byte(`id="redoc"`)) {
		t.Fatalf("chromium %s: no Redoc container in the DOM\n%s", url, tail(stderr.String(), 2000))
	}
	return out
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
				Paths      map[string]map[string]described
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
			desc := state.Spec.Data.Paths[path][strings.ToLower(method)].Description
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
