package sqlstore

import (
	"testing"

	"github.com/orgportal/portal-api/server"
)

// testTitleKeyUpgrade takes a store back to its shape before migration 0002,
// stores folders the way that shape allowed, and opens it again: the
// migration and its backfill give every folder its key, keep folders that
// only the new rule would call the same, and the new rule holds after.
func testTitleKeyUpgrade(t *testing.T, dsn string) {
	s := openT(t, dsn)
	for _, stmt := range []string{
		"DROP INDEX folders_owner_title_key",
		"ALTER TABLE folders DROP COLUMN title_key",
		"CREATE UNIQUE INDEX folders_owner_title ON folders (owner, lower(title))",
		"DELETE FROM schema_migrations WHERE version = '0002_title_keys'",
		"INSERT INTO folders (id, owner, title, created_ms) VALUES ('f1', 'alice', 'Maps', 1)",
		"INSERT INTO folders (id, owner, title, created_ms) VALUES ('f2', 'alice', 'Caf\u00e9', 2)",
		"INSERT INTO folders (id, owner, title, created_ms) VALUES ('f3', 'alice', 'Cafe\u0301', 3)",
		"INSERT INTO folders (id, owner, title, created_ms) VALUES ('f4', 'bob', 'Maps', 4)",
	} {
		if _, err := s.db.ExecContext(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openT(t, dsn)
	wantMigrated(t, s)
	keys := map[string]string{}
	rows, err := s.db.QueryContext(t.Context(), "SELECT id, title_key FROM folders")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			t.Fatal(err)
		}
		keys[id] = key
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"f1": "maps", "f2": "caf\u00e9", "f3": " f3", "f4": "maps"}
	for id, k := range want {
		if keys[id] != k {
			t.Errorf("folder %s: title key %q, want %q", id, keys[id], k)
		}
	}
	put := func(f server.Folder) error {
		return s.Update(t.Context(), func(tx server.Tx) error { return tx.PutFolder(t.Context(), f) })
	}
	if err := put(server.Folder{ID: "f5", Owner: "alice", Title: "MAPS"}); err == nil {
		t.Error("after the upgrade, alice's MAPS beside her Maps was stored")
	}
	if err := put(server.Folder{ID: "f6", Owner: "alice", Title: "CAF\u00c9"}); err == nil {
		t.Error("after the upgrade, alice's CAF\u00c9 beside her Caf\u00e9 was stored")
	}
	if err := put(server.Folder{ID: "f7", Owner: "alice", Title: "\u0130"}); err != nil {
		t.Errorf("after the upgrade, alice's \u0130: %v", err)
	}
}

func TestSQLiteTitleKeyUpgrade(t *testing.T) { testTitleKeyUpgrade(t, sqliteFile(t)) }

func TestPostgresTitleKeyUpgrade(t *testing.T) {
	testTitleKeyUpgrade(t, postgresSchema(t, postgresURL(t)))
}
