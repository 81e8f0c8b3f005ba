package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/orgportal/portal-api/server"
)

// testRolesList: an organization's custom roles come back ordered by id,
// and only its own.
func testRolesList(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	none := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.CustomRole, error) { return tx.Roles(ctx, "o1") })
	if len(none) != 0 {
		t.Errorf("Roles(o1) of an empty store = %v", none)
	}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
			tx.PutOrganization(ctx, server.Organization{ID: "o2", Name: "Two"}),
			tx.PutRole(ctx, server.CustomRole{OrgID: "o1", ID: "zeta", Privileges: []string{"p:z"}}),
			tx.PutRole(ctx, server.CustomRole{OrgID: "o1", ID: "alpha", Privileges: []string{"p:a", "p:b"}}),
			tx.PutRole(ctx, server.CustomRole{OrgID: "o2", ID: "beta", Privileges: []string{}}))
	})
	got := must(t, s, func(ctx context.Context, tx server.Tx) ([]server.CustomRole, error) { return tx.Roles(ctx, "o1") })
	wantEqual(t, "Roles(o1)", got, []server.CustomRole{
		{OrgID: "o1", ID: "alpha", Privileges: []string{"p:a", "p:b"}},
		{OrgID: "o1", ID: "zeta", Privileges: []string{"p:z"}},
	})
}

