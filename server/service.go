package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Service carries out every operation's rules on a Store. It is safe for
// concurrent use; all state lives in the store, so several processes on one
// PostgreSQL store behave as one portal.
type Service struct {
	store Store
	gates Gates
	now   func() time.Time
	newID func() string
	// lastCreated makes creation times strictly increasing in a process, so
	// that listings in creation order keep the order things were made.
	lastCreated atomic.Int64
	tokens      tokenCache
	signins     signinThrottle
	keys        signingKeys
	// watch, when the store is shared (TokenWatch), empties tokens when a
	// token is removed through any process; nil for a store of one process.
	watch TokenWatch
	// defaultOrg is the organization an anonymous portals/self answers.
	defaultOrg string
	// hashers holds a token per password check under way (checkPassword).
	hashers chan struct{}
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithIDs sets the id generator (tests).
func WithIDs(newID func() string) Option { return func(s *Service) { s.newID = newID } }

// NewService returns a Service on store emulating the deployment and version
// in gates.
func NewService(store Store, gates Gates, opts ...Option) *Service {
	s := &Service{store: store, gates: gates, now: time.Now, newID: randomID, hashers: make(chan struct{}, hashers())}
	for _, o := range opts {
		o(s)
	}
	if w, ok := store.(TokenWatch); ok {
		s.watch = w
		w.WatchTokens(s.tokens.clear)
	}
	return s
}

// Gates returns the emulated deployment and version.
func (s *Service) Gates() Gates { return s.gates }

// randomID returns 32 lowercase hex digits, the shape of portal ids.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// resolveOrg returns the organization portalID names ("self" is the caller's).
// The caller's own organization is taken from the principal without a
// lookup, and only its ID is set: it exists as long as the caller's token
// does, for organizations go only with a reset, which removes every token.
func resolveOrg(ctx context.Context, tx Tx, p Principal, portalID string) (Organization, error) {
	if portalID == "self" {
		if p.Anonymous() {
			return Organization{}, clone(ErrTokenRequired)
		}
		portalID = p.OrgID()
	}
	if p.userOf(portalID) {
		return Organization{ID: portalID}, nil
	}
	org, err := tx.Organization(ctx, portalID)
	if errors.Is(err, ErrNotFound) {
		return org, notFound(msgPortalNotFound)
	}
	return org, err
}

// writableOrg returns the id of the organization portalID names, for a write
// that reports an organization missing itself (Tx.PatchSettings). An unknown
// one is reported before a missing privilege, as the portal does.
func writableOrg(ctx context.Context, tx Tx, p Principal, portalID string) (string, error) {
	org, err := resolveOrg(ctx, tx, p, portalID)
	return org.ID, err
}

// memberOrg returns the id of the organization portalID names, for a read
// that only its own members may make.
func memberOrg(ctx context.Context, tx Tx, p Principal, portalID string) (string, error) {
	org, err := resolveOrg(ctx, tx, p, portalID)
	if err != nil {
		return "", err
	}
	return org.ID, p.requireMember(org.ID)
}

// resolveUser returns the user a content or member operation names.
func resolveUser(ctx context.Context, tx Tx, username string) (User, error) {
	u, err := tx.User(ctx, username)
	if errors.Is(err, ErrNotFound) {
		return u, notFound(msgUserNotFound)
	}
	return u, err
}

// Authenticate returns the principal a token stands for: ErrInvalidToken for
// an unknown or expired one. An empty token is the anonymous principal.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, nil
	}
	if !utf8.ValidString(token) || strings.ContainsRune(token, 0) {
		// Never issued, and not a key every store can look up.
		return Principal{}, clone(ErrInvalidToken)
	}
	// A shared store's removals are received only while watched: until
	// then every request reads its token.
	cached := s.watch == nil || s.watch.TokensWatched()
	if c, hit := s.tokens.get(token, s.now()); hit && cached {
		if !c.expires.IsZero() && !s.now().Before(c.expires) {
			return Principal{}, clone(ErrInvalidToken)
		}
		return c.principal, nil
	}
	gen := s.tokens.generation()
	var p Principal
	var expires time.Time
	err := s.store.View(ctx, func(tx Tx) error {
		t, found, err := tx.Principal(ctx, token)
		if err != nil {
			return err
		}
		if !t.Expires.IsZero() && !s.now().Before(t.Expires) {
			return clone(ErrInvalidToken)
		}
		p, expires = found, t.Expires
		p.token = token
		switch p.User.Role {
		case RoleAdmin, RolePublisher, RoleUser:
			p.Privileges = nil // a custom role cannot take a built-in's name
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		// No user's token: an application's, or none. Read apart, so
		// that the users' tokens, which nearly every request carries,
		// stay one statement.
		p, expires, err = s.appPrincipal(ctx, token)
	}
	if err == nil && cached {
		s.tokens.put(token, cachedToken{principal: p, expires: expires}, s.now(), gen)
	}
	return p, err
}

// appPrincipal returns the principal of an application's token: the
// application, with no token to confirm, as it writes nothing.
func (s *Service) appPrincipal(ctx context.Context, token string) (Principal, time.Time, error) {
	var p Principal
	var expires time.Time
	err := s.store.View(ctx, func(tx Tx) error {
		t, app, err := tx.AppToken(ctx, token)
		if errors.Is(err, ErrNotFound) {
			return clone(ErrInvalidToken)
		} else if err != nil {
			return err
		}
		if !t.Expires.IsZero() && !s.now().Before(t.Expires) {
			return clone(ErrInvalidToken)
		}
		p, expires = Principal{App: &app}, t.Expires
		return nil
	})
	return p, expires, err
}

// update runs fn in one Update on behalf of p. The token p was resolved from
// may have been removed by a reset since (Authenticate read it before, or
// took it from the cache): the transaction confirms it first, so the write
// either commits before the reset, or finds the token gone and answers 498
// as if it had come after. Writes without a token (anonymous, an
// application's) have nothing to confirm.
func (s *Service) update(ctx context.Context, p Principal, fn func(tx Tx) error) error {
	err := s.store.Update(ctx, func(tx Tx) error {
		if p.token != "" {
			if err := tx.ConfirmToken(ctx, p.token); err != nil {
				return err
			}
		}
		return fn(tx)
	})
	if errors.Is(err, ErrTokenRemoved) {
		return clone(ErrInvalidToken)
	}
	return err
}

// ForgetTokens empties the token cache: the store was reset.
func (s *Service) ForgetTokens() { s.tokens.clear() }

// ForgetSignins forgets the failed sign-ins counted so far: the emulator was
// reset to its seed.
func (s *Service) ForgetSignins() { s.signins.clear() }

// tokenCacheTTL is how long a token's principal is reused without a store
// read. Nothing in the API changes a user's role or a role's privileges, and
// a token's own expiry is still checked on every use; a token removed (by a
// reset) through any process is forgotten at once (TokenWatch). The TTL
// bounds what a cache of a store changed behind the API's back may keep.
const tokenCacheTTL = 10 * time.Second

// tokenCacheMax bounds the cache; past it, the cache starts again empty.
const tokenCacheMax = 10_000

type cachedToken struct {
	principal Principal
	expires   time.Time // the token's; zero never
	fetched   time.Time
}

// tokenCache keeps the principal of tokens seen lately, so that a request
// does not spend a read transaction on its token. Unknown tokens are not
// kept, so a token generated through another replica works at once.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]cachedToken
	// gen counts the clears: a principal read before a clear is not kept
	// after it, for its token may be one the clear was for.
	gen uint64
}

