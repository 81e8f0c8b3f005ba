package bench

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What settings/update with a banner sends PostgreSQL, as server/sqlstore
// sends it: the token confirmation (confirmTokenPG) and the banner's upsert
// (Tx.PatchSettings), as one pipeline without BEGIN, committed at its end
// (pgTx.commitPending). `make bench-pg` runs the upsert in pgbench too.
const (
	PGConfirmToken = "SELECT 1 / count(*)::int FROM tokens WHERE token = $1"
	PGUpsertBanner = `INSERT INTO settings (org_id, anonymous_notice, authenticated_notice, banner, portal_config)
SELECT $1, NULL, NULL, $2, NULL WHERE EXISTS (SELECT 1 FROM organizations WHERE id = $1) ON CONFLICT (org_id) DO UPDATE SET banner = excluded.banner`
)

// PGWriter returns the write of FloorWith for PostgreSQL: the pipeline of
// settings/update for the organization org, on pool, with nothing around it
// (no validation, no token cache, no error mapping).
func PGWriter(pool *pgxpool.Pool, org string) func(ctx context.Context, token, banner string) error {
	return func(ctx context.Context, token, banner string) error {
		var b pgx.Batch
		b.Queue(PGConfirmToken, token)
		b.Queue(PGUpsertBanner, org, banner)
		return pool.SendBatch(ctx, &b).Close()
	}
}
