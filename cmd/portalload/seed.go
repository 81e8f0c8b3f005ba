package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// The bench seed: one organization, an administrator, and a member owning
// two folders and seedItems items, all in folder A. moveItems runs need it;
// the other operations work on the demo seed too.
const (
	seedOrg        = "B0B0B0B0B0B0B0B0"
	seedAdmin      = "benchadmin"
	seedAdminToken = "bench-admin-token"
	seedUser       = "benchuser"
	seedUserToken  = "bench-user-token"
	seedFolderA    = "bbbbbbbbbbbbbbbbbbbbbbbbbbbb000a"
	seedFolderB    = "bbbbbbbbbbbbbbbbbbbbbbbbbbbb000b"
	seedItems      = 2000
)

func seedItemID(i int) string { return fmt.Sprintf("be0c%028d", i) }

// writeSeed writes the bench seed as JSON (which portald reads as YAML).
func writeSeed(path string) error {
	type item struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Type   string `json:"type"`
		Folder string `json:"folder"`
	}
	type folder struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	type user struct {
		Username string   `json:"username"`
		Password string   `json:"password"`
		Role     string   `json:"role"`
		Tokens   []string `json:"tokens"`
		Folders  []folder `json:"folders,omitempty"`
		Items    []item   `json:"items,omitempty"`
	}
	member := user{Username: seedUser, Password: "bench-user-password", Role: "org_user", Tokens: []string{seedUserToken},
		Folders: []folder{{seedFolderA, "Bench A"}, {seedFolderB, "Bench B"}}}
	for i := range seedItems {
		member.Items = append(member.Items, item{ID: seedItemID(i), Title: fmt.Sprintf("Bench item %d", i), Type: "CSV", Folder: seedFolderA})
	}
	doc := map[string]any{"organizations": []any{map[string]any{
		"id": seedOrg, "name": "Bench Organization",
		"users": []user{
			{Username: seedAdmin, Password: "bench-admin-password", Role: "org_admin", Tokens: []string{seedAdminToken}},
			member,
		},
	}}}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
