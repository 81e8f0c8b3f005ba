package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orgportal/portal-api/server"
)

// The OAuth 2.0 rows (migration 0004): applications, authorization codes,
// refresh tokens and applications' tokens; and the custom roles listed.

func (t *tx) Roles(ctx context.Context, orgID string) ([]server.CustomRole, error) {
	return queryAll(ctx, t, "roles", func(sc scanner) (server.CustomRole, error) { return scanRole(sc, orgID) },
		"SELECT id, privileges FROM roles WHERE org_id = ? ORDER BY id COLLATE BINARY", orgID)
}

func (t *tx) DeleteToken(ctx context.Context, token string) error {
	res, err := t.exec(ctx, "DELETE FROM tokens WHERE token = ?", token)
	return deleted(res, err, "token")
}

func (t *tx) App(ctx context.Context, clientID string) (server.App, error) {
	a, err := scanApp(t.queryRow(ctx, "SELECT "+appColumns+" FROM apps a WHERE a.client_id = ?", clientID))
	if err != nil {
		return server.App{}, notFound(err, "application", clientID)
	}
	return a, nil
}

// appColumns are an application's columns of apps a, as scanApp reads them.
const appColumns = "a.client_id, a.org_id, a.secret_hash, a.redirect_uris"

// scanApp reads an application from appColumns, then into more the columns
// the query selects after them.
func scanApp(sc scanner, more ...any) (server.App, error) {
	var a server.App
	var uris string
	if err := sc.Scan(append([]any{&a.ClientID, &a.OrgID, &a.SecretHash, &uris}, more...)...); err != nil {
		return server.App{}, err
	}
	if err := json.Unmarshal([]byte(uris), &a.RedirectURIs); err != nil {
		return server.App{}, fmt.Errorf("sqlstore: application %s redirect URIs: %w", a.ClientID, err)
	}
	return a, nil
}

