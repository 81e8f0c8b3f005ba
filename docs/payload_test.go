package docs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/orgportal/portal-api/portaltest"
)

// shownSample is one request body the page shows under "Request samples",
// in its "Payload" tab: one per entry of the example dropdown, or the one
// sample when there is no dropdown.
type shownSample struct {
	Op          string // operationId
	ContentType string // as the tab shows it
	Label       string // the dropdown's entry: the example's summary, or its name; "" without a dropdown
	Text        string // the body, as shown
}

// readPayloadSamples clicks every "Payload" tab and every entry of its
// example dropdown, and reads what the page shows. React renders a click or
// a change in a microtask of the event; each read waits for a timer after it,
// and a read that lagged would show another example's text, which the
// comparison with the example then reports.
const readPayloadSamples = `(async () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  const text = (panel) => {
    const code = panel.querySelector("pre, .redoc-json");
    return code ? code.textContent : null;
  };
  const out = [];
  for (const h of document.querySelectorAll("h3")) {
    if (h.textContent.trim() !== "Request samples") continue;
    const section = h.closest("[data-section-id]");
    const op = section.getAttribute("data-section-id").replace(/^.*operation\//, "");
    for (const tab of h.nextElementSibling.querySelectorAll("[role=tab]")) {
      if (tab.textContent.trim() !== "Payload") continue;
      tab.click();
      await settle();
      const panel = document.getElementById(tab.getAttribute("aria-controls"));
      const label = [...panel.querySelectorAll("span")].find((s) => s.textContent === "Content type");
      const contentType = label ? label.nextElementSibling.textContent.trim() : "";
      const select = panel.querySelector("select");
      if (!select) {
        out.push({ Op: op, ContentType: contentType, Label: "", Text: text(panel) });
        continue;
      }
      for (let i = 0; i < select.options.length; i++) {
        select.selectedIndex = i;
        select.dispatchEvent(new Event("change", { bubbles: true }));
        await settle();
        out.push({ Op: op, ContentType: contentType, Label: select.options[i].text, Text: text(panel) });
      }
    }
  }
  return out;
})()`

// readSamples reads the payload samples of a loaded page.
func (p *page) readSamples(t *testing.T) []shownSample {
	t.Helper()
	var out []shownSample
	p.eval(t, readPayloadSamples, &out)
	for _, s := range out {
		if s.Text == "" || s.ContentType == "" {
			t.Errorf("%s: a payload sample without text or content type: %+v", s.Op, s)
		}
	}
	return out
}

// opRef is an operation of a contract with its method and path.
type opRef struct {
	method, path string
	op           *openapi3.Operation
}

func operationsByID(doc *openapi3.T) map[string]opRef {
	out := map[string]opRef{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out[op.OperationID] = opRef{method, path, op}
		}
	}
	return out
}

// exampleOf finds the named example a sample shows: by its label (summary
// or name), or the only one when the page shows no dropdown. It returns ""
// for a sample Redoc generated from the schema (a media type without
// examples).
func exampleOf(t *testing.T, mt *openapi3.MediaType, s shownSample) (string, any) {
	t.Helper()
	if s.Label == "" {
		switch {
		case len(mt.Examples) == 1:
			for name, ex := range mt.Examples {
				return name, ex.Value.Value
			}
		case len(mt.Examples) == 0 && mt.Example != nil:
			return "example", mt.Example
		case len(mt.Examples) == 0:
			return "", nil
		}
		t.Fatalf("%s: %d examples but no dropdown", s.Op, len(mt.Examples))
	}
	for name, ex := range mt.Examples {
		if ex.Value.Summary == s.Label || ex.Value.Summary == "" && name == s.Label {
			return name, ex.Value.Value
		}
	}
	t.Fatalf("%s: the dropdown shows %q, which is no example's summary or name", s.Op, s.Label)
	return "", nil
}

