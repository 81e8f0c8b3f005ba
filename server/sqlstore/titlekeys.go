package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/orgportal/portal-api/server"
)

// backfillTitleKeys computes the title key of the folders stored before
// migration 0002, which hold a placeholder key (a space, then the id). A
// folder whose key another of its owner's folders already holds keeps its
// placeholder: the two were distinct under the former rule, and both stay.
func (s *Store) backfillTitleKeys(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SELECT id, owner, title FROM folders WHERE title_key LIKE ' %' ORDER BY created_ms, id")
	if err != nil {
		return fmt.Errorf("sqlstore: backfill title keys: %w", err)
	}
	type folder struct{ id, owner, title string }
	var todo []folder
	for rows.Next() {
		var f folder
		if err := rows.Scan(&f.id, &f.owner, &f.title); err != nil {
			rows.Close()
			return fmt.Errorf("sqlstore: backfill title keys: %w", err)
		}
		todo = append(todo, f)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("sqlstore: backfill title keys: %w", err)
	}
	update := s.d.rebind(`UPDATE folders SET title_key = ? WHERE id = ?
		AND NOT EXISTS (SELECT 1 FROM folders other WHERE other.owner = ? AND other.title_key = ?)`)
	for _, f := range todo {
		key := server.TitleKey(f.title)
		if _, err := conn.ExecContext(ctx, update, key, f.id, f.owner, key); err != nil {
			return fmt.Errorf("sqlstore: backfill title key of folder %s: %w", f.id, err)
		}
	}
	return nil
}