func (c *tokenCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *tokenCache) get(token string, now time.Time) (cachedToken, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[token]
	if ok && now.Sub(e.fetched) >= tokenCacheTTL {
		delete(c.m, token)
		return e, false
	}
	return e, ok
}

func (c *tokenCache) put(token string, e cachedToken, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= tokenCacheMax {
		c.m = make(map[string]cachedToken)
	}
	e.fetched = now
	c.m[token] = e
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
	c.gen++
}

// TokenRequest is generateToken's input.
type TokenRequest struct {
	Username, Password string
	Expiration         time.Duration // 0: one hour
	SSL                bool          // whether the request came over HTTPS
	Binding            TokenBinding  // what the token is valid from
}

// IssuedToken is generateToken's output.
type IssuedToken struct {
	Token   string
	Expires time.Time
	SSL     bool
}

// GenerateToken exchanges a user name and password for a token. Failed
// attempts are throttled per user name and per client address (signin.go);
// an unknown user name costs the same password check as a known one.
func (s *Service) GenerateToken(ctx context.Context, req TokenRequest) (IssuedToken, error) {
	exp := req.Expiration
	if exp <= 0 {
		exp = time.Hour
	}
	exp = min(exp, s.gates.Limits.TokenMaxExpiration)
	bound, err := req.Binding.suffix(clientAddr(ctx))
	if err != nil {
		return IssuedToken{}, err
	}
	attempt, refused := s.signins.admit(ctx, req.Username, clientAddr(ctx), s.now)
	if refused != nil {
		return IssuedToken{}, refused
	}
	var out IssuedToken
	// The password is checked before the write, outside any transaction:
	// PBKDF2 takes milliseconds, and a store that runs its writes one at a
	// time would wait on it.
	u, ok, err := s.checkCredentials(ctx, req.Username, req.Password)
	switch {
	case err != nil:
		attempt.undecided()
		return IssuedToken{}, err
	case !ok:
		attempt.failed()
		return IssuedToken{}, Invalid(msgInvalidCredential)
	}
	err = s.store.Update(ctx, func(tx Tx) error {
		out = IssuedToken{Token: randomID() + bound, Expires: s.now().Add(exp).Truncate(time.Millisecond), SSL: req.SSL}
		return tx.PutToken(ctx, Token{Token: out.Token, Username: u.Username, Expires: out.Expires})
	})
	if err != nil {
		attempt.undecided()
		return IssuedToken{}, err
	}
	attempt.succeeded()
	return out, nil
}

// Page is the paging of a list read (1-based start, as the portal).
type Page struct{ Start, Num int }

// DefaultPage is the page when none is asked for.
var DefaultPage = Page{Start: 1, Num: 10}

// Paging is where a page of a listing stands: the listing's total, the
// page asked for, and the start of the next page (-1 at the end).
type Paging struct{ Total, Start, Num, NextStart int }

// cut returns p's page of all and where it stands.
func cut[T any](p Page, all []T) (Paging, []T) {
	lo, hi, next := p.window(len(all))
	return Paging{Total: len(all), Start: p.Start, Num: p.Num, NextStart: next}, all[lo:hi]
}

// window returns the slice bounds of p over n entries and the next start
// (-1 at the end). A page of no entries (num=0) asks only for the total: its
// next start is -1 too, so a client that follows next starts always ends.
func (p Page) window(n int) (lo, hi, next int) {
	lo = min(max(p.Start, 1)-1, n)
	hi = min(lo+max(p.Num, 0), n)
	next = -1
	if hi < n && hi > lo {
		next = hi + 1
	}
	return lo, hi, next
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := AsError(err); ok {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}
