package bench

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What settings/update with a banner sends PostgreSQL, as server/sqlstore
// sends it: one transaction at READ COMMITTED whose BEGIN travels with its
// first statement, the token's confirmation (Tx.ConfirmToken), then the
// banner's upsert (Tx.PatchSettings), then COMMIT; and what the settings
// read sends (Tx.Settings), in a REPEATABLE READ READ ONLY transaction.
// `make bench-pg` runs the upsert and the select in pgbench too.
const (
	PGConfirmToken = "SELECT 1 FROM tokens WHERE token = $1"
	PGUpsertBanner = `INSERT INTO settings (org_id, anonymous_notice, authenticated_notice, banner, portal_config)
SELECT $1, NULL, NULL, $2, NULL WHERE EXISTS (SELECT 1 FROM organizations WHERE id = $1) ON CONFLICT (org_id) DO UPDATE SET banner = excluded.banner`
	PGSelectSettings = "SELECT anonymous_notice, authenticated_notice, banner, portal_config FROM settings WHERE org_id = $1"
)

// PGFloor is the floor's store on PostgreSQL: the statements of
// settings/update and of the settings read for one organization, on a
// pool, with nothing around them (no validation, no token resolution, no
// error mapping).
type PGFloor struct {
	Pool *pgxpool.Pool
	Org  string
}

// errUnwritten is the floor's answer to a write that wrote nothing.
var errUnwritten = errors.New("nothing written: the token or the organization is gone")

// Write sends settings/update's transaction.
func (f PGFloor) Write(ctx context.Context, token, banner string) error {
	return f.tx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, PGConfirmToken, []any{token}, func(tx pgx.Tx, row pgx.Row) error {
		var one int
		if err := row.Scan(&one); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return errUnwritten
			}
			return err
		}
		tag, err := tx.Exec(ctx, PGUpsertBanner, f.Org, banner)
		if err == nil && tag.RowsAffected() == 0 {
			err = errUnwritten
		}
		return err
	})
}

// tx runs a transaction of opts whose BEGIN travels with its first
// statement, q, whose row use reads, as server/sqlstore runs one.
func (f PGFloor) tx(ctx context.Context, opts pgx.TxOptions, q string, args []any, use func(tx pgx.Tx, row pgx.Row) error) error {
	conn, err := f.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	var b pgx.Batch
	b.BeginTx(opts)
	b.Queue(q, args...)
	br := conn.SendBatch(ctx, &b)
	tx := br.Tx()
	if _, err := br.Exec(); err != nil {
		return errors.Join(err, br.Close())
	}
	rows, err := br.Query()
	if err != nil {
		return errors.Join(err, br.Close(), tx.Rollback(ctx))
	}
	err = use(tx, &firstRow{rows: rows, br: br})
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(err, tx.Rollback(ctx))
	}
	return tx.Commit(ctx)
}

// firstRow scans the first row of rows, then closes them and the batch that
// carried them, so that the connection can run the next statement.
type firstRow struct {
	rows pgx.Rows
	br   pgx.BatchResults
}

func (r *firstRow) Scan(dest ...any) error {
	err := pgx.ErrNoRows
	if r.rows.Next() {
		err = r.rows.Scan(dest...)
	}
	r.rows.Close()
	return errors.Join(err, r.rows.Err(), r.br.Close())
}

// Read runs the settings' select and answers its JSON columns as they are.
func (f PGFloor) Read(ctx context.Context) (map[string]json.RawMessage, error) {
	var cols [4]*string
	err := f.tx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, PGSelectSettings, []any{f.Org},
		func(_ pgx.Tx, row pgx.Row) error { return row.Scan(&cols[0], &cols[1], &cols[2], &cols[3]) })
	if err != nil {
		return nil, err
	}
	answer := make(map[string]json.RawMessage, len(cols))
	for i, name := range [...]string{"anonymousAccessNotice", "authenticatedAccessNotice", "informationalBanner", "portalConfig"} {
		if cols[i] != nil {
			answer[name] = json.RawMessage(*cols[i])
		}
	}
	return answer, nil
}
