// Package seed reads, checks and applies the seed files that give the portal
// emulator its organizations, roles, members, static tokens, folders and
// items, and holds the built-in demo organization that openapi.yaml's
// examples are written against.
package seed

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orgportal/portal-api/server"
)

// File is a parsed seed file. The zero value is an empty seed (which does not
// validate: a seed needs at least one organization).
type File struct {
	Organizations []Organization `yaml:"organizations"`

	name  string         // where the seed came from, for messages
	lines map[string]int // path -> line in the source, when parsed
}

// Organization is one organization of a seed, with its custom roles and
// members.
type Organization struct {
	ID    string `yaml:"id"`
	Name  string `yaml:"name"`
	Roles []Role `yaml:"roles"`
	Users []User `yaml:"users"`
	Apps  []App  `yaml:"apps"`
	// Groups are the organization's groups; their members may be users of
	// any organization of the seed.
	Groups []Group `yaml:"groups"`
}

// Group is a group of an organization. Its owner, a user of the
// organization, is its member of type owner; Admins and Members are the
// others. Access is private (the default), org or public.
type Group struct {
	ID          string   `yaml:"id"`
	Title       string   `yaml:"title"`
	Owner       string   `yaml:"owner"`
	Access      string   `yaml:"access"`
	Description string   `yaml:"description"`
	Tags        []string `yaml:"tags"`
	Admins      []string `yaml:"admins"`
	Members     []string `yaml:"members"`
}

// App is an application the organization registers for OAuth 2.0 sign-in.
// Without a secret it is a public client (PKCE, no client credentials).
// A redirect URI on a loopback host (127.0.0.1, ::1, localhost) takes any
// port, as native applications need (RFC 8252).
type App struct {
	ClientID     string   `yaml:"clientId"`
	ClientSecret string   `yaml:"clientSecret"`
	RedirectURIs []string `yaml:"redirectUris"`
}

// Role is a custom role of an organization.
type Role struct {
	ID         string   `yaml:"id"`
	Privileges []string `yaml:"privileges"`
}

// User is a member, with the static tokens that sign them in and the folders
// and items they own.
type User struct {
	Username string   `yaml:"username"`
	Password string   `yaml:"password"`
	FullName string   `yaml:"fullName"`
	Email    string   `yaml:"email"`
	Role     string   `yaml:"role"`
	Tokens   []string `yaml:"tokens"`
	Folders  []Folder `yaml:"folders"`
	Items    []Item   `yaml:"items"`
}

// Folder is one of a user's folders.
type Folder struct {
	ID    string `yaml:"id"`
	Title string `yaml:"title"`
}

// Item is one of a user's items. An empty Folder (or "/") is the root folder.
type Item struct {
	ID          string   `yaml:"id"`
	Title       string   `yaml:"title"`
	Type        string   `yaml:"type"`
	Folder      string   `yaml:"folder"`
	Tags        []string `yaml:"tags"`
	Description string   `yaml:"description"`
	// Access is private (the default), org or public: who may find the item.
	Access string `yaml:"access"`
}

// Problem is one thing wrong with a seed. Line is 0 when unknown (a seed
// built in code, or a decoding error that yaml reports without a line).
type Problem struct {
	Line    int
	Path    string // e.g. organizations[0].users[2].role; empty when unknown
	Message string
}