func (t *tx) PutApp(ctx context.Context, a server.App) error {
	uris, err := marshal(a.RedirectURIs)
	if err != nil {
		return fmt.Errorf("sqlstore: put application: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO apps (client_id, org_id, secret_hash, redirect_uris) VALUES (?, ?, ?, ?)
		ON CONFLICT (client_id) DO UPDATE SET org_id = excluded.org_id, secret_hash = excluded.secret_hash,
			redirect_uris = excluded.redirect_uris`,
		a.ClientID, a.OrgID, a.SecretHash, uris)
	if err != nil {
		return fmt.Errorf("sqlstore: put application: %w", err)
	}
	return nil
}

func (t *tx) PutOAuthCode(ctx context.Context, c server.OAuthCode) error {
	_, err := t.exec(ctx, `INSERT INTO oauth_codes (code, client_id, username, redirect_uri, challenge, challenge_method,
			refresh_minutes, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Code, c.ClientID, c.Username, c.RedirectURI, c.Challenge, c.ChallengeMethod, c.RefreshMinutes, toMS(c.Expires))
	if err != nil {
		return fmt.Errorf("sqlstore: put authorization code: %w", err)
	}
	return nil
}

// TakeOAuthCode implements server.Tx: the read locks the row, so that of
// two concurrent exchanges the second waits and then finds it gone.
func (t *tx) TakeOAuthCode(ctx context.Context, code string) (server.OAuthCode, error) {
	c := server.OAuthCode{Code: code}
	var expires int64
	err := t.queryRow(ctx, `SELECT client_id, username, redirect_uri, challenge, challenge_method, refresh_minutes, expires_ms
		FROM oauth_codes WHERE code = ?`+t.locking("FOR UPDATE"), code).
		Scan(&c.ClientID, &c.Username, &c.RedirectURI, &c.Challenge, &c.ChallengeMethod, &c.RefreshMinutes, &expires)
	if err != nil {
		return server.OAuthCode{}, notFound(err, "authorization code")
	}
	c.Expires = fromMS(expires)
	res, err := t.exec(ctx, "DELETE FROM oauth_codes WHERE code = ?", code)
	return c, deleted(res, err, "authorization code")
}

func (t *tx) PutRefreshToken(ctx context.Context, r server.RefreshToken) error {
	_, err := t.exec(ctx, `INSERT INTO refresh_tokens (token, client_id, username, minutes, expires_ms, grant_id) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Token, r.ClientID, r.Username, r.Minutes, toMS(r.Expires), r.Grant)
	if err != nil {
		return fmt.Errorf("sqlstore: put refresh token: %w", err)
	}
	return nil
}

func (t *tx) RevokeGrant(ctx context.Context, grant string) (bool, error) {
	if grant == "" {
		return false, nil // the tokens of no grant are not one grant's
	}
	n := int64(0)
	for _, table := range []string{"tokens", "refresh_tokens"} {
		res, err := t.exec(ctx, "DELETE FROM "+table+" WHERE grant_id = ?", grant)
		if err != nil {
			return false, fmt.Errorf("sqlstore: revoke grant: %w", err)
		}
		m, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlstore: revoke grant: %w", err)
		}
		n += m
	}
	return n > 0, nil
}

func (t *tx) RefreshToken(ctx context.Context, token string) (server.RefreshToken, error) {
	return t.refreshToken(ctx, token, "")
}

// TakeRefreshToken implements server.Tx, as TakeOAuthCode.
func (t *tx) TakeRefreshToken(ctx context.Context, token string) (server.RefreshToken, error) {
	r, err := t.refreshToken(ctx, token, t.locking("FOR UPDATE"))
	if err != nil {
		return r, err
	}
	res, err := t.exec(ctx, "DELETE FROM refresh_tokens WHERE token = ?", token)
	return r, deleted(res, err, "refresh token")
}

func (t *tx) refreshToken(ctx context.Context, token, lock string) (server.RefreshToken, error) {
	r := server.RefreshToken{Token: token}
	var expires int64
	err := t.queryRow(ctx, "SELECT client_id, username, minutes, expires_ms, grant_id FROM refresh_tokens WHERE token = ?"+lock, token).
		Scan(&r.ClientID, &r.Username, &r.Minutes, &expires, &r.Grant)
	if err != nil {
		// The token is a secret: keep it out of the error.
		return server.RefreshToken{}, notFound(err, "refresh token")
	}
	r.Expires = fromMS(expires)
	return r, nil
}

func (t *tx) PutAppToken(ctx context.Context, a server.AppToken) error {
	_, err := t.exec(ctx, `INSERT INTO app_tokens (token, client_id, expires_ms) VALUES (?, ?, ?)`,
		a.Token, a.ClientID, toMS(a.Expires))
	if err != nil {
		return fmt.Errorf("sqlstore: put application token: %w", err)
	}
	return nil
}

func (t *tx) AppToken(ctx context.Context, token string) (server.AppToken, server.App, error) {
	var expires int64
	a, err := scanApp(t.queryRow(ctx, "SELECT "+appColumns+`, t.expires_ms
		FROM app_tokens t JOIN apps a ON a.client_id = t.client_id WHERE t.token = ?`, token), &expires)
	if err != nil {
		return server.AppToken{}, server.App{}, notFound(err, "application token")
	}
	return server.AppToken{Token: token, ClientID: a.ClientID, Expires: fromMS(expires)}, a, nil
}

func (t *tx) DeleteAppToken(ctx context.Context, token string) error {
	res, err := t.exec(ctx, "DELETE FROM app_tokens WHERE token = ?", token)
	return deleted(res, err, "application token")
}

// SigningKey implements server.Tx: the first writer's fresh secret wins,
// and every later call reads it.
func (t *tx) SigningKey(ctx context.Context, name, fresh string) (string, error) {
	if _, err := t.exec(ctx, "INSERT INTO signing_keys (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, fresh); err != nil {
		return "", fmt.Errorf("sqlstore: put signing key: %w", err)
	}
	var secret string
	if err := t.queryRow(ctx, "SELECT secret FROM signing_keys WHERE name = ?", name).Scan(&secret); err != nil {
		return "", fmt.Errorf("sqlstore: signing key: %w", err)
	}
	return secret, nil
}
