package sqlstore

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orgportal/portal-api/server"
)

// errReadOnly is returned by a write inside View. PostgreSQL would refuse it
// too, but SQLite would not, so the check is made here for every dialect.
var errReadOnly = errors.New("sqlstore: write in a read-only transaction")

// tx implements server.Tx over one database transaction.
type tx struct {
	tx *sql.Tx
	// pg runs the statements of a PostgreSQL transaction (tx is nil then).
	pg       *pgTx
	d        dialect
	readOnly bool
	// lock makes the reads that decide a write lock what they read until
	// the transaction ends (PostgreSQL read-write transactions, which run at
	// READ COMMITTED); see server.Tx for which and in what order.
	lock  bool
	stmts *stmtCache // nil: queries are prepared each time
	// bound holds the cached statements bound to tx, for a writer's
	// group's transaction, shared by the fns that run in it one after
	// another (see stmtContext); nil elsewhere, which binds them anew each
	// time.
	bound map[*sql.Stmt]*sql.Stmt
}

// stmtContext is the context a statement of fn runs with, given fn's. In a
// writer's group a fn's context ending must not interrupt a statement:
// SQLite would roll the whole transaction back, the writes of the group's
// other fns with it. The fn is stopped before its next statement instead,
// and its savepoint rolled back. The statement gets a context that never
// ends (neither database/sql nor the driver reads a context's values).
func (t *tx) stmtContext(ctx context.Context) (context.Context, error) {
	if t.bound == nil || ctx.Done() == nil {
		return ctx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.Background(), nil
}

// stmt returns q's prepared statement bound to the transaction; nil when q is
// not prepared (see stmtCache.get).
func (t *tx) stmt(ctx context.Context, q string) *sql.Stmt {
	st := t.stmts.get(ctx, q)
	if st == nil {
		return nil
	}
	if t.bound == nil {
		return t.tx.StmtContext(ctx, st)
	}
	b, ok := t.bound[st]
	if !ok {
		// Bound with no request's context: the binding outlives the job
		// that made it. It is closed with the transaction.
		b = t.tx.StmtContext(context.Background(), st)
		t.bound[st] = b
	}
	return b
}

var _ server.Tx = (*tx)(nil)

// exec, query and queryRow run q, written for SQLite, in the transaction:
// on PostgreSQL through pgx (pgTx), on SQLite through the statement cache
// when q is in it.
func (t *tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if t.readOnly {
		return nil, errReadOnly
	}
	if t.pg != nil {
		return t.pg.ExecContext(ctx, t.d.rebind(q), args...)
	}
	ctx, err := t.stmtContext(ctx)
	if err != nil {
		return nil, err
	}
	if st := t.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, q, args...)
}

func (t *tx) query(ctx context.Context, q string, args ...any) (rows, error) {
	if t.pg != nil {
		return t.pg.QueryContext(ctx, t.d.rebind(q), args...)
	}
	ctx, err := t.stmtContext(ctx)
	if err != nil {
		return nil, err
	}
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, q, args...)
}

// scanner is one row to scan: a *sql.Row, a pgx row, or the error that kept
// one from running.
type scanner interface{ Scan(dest ...any) error }

// queryAll scans every row q selects with scan; what names the rows in errors.
func queryAll[T any](ctx context.Context, t *tx, what string, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: list %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list %s: %w", what, err)
	}
	return out, nil
}

type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }

func (t *tx) queryRow(ctx context.Context, q string, args ...any) scanner {
	if t.pg != nil {
		return t.pg.QueryRowContext(ctx, t.d.rebind(q), args...)
	}
	ctx, err := t.stmtContext(ctx)
	if err != nil {
		return errRow{err}
	}
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

// locking returns clause when the tx locks what it reads, else "".
func (t *tx) locking(clause string) string {
	if t.lock {
		return " " + clause
	}
	return ""
}

// notFound turns sql.ErrNoRows into server.ErrNotFound.
func notFound(err error, what string, key ...string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return errNotFound(what, key)
	}
	return fmt.Errorf("sqlstore: read %s: %w", what, err)
}