// testOAuth: applications, authorization codes, refresh tokens and
// applications' tokens are stored and read back as put; the Take methods
// hand a code or a refresh token to one transaction only, and a rolled back
// transaction gives it back; deletions report what was not there.
func testOAuth(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	emptyDump := dump(t, s)
	_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.App, error) { return tx.App(ctx, "app") })
	wantNotFound(t, "App(app) of an empty store", err)

	confidential := server.App{ClientID: "app", OrgID: "o1", SecretHash: "pbkdf2$x$y", RedirectURIs: []string{"http://127.0.0.1", "https://b.example/cb"}}
	public := server.App{ClientID: "pub", OrgID: "o1", RedirectURIs: []string{"urn:ietf:wg:oauth:2.0:oob"}}
	code := server.OAuthCode{Code: "c1", ClientID: "app", Username: "alice", RedirectURI: "http://127.0.0.1:5000/cb",
		Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", ChallengeMethod: "S256", RefreshMinutes: -1, Expires: ms(1_700_000_000_123)}
	refresh := server.RefreshToken{Token: "r1", ClientID: "app", Username: "alice", Minutes: 60, Expires: ms(1_700_003_600_000)}
	forever := server.RefreshToken{Token: "r2", ClientID: "pub", Username: "bob", Minutes: -1}
	appToken := server.AppToken{Token: "a1", ClientID: "app", Expires: ms(1_700_007_200_000)}
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(tx.PutOrganization(ctx, server.Organization{ID: "o1", Name: "One"}),
			tx.PutApp(ctx, confidential), tx.PutApp(ctx, public), tx.PutOAuthCode(ctx, code),
			tx.PutRefreshToken(ctx, refresh), tx.PutRefreshToken(ctx, forever), tx.PutAppToken(ctx, appToken))
	})
	for _, want := range []server.App{confidential, public} {
		got := must(t, s, func(ctx context.Context, tx server.Tx) (server.App, error) { return tx.App(ctx, want.ClientID) })
		wantEqual(t, "App("+want.ClientID+")", got, want)
	}
	for _, want := range []server.RefreshToken{refresh, forever} {
		got := must(t, s, func(ctx context.Context, tx server.Tx) (server.RefreshToken, error) {
			return tx.RefreshToken(ctx, want.Token)
		})
		wantEqual(t, "RefreshToken("+want.Token+")", got, want)
	}
	var gotToken server.AppToken
	var gotApp server.App
	view(t, s, func(ctx context.Context, tx server.Tx) error {
		var err error
		gotToken, gotApp, err = tx.AppToken(ctx, "a1")
		return err
	})
	wantEqual(t, "AppToken(a1)", gotToken, appToken)
	wantEqual(t, "AppToken(a1)'s application", gotApp, confidential)

	// A rolled back Take leaves the code; a committed one removes it.
	rollback := errors.New("rolled back")
	err = s.Update(t.Context(), func(tx server.Tx) error {
		got, err := tx.TakeOAuthCode(t.Context(), "c1")
		if err != nil {
			return err
		}
		wantEqual(t, "TakeOAuthCode(c1)", got, code)
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("Update: %v, want the rollback", err)
	}
	got, err := inUpdate(t, s, func(ctx context.Context, tx server.Tx) (server.OAuthCode, error) { return tx.TakeOAuthCode(ctx, "c1") })
	if err != nil {
		t.Fatalf("TakeOAuthCode(c1) after a rollback: %v", err)
	}
	wantEqual(t, "TakeOAuthCode(c1) after a rollback", got, code)
	_, err = inUpdate(t, s, func(ctx context.Context, tx server.Tx) (server.OAuthCode, error) { return tx.TakeOAuthCode(ctx, "c1") })
	wantNotFound(t, "TakeOAuthCode(c1) taken", err)

	gotRefresh, err := inUpdate(t, s, func(ctx context.Context, tx server.Tx) (server.RefreshToken, error) {
		return tx.TakeRefreshToken(ctx, "r1")
	})
	if err != nil {
		t.Fatalf("TakeRefreshToken(r1): %v", err)
	}
	wantEqual(t, "TakeRefreshToken(r1)", gotRefresh, refresh)
	_, err = get(t, s, func(ctx context.Context, tx server.Tx) (server.RefreshToken, error) {
		return tx.RefreshToken(ctx, "r1")
	})
	wantNotFound(t, "RefreshToken(r1) taken", err)

	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(tx.DeleteAppToken(ctx, "a1"), tx.PutToken(ctx, server.Token{Token: "u1", Username: "alice"}))
	})
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		_, _, err := tx.AppToken(ctx, "a1")
		wantNotFound(t, "AppToken(a1) deleted", err)
		wantNotFound(t, "DeleteAppToken(a1) again", tx.DeleteAppToken(ctx, "a1"))
		return tx.DeleteToken(ctx, "u1")
	})
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		_, err := tx.Token(ctx, "u1")
		wantNotFound(t, "Token(u1) deleted", err)
		wantNotFound(t, "DeleteToken(u1) again", tx.DeleteToken(ctx, "u1"))
		return nil
	})

	// Dump shows them all; Reset removes them all.
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(tx.PutOAuthCode(ctx, code), tx.PutAppToken(ctx, appToken))
	})
	full := dump(t, s)
	for _, want := range []string{"c1", "r2", "a1", "https://b.example/cb"} {
		if !strings.Contains(full, want) {
			t.Errorf("Dump lacks %s:\n%s", want, full)
		}
	}
	if err := s.Reset(t.Context(), nil); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if got := dump(t, s); got != emptyDump {
		t.Errorf("Dump after Reset:\n%s\nwant the dump of a new store:\n%s", got, emptyDump)
	}
}

// inUpdate runs one Take in its own Update, committed unless it fails.
func inUpdate[T any](t *testing.T, s server.Store, fn func(ctx context.Context, tx server.Tx) (T, error)) (T, error) {
	t.Helper()
	var v T
	err := s.Update(t.Context(), func(tx server.Tx) error {
		var err error
		v, err = fn(t.Context(), tx)
		return err
	})
	return v, err
}

