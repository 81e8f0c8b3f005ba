package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// migrations holds the schema changes, applied in file name order. Each file
// is one migration, runs unchanged on every dialect and is never edited once
// released: a change is a new file.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrationLockKey is the first half of the PostgreSQL advisory lock key
// taken while migrating ("port"); the second half is a hash of the schema, so
// stores in different schemas of one database migrate independently.
const migrationLockKey = 0x706f7274

// migrate applies every migration not yet recorded in schema_migrations, each
// in its own transaction together with its record.
func (s *Store) migrate(ctx context.Context) (err error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlstore: migrations: %w", err)
	}
	sort.Strings(names)

	// One connection throughout: PostgreSQL advisory locks belong to a
	// session, and a ":memory:" SQLite store has only one connection.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	defer conn.Close()

	if s.d == postgres {
		// Several servers starting at once would otherwise race to create
		// the same tables.
		const lockArgs = "$1, hashtext(coalesce(current_schema(), ''))"
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock("+lockArgs+")", migrationLockKey); err != nil {
			return fmt.Errorf("sqlstore: migration lock: %w", err)
		}
		defer func() {
			_, uerr := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+lockArgs+")", migrationLockKey)
			if uerr != nil {
				// Ending the session is the sure way to release the lock.
				// Closed here, for the pool would take back a
				// connection database/sql merely drops.
				_ = conn.Raw(func(dc any) error {
					_ = dc.(*stdlib.Conn).Conn().Close(context.WithoutCancel(ctx))
					return driver.ErrBadConn
				})
				err = errors.Join(err, fmt.Errorf("sqlstore: migration unlock: %w", uerr))
			}
		}()
	}

	// SQLite takes its write lock at BEGIN IMMEDIATE, so processes opening
	// one file at once apply each migration once.
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    TEXT PRIMARY KEY,
		applied_ms BIGINT NOT NULL
	)`); err != nil {
		return fmt.Errorf("sqlstore: create schema_migrations: %w", err)
	}
	for _, name := range names {
		version := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql")
		if err := s.applyMigration(ctx, conn, name, version); err != nil {
			return fmt.Errorf("sqlstore: migration %s: %w", version, err)
		}
	}
	return s.backfillTitleKeys(ctx, conn)
}

func (s *Store) applyMigration(ctx context.Context, conn *sql.Conn, name, version string) error {
	src, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	var n int
	if err := tx.QueryRowContext(ctx, s.d.rebind("SELECT COUNT(*) FROM schema_migrations WHERE version = ?"), version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range splitStatements(string(src)) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%w\nin: %s", err, stmt)
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.rebind("INSERT INTO schema_migrations (version, applied_ms) VALUES (?, ?)"),
		version, time.Now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// splitStatements splits a migration into statements, so that each dialect
// runs one statement per call. Migrations hold no ';' other than statement
// ends, and "--" comments only on lines of their own.
func splitStatements(src string) []string {
	var lines []string
	for line := range strings.Lines(src) {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			lines = append(lines, line)
		}
	}
	var stmts []string
	for stmt := range strings.SplitSeq(strings.Join(lines, ""), ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			stmts = append(stmts, stmt)
		}
	}
	return stmts
}
