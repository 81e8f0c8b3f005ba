package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// pair is one named example pair of an operation: a request and the
// response it must get.
type pair struct {
	op      *operation
	name    string
	caller  string // admin, member or anonymous
	setup   []string
	params  map[string]any
	body    map[string]any // nil: no body
	want    any
	ignore  []string
	subset  bool // x-subset: the answer may hold more fields than want
	raw     string
	hasRaw  bool
	summary string
	// since and deployments are the example's x-introduced-in and
	// x-deployments: the portals whose answer the example shows.
	since       string
	deployments []string
}

// loadPairs reads an operation's example pairs: request-body examples and
// x-examples entries, matched by name with the 200 response's examples.
func loadPairs(o *operation) ([]*pair, error) {
	byName := map[string]*pair{}
	get := func(name string) *pair {
		if p := byName[name]; p != nil {
			return p
		}
		p := &pair{op: o, name: name}
		byName[name] = p
		return p
	}
	readMeta := func(p *pair, ext map[string]any) error {
		if c, ok := ext["x-caller"].(string); ok {
			p.caller = c
		}
		if list, ok := ext["x-setup"].([]any); ok {
			for _, v := range list {
				name, ok := v.(string)
				if !ok {
					return fmt.Errorf("%s/%s: x-setup holds %v, want operationId/exampleName", o.id, p.name, v)
				}
				p.setup = append(p.setup, name)
			}
		}
		if v, ok := ext["x-introduced-in"].(string); ok {
			p.since = v
		}
		if list, ok := ext["x-deployments"].([]any); ok {
			for _, v := range list {
				if d, ok := v.(string); ok {
					p.deployments = append(p.deployments, d)
				}
			}
		}
		if sm, ok := ext["summary"].(string); ok && p.summary == "" {
			p.summary = sm
		}
		return nil
	}
	if o.form != nil {
		for name, ref := range o.form.Examples {
			if ref == nil || ref.Value == nil {
				continue
			}
			p := get(name)
			body, ok := normalize(ref.Value.Value).(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/%s: the request example is no object", o.id, name)
			}
			p.body = body
			p.summary = ref.Value.Summary
			if err := readMeta(p, ref.Value.Extensions); err != nil {
				return nil, err
			}
		}
	}
	if x, ok := o.op.Extensions["x-examples"].(map[string]any); ok {
		for name, v := range x {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: x-examples.%s is no object", o.id, name)
			}
			p := get(name)
			if params, ok := m["parameters"].(map[string]any); ok {
				p.params = normalize(params).(map[string]any)
			}
			if body, ok := m["body"].(map[string]any); ok {
				p.body = normalize(body).(map[string]any)
			}
			if err := readMeta(p, m); err != nil {
				return nil, err
			}
		}
	}
	resp := o.op.Responses.Value("200")
	if resp == nil || resp.Value == nil {
		return nil, fmt.Errorf("%s: no 200 response", o.id)
	}
	if len(byName) == 0 || resp.Value.Content.Get("text/html") != nil {
		// An operation without examples, or one whose answer is an HTML
		// page or a redirect (the OAuth sign-in's: its request example is
		// there for the reference page), has nothing to compare: the
		// signIn scenarios check those.
		return nil, nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil {
		return nil, fmt.Errorf("%s: examples, but no application/json 200 response to compare them with", o.id)
	}
	for name, p := range byName {
		ex := mt.Examples[name]
		if ex == nil || ex.Value == nil {
			return nil, fmt.Errorf("%s/%s: request example without a response example", o.id, name)
		}
		p.want = normalize(ex.Value.Value)
		if list, ok := ex.Value.Extensions["x-ignore"].([]any); ok {
			for _, v := range list {
				if s, ok := v.(string); ok {
					p.ignore = append(p.ignore, s)
				}
			}
		}
		p.subset, _ = ex.Value.Extensions["x-subset"].(bool)
		if raw, ok := ex.Value.Extensions["x-raw-body"].(string); ok {
			p.raw, p.hasRaw = raw, true
		}
		if p.caller == "" {
			p.caller = "admin"
		}
		if p.params == nil {
			p.params = map[string]any{}
		}
		if o.form != nil && p.body == nil {
			p.body = map[string]any{}
		}
	}
	out := make([]*pair, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// examples replays every example pair of the contract.
func (s *suite) examples(t TB) {
	for _, o := range s.order {
		if len(o.pairs) == 0 {
			continue
		}
		t.Run(o.id, func(t TB) {
			for _, p := range o.pairs {
				t.Run(p.name, func(t TB) { s.replay(t, p) })
			}
		})
	}
}

// wantsError returns the error code a pair's response example shows, or 0.
func (p *pair) wantsError() int {
	if m, ok := p.want.(map[string]any); ok {
		if e, ok := m["error"].(map[string]any); ok {
			if c, ok := e["code"].(float64); ok {
				return int(c)
			}
		}
	}
	return 0
}

// whyNotRun says why the target cannot replay p, or "".
func (s *suite) whyNotRun(p *pair) string {
	for _, name := range append(s.setupChain(p), p.op.id+"/"+p.name) {
		q := s.pairs[name]
		if q == nil {
			return fmt.Sprintf("x-setup names %s, which is no example pair", name)
		}
		if why := s.notForTarget(q); why != "" {
			return fmt.Sprintf("%s %s", name, why)
		}
		if q.caller == "member" && q.wantsError() == 403 && !s.hasMember() {
			return fmt.Sprintf("%s needs a member without administrative privileges (Target.MemberToken)", name)
		}
		if q.op.id == "generateToken" && q.wantsError() == 0 {
			if _, ok := s.password(q); !ok {
				return fmt.Sprintf("%s needs the password of %s (Target.Username and Target.Password)", name, s.users()[fmt.Sprint(q.body["username"])])
			}
		}
		if user := wrongPasswordOf(q, s.users()); user != "" && s.wrongPasswordSent(user) {
			return fmt.Sprintf("%s would send %s a second wrong password in this run; the suite sends at most one per user name, so as never to lock an account", name, user)
		}
		fixID, fixSecret := s.fixtureApp()
		if fixID != "" && q.body["client_id"] == fixID {
			if _, _, why := s.app(); why != "" {
				return fmt.Sprintf("%s %s", name, why)
			}
		}
		if fixSecret != "" && q.body["client_secret"] == fixSecret {
			if _, _, why := s.appSecret(); why != "" {
				return fmt.Sprintf("%s %s", name, why)
			}
		}
	}
	return ""
}

// wrongPasswordOf returns the user (as users maps the fixtures' names) a
// pair sends a wrong password for: a generateToken pair that must be
// refused; "" for other pairs.
func wrongPasswordOf(p *pair, users map[string]string) string {
	if p.op.id != "generateToken" || p.wantsError() == 0 {
		return ""
	}
	user, _ := p.body["username"].(string)
	if mapped := users[user]; mapped != "" {
		return mapped
	}
	return user
}

// withApp puts the target's application in body where a pair names the
// examples' own: its client id, its secret, and, for another application
// than the examples', the target's redirect URI.
func (s *suite) withApp(body map[string]any) {
	fixID, fixSecret := s.fixtureApp()
	if fixID == "" || body["client_id"] != fixID {
		return
	}
	id, secret, _ := s.app()
	body["client_id"] = id
	if fixSecret != "" && body["client_secret"] == fixSecret {
		body["client_secret"] = secret
	}
	if _, ok := body["redirect_uri"]; ok && id != fixID {
		body["redirect_uri"] = s.redirectURI()
	}
}

// notForTarget says why the target's version or deployment is not one p's
// example shows, or "".
func (s *suite) notForTarget(p *pair) string {
	if v := s.target.Version; v != "" && p.since != "" {
		have, _ := parseVersion(v)
		need, ok := parseVersion(p.since)
		if ok && have.less(need) {
			return fmt.Sprintf("shows a portal at %s or later (x-introduced-in); the target is at %s", p.since, v)
		}
	}
	if d := s.target.Deployment; d != "" && len(p.deployments) > 0 && !slices.Contains(p.deployments, d) {
		return fmt.Sprintf("is written for the %s deployment (x-deployments); the target is %s", strings.Join(p.deployments, " or "), d)
	}
	return ""
}

// version is a portal version, major.minor.
type version struct{ major, minor int }

func parseVersion(s string) (version, bool) {
	maj, min, ok := strings.Cut(s, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || a < 0 || b < 0 {
		return version{}, false
	}
	return version{a, b}, true
}

func (v version) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

func (v version) less(w version) bool {
	return v.major < w.major || v.major == w.major && v.minor < w.minor
}

// setupChain lists the pairs to replay before p, setups of setups first,
// each once.
func (s *suite) setupChain(p *pair) []string {
	var out []string
	seen := map[string]bool{p.op.id + "/" + p.name: true}
	var walk func(q *pair)
	walk = func(q *pair) {
		for _, name := range q.setup {
			if seen[name] {
				continue
			}
			seen[name] = true
			if r := s.pairs[name]; r != nil {
				walk(r)
			}
			out = append(out, name)
		}
	}
	walk(p)
	return out
}

// users maps the fixtures' user names to the target's.
func (s *suite) users() map[string]string {
	m := map[string]string{s.fix.member: s.owner}
	if s.adminUser != "" {
		m[s.fix.admin] = s.adminUser
	}
	return m
}

// password returns the password to send for a generateToken example that
// must succeed: the example's own when the target uses the fixtures' user
// names (the reference server's demo organization), Target.Password when
// the example's user maps to Target.Username.
func (s *suite) password(p *pair) (string, bool) {
	user, _ := p.body["username"].(string)
	mapped := s.users()[user]
	if mapped == "" || mapped == user {
		pw, _ := p.body["password"].(string)
		return pw, true
	}
	if mapped == s.target.Username && s.target.Password != "" {
		return s.target.Password, true
	}
	return "", false
}

// replay runs one pair on fresh fixtures: state reset, fixtures created,
// setups replayed, the request sent and its answer compared.
func (s *suite) replay(t TB, p *pair) {
	if why := s.whyNotRun(p); why != "" {
		s.notRun(t, "%s", why)
	}
	if why := s.missingGroup(t, p); why != "" {
		s.notRun(t, "%s", why)
	}
	if p.summary != "" {
		t.Logf("%s", p.summary)
	}
	if p.caller == "member" && s.memberToken == "" {
		t.Logf("x-caller member: sent by the administrator %s, on its own content (no Target.MemberToken)", s.adminUser)
	}
	s.freshOrg(t)
	fx := s.newFixtures(t)
	sub := s.substitution(fx)
	for _, name := range s.setupChain(p) {
		s.replayOne(t, s.pairs[name], fx, sub, true)
	}
	s.replayOne(t, p, fx, sub, false)
}

// replayOne sends one pair's request and compares the answer with its
// response example. A setup that does not answer its example stops t.
func (s *suite) replayOne(t TB, p *pair, fx *fixtures, sub *substitution, isSetup bool) {
	t.Helper()
	label := "example " + p.op.id + "/" + p.name
	if isSetup {
		label = "x-setup pair " + p.op.id + "/" + p.name
	}
	params, _ := sub.apply(p.params).(map[string]any)
	var body map[string]any
	if p.body != nil {
		body, _ = sub.apply(p.body).(map[string]any)
	}
	// Path parameters an example does not give take the fixtures' values.
	for _, pref := range p.op.op.Parameters {
		if pref.Value.In != "path" {
			continue
		}
		if _, given := params[pref.Value.Name]; given {
			continue
		}
		switch pref.Value.Name {
		case "portalId":
			params["portalId"] = s.portalID
		case "userName":
			params["userName"] = s.owner
		}
	}
	if p.op.id == "generateToken" && p.wantsError() == 0 {
		pw, _ := s.password(p)
		body["password"] = pw
	}
	if user := wrongPasswordOf(p, s.users()); user != "" && !s.spendWrongPassword(user) {
		s.notRun(t, "%s would send %s a second wrong password in this run; the suite sends at most one per user name, so as never to lock an account", label, user)
	}
	if body != nil {
		s.withApp(body)
	}
	var token string
	switch p.caller {
	case "admin":
		token = s.adminToken
	case "member":
		token = s.ownerToken()
	case "anonymous":
	default:
		t.Fatalf("%s/%s: unknown x-caller %q", p.op.id, p.name, p.caller)
	}
	r := request{op: p.op, params: params, body: body, token: token}
	a := s.send(t, r)
	fx.noteCreated(p.op.id, a)
	if p.wantsError() == 0 {
		if why := s.gated(p.op, body, a); why != "" {
			s.notRun(t, "%s: %s", label, why)
		}
	}

	fail := t.Errorf
	if isSetup {
		fail = t.Fatalf
	}
	if p.hasRaw {
		if want := sub.text(p.raw); string(a.raw) != want {
			fail("%s: the raw body differs from x-raw-body:\nwant %q\ngot  %q", label, want, string(a.raw))
		}
	}
	want := s.expected(p, sub)
	got := normalize(a.body)
	if p.op.id == "getUserContent" || p.op.id == "getFolderContent" {
		got = s.ownListing(t, r, fx, got)
		for _, list := range []string{"items", "folders"} {
			if why := creationOrder(got, list, fx); why != "" {
				fail("%s: %s", label, why)
			}
			byID(want, list)
			byID(got, list)
		}
	}
	want = sslByScheme(p.op, want, a.https)
	want, got = ignore(want, p.ignore), ignore(got, p.ignore)
	d, differs := compare(want, got, p.subset), "differs from"
	if p.subset {
		differs = "lacks what is in"
	}
	if len(d) > 0 {
		fail("%s: the answer %s the response example:\n  - %s\nrequest: %s %s %s\nanswer: %s",
			label, differs, strings.Join(d, "\n  - "), p.op.method, p.op.path, jsonText(params), clip(a.raw, 1500))
	}
}

// gated says why a refused request used a field the contract marks with
// x-introduced-in or x-deployments, when the target refused it for that:
// a 400 whose detail names the field and a version or deployment, from a
// target whose release or deployment (given or detected) does not take the
// field. Such a target is another version or deployment than the one the
// examples are written for, not a broken one. A target whose release and
// deployment take the field gets no such excuse: its refusal is judged.
func (s *suite) gated(o *operation, body map[string]any, a *answer) string {
	if a.err == nil || a.err.Code != 400 || o.form == nil || o.form.Schema == nil || o.form.Schema.Value == nil {
		return ""
	}
	for name := range body {
		prop := o.form.Schema.Value.Properties[name]
		if prop == nil || prop.Value == nil {
			continue
		}
		since, _ := prop.Value.Extensions["x-introduced-in"].(string)
		where := prop.Value.Extensions["x-deployments"]
		if since == "" && where == nil || s.takes(since, where) {
			continue
		}
		for _, d := range a.err.Details {
			if strings.HasPrefix(d, name) && (strings.Contains(d, "deployment") || strings.Contains(d, "version")) {
				return fmt.Sprintf("the target does not take %s (x-introduced-in %s, x-deployments %v): %s", name, since, where, d)
			}
		}
	}
	return ""
}

// takes reports whether the target, by its release and deployment, takes a
// field introduced in since and offered by the deployments where lists; an
// unknown release or deployment takes nothing for sure.
func (s *suite) takes(since string, where any) bool {
	if since != "" {
		have, ok1 := parseVersion(s.target.Version)
		need, ok2 := parseVersion(since)
		if !ok1 || !ok2 || have.less(need) {
			return false
		}
	}
	if list, ok := where.([]any); ok {
		return s.target.Deployment != "" && slices.Contains(list, any(s.target.Deployment))
	}
	return true
}

// expected is p's response example with the fixtures' ids and names
// replaced by the target's. When the content owner is not the fixtures'
// member, a member's fullName and role are the owner's, as read at start.
func (s *suite) expected(p *pair, sub *substitution) any {
	want := sub.apply(p.want)
	if s.owner == s.fix.member {
		return want
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["username"] == s.owner {
				for k, v := range s.profile {
					if _, ok := x[k]; ok && v != nil {
						x[k] = v
					}
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(want)
	return want
}

// ownListing keeps, in a content listing, only what the suite created for
// this pair, when the listing also holds content the suite did not create
// (the user's own, or an emulator's seeded demo content): it reads the
// further pages, drops the entries of others, and sets total to the
// entries kept and nextStart to -1. A listing of only the suite's content is
// compared as it came.
func (s *suite) ownListing(t TB, r request, fx *fixtures, got any) any {
	t.Helper()
	page, ok := got.(map[string]any)
	if !ok || page["error"] != nil {
		return got
	}
	foreign := func(list any) bool {
		l, _ := list.([]any)
		for _, e := range l {
			m, _ := e.(map[string]any)
			if id, _ := m["id"].(string); !fx.owns(id) {
				return true
			}
		}
		return false
	}
	if !foreign(page["items"]) && !foreign(page["folders"]) && page["nextStart"] == -1.0 {
		return got
	}
	items, _ := page["items"].([]any)
	folders, _ := page["folders"].([]any)
	next, _ := page["nextStart"].(float64)
	for n := 0; next > 0 && n < 100; n++ {
		params := map[string]any{}
		for k, v := range r.params {
			params[k] = v
		}
		params["start"] = next
		a := s.send(t, request{op: r.op, params: params, token: r.token})
		if a.err != nil {
			t.Errorf("%s: reading the page at %v: %s", r.op.id, next, a.err)
			break
		}
		more, _ := a.body["items"].([]any)
		items = append(items, more...)
		moreFolders, _ := a.body["folders"].([]any)
		folders = append(folders, moreFolders...)
		prev := next
		next, _ = a.body["nextStart"].(float64)
		if next <= prev {
			break
		}
	}
	keep := func(list []any) []any {
		out := []any{}
		seen := map[string]bool{}
		for _, e := range list {
			m, _ := e.(map[string]any)
			id, _ := m["id"].(string)
			if fx.owns(id) && !seen[id] {
				seen[id] = true
				out = append(out, e)
			}
		}
		return out
	}
	page["items"] = keep(items)
	page["folders"] = keep(folders)
	page["total"] = float64(len(page["items"].([]any)))
	page["nextStart"] = -1.0
	return page
}

// creationOrder checks that a listing's entries come in creation order:
// created never decreases, and entries created in different milliseconds
// come in the order the suite created them. Entries created in the same
// millisecond may come in any order.
func creationOrder(page any, list string, fx *fixtures) string {
	rank := map[string]int{}
	for i, id := range append(append([]string(nil), fx.createdFolders...), fx.createdItems...) {
		rank[id] = i
	}
	entries := asList(asMap(page)[list])
	for i := range entries {
		for j := i + 1; j < len(entries); j++ {
			a, b := asMap(entries[i]), asMap(entries[j])
			ca, ok1 := a["created"].(float64)
			cb, ok2 := b["created"].(float64)
			if !ok1 || !ok2 || ca == cb {
				continue
			}
			ia, _ := a["id"].(string)
			ib, _ := b["id"].(string)
			if ca > cb || rank[ia] > rank[ib] {
				return fmt.Sprintf("%s[%d] (%s, created %.0f) is listed before %s[%d] (%s, created %.0f), created earlier: a listing is in creation order",
					list, i, ia, ca, list, j, ib, cb)
			}
		}
	}
	return ""
}

// byID sorts a listing's entries by id, so that the comparison with the
// example leaves order to creationOrder.
func byID(page any, list string) {
	m := asMap(page)
	entries := append([]any(nil), asList(m[list])...)
	if len(entries) == 0 {
		return
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, _ := asMap(entries[i])["id"].(string)
		b, _ := asMap(entries[j])["id"].(string)
		return a < b
	})
	m[list] = entries
}

// substitution rewrites the fixtures' ids, portal id, user names and
// titles into the target's, in one pass so that a replacement is never
// replaced again.
type substitution struct {
	re *regexp.Regexp
	to map[string]string
}

// substitution builds the rewriting for fx: fixture ids and the portal id
// are replaced wherever they occur; user names and titles where they stand
// as whole words. Titles given at the top level of a request example's form
// (createFolder's "Field Work", and "projects" of a duplicate) get the same
// unique prefix as the fixtures, so that nothing the suite creates can meet
// a real user's content.
func (s *suite) substitution(fx *fixtures) *substitution {
	to := map[string]string{}
	if s.fix.portalID != s.portalID {
		to[s.fix.portalID] = s.portalID
	}
	for from, id := range fx.folders {
		to[from] = id
	}
	for from, id := range fx.items {
		to[from] = id
	}
	for from, name := range s.users() {
		if from != name {
			to[from] = name
		}
	}
	for from, title := range fx.titles {
		to[from] = title
	}
	for _, o := range s.order {
		for _, p := range o.pairs {
			title, ok := p.body["title"].(string)
			if !ok {
				continue
			}
			if _, done := to[title]; done {
				continue
			}
			to[title] = s.uniqueTitle(title)
			// A fixture's title in another case keeps that fixture's prefix,
			// so that it still names the same title, case-insensitively.
			for from, mapped := range fx.titles {
				if strings.EqualFold(from, title) {
					to[title] = strings.TrimSuffix(mapped, from) + title
				}
			}
		}
	}
	keys := make([]string, 0, len(to))
	for k := range to {
		keys = append(keys, regexp.QuoteMeta(k))
	}
	// Longest first, so that a longer key wins over a key inside it.
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	sub := &substitution{to: to}
	if len(keys) > 0 {
		sub.re = regexp.MustCompile(`\b(?:` + strings.Join(keys, "|") + `)\b`)
	}
	return sub
}

func (sub *substitution) text(s string) string {
	if sub.re == nil {
		return s
	}
	return sub.re.ReplaceAllStringFunc(s, func(m string) string { return sub.to[m] })
}

// apply returns a copy of v with every string rewritten; object keys stay.
func (sub *substitution) apply(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = sub.apply(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = sub.apply(v)
		}
		return out
	case string:
		return sub.text(x)
	default:
		return v
	}
}