// errNotFound names what was not found: `user "bob": not found`.
func errNotFound(what string, key []string) error {
	if len(key) == 0 {
		return fmt.Errorf("%s: %w", what, server.ErrNotFound)
	}
	return fmt.Errorf("%s %q: %w", what, strings.Join(key, "/"), server.ErrNotFound)
}

// deleted reports server.ErrNotFound when a DELETE matched no row.
func deleted(res sql.Result, err error, what string, key ...string) error {
	if err != nil {
		return fmt.Errorf("sqlstore: delete %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: delete %s: %w", what, err)
	}
	if n == 0 {
		return errNotFound(what, key)
	}
	return nil
}

// toMS stores a time as Unix milliseconds, the zero time as 0.
func toMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS reverses toMS, in UTC.
func fromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// marshal encodes v as compact JSON without HTML escaping, so that text such
// as "<b>" is stored as sent.
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// marshalNull is marshal with NULL (nil) for a value that is unset: an
// argument either driver takes as it is, where a sql.NullString would be
// boxed and then converted again.
func marshalNull(v any, unset bool) (any, error) {
	if unset {
		return nil, nil
	}
	return marshal(v)
}

// unmarshalNull decodes a column stored by marshalNull into *dst, leaving it
// untouched for NULL.
func unmarshalNull[T any](s sql.NullString, dst *T) error {
	if !s.Valid {
		return nil
	}
	return json.Unmarshal([]byte(s.String), dst)
}

func (t *tx) Empty(ctx context.Context) (bool, error) {
	var one int
	err := t.queryRow(ctx, "SELECT 1 FROM organizations LIMIT 1").Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlstore: read organizations: %w", err)
	}
	return false, nil
}

func (t *tx) Organization(ctx context.Context, id string) (server.Organization, error) {
	o := server.Organization{ID: id}
	err := t.queryRow(ctx, "SELECT name FROM organizations WHERE id = ?", id).Scan(&o.Name)
	if err != nil {
		return server.Organization{}, notFound(err, "organization", id)
	}
	return o, nil
}

func (t *tx) PutOrganization(ctx context.Context, o server.Organization) error {
	_, err := t.exec(ctx, `INSERT INTO organizations (id, name) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name`, o.ID, o.Name)
	if err != nil {
		return fmt.Errorf("sqlstore: put organization: %w", err)
	}
	return nil
}

func (t *tx) Role(ctx context.Context, orgID, id string) (server.CustomRole, error) {
	r, err := scanRole(t.queryRow(ctx, "SELECT id, privileges FROM roles WHERE org_id = ? AND id = ?", orgID, id), orgID)
	if err != nil {
		return server.CustomRole{}, notFound(err, "role", orgID, id)
	}
	return r, nil
}

// scanRole reads a role of orgID from its id and privileges.
func scanRole(sc scanner, orgID string) (server.CustomRole, error) {
	r := server.CustomRole{OrgID: orgID}
	var privs string
	if err := sc.Scan(&r.ID, &privs); err != nil {
		return server.CustomRole{}, err
	}
	if err := json.Unmarshal([]byte(privs), &r.Privileges); err != nil {
		return server.CustomRole{}, fmt.Errorf("sqlstore: role %s/%s privileges: %w", orgID, r.ID, err)
	}
	return r, nil
}