// jsonValue is v as encoding/json decodes it (numbers float64).
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// formFields decodes a form body the way the contract's encoding says: one
// value per field (the server refuses a repeated one), a JSON document where
// encoding.contentType is JSON, a comma list where explode is false, text
// otherwise.
func formFields(t *testing.T, mt *openapi3.MediaType, text string) map[string]any {
	t.Helper()
	form, err := url.ParseQuery(text)
	if err != nil {
		t.Fatalf("not a form body (%v): %s", err, text)
	}
	out := map[string]any{}
	for name, values := range form {
		if len(values) != 1 {
			t.Errorf("%s given %d times: %s", name, len(values), text)
			continue
		}
		enc := mt.Encoding[name]
		switch {
		case enc != nil && strings.Contains(enc.ContentType, "json"):
			var v any
			if err := json.Unmarshal([]byte(values[0]), &v); err != nil {
				t.Errorf("%s: not JSON (%v): %s", name, err, values[0])
			}
			out[name] = v
		case enc != nil && enc.Explode != nil && !*enc.Explode:
			var list []any
			for _, v := range strings.Split(values[0], ",") {
				list = append(list, v)
			}
			out[name] = list
		default:
			out[name] = values[0]
		}
	}
	return out
}

// asForm is an example's value as formFields gives it back: fields that
// are no JSON document become text.
func asForm(t *testing.T, mt *openapi3.MediaType, value any) map[string]any {
	t.Helper()
	fields, ok := jsonValue(t, value).(map[string]any)
	if !ok {
		t.Fatalf("a form example that is no object: %v", value)
	}
	for name, v := range fields {
		if enc := mt.Encoding[name]; enc != nil && strings.Contains(enc.ContentType, "json") {
			continue
		}
		if list, ok := v.([]any); ok {
			for i, x := range list {
				list[i] = fmt.Sprint(x)
			}
			continue
		}
		fields[name] = fmt.Sprint(v)
	}
	return fields
}

// portalReplay sends the reference page's payload samples to the
// reference server, each on a freshly reset emulator after the samples its
// example's x-setup names, as its x-caller, and compares each answer with
// the response example of the same name: the same error, or a success
// holding what the example shows (but the x-ignore fields).
type portalReplay struct {
	t        *testing.T
	p        *portaltest.Portal
	doc      *openapi3.T
	ops      map[string]opRef
	fixtures map[string]any
	byName   map[string]shownSample // operationId/exampleName
}

func replayPortalSamples(t *testing.T, p *portaltest.Portal, doc *openapi3.T, samples []shownSample) {
	fixtures, _ := doc.Extensions["x-example-fixtures"].(map[string]any)
	r := &portalReplay{t: t, p: p, doc: doc, ops: operationsByID(doc), fixtures: fixtures, byName: map[string]shownSample{}}
	var keys []string
	for _, s := range samples {
		o, ok := r.ops[s.Op]
		if !ok || o.op.RequestBody == nil {
			t.Errorf("%s: a payload sample of no operation with a request body", s.Op)
			continue
		}
		mt := o.op.RequestBody.Value.Content.Get(s.ContentType)
		if mt == nil {
			t.Errorf("%s: the page shows a %s body, which the operation does not take", s.Op, s.ContentType)
			continue
		}
		name, value := exampleOf(t, mt, s)
		if name == "" {
			t.Errorf("%s: a payload sample generated from the schema, not an example: %s", s.Op, s.Text)
			continue
		}
		// The page shows exactly the example's fields.
		if got, want := formFields(t, mt, s.Text), asForm(t, mt, value); !reflect.DeepEqual(got, want) {
			t.Errorf("%s/%s: the page shows\n%s\nwhich is\n%v\nnot the example\n%v", s.Op, name, s.Text, got, want)
		}
		key := s.Op + "/" + name
		r.byName[key] = s
		keys = append(keys, key)
	}
	// Every example of every form body is shown: a page that showed fewer
	// (or a reading that found none) fails here rather than passing empty.
	for id, o := range r.ops {
		if o.op.RequestBody == nil {
			continue
		}
		for ct, mt := range o.op.RequestBody.Value.Content {
			for name := range mt.Examples {
				if _, ok := r.byName[id+"/"+name]; !ok {
					t.Errorf("%s/%s: the page shows no %s payload sample of this example", id, name, ct)
				}
			}
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			p.Reset(t)
			r.replay(t, key, 0)
		})
	}
}

