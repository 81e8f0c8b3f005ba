package bench

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"
)

// What settings/update with a banner sends PostgreSQL, as server/sqlstore
// sends it: the banner's upsert, written only while the token and the
// organization exist (Tx.PatchSettings confirming the token of
// Tx.ConfirmToken itself), one statement without BEGIN (pgTx.commitAlone);
// and what the settings read sends (Tx.Settings). `make bench-pg` runs the
// select in pgbench too, and the upsert without the token.
const (
	PGWriteBanner = `INSERT INTO settings (org_id, anonymous_notice, authenticated_notice, banner, portal_config)
SELECT $2, NULL, NULL, $3, NULL WHERE EXISTS (SELECT 1 FROM tokens WHERE token = $1) AND EXISTS (SELECT 1 FROM organizations WHERE id = $2)
ON CONFLICT (org_id) DO UPDATE SET banner = excluded.banner`
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

// Write sends settings/update's statement.
func (f PGFloor) Write(ctx context.Context, token, banner string) error {
	tag, err := f.Pool.Exec(ctx, PGWriteBanner, token, f.Org, banner)
	if err == nil && tag.RowsAffected() == 0 {
		err = errUnwritten
	}
	return err
}

// Read runs the settings' select and answers its JSON columns as they are.
func (f PGFloor) Read(ctx context.Context) (map[string]json.RawMessage, error) {
	var cols [4]*string
	if err := f.Pool.QueryRow(ctx, PGSelectSettings, f.Org).Scan(&cols[0], &cols[1], &cols[2], &cols[3]); err != nil {
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
