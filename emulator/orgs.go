package emulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/seed"
)

// orgTx is what creating and removing organizations needs of a
// transaction beyond server.Tx; package sqlstore's has it.
type orgTx interface {
	FolderOwner(ctx context.Context, id string) (string, error)
	DeleteOrganization(ctx context.Context, id string) error
}

// errConflict is an organization whose id, or one of whose user names,
// tokens, folder ids, item ids or client ids, is taken.
func errConflict(details ...string) *adminError {
	return &adminError{http.StatusConflict, "The organization conflicts with what the store holds.", details}
}

// CreateOrganization adds one organization of a seed (its roles, members,
// tokens, folders, items and groups) to the store. It refuses, changing
// nothing, an organization whose id exists or that would take over a user
// name, token, folder, item or group of another.
func (s *Server) CreateOrganization(ctx context.Context, o seed.Organization) error {
	if bad := unstorable(o); len(bad) > 0 {
		return badRequest(bad...)
	}
	f := &seed.File{Organizations: []seed.Organization{o}}
	if err := f.Validate(); err != nil {
		return seedProblems(err)
	}
	return s.store.Update(ctx, func(tx server.Tx) error {
		ot, ok := tx.(orgTx)
		if !ok {
			return &adminError{http.StatusNotImplemented, "This store cannot create organizations.", nil}
		}
		taken := func(err error) (bool, error) {
			if errors.Is(err, server.ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		}
		var conflicts []string
		check := func(what, key string, err error) error {
			t, err := taken(err)
			if t {
				conflicts = append(conflicts, fmt.Sprintf("%s %s exists", what, key))
			}
			return err
		}
		_, err := tx.Organization(ctx, o.ID)
		if err := check("id: organization", o.ID, err); err != nil {
			return err
		}
		for _, a := range o.Apps {
			_, err := tx.App(ctx, a.ClientID)
			if err := check("apps: application", a.ClientID, err); err != nil {
				return err
			}
		}
		for _, u := range o.Users {
			_, err := tx.User(ctx, u.Username)
			if err := check("users: user", u.Username, err); err != nil {
				return err
			}
			for _, t := range u.Tokens {
				_, err := tx.Token(ctx, t)
				if err := check("tokens: token", t, err); err != nil {
					return err
				}
			}
			for _, fo := range u.Folders {
				_, err := ot.FolderOwner(ctx, fo.ID)
				if err := check("folders: folder", fo.ID, err); err != nil {
					return err
				}
			}
			for _, it := range u.Items {
				_, err := tx.Item(ctx, it.ID)
				if err := check("items: item", it.ID, err); err != nil {
					return err
				}
			}
		}
		for _, g := range o.Groups {
			_, err := tx.Group(ctx, g.ID)
			if err := check("groups: group", g.ID, err); err != nil {
				return err
			}
		}
		if len(conflicts) > 0 {
			return errConflict(conflicts...)
		}
		return f.Apply(ctx, tx, s.clock.now())
	})
}

// DeleteOrganization removes the organization id and everything it owns.
func (s *Server) DeleteOrganization(ctx context.Context, id string) error {
	if !storable(id) {
		return badRequest("id: holds a NUL character or bytes that are not UTF-8")
	}
	err := s.store.Update(ctx, func(tx server.Tx) error {
		ot, ok := tx.(orgTx)
		if !ok {
			return &adminError{http.StatusNotImplemented, "This store cannot remove organizations.", nil}
		}
		return ot.DeleteOrganization(ctx, id)
	})
	if errors.Is(err, server.ErrNotFound) {
		return &adminError{http.StatusNotFound, "No organization has this id.", []string{"id: " + id}}
	}
	if err == nil {
		// Its members' tokens must stop working at once.
		s.api.ForgetTokens()
	}
	return err
}

// seedProblems turns a seed's problems into a 400 naming each field.
func seedProblems(err error) error {
	var se *seed.Error
	if !errors.As(err, &se) {
		return err
	}
	details := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		path := p.Path
		// The document is one organization, not a seed file's list.
		if rest, ok := bytes.CutPrefix([]byte(path), []byte("organizations[0].")); ok {
			path = string(rest)
		} else if path == "organizations[0]" || path == "organizations" {
			path = ""
		}
		if path != "" {
			details[i] = path + ": " + p.Message
		} else {
			details[i] = p.Message
		}
	}
	return badRequest(details...)
}

// OrganizationCreated is the answer of POST /emulator/organizations.
type OrganizationCreated struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
}

func (s *Server) handleCreateOrganization(r *http.Request) (any, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxAdminBody))
	if err != nil {
		return nil, &adminError{http.StatusRequestEntityTooLarge, "Request body too large.", []string{fmt.Sprintf("the limit is %d bytes", maxAdminBody)}}
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, badRequest("body: one organization as a JSON object: id, name, roles, users")
	}
	// A seed file of one organization: the seed's own parser names unknown
	// keys and values of the wrong kind.
	doc := append(append([]byte(`{"organizations":[`), body...), "]}"...)
	f, err := seed.Parse("organization", doc)
	if err != nil {
		return nil, seedProblems(err)
	}
	if len(f.Organizations) != 1 {
		return nil, badRequest("body: one organization")
	}
	o := f.Organizations[0]
	if err := s.CreateOrganization(r.Context(), o); err != nil {
		return nil, err
	}
	return OrganizationCreated{Success: true, ID: o.ID}, nil
}

func (s *Server) handleDeleteOrganization(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	if err := s.DeleteOrganization(r.Context(), r.PathValue("id")); err != nil {
		return nil, err
	}
	return success, nil
}

// storable reports whether every store can hold s: PostgreSQL refuses a
// NUL character and bytes that are not UTF-8.
func storable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// unstorable names each field of o that no store can hold.
func unstorable(o seed.Organization) []string {
	var bad []string
	check := func(path, v string) {
		if !storable(v) {
			bad = append(bad, path+": holds a NUL character or bytes that are not UTF-8")
		}
	}
	check("id", o.ID)
	check("name", o.Name)
	for i, r := range o.Roles {
		check(fmt.Sprintf("roles[%d].id", i), r.ID)
		for j, p := range r.Privileges {
			check(fmt.Sprintf("roles[%d].privileges[%d]", i, j), p)
		}
	}
	for i, a := range o.Apps {
		at := fmt.Sprintf("apps[%d].", i)
		check(at+"clientId", a.ClientID)
		check(at+"clientSecret", a.ClientSecret)
		for j, u := range a.RedirectURIs {
			check(fmt.Sprintf("%sredirectUris[%d]", at, j), u)
		}
	}
	for i, u := range o.Users {
		at := fmt.Sprintf("users[%d].", i)
		check(at+"username", u.Username)
		check(at+"password", u.Password)
		check(at+"fullName", u.FullName)
		check(at+"role", u.Role)
		for j, t := range u.Tokens {
			check(fmt.Sprintf("%stokens[%d]", at, j), t)
		}
		for j, f := range u.Folders {
			check(fmt.Sprintf("%sfolders[%d].id", at, j), f.ID)
			check(fmt.Sprintf("%sfolders[%d].title", at, j), f.Title)
		}
		for j, it := range u.Items {
			item := fmt.Sprintf("%sitems[%d].", at, j)
			check(item+"id", it.ID)
			check(item+"title", it.Title)
			check(item+"type", it.Type)
			check(item+"folder", it.Folder)
			check(item+"description", it.Description)
			for k, tag := range it.Tags {
				check(fmt.Sprintf("%stags[%d]", item, k), tag)
			}
		}
	}
	return bad
}