func (t *tx) PutRole(ctx context.Context, r server.CustomRole) error {
	privs, err := marshal(r.Privileges)
	if err != nil {
		return fmt.Errorf("sqlstore: put role: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO roles (org_id, id, privileges) VALUES (?, ?, ?)
		ON CONFLICT (org_id, id) DO UPDATE SET privileges = excluded.privileges`,
		r.OrgID, r.ID, privs)
	if err != nil {
		return fmt.Errorf("sqlstore: put role: %w", err)
	}
	return nil
}

const userColumns = "username, org_id, full_name, role, password_hash, categories, created_ms, email"

func scanUser(sc scanner) (server.User, error) {
	var u server.User
	var cats string
	var created int64
	if err := sc.Scan(&u.Username, &u.OrgID, &u.FullName, &u.Role, &u.PasswordHash, &cats, &created, &u.Email); err != nil {
		return server.User{}, err
	}
	u.Created = fromMS(created)
	if err := json.Unmarshal([]byte(cats), &u.Categories); err != nil {
		return server.User{}, fmt.Errorf("sqlstore: user %s categories: %w", u.Username, err)
	}
	return u, nil
}

func (t *tx) User(ctx context.Context, username string) (server.User, error) {
	u, err := scanUser(t.queryRow(ctx, "SELECT "+userColumns+" FROM users WHERE username = ?"+t.locking("FOR UPDATE"), username))
	if err != nil {
		return server.User{}, notFound(err, "user", username)
	}
	return u, nil
}

func (t *tx) Users(ctx context.Context, orgID string) ([]server.User, error) {
	return queryAll(ctx, t, "users", scanUser,
		"SELECT "+userColumns+" FROM users WHERE org_id = ? ORDER BY username COLLATE BINARY"+t.locking("FOR UPDATE"), orgID)
}

func (t *tx) PutUser(ctx context.Context, u server.User) error {
	cats, err := marshal(u.Categories)
	if err != nil {
		return fmt.Errorf("sqlstore: put user: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (username) DO UPDATE SET org_id = excluded.org_id,
			full_name = excluded.full_name, role = excluded.role,
			password_hash = excluded.password_hash, categories = excluded.categories,
			created_ms = excluded.created_ms, email = excluded.email`,
		u.Username, u.OrgID, u.FullName, u.Role, u.PasswordHash, cats, toMS(u.Created), u.Email)
	if err != nil {
		return fmt.Errorf("sqlstore: put user: %w", err)
	}
	return nil
}

func (t *tx) Token(ctx context.Context, token string) (server.Token, error) {
	tk := server.Token{Token: token}
	var expires int64
	err := t.queryRow(ctx, "SELECT username, expires_ms FROM tokens WHERE token = ?", token).Scan(&tk.Username, &expires)
	if err != nil {
		// The token is a secret: keep it out of the error.
		return server.Token{}, notFound(err, "token")
	}
	tk.Expires = fromMS(expires)
	return tk, nil
}

// ConfirmToken implements server.Tx. On PostgreSQL, reading the tokens table
// holds it against Reset's exclusive lock until the transaction ends; a
// statement that waited for that lock reads what the Reset committed. On
// SQLite, the write lock every write holds does the same.
func (t *tx) ConfirmToken(ctx context.Context, token string) error {
	var one int
	err := t.queryRow(ctx, "SELECT 1 FROM tokens WHERE token = ?", token).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return server.ErrTokenRemoved
	} else if err != nil {
		return fmt.Errorf("sqlstore: confirm token: %w", err)
	}
	return nil
}

func (t *tx) Principal(ctx context.Context, token string) (server.Token, server.Principal, error) {
	tk := server.Token{Token: token}
	var p server.Principal
	var expires int64
	var cats string
	var privs sql.NullString
	err := t.queryRow(ctx, `SELECT t.expires_ms, u.username, u.org_id, u.full_name, u.role, u.password_hash,
			u.categories, r.privileges
		FROM tokens t JOIN users u ON u.username = t.username
		LEFT JOIN roles r ON r.org_id = u.org_id AND r.id = u.role
		WHERE t.token = ?`, token).Scan(&expires, &p.User.Username, &p.User.OrgID, &p.User.FullName,
		&p.User.Role, &p.User.PasswordHash, &cats, &privs)
	if err != nil {
		// The token is a secret: keep it out of the error.
		return server.Token{}, server.Principal{}, notFound(err, "token")
	}
	tk.Username, tk.Expires = p.User.Username, fromMS(expires)
	if err := json.Unmarshal([]byte(cats), &p.User.Categories); err != nil {
		return server.Token{}, server.Principal{}, fmt.Errorf("sqlstore: user %s categories: %w", p.User.Username, err)
	}
	if err := unmarshalNull(privs, &p.Privileges); err != nil {
		return server.Token{}, server.Principal{}, fmt.Errorf("sqlstore: role %s/%s privileges: %w", p.User.OrgID, p.User.Role, err)
	}
	return tk, p, nil
}