// signInState is the oauth_state of demo-app's code flow as the sign-in
// page gives it.
func (r *portalReplay) signInState(t *testing.T) string {
	t.Helper()
	q := url.Values{"client_id": {"demo-app"}, "response_type": {"code"}, "redirect_uri": {"http://127.0.0.1:5000/callback"}}
	resp, err := http.Get(r.p.URL + "/oauth2/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`"oauth_state":"([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the sign-in page of demo-app's code flow has no oauth_state:\n%.500s", page)
	}
	return string(m[1])
}

func (r *portalReplay) replay(t *testing.T, key string, depth int) {
	t.Helper()
	if depth > 5 {
		t.Fatalf("%s: x-setup nests too deep", key)
	}
	s, ok := r.byName[key]
	if !ok {
		t.Fatalf("%s: not a payload sample the page shows (x-setup names it)", key)
	}
	o := r.ops[s.Op]
	name := strings.TrimPrefix(key, s.Op+"/")
	mt := o.op.RequestBody.Value.Content.Get(s.ContentType)
	ext := mt.Examples[name].Value.Extensions
	setups, _ := ext["x-setup"].([]any)
	for _, setup := range setups {
		r.replay(t, fmt.Sprint(setup), depth+1)
	}

	base := r.p.URL
	if item := r.doc.Paths.Value(o.path); item != nil && len(item.Servers) > 0 {
		// A path beside the REST root (the sign-in page's form target).
		at, _ := strings.CutPrefix(item.Servers[0].URL, "{scheme}://{host}")
		base = r.p.Root + at
	}
	target := base + r.path(t, o, name)
	text := s.Text
	if form, err := url.ParseQuery(text); err == nil && form.Has("oauth_state") && s.ContentType == "application/x-www-form-urlencoded" {
		// A real oauth_state is signed by the server that gave the page:
		// the one shown stands for it, as the example's summary says.
		form.Set("oauth_state", r.signInState(t))
		text = form.Encode()
	}
	req, err := http.NewRequest(o.method, target, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", s.ContentType)
	switch caller, _ := ext["x-caller"].(string); caller {
	case "admin", "":
		req.Header.Set("Authorization", "Bearer "+portaltest.AdminToken)
	case "member":
		req.Header.Set("Authorization", "Bearer "+portaltest.MemberToken)
	case "anonymous":
	default:
		t.Fatalf("%s: x-caller %q", key, caller)
	}
	json200 := o.op.Responses.Value("200").Value.Content.Get("application/json")
	if json200 == nil {
		// A page's form (the sign-in): taken when it signs in, that is
		// when it redirects with a code or a token, not when it answers a
		// page again.
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || !strings.Contains(loc, "code=") && !strings.Contains(loc, "access_token=") {
			t.Errorf("%s: sent as shown\n%s\nit answered HTTP %d, Location %q, not a sign-in:\n%.500s", key, text, resp.StatusCode, loc, page)
		}
		return
	}
	raw, got := send(t, req)

	resp := json200.Examples[name]
	if resp == nil {
		t.Fatalf("%s: no response example of that name", key)
	}
	if want, ok := resp.Value.Extensions["x-raw-body"].(string); ok && string(raw) != want {
		t.Errorf("%s: answered\n%s\nnot x-raw-body\n%s", key, raw, want)
	}
	want := jsonValue(t, resp.Value.Value).(map[string]any)
	var ignore []string
	if list, ok := resp.Value.Extensions["x-ignore"].([]any); ok {
		for _, v := range list {
			ignore = append(ignore, fmt.Sprint(v))
		}
	}
	if e, ok := want["error"]; ok {
		if !reflect.DeepEqual(got["error"], e) {
			t.Errorf("%s: sent as shown\n%s\nit answered\n%s\nnot the example's error %v", key, s.Text, raw, e)
		}
		return
	}
	if _, ok := got["error"]; ok {
		t.Errorf("%s: sent as shown\n%s\nit was refused: %s", key, s.Text, raw)
		return
	}
	for _, d := range subset(want, got, "", ignore) {
		t.Errorf("%s: sent as shown, the answer differs from the example: %s\n%s", key, d, raw)
	}
}

var pathParamRe = regexp.MustCompile(`\{(\w+)\}`)

// path is the operation's path with the parameters of the example's
// x-examples entry, or the fixtures' portalId and member.
func (r *portalReplay) path(t *testing.T, o opRef, name string) string {
	t.Helper()
	var given map[string]any
	if x, ok := o.op.Extensions["x-examples"].(map[string]any); ok {
		if entry, ok := x[name].(map[string]any); ok {
			given, _ = entry["parameters"].(map[string]any)
		}
	}
	return pathParamRe.ReplaceAllStringFunc(o.path, func(m string) string {
		param := m[1 : len(m)-1]
		v, ok := given[param]
		switch {
		case ok:
		case param == "portalId":
			v = r.fixtures["portalId"]
		case param == "userName":
			v = r.fixtures["member"]
		default:
			t.Fatalf("%s/%s: no value for {%s}", o.op.OperationID, name, param)
		}
		return url.PathEscape(fmt.Sprint(v))
	})
}

// send makes the request and decodes its JSON answer.
func send(t *testing.T, req *http.Request) ([]byte, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s %s: HTTP %d, not a JSON object: %s", req.Method, req.URL.Path, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		got["httpStatus"] = float64(resp.StatusCode)
	}
	return raw, got
}

// subset lists where got lacks what want holds. An ignored path (dotted,
// through arrays to each element) is not compared.
func subset(want, got any, path string, ignore []string) []string {
	if slices.Contains(ignore, path) {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v, want an object", path, got)}
		}
		var out []string
		for k, v := range w {
			p := k
			if path != "" {
				p = path + "." + k
			}
			out = append(out, subset(v, g[k], p, ignore)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		var out []string
		for i := range w {
			out = append(out, subset(w[i], g[i], path, ignore)...)
		}
		return out
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		return nil
	}
}

// replayEmulatorSamples sends the emulator page's payload samples to the
// emulator, each after a reset, and wants each answered 200 without an
// error. The names and ids in paths name what exists: a snapshot or a
// fault rule the test makes first, the second demo organization.
func replayEmulatorSamples(t *testing.T, p *portaltest.Portal, doc *openapi3.T, samples []shownSample) {
	ops := operationsByID(doc)
	byOp := map[string]shownSample{}
	for _, s := range samples {
		byOp[s.Op] = s
	}
	// prepare makes what an operation's path names exist, and gives it.
	prepare := map[string]func(t *testing.T) map[string]string{
		"saveSnapshot": func(*testing.T) map[string]string { return map[string]string{"name": "docs-sample"} },
		"deleteSnapshot": func(t *testing.T) map[string]string {
			p.Snapshot(t, "docs-sample")
			return map[string]string{"name": "docs-sample"}
		},
		"restoreSnapshot": func(t *testing.T) map[string]string {
			p.Snapshot(t, "docs-sample")
			return map[string]string{"name": "docs-sample"}
		},
		"deleteOrganization": func(*testing.T) map[string]string { return map[string]string{"id": portaltest.OtherOrgID} },
		"removeFault": func(t *testing.T) map[string]string {
			return map[string]string{"id": p.Fault(t, portaltest.Fault{Operation: "updateSettings", Status: 503})}
		},
	}
	for _, s := range samples {
		t.Run(s.Op, func(t *testing.T) {
			p.Reset(t)
			o, ok := ops[s.Op]
			if !ok || o.op.RequestBody == nil {
				t.Fatalf("a payload sample of no operation with a request body")
			}
			mt := o.op.RequestBody.Value.Content.Get(s.ContentType)
			if mt == nil {
				t.Fatalf("the page shows a %s body, which the operation does not take", s.ContentType)
			}
			if _, value := exampleOf(t, mt, s); value != nil {
				var shown any
				if err := json.Unmarshal([]byte(s.Text), &shown); err != nil || !reflect.DeepEqual(shown, jsonValue(t, value)) {
					t.Errorf("the page shows\n%s\nnot the example %v", s.Text, value)
				}
			}
			params := map[string]string{}
			if f := prepare[s.Op]; f != nil {
				params = f(t)
			}
			path := pathParamRe.ReplaceAllStringFunc(o.path, func(m string) string {
				v, ok := params[m[1:len(m)-1]]
				if !ok {
					t.Fatalf("no value for %s: give one in prepare", m)
				}
				return url.PathEscape(v)
			})
			req, err := http.NewRequest(o.method, p.Root+path, bytes.NewReader([]byte(s.Text)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", s.ContentType)
			raw, got := send(t, req)
			if got["httpStatus"] != nil || got["error"] != nil {
				t.Errorf("sent as shown\n%s\nit was refused: %s", s.Text, raw)
			}
		})
	}
	for id, o := range ops {
		if o.op.RequestBody != nil && byOp[id].Op == "" {
			t.Errorf("%s takes a body, and the page shows no payload sample for it", id)
		}
	}
}
