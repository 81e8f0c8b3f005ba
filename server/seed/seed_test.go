package seed_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/seed"
)

// base is a valid seed; the cases below change one line of it (or add
// lines after the one they point at), so the line numbers here hold.
const base = `organizations:
  - id: A
    name: Org A
    roles:
      - id: custom
        privileges: [p1]
    users:
      - username: u1
        password: pw
        role: org_user
        tokens: [t1]
        folders:
          - {id: f1, title: F}
        items:
          - {id: i1, title: I, type: CSV, folder: f1, tags: [x]}
      - username: u2
        password: pw
        role: custom
        tokens: [t2]
        folders:
          - {id: f2, title: G}
  - id: B
    name: Org B
    roles:
      - id: other
        privileges: [p2]
    users:
      - username: v1
        password: pw
        role: other
`

func TestBaseIsValid(t *testing.T) {
	f, err := seed.Parse("seed.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidationRules(t *testing.T) {
	cases := []struct {
		name     string
		old, new string // replace old (once in base) by new; both empty: the doc is new
		line     int
		path     string
		msg      string
	}{
		{"no organizations", "", "organizations: []\n", 1, "organizations", "at least one organization is required"},
		{"empty org id", "  - id: B\n", "  - id: \"\"\n", 22, "organizations[1].id", "must not be empty"},
		{"duplicate org id", "  - id: B\n", "  - id: A\n", 22, "organizations[1].id", `duplicate organization id "A" (also organizations[0])`},
		{"empty org name", "name: Org B", `name: ""`, 23, "organizations[1].name", "must not be empty"},
		{"absent org name names the org's line", "    name: Org B\n", "", 22, "organizations[1].name", "must not be empty"},
		{"built-in role id", "id: other", "id: org_admin", 25, "organizations[1].roles[0].id", `"org_admin" is a built-in role`},
		{"duplicate role id", "privileges: [p1]", "privileges: [p1]\n      - {id: custom, privileges: [p3]}", 7, "organizations[0].roles[1].id", `duplicate role id "custom"`},
		{"empty role id", "id: other", `id: ""`, 25, "organizations[1].roles[0].id", "must not be empty"},
		{"empty privilege", "privileges: [p1]", `privileges: [p1, ""]`, 6, "organizations[0].roles[0].privileges[1]", "must not be empty"},
		{"empty username", "username: u2", `username: ""`, 16, "organizations[0].users[1].username", "must not be empty"},
		{"duplicate username across orgs", "username: v1", "username: u1", 28, "organizations[1].users[0].username", `duplicate username "u1" (also organizations[0].users[0])`},
		{"slash in username", "username: v1", "username: a/b", 28, "organizations[1].users[0].username", `must not contain "/"`},
		{"empty password", "password: pw\n        role: other", "password: \"\"\n        role: other", 29, "organizations[1].users[0].password", "must not be empty"},
		{"unknown role", "role: org_user", "role: foo", 10, "organizations[0].users[0].role", `unknown role "foo": want org_admin, org_publisher, org_user or a role id of this organization`},
		{"role of another org", "role: custom", "role: other", 18, "organizations[0].users[1].role", `unknown role "other" (a role of organization "B", not of this one)`},
		{"empty role", "role: custom", `role: ""`, 18, "organizations[0].users[1].role", "must not be empty"},
		{"empty token", "tokens: [t2]", `tokens: [""]`, 19, "organizations[0].users[1].tokens[0]", "must not be empty"},
		{"duplicate token", "tokens: [t2]", "tokens: [t1]", 19, "organizations[0].users[1].tokens[0]", "duplicate token (also organizations[0].users[0].tokens[0])"},
		{"empty folder id", "{id: f2, title: G}", `{id: "", title: G}`, 21, "organizations[0].users[1].folders[0].id", "must not be empty"},
		{"duplicate folder id across users", "{id: f2, title: G}", "{id: f1, title: G}", 21, "organizations[0].users[1].folders[0].id", `duplicate folder id "f1"`},
		{"root as folder id", "{id: f2, title: G}", `{id: "/", title: G}`, 21, "organizations[0].users[1].folders[0].id", `"/" is the root folder`},
		{"empty folder title", "{id: f2, title: G}", `{id: f2, title: ""}`, 21, "organizations[0].users[1].folders[0].title", "must not be empty"},
		{"duplicate folder title ignoring case", "{id: f2, title: G}", "{id: f2, title: G}\n          - {id: f3, title: g}", 22, "organizations[0].users[1].folders[1].title", `duplicate folder title "g" (titles are unique per user, ignoring case, width and invisible characters)`},
		{"empty item id", "{id: i1,", `{id: "",`, 15, "organizations[0].users[0].items[0].id", "must not be empty"},
		{"duplicate item id", "folder: f1, tags: [x]}", "folder: f1, tags: [x]}\n          - {id: i1, title: J, type: CSV}", 16, "organizations[0].users[0].items[1].id", `duplicate item id "i1" (also organizations[0].users[0].items[0])`},
		{"empty item title", "title: I,", `title: "",`, 15, "organizations[0].users[0].items[0].title", "must not be empty"},
		{"absent item type", "type: CSV, ", "", 15, "organizations[0].users[0].items[0].type", "must not be empty"},
		{"unknown item folder", "folder: f1,", "folder: nope,", 15, "organizations[0].users[0].items[0].folder", `unknown folder "nope"`},
		{"item in another user's folder", "folder: f1,", "folder: f2,", 15, "organizations[0].users[0].items[0].folder", `folder "f2" belongs to user "u2", not to "u1"`},
		{"empty tag", "tags: [x]", `tags: [x, " "]`, 15, "organizations[0].users[0].items[0].tags[1]", "must not be empty"},
		{"unknown item access", "tags: [x]", "tags: [x], access: shared", 15, "organizations[0].users[0].items[0].access", `unknown access "shared": want private, org or public`},
		{"unknown group member", "role: other\n", "role: other\n    groups:\n      - {id: g1, title: T, owner: v1, members: [nobody]}\n", 32, "organizations[1].groups[0].members[0]", `unknown member "nobody": want a user of the seed`},
		{"duplicate group id", "role: other\n", "role: other\n    groups:\n      - {id: g1, title: T, owner: v1}\n      - {id: g1, title: U, owner: v1}\n", 33, "organizations[1].groups[1].id", `duplicate group id "g1" (also organizations[1].groups[0])`},
		{"group owner of another organization", "role: other\n", "role: other\n    groups:\n      - {id: g1, title: T, owner: u1}\n", 32, "organizations[1].groups[0].owner", `unknown owner "u1": want a user of this organization`},
		{"unknown group access", "role: other\n", "role: other\n    groups:\n      - {id: g1, title: T, owner: v1, access: secret}\n", 32, "organizations[1].groups[0].access", `unknown access "secret": want private, org or public`},
		{"group member named twice", "role: other\n", "role: other\n    groups:\n      - {id: g1, title: T, owner: v1, admins: [u1], members: [u1]}\n", 32, "organizations[1].groups[0].members[0]", `user "u1" is already a member (organizations[1].groups[0].admins[0])`},
		{"group without title", "role: other\n", "role: other\n    groups:\n      - {id: g1, owner: v1}\n", 32, "organizations[1].groups[0].title", "must not be empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mutate(t, c.old, c.new)
			f, err := seed.Parse("seed.yaml", []byte(doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = f.Validate()
			want := fmt.Sprintf("seed.yaml:%d: %s: %s", c.line, c.path, c.msg)
			if err == nil || !hasLine(err.Error(), want) {
				t.Fatalf("Validate() = %v\nwant a line %q", err, want)
			}
			var se *seed.Error
			if !errors.As(err, &se) || se.File != "seed.yaml" {
				t.Errorf("error %T is not a *seed.Error of seed.yaml", err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		want     string // a regexp one line of the error must match
	}{
		{"unknown key", "role: org_user", "rol: org_user", `^seed\.yaml:10: unknown key "rol"$`},
		{"unknown top-level key", "", "organizations: []\nextra: 1\n", `^seed\.yaml:2: unknown key "extra"$`},
		{"wrong kind", "tokens: [t1]", "tokens: t1", `^seed\.yaml:11: cannot unmarshal !!str .t1. into \[\]string$`},
		{"duplicate key", "role: org_user", "role: org_user\n        role: org_admin", `^seed\.yaml:11: mapping key "role" already defined at line 10$`},
		{"syntax", "name: Org A", "name: [Org A", `^seed\.yaml:\d+: .+`},
		{"empty file", "", "\n# nothing\n", `^seed\.yaml: empty seed file$`},
		{"two documents", "", "organizations: []\n---\norganizations: []\n", `^seed\.yaml: more than one YAML document$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := seed.Parse("seed.yaml", []byte(mutate(t, c.old, c.new)))
			if err == nil || !matchLine(err.Error(), c.want) {
				t.Fatalf("Parse() = %v\nwant a line matching %s", err, c.want)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	doc := strings.Replace(strings.Replace(base, "role: org_user", "role: foo", 1), "tokens: [t2]", "tokens: [t1]", 1)
	f, err := seed.Parse("seed.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var se *seed.Error
	if err := f.Validate(); !errors.As(err, &se) || len(se.Problems) != 2 {
		t.Fatalf("Validate() = %v, want 2 problems", err)
	}
	if se.Problems[0].Line != 10 || se.Problems[1].Line != 19 {
		t.Errorf("problem lines = %d, %d; want 10, 19", se.Problems[0].Line, se.Problems[1].Line)
	}
}

func TestSeedBuiltInCodeNamesPath(t *testing.T) {
	f := &seed.File{Organizations: []seed.Organization{{ID: "A", Name: "A", Users: []seed.User{{Username: "u", Password: "p", Role: "nope"}}}}}
	err := f.Validate()
	want := `seed: organizations[0].users[0].role: unknown role "nope"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Validate() = %v, want it to start with %q", err, want)
	}
	err = newStore(t).Update(t.Context(), func(tx server.Tx) error { return f.Apply(t.Context(), tx, now) })
	if err == nil {
		t.Fatal("Apply of an invalid seed succeeded")
	}
}

// TestJSONEqualsYAML feeds the demo seed converted to JSON (tab-indented,
// as JSON tools often write it) and checks that it parses to the same seed
// and writes the same rows.
func TestJSONEqualsYAML(t *testing.T) {
	yml := demoYAML(t)
	var generic any
	if err := yaml.Unmarshal(yml, &generic); err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(generic, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	fy, err := seed.Parse("demo.yaml", yml)
	if err != nil {
		t.Fatal(err)
	}
	fj, err := seed.Parse("demo.json", js)
	if err != nil {
		t.Fatalf("Parse JSON: %v", err)
	}
	if !reflect.DeepEqual(fy.Organizations, fj.Organizations) {
		t.Fatalf("JSON seed differs from YAML seed:\n%+v\n%+v", fj.Organizations, fy.Organizations)
	}
	if a, b := applySnapshot(t, fy), applySnapshot(t, fj); a != b {
		t.Fatalf("stores differ:\nYAML:\n%s\nJSON:\n%s", a, b)
	}

	// A rule broken in JSON is reported with its line too.
	bad := strings.Replace(string(js), `"role": "org_user"`, `"role": "nobody"`, 1)
	f, err := seed.Parse("demo.json", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(bad[:strings.Index(bad, `"nobody"`)], "\n")
	want := fmt.Sprintf(`demo.json:%d: organizations[0].users[1].role: unknown role "nobody"`, line)
	if err := f.Validate(); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Validate() = %v, want it to start with %q", err, want)
	}
	if _, err := seed.Parse("demo.json", []byte(strings.Replace(string(js), `"fullName"`, `"full_name"`, 1))); err == nil || !strings.Contains(err.Error(), `unknown key "full_name"`) {
		t.Fatalf("unknown JSON key: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := dir + "/good.yaml"
	if err := os.WriteFile(good, []byte(base), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.ReadFile(good); err != nil {
		t.Fatal(err)
	}
	bad := dir + "/bad.yaml"
	if err := os.WriteFile(bad, []byte(mutate(t, "role: org_user", "role: foo")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":10: organizations[0].users[0].role:") {
		t.Fatalf("ReadFile(bad) = %v", err)
	}
	if _, err := seed.ReadFile(dir + "/missing.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadFile(missing) = %v", err)
	}
}

func TestItemAtSlashIsRoot(t *testing.T) {
	f, err := seed.Parse("seed.yaml", []byte(mutate(t, "folder: f1,", `folder: "/",`)))
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	err = store.Update(t.Context(), func(tx server.Tx) error {
		if err := f.Apply(t.Context(), tx, now); err != nil {
			return err
		}
		it, err := tx.Item(t.Context(), "i1")
		if err != nil {
			return err
		}
		if it.FolderID != "" {
			t.Errorf("item folder = %q, want the root", it.FolderID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mutate(t *testing.T, old, new string) string {
	t.Helper()
	if old == "" {
		return new
	}
	if strings.Count(base, old) != 1 {
		t.Fatalf("%q is not once in base", old)
	}
	return strings.Replace(base, old, new, 1)
}

func hasLine(s, line string) bool {
	for l := range strings.SplitSeq(s, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

func matchLine(s, re string) bool {
	r := regexp.MustCompile(re)
	for l := range strings.SplitSeq(s, "\n") {
		if r.MatchString(l) {
			return true
		}
	}
	return false
}

func demoYAML(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