func (t *tx) PutToken(ctx context.Context, tk server.Token) error {
	_, err := t.exec(ctx, `INSERT INTO tokens (token, username, expires_ms, grant_id) VALUES (?, ?, ?, ?)
		ON CONFLICT (token) DO UPDATE SET username = excluded.username, expires_ms = excluded.expires_ms,
			grant_id = excluded.grant_id`,
		tk.Token, tk.Username, toMS(tk.Expires), tk.Grant)
	if err != nil {
		return fmt.Errorf("sqlstore: put token: %w", err)
	}
	return nil
}

func (t *tx) Settings(ctx context.Context, orgID string, parts server.SettingsParts) (server.Settings, error) {
	if t.lock {
		// A read of the settings in a write precedes a merge into them:
		// the organization's row stands for its settings, which may have
		// no row yet, so that such writes to one organization run in turn.
		var one int
		err := t.queryRow(ctx, "SELECT 1 FROM organizations WHERE id = ? FOR UPDATE", orgID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return server.Settings{}, nil
		}
		if err != nil {
			return server.Settings{}, fmt.Errorf("sqlstore: lock settings: %w", err)
		}
	}
	var anon, authn, banner, config sql.NullString
	cols := [...]*sql.NullString{&anon, &authn, &banner, &config}
	err := t.queryRow(ctx, settingsSelect[parts&server.AllSettingsParts], orgID).Scan(cols[0], cols[1], cols[2], cols[3])
	if errors.Is(err, sql.ErrNoRows) {
		return server.Settings{}, nil
	}
	if err != nil {
		return server.Settings{}, fmt.Errorf("sqlstore: read settings: %w", err)
	}
	var s server.Settings
	if err := errors.Join(
		unmarshalNull(anon, &s.AnonymousAccessNotice),
		unmarshalNull(authn, &s.AuthenticatedAccessNotice),
		unmarshalNull(banner, &s.InformationalBanner),
		unmarshalNull(config, &s.PortalConfig),
	); err != nil {
		return server.Settings{}, fmt.Errorf("sqlstore: settings of %s: %w", orgID, err)
	}
	return s, nil
}

// settingsSelect holds, for each set of parts, the query reading them. A
// part not asked for is read as NULL: the anonymous settings read never loads
// the configuration properties, which may be large.
var settingsSelect = func() (q [server.AllSettingsParts + 1]string) {
	for parts := range q {
		var cols []string
		for _, c := range settingsColumns {
			if server.SettingsParts(parts)&c.part != 0 {
				cols = append(cols, c.name)
			} else {
				cols = append(cols, "NULL")
			}
		}
		q[parts] = "SELECT " + strings.Join(cols, ", ") + " FROM settings WHERE org_id = ?"
	}
	return q
}()

// settingsColumns are the settings table's columns after org_id, in order,
// with the part of server.Settings each holds: value returns it, and whether
// it is unset (stored as NULL).
var settingsColumns = [...]struct {
	name  string
	part  server.SettingsParts
	value func(s server.Settings) (v any, unset bool)
}{
	{"anonymous_notice", server.PartAnonymousAccessNotice,
		func(s server.Settings) (any, bool) { return s.AnonymousAccessNotice, s.AnonymousAccessNotice == nil }},
	{"authenticated_notice", server.PartAuthenticatedAccessNotice,
		func(s server.Settings) (any, bool) {
			return s.AuthenticatedAccessNotice, s.AuthenticatedAccessNotice == nil
		}},
	{"banner", server.PartInformationalBanner,
		func(s server.Settings) (any, bool) { return s.InformationalBanner, s.InformationalBanner == nil }},
	{"portal_config", server.PartPortalConfig,
		func(s server.Settings) (any, bool) { return s.PortalConfig, len(s.PortalConfig) == 0 }},
}

