package client

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/orgportal/portal-api/gen"
)

// Token is a token issued by generateToken.
type Token struct {
	// Token is the value to send, for example with WithToken.
	Token string
	// Expires is when the portal stops accepting the token, by its clock.
	Expires time.Time
	// SSL reports whether the token may be used over HTTPS only.
	SSL bool
}

// GenerateToken exchanges a member's username and password for a token valid
// for expiration, rounded up to whole minutes (the portal's unit; at most two
// weeks). Zero leaves the portal's default, 60 minutes. With WithReferer the
// token is bound to that referer.
//
// The client's own token, if any, is not sent: the operation needs none.
func (c *Client) GenerateToken(ctx context.Context, username, password string, expiration time.Duration) (Token, error) {
	form := gen.GenerateTokenForm{Username: username, Password: password, F: jsonFormat()}
	if expiration > 0 {
		form.Expiration = ptr(int32((expiration + time.Minute - 1) / time.Minute))
	}
	if c.referer != "" {
		form.Client = ptr(gen.Referer)
		form.Referer = &c.referer
	}
	var out gen.TokenResponse
	// roundTrip, not do: no token is sent, so none can be renewed.
	err := c.roundTrip(ctx, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GenerateTokenWithFormdataBody(ctx, form, edit)
	}, "", &out)
	if err != nil {
		return Token{}, wrap("generateToken", err)
	}
	if out.Token == nil || *out.Token == "" {
		return Token{}, missing("generateToken", "token")
	}
	return Token{Token: *out.Token, Expires: millis(out.Expires), SSL: deref(out.Ssl)}, nil
}

// AppToken exchanges an application's client id and secret for its own
// token (OAuth 2.0 client credentials), valid for expiration rounded up to
// whole minutes (at most two weeks; zero leaves the portal's default, two
// hours). Such a token acts for no user: it reads what anonymous callers may.
func (c *Client) AppToken(ctx context.Context, clientID, clientSecret string, expiration time.Duration) (Token, error) {
	const op = "oauthToken"
	form := gen.TokenForm{GrantType: gen.TokenFormGrantTypeClientCredentials, ClientId: clientID, ClientSecret: &clientSecret, F: jsonFormat()}
	if expiration > 0 {
		form.Expiration = ptr(int32((expiration + time.Minute - 1) / time.Minute))
	}
	var out gen.OAuthTokenResponse
	start := c.now()
	err := c.roundTrip(ctx, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.OauthTokenWithFormdataBody(ctx, form, edit)
	}, "", &out)
	if err != nil {
		return Token{}, wrap(op, err)
	}
	if out.AccessToken == nil || *out.AccessToken == "" || out.ExpiresIn == nil {
		return Token{}, missing(op, "access_token or expires_in")
	}
	return Token{Token: *out.AccessToken, Expires: start.Add(time.Duration(*out.ExpiresIn) * time.Second), SSL: deref(out.Ssl)}, nil
}

// RevokeToken revokes token, a refresh token or an application's token
// issued to clientID, or a user's access token; one that is no longer valid
// is no error.
func (c *Client) RevokeToken(ctx context.Context, clientID, token string) error {
	const op = "oauthRevokeToken"
	form := gen.RevokeTokenForm{AuthToken: token, F: jsonFormat()}
	if clientID != "" {
		form.ClientId = &clientID
	}
	var out gen.SuccessOAuthResponse
	err := c.roundTrip(ctx, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.OauthRevokeTokenWithFormdataBody(ctx, form, edit)
	}, "", &out)
	if err != nil {
		return wrap(op, err)
	}
	return succeeded(op, out.Success)
}

// credentialLifetime is the lifetime asked for tokens obtained with
// WithCredentials: the portal's default.
const credentialLifetime = 60 * time.Minute

// credentials hands out the token obtained with a username and password. One
// generateToken request runs at a time; concurrent callers wait for its
// result instead of signing in again.
type credentials struct {
	username, password string

	mu      sync.Mutex
	current string    // the token; "" before the first sign-in and after invalidate
	renewAt time.Time // by the client's clock
	pending *signIn   // the generateToken request in flight, if any
}

// signIn is one generateToken request that several callers may wait for.
type signIn struct {
	done chan struct{} // closed when tok and err are set
	tok  string
	err  error
}

// get returns a token that is not about to expire, signing in when needed.
func (cr *credentials) get(ctx context.Context, c *Client) (string, error) {
	for {
		cr.mu.Lock()
		if cr.current != "" && c.now().Before(cr.renewAt) {
			tok := cr.current
			cr.mu.Unlock()
			return tok, nil
		}
		s := cr.pending
		leader := s == nil
		if leader {
			s = &signIn{done: make(chan struct{})}
			cr.pending = s
		}
		cr.mu.Unlock()

		if leader {
			cr.signIn(ctx, c, s)
		} else {
			select {
			case <-s.done:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		if s.err != nil && !leader && ctx.Err() == nil && isContextError(s.err) {
			// The caller that signed in gave up (its context ended), not the
			// portal: try again on this caller's context.
			continue
		}
		return s.tok, s.err
	}
}

// signIn runs generateToken for s and publishes the result.
func (cr *credentials) signIn(ctx context.Context, c *Client, s *signIn) {
	defer close(s.done)
	issued := c.now()
	t, err := c.GenerateToken(ctx, cr.username, cr.password, credentialLifetime)
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.pending = nil
	if err != nil {
		s.err = err
		return
	}
	s.tok = t.Token
	cr.current = t.Token
	cr.renewAt = renewalTime(issued, t.Expires)
}

// renewalTime is when a token issued at issued (by the client's clock) and
// expiring at expires (by the portal's) is renewed: once less than a tenth
// of its lifetime, and at most five minutes, is left. That leaves room for
// the request in flight and a small clock difference; a larger one is
// covered by the renewal on code 498. A lifetime that looks non-positive
// (the portal's clock far behind) falls back to the lifetime asked for.
func renewalTime(issued, expires time.Time) time.Time {
	life := expires.Sub(issued)
	if life <= 0 {
		life = credentialLifetime
	}
	margin := min(life/10, 5*time.Minute)
	return issued.Add(life - margin)
}

// invalidate forgets tok after the portal rejected it, unless another caller
// has already replaced it.
func (cr *credentials) invalidate(tok string) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.current == tok {
		cr.current = ""
	}
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