// Error lists every problem of one seed file.
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
		if p.Path != "" {
			b.WriteString(p.Path + ": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// ReadFile reads, parses and validates the seed file at path.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	f, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// Parse decodes a YAML or JSON seed; name is used in messages. Unknown keys
// and values of the wrong kind are errors. Parse does not check the rules:
// see Validate.
func Parse(name string, data []byte) (*File, error) {
	// In valid JSON a tab can only be white space, which YAML does not allow
	// for indentation; a space in its place keeps lines and columns.
	if json.Valid(data) {
		data = bytes.ReplaceAll(data, []byte{'\t'}, []byte{' '})
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	if doc.Kind == 0 {
		return nil, &Error{File: name, Problems: []Problem{{Message: "empty seed file"}}}
	}
	f := &File{name: name, lines: map[string]int{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		return nil, yamlError(name, err)
	}
	if err := dec.Decode(new(yaml.Node)); err != io.EOF {
		return nil, &Error{File: name, Problems: []Problem{{Message: "more than one YAML document"}}}
	}
	indexLines(&doc, "", f.lines)
	return f, nil
}

var (
	lineRE     = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	notFoundRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// yamlError turns a yaml.v3 error into an *Error with one problem per line
// yaml reported.
func yamlError(name string, err error) error {
	var msgs []string
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	e := &Error{File: name}
	for _, m := range msgs {
		p := Problem{Message: strings.TrimPrefix(m, "yaml: ")}
		if sm := lineRE.FindStringSubmatch(m); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
			p.Message = sm[2]
		}
		if sm := notFoundRE.FindStringSubmatch(p.Message); sm != nil {
			p.Message = fmt.Sprintf("unknown key %q", sm[1])
		}
		e.Problems = append(e.Problems, p)
	}
	return e
}

// indexLines records the line of every mapping key and sequence element
// under its path, so that rule violations found later can name the line.
func indexLines(n *yaml.Node, path string, lines map[string]int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			indexLines(c, path, lines)
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			indexLines(n.Alias, path, lines)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			lines[p] = n.Content[i].Line
			indexLines(n.Content[i+1], p, lines)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			lines[p] = c.Line
			indexLines(c, p, lines)
		}
	}
}

// line returns the line of path, or of its closest ancestor that has one
// (a key that is absent has no line of its own).
func (f *File) line(path string) int {
	for path != "" {
		if l, ok := f.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

func isBuiltinRole(r string) bool {
	return r == server.RoleAdmin || r == server.RolePublisher || r == server.RoleUser
}

// Validate checks the rules a seed must keep, and returns an *Error listing
// every problem with its path and, for a parsed seed, its line.
func (f *File) Validate() error {
	e := &Error{File: f.name}
	if e.File == "" {
		e.File = "seed"
	}
	bad := func(path, format string, args ...any) {
		e.Problems = append(e.Problems, Problem{Line: f.line(path), Path: path, Message: fmt.Sprintf(format, args...)})
	}
	required := func(path, v string) bool {
		if strings.TrimSpace(v) == "" {
			bad(path, "must not be empty")
			return false
		}
		return true
	}

	if len(f.Organizations) == 0 {
		bad("organizations", "at least one organization is required")
	}

	orgs := map[string]string{}  // id -> path
	users := map[string]string{} // username -> path
	foldedUsers := map[string]string{}
	tokens := map[string]string{}  // token -> path
	folders := map[string]string{} // folder id -> owner
	items := map[string]string{}   // item id -> path
	roleOrg := map[string]string{} // custom role id -> an organization id having it

	// Folder ids are unique across the file, and an item may name a folder of
	// a user listed after its own, so gather the folders first.
	for oi, o := range f.Organizations {
		for ui, u := range o.Users {
			for fi, fo := range u.Folders {
				p := fmt.Sprintf("organizations[%d].users[%d].folders[%d].id", oi, ui, fi)
				if !required(p, fo.ID) {
					continue
				}
				if fo.ID == "/" {
					bad(p, `"/" is the root folder`)
				}
				if _, dup := folders[fo.ID]; dup {
					bad(p, "duplicate folder id %q", fo.ID)
					continue
				}
				folders[fo.ID] = u.Username
			}
		}
		for _, r := range o.Roles {
			roleOrg[r.ID] = o.ID
		}
	}

	apps := map[string]string{} // client id -> path
	for oi, o := range f.Organizations {
		op := fmt.Sprintf("organizations[%d]", oi)
		for ai, a := range o.Apps {
			ap := fmt.Sprintf("%s.apps[%d]", op, ai)
			if required(ap+".clientId", a.ClientID) {
				if a.ClientID == server.PythonAPIClientID {
					bad(ap+".clientId", "%q is the ArcGIS API for Python's built-in application", a.ClientID)
				}
				if prev, dup := apps[a.ClientID]; dup {
					bad(ap+".clientId", "duplicate client id %q (also %s)", a.ClientID, prev)
				}
				apps[a.ClientID] = ap
			}
			if len(a.RedirectURIs) == 0 {
				bad(ap+".redirectUris", "at least one redirect URI is required")
			}
			for ri, uri := range a.RedirectURIs {
				if why := server.CheckRedirectURI(uri); why != "" {
					bad(fmt.Sprintf("%s.redirectUris[%d]", ap, ri), "%s", why)
				}
			}
		}
		if required(op+".id", o.ID) {
			if prev, dup := orgs[o.ID]; dup {
				bad(op+".id", "duplicate organization id %q (also %s)", o.ID, prev)
			}
			orgs[o.ID] = op
		}
		required(op+".name", o.Name)

		roles := map[string]bool{}
		for ri, r := range o.Roles {
			rp := fmt.Sprintf("%s.roles[%d]", op, ri)
			switch {
			case !required(rp+".id", r.ID):
			case isBuiltinRole(r.ID):
				bad(rp+".id", "%q is a built-in role", r.ID)
			case roles[r.ID]:
				bad(rp+".id", "duplicate role id %q", r.ID)
			}
			roles[r.ID] = true
			for pi, pr := range r.Privileges {
				required(fmt.Sprintf("%s.privileges[%d]", rp, pi), pr)
			}
		}

		for ui, u := range o.Users {
			up := fmt.Sprintf("%s.users[%d]", op, ui)
			if required(up+".username", u.Username) {
				if strings.Contains(u.Username, "/") {
					bad(up+".username", "must not contain %q", "/")
				}
				if prev, dup := users[u.Username]; dup {
					bad(up+".username", "duplicate username %q (also %s)", u.Username, prev)
				} else if prev, dup := foldedUsers[strings.ToLower(u.Username)]; dup {
					// Unique whatever the case, as the portal's user names are;
					// the sign-in throttle counts them as one.
					bad(up+".username", "username %q differs from %s's only by case", u.Username, prev)
				}
				users[u.Username] = up
				foldedUsers[strings.ToLower(u.Username)] = up
			}
			required(up+".password", u.Password)
			if required(up+".role", u.Role) && !isBuiltinRole(u.Role) && !roles[u.Role] {
				if other, ok := roleOrg[u.Role]; ok {
					bad(up+".role", "unknown role %q (a role of organization %q, not of this one)", u.Role, other)
				} else {
					bad(up+".role", "unknown role %q: want %s, %s, %s or a role id of this organization",
						u.Role, server.RoleAdmin, server.RolePublisher, server.RoleUser)
				}
			}
			for ti, t := range u.Tokens {
				tp := fmt.Sprintf("%s.tokens[%d]", up, ti)
				if !required(tp, t) {
					continue
				}
				if prev, dup := tokens[t]; dup {
					bad(tp, "duplicate token (also %s)", prev)
				}
				tokens[t] = tp
			}
			titles := map[string]bool{}
			for fi, fo := range u.Folders {
				fp := fmt.Sprintf("%s.folders[%d].title", up, fi)
				if !required(fp, fo.Title) {
					continue
				}
				if !server.OneLine(fo.Title) {
					bad(fp, "%q %s", fo.Title, server.NotOneLine)
				}
				// As the store keys them (folders.title_key).
				k := server.TitleKey(fo.Title)
				if titles[k] {
					bad(fp, "duplicate folder title %q (titles are unique per user, ignoring case, width and invisible characters)", fo.Title)
				}
				titles[k] = true
			}
			for ii, it := range u.Items {
				ip := fmt.Sprintf("%s.items[%d]", up, ii)
				if required(ip+".id", it.ID) {
					if prev, dup := items[it.ID]; dup {
						bad(ip+".id", "duplicate item id %q (also %s)", it.ID, prev)
					}
					items[it.ID] = ip
				}
				if required(ip+".title", it.Title) && !server.OneLine(it.Title) {
					bad(ip+".title", "%q %s", it.Title, server.NotOneLine)
				}
				required(ip+".type", it.Type)
				if it.Folder != "" && it.Folder != "/" {
					owner, ok := folders[it.Folder]
					switch {
					case !ok:
						bad(ip+".folder", "unknown folder %q", it.Folder)
					case owner != u.Username:
						bad(ip+".folder", "folder %q belongs to user %q, not to %q", it.Folder, owner, u.Username)
					}
				}
				for gi, g := range it.Tags {
					required(fmt.Sprintf("%s.tags[%d]", ip, gi), g)
				}
				if it.Access != "" && !server.ValidAccess(it.Access) {
					bad(ip+".access", "unknown access %q: want private, org or public", it.Access)
				}
			}
		}
	}
	f.validateGroups(bad, required, users)
	if len(e.Problems) > 0 {
		return e
	}
	return nil
}

// validateGroups checks the groups, once every user is known: ids unique
// across the file, an owner of the group's organization, members who exist,
// each named once.
func (f *File) validateGroups(bad func(path, format string, args ...any), required func(path, v string) bool, users map[string]string) {
	ids := map[string]string{} // group id -> path
	for oi, o := range f.Organizations {
		op := fmt.Sprintf("organizations[%d]", oi)
		orgUsers := map[string]bool{}
		for _, u := range o.Users {
			orgUsers[u.Username] = true
		}
		for gi, g := range o.Groups {
			gp := fmt.Sprintf("%s.groups[%d]", op, gi)
			if required(gp+".id", g.ID) {
				if prev, dup := ids[g.ID]; dup {
					bad(gp+".id", "duplicate group id %q (also %s)", g.ID, prev)
				}
				ids[g.ID] = gp
			}
			required(gp+".title", g.Title)
			if required(gp+".owner", g.Owner) && !orgUsers[g.Owner] {
				bad(gp+".owner", "unknown owner %q: want a user of this organization", g.Owner)
			}
			if g.Access != "" && !server.ValidAccess(g.Access) {
				bad(gp+".access", "unknown access %q: want private, org or public", g.Access)
			}
			seen := map[string]string{g.Owner: gp + ".owner"}
			check := func(list string, names []string) {
				for mi, m := range names {
					mp := fmt.Sprintf("%s.%s[%d]", gp, list, mi)
					if !required(mp, m) {
						continue
					}
					if _, ok := users[m]; !ok {
						bad(mp, "unknown member %q: want a user of the seed", m)
						continue
					}
					if prev, dup := seen[m]; dup {
						bad(mp, "user %q is already a member (%s)", m, prev)
						continue
					}
					seen[m] = mp
				}
			}
			check("admins", g.Admins)
			check("members", g.Members)
			for ti, t := range g.Tags {
				required(fmt.Sprintf("%s.tags[%d]", gp, ti), t)
			}
		}
	}
}

// Apply validates the seed and writes it through tx: organizations, custom
// roles, members (passwords hashed), static tokens that never expire,
// folders, items and groups with their members. Folders, items and groups
// are created a millisecond apart, in file order and ending at now, so that
// listings ordered by creation time follow the file.
func (f *File) Apply(ctx context.Context, tx server.Tx, now time.Time) error {
	if err := f.Validate(); err != nil {
		return err
	}
	n := 0
	for _, o := range f.Organizations {
		n += len(o.Groups)
		for _, u := range o.Users {
			n += len(u.Folders) + len(u.Items)
		}
	}
	created := now.Add(-time.Duration(n) * time.Millisecond)
	usersCreated := created
	next := func() time.Time {
		created = created.Add(time.Millisecond)
		return created
	}

	for _, o := range f.Organizations {
		if err := tx.PutOrganization(ctx, server.Organization{ID: o.ID, Name: o.Name}); err != nil {
			return fmt.Errorf("seed: organization %s: %w", o.ID, err)
		}
		for _, a := range o.Apps {
			sa := server.App{ClientID: a.ClientID, OrgID: o.ID, RedirectURIs: append([]string{}, a.RedirectURIs...)}
			if a.ClientSecret != "" {
				sa.SecretHash = hashPassword(a.ClientSecret)
			}
			if err := tx.PutApp(ctx, sa); err != nil {
				return fmt.Errorf("seed: application %s: %w", a.ClientID, err)
			}
		}
		for _, r := range o.Roles {
			privs := append([]string{}, r.Privileges...)
			if err := tx.PutRole(ctx, server.CustomRole{OrgID: o.ID, ID: r.ID, Privileges: privs}); err != nil {
				return fmt.Errorf("seed: role %s of %s: %w", r.ID, o.ID, err)
			}
		}
		for _, u := range o.Users {
			su := server.User{
				Username:     u.Username,
				OrgID:        o.ID,
				FullName:     u.FullName,
				Role:         u.Role,
				PasswordHash: hashPassword(u.Password),
				Created:      usersCreated,
				Email:        u.Email,
			}
			if err := tx.PutUser(ctx, su); err != nil {
				return fmt.Errorf("seed: user %s: %w", u.Username, err)
			}
			for _, t := range u.Tokens {
				if err := tx.PutToken(ctx, server.Token{Token: t, Username: u.Username}); err != nil {
					return fmt.Errorf("seed: token of %s: %w", u.Username, err)
				}
			}
			for _, fo := range u.Folders {
				if err := tx.PutFolder(ctx, server.Folder{ID: fo.ID, Owner: u.Username, Title: fo.Title, Created: next()}); err != nil {
					return fmt.Errorf("seed: folder %s: %w", fo.ID, err)
				}
			}
			for _, it := range u.Items {
				folder := it.Folder
				if folder == "/" {
					folder = ""
				}
				at := next()
				si := server.Item{
					ID:          it.ID,
					Owner:       u.Username,
					FolderID:    folder,
					Title:       it.Title,
					Type:        it.Type,
					Description: it.Description,
					Tags:        append([]string{}, it.Tags...),
					Access:      access(it.Access),
					Created:     at,
					Modified:    at,
				}
				if err := tx.PutItem(ctx, si); err != nil {
					return fmt.Errorf("seed: item %s: %w", it.ID, err)
				}
			}
		}
	}
	// Groups last: their members may be users of later organizations.
	for _, o := range f.Organizations {
		for _, g := range o.Groups {
			at := next()
			sg := server.Group{ID: g.ID, OrgID: o.ID, Owner: g.Owner, Title: g.Title, Access: access(g.Access),
				Description: g.Description, Tags: append([]string{}, g.Tags...), Created: at, Modified: at,
				Members: []server.GroupMember{{Username: g.Owner, Type: server.MemberOwner}}}
			for _, m := range g.Admins {
				sg.Members = append(sg.Members, server.GroupMember{Username: m, Type: server.MemberAdmin})
			}
			for _, m := range g.Members {
				sg.Members = append(sg.Members, server.GroupMember{Username: m, Type: server.MemberMember})
			}
			if err := tx.PutGroup(ctx, sg); err != nil {
				return fmt.Errorf("seed: group %s: %w", g.ID, err)
			}
		}
	}
	return nil
}

// access is a seed's access level, private when absent.
func access(a string) string {
	if a == "" {
		return server.AccessPrivate
	}
	return a
}

//go:embed demo.yaml
var demoYAML []byte

// Demo returns the built-in demo organizations (a fresh copy each call).
// openapi.yaml's examples depend on its exact contents.
func Demo() *File {
	f, err := Parse("built-in demo seed", demoYAML)
	if err == nil {
		err = f.Validate()
	}
	if err != nil {
		panic(err) // the embedded file is checked by the package's tests
	}
	return f
}

// DemoTokens maps each demo user name to its static token.
func DemoTokens() map[string]string {
	m := map[string]string{}
	for _, o := range Demo().Organizations {
		for _, u := range o.Users {
			if len(u.Tokens) > 0 {
				m[u.Username] = u.Tokens[0]
			}
		}
	}
	return m
}