// testTakeOnce: of concurrent transactions taking one code (or one refresh
// token), exactly one gets it.
func testTakeOnce(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	const rounds, racers = 3, 6
	for r := range rounds {
		c, rt := fmt.Sprintf("code%d", r), fmt.Sprintf("refresh%d", r)
		update(t, s, func(ctx context.Context, tx server.Tx) error {
			return errors.Join(tx.PutOAuthCode(ctx, server.OAuthCode{Code: c, ClientID: "app", Username: "alice", RedirectURI: "x", Expires: ms(1)}),
				tx.PutRefreshToken(ctx, server.RefreshToken{Token: rt, ClientID: "app", Username: "alice", Minutes: -1}))
		})
		var mu sync.Mutex
		codes, refreshes := 0, 0
		var wg sync.WaitGroup
		for range racers {
			wg.Go(func() {
				// Counted once committed: a store may run fn again.
				take := func(what string, fn func(ctx context.Context, tx server.Tx) error) bool {
					took := false
					err := s.Update(t.Context(), func(tx server.Tx) error {
						took = false
						err := fn(t.Context(), tx)
						if errors.Is(err, server.ErrNotFound) {
							return nil
						}
						took = err == nil
						return err
					})
					if err != nil {
						t.Errorf("Update taking %s: %v", what, err)
					}
					return err == nil && took
				}
				tookCode := take(c, func(ctx context.Context, tx server.Tx) error { _, err := tx.TakeOAuthCode(ctx, c); return err })
				tookRefresh := take(rt, func(ctx context.Context, tx server.Tx) error { _, err := tx.TakeRefreshToken(ctx, rt); return err })
				mu.Lock()
				defer mu.Unlock()
				if tookCode {
					codes++
				}
				if tookRefresh {
					refreshes++
				}
			})
		}
		wg.Wait()
		if codes != 1 || refreshes != 1 {
			t.Errorf("round %d: %d racers took the code %d times and the refresh token %d times, want once each", r, racers, codes, refreshes)
		}
	}
}

// testRevokeGrant: RevokeGrant removes the tokens and refresh tokens of one
// grant and nothing else, and reports whether it found any.
func testRevokeGrant(t *testing.T, open func(t *testing.T) server.Store) {
	s := open(t)
	update(t, s, func(ctx context.Context, tx server.Tx) error {
		return errors.Join(
			tx.PutToken(ctx, server.Token{Token: "t1", Username: "alice", Grant: "g1"}),
			tx.PutToken(ctx, server.Token{Token: "t2", Username: "alice", Grant: "g1"}),
			tx.PutToken(ctx, server.Token{Token: "t3", Username: "alice", Grant: "g2"}),
			tx.PutToken(ctx, server.Token{Token: "t4", Username: "alice"}),
			tx.PutRefreshToken(ctx, server.RefreshToken{Token: "r1", ClientID: "app", Username: "alice", Minutes: -1, Grant: "g1"}),
			tx.PutRefreshToken(ctx, server.RefreshToken{Token: "r2", ClientID: "app", Username: "alice", Minutes: -1, Grant: "g2"}))
	})
	got := must(t, s, func(ctx context.Context, tx server.Tx) (server.RefreshToken, error) {
		return tx.RefreshToken(ctx, "r2")
	})
	if got.Grant != "g2" {
		t.Errorf("RefreshToken(r2).Grant = %q, want g2", got.Grant)
	}
	for _, c := range []struct {
		grant string
		want  bool
	}{{"g1", true}, {"g1", false}, {"", false}, {"none", false}} {
		var revoked bool
		update(t, s, func(ctx context.Context, tx server.Tx) (err error) {
			revoked, err = tx.RevokeGrant(ctx, c.grant)
			return err
		})
		if revoked != c.want {
			t.Errorf("RevokeGrant(%q) = %v, want %v", c.grant, revoked, c.want)
		}
	}
	for tok, kept := range map[string]bool{"t1": false, "t2": false, "t3": true, "t4": true} {
		_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.Token, error) { return tx.Token(ctx, tok) })
		if (err == nil) != kept {
			t.Errorf("token %s after RevokeGrant(g1): %v, want kept %v", tok, err, kept)
		}
	}
	for tok, kept := range map[string]bool{"r1": false, "r2": true} {
		_, err := get(t, s, func(ctx context.Context, tx server.Tx) (server.RefreshToken, error) { return tx.RefreshToken(ctx, tok) })
		if (err == nil) != kept {
			t.Errorf("refresh token %s after RevokeGrant(g1): %v, want kept %v", tok, err, kept)
		}
	}
}