// patchSettingsQueries is PatchSettings' upsert for each set of parts.
var patchSettingsQueries = func() (qs [1 << len(settingsColumns)]string) {
	for parts := range qs {
		var set []string
		for _, c := range settingsColumns {
			if server.SettingsParts(parts)&c.part != 0 {
				set = append(set, c.name+" = excluded."+c.name)
			}
		}
		if len(set) == 0 {
			continue // PatchSettings makes no upsert then
		}
		qs[parts] = `INSERT INTO settings (org_id, anonymous_notice, authenticated_notice, banner, portal_config)
		SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM organizations WHERE id = ?)
		ON CONFLICT (org_id) DO UPDATE SET ` + strings.Join(set, ", ")
	}
	return qs
}()

// PatchSettings writes with one statement that also checks the organization
// exists; a second one runs only when a part is cleared, to delete a row
// left with no settings: zero settings are stored as no row, so that equal
// states dump equal.
func (t *tx) PatchSettings(ctx context.Context, orgID string, s server.Settings, parts server.SettingsParts) error {
	if parts == 0 {
		_, err := t.Organization(ctx, orgID)
		return err
	}
	// The parts not named stay NULL: a new row has none of them.
	var vals [len(settingsColumns)]any
	cleared := false
	for i, c := range settingsColumns {
		if parts&c.part == 0 {
			continue
		}
		var err error
		if vals[i], err = marshalNull(c.value(s)); err != nil {
			return fmt.Errorf("sqlstore: patch settings: %s: %w", c.name, err)
		}
		cleared = cleared || vals[i] == nil
	}
	const clearRow = `DELETE FROM settings WHERE org_id = ? AND anonymous_notice IS NULL
			AND authenticated_notice IS NULL AND banner IS NULL AND portal_config IS NULL`
	i := parts & (1<<len(settingsColumns) - 1)
	res, err := t.exec(ctx, patchSettingsQueries[i], orgID, vals[0], vals[1], vals[2], vals[3], orgID)
	if err != nil {
		return fmt.Errorf("sqlstore: patch settings: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: patch settings: %w", err)
	}
	if n == 0 {
		return errNotFound("organization", []string{orgID})
	}
	if cleared {
		_, err := t.exec(ctx, clearRow, orgID)
		if err != nil {
			return fmt.Errorf("sqlstore: patch settings: %w", err)
		}
	}
	return nil
}

func (t *tx) CategorySchema(ctx context.Context, orgID string) ([]server.CategoryNode, error) {
	var schema string
	err := t.queryRow(ctx, "SELECT schema FROM category_schemas WHERE org_id = ?", orgID).Scan(&schema)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read category schema: %w", err)
	}
	var nodes []server.CategoryNode
	if err := json.Unmarshal([]byte(schema), &nodes); err != nil {
		return nil, fmt.Errorf("sqlstore: category schema of %s: %w", orgID, err)
	}
	return nodes, nil
}

func (t *tx) PutCategorySchema(ctx context.Context, orgID string, nodes []server.CategoryNode) error {
	if nodes == nil {
		if _, err := t.exec(ctx, "DELETE FROM category_schemas WHERE org_id = ?", orgID); err != nil {
			return fmt.Errorf("sqlstore: delete category schema: %w", err)
		}
		return nil
	}
	schema, err := marshal(nodes)
	if err != nil {
		return fmt.Errorf("sqlstore: put category schema: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO category_schemas (org_id, schema) VALUES (?, ?)
		ON CONFLICT (org_id) DO UPDATE SET schema = excluded.schema`, orgID, schema)
	if err != nil {
		return fmt.Errorf("sqlstore: put category schema: %w", err)
	}
	return nil
}

func (t *tx) Folder(ctx context.Context, owner, id string) (server.Folder, error) {
	f := server.Folder{ID: id, Owner: owner}
	var created int64
	err := t.queryRow(ctx, "SELECT title, created_ms FROM folders WHERE id = ? AND owner = ?"+t.locking("FOR UPDATE"), id, owner).Scan(&f.Title, &created)
	if err != nil {
		return server.Folder{}, notFound(err, "folder", owner, id)
	}
	f.Created = fromMS(created)
	return f, nil
}

func (t *tx) Folders(ctx context.Context, owner string) ([]server.Folder, error) {
	return queryAll(ctx, t, "folders", func(sc scanner) (server.Folder, error) {
		f := server.Folder{Owner: owner}
		var created int64
		err := sc.Scan(&f.ID, &f.Title, &created)
		f.Created = fromMS(created)
		return f, err
	}, "SELECT id, title, created_ms FROM folders WHERE owner = ? ORDER BY created_ms, id COLLATE BINARY", owner)
}

func (t *tx) PutFolder(ctx context.Context, f server.Folder) error {
	_, err := t.exec(ctx, `INSERT INTO folders (id, owner, title, title_key, created_ms) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, title = excluded.title,
			title_key = excluded.title_key, created_ms = excluded.created_ms`,
		f.ID, f.Owner, f.Title, server.TitleKey(f.Title), toMS(f.Created))
	if err != nil {
		return fmt.Errorf("sqlstore: put folder: %w", err)
	}
	return nil
}

func (t *tx) DeleteFolder(ctx context.Context, owner, id string) error {
	res, err := t.exec(ctx, "DELETE FROM folders WHERE id = ? AND owner = ?", id, owner)
	return deleted(res, err, "folder", owner, id)
}

const itemColumns = "id, owner, folder_id, title, type, description, tags, created_ms, modified_ms, access"

func scanItem(sc scanner) (server.Item, error) {
	var it server.Item
	var tags string
	var created, modified int64
	if err := sc.Scan(&it.ID, &it.Owner, &it.FolderID, &it.Title, &it.Type, &it.Description, &tags, &created, &modified, &it.Access); err != nil {
		return server.Item{}, err
	}
	if err := json.Unmarshal([]byte(tags), &it.Tags); err != nil {
		return server.Item{}, fmt.Errorf("sqlstore: item %s tags: %w", it.ID, err)
	}
	it.Created, it.Modified = fromMS(created), fromMS(modified)
	return it, nil
}

func (t *tx) Item(ctx context.Context, id string) (server.Item, error) {
	it, err := scanItem(t.queryRow(ctx, "SELECT "+itemColumns+" FROM items WHERE id = ?"+t.locking("FOR UPDATE"), id))
	if err != nil {
		return server.Item{}, notFound(err, "item", id)
	}
	return it, nil
}

func (t *tx) Items(ctx context.Context, owner, folderID string) ([]server.Item, error) {
	order := "created_ms, id COLLATE BINARY"
	if t.lock {
		// Rows are locked in the order read: by id, as everywhere.
		order = "id COLLATE BINARY FOR UPDATE"
	}
	items, err := queryAll(ctx, t, "items", scanItem, "SELECT "+itemColumns+` FROM items WHERE owner = ? AND folder_id = ?
		ORDER BY `+order, owner, folderID)
	if err != nil {
		return nil, err
	}
	if t.lock {
		slices.SortFunc(items, func(a, b server.Item) int {
			return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
		})
	}
	return items, nil
}

func (t *tx) PutItem(ctx context.Context, it server.Item) error {
	tags, err := marshal(it.Tags)
	if err != nil {
		return fmt.Errorf("sqlstore: put item: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO items (`+itemColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, folder_id = excluded.folder_id,
			title = excluded.title, type = excluded.type, description = excluded.description,
			tags = excluded.tags, created_ms = excluded.created_ms, modified_ms = excluded.modified_ms,
			access = excluded.access`,
		it.ID, it.Owner, it.FolderID, it.Title, it.Type, it.Description, tags, toMS(it.Created), toMS(it.Modified), it.Access)
	if err != nil {
		return fmt.Errorf("sqlstore: put item: %w", err)
	}
	return nil
}

func (t *tx) DeleteItem(ctx context.Context, id string) error {
	res, err := t.exec(ctx, "DELETE FROM items WHERE id = ?", id)
	return deleted(res, err, "item", id)
}

// batchSize bounds the ids of one IN list, well under the bind-parameter
// limits of SQLite (32,766) and PostgreSQL (65,535).
const batchSize = 500

// inBatches calls fn with successive slices of at most batchSize ids, and
// the placeholders "?, ?, ..." for them.
func inBatches(ids []string, fn func(batch []any, marks string) error) error {
	for len(ids) > 0 {
		n := min(len(ids), batchSize)
		batch := make([]any, n)
		for i, id := range ids[:n] {
			batch[i] = id
		}
		if err := fn(batch, strings.TrimSuffix(strings.Repeat("?, ", n), ", ")); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

func (t *tx) ItemsByID(ctx context.Context, ids []string) (map[string]server.Item, error) {
	out := make(map[string]server.Item, len(ids))
	lock := ""
	if t.lock {
		// Locked in id order, across batches too, so that two
		// transactions locking some of the same items cannot deadlock.
		ids = slices.Compact(slices.Sorted(slices.Values(ids)))
		lock = " ORDER BY id COLLATE BINARY FOR UPDATE"
	}
	err := inBatches(ids, func(batch []any, marks string) error {
		rows, err := t.query(ctx, "SELECT "+itemColumns+" FROM items WHERE id IN ("+marks+")"+lock, batch...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			it, err := scanItem(rows)
			if err != nil {
				return err
			}
			out[it.ID] = it
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read items: %w", err)
	}
	return out, nil
}

func (t *tx) SetItemsFolder(ctx context.Context, ids []string, folderID string, modified time.Time) error {
	return inBatches(ids, func(batch []any, marks string) error {
		args := append([]any{folderID, toMS(modified)}, batch...)
		res, err := t.exec(ctx, "UPDATE items SET folder_id = ?, modified_ms = ? WHERE id IN ("+marks+")", args...)
		return allAffected(res, err, "move items", len(batch))
	})
}

func (t *tx) DeleteItems(ctx context.Context, ids []string) error {
	return inBatches(ids, func(batch []any, marks string) error {
		res, err := t.exec(ctx, "DELETE FROM items WHERE id IN ("+marks+")", batch...)
		return allAffected(res, err, "delete items", len(batch))
	})
}

// allAffected reports server.ErrNotFound when a batch statement matched
// fewer rows than it named (ids given twice count once in SQL, so callers
// pass distinct ids).
func allAffected(res sql.Result, err error, what string, want int) error {
	if err != nil {
		return fmt.Errorf("sqlstore: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: %s: %w", what, err)
	}
	if int(n) != want {
		return fmt.Errorf("%s: %d of %d items: %w", what, want-int(n), want, server.ErrNotFound)
	}
	return nil
}

// dumpTable writes the rows of one table for Dump.
func (t *tx) dumpTable(ctx context.Context, b *strings.Builder, table, columns, key string) error {
	// Every key column is TEXT, so byte order is one collation away.
	order := strings.ReplaceAll(key, ",", " COLLATE BINARY,") + " COLLATE BINARY"
	rows, err := t.query(ctx, "SELECT "+columns+" FROM "+table+" ORDER BY "+order)
	if err != nil {
		return err
	}
	defer rows.Close()
	names := strings.Split(columns, ", ")
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		b.WriteString(table)
		for i, v := range vals {
			b.WriteString(" " + names[i] + "=")
			switch v := v.(type) {
			case nil:
				b.WriteString("NULL")
			case string:
				b.WriteString(strconv.Quote(v))
			case []byte:
				b.WriteString(strconv.Quote(string(v)))
			case int64:
				b.WriteString(strconv.FormatInt(v, 10))
			default:
				fmt.Fprintf(b, "%v", v)
			}
		}
		b.WriteByte('\n')
	}
	return rows.Err()
}
