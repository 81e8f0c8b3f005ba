package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// OAuth 2.0 as the portal implements it: the sign-in page (authorize),
// the sign-in it posts (signin), and the token endpoint.

// PythonAPIClientID is the ArcGIS API for Python's built-in application: a
// public client of every portal, whose redirect URIs are the portal's own
// origin and the out-of-band URI.
const PythonAPIClientID = "pythonapi"

// ArcGISOnlineClientID is the built-in application the ArcGIS API for
// Python 2.0 signs in with by default, as pythonapi.
const ArcGISOnlineClientID = "arcgisonline"

// OOBRedirectURI delivers a code to the portal's own approval page instead
// of an application.
const OOBRedirectURI = "urn:ietf:wg:oauth:2.0:oob"

// Lifetimes, in minutes unless said otherwise, as the portal documents them.
const (
	implicitDefaultMinutes = 120    // an implicit grant's access token
	implicitMaxMinutes     = 20160  // two weeks
	refreshDefaultMinutes  = 20160  // a refresh token
	refreshMaxMinutes      = 129600 // 90 days
	appTokenDefaultMinutes = 120    // an application's token
	appTokenMaxMinutes     = 20160
	codeAccessMinutes      = 30 // access tokens of a code or a refresh token
	codeLifetime           = 10 * time.Minute
)

// OAuth error codes (RFC 6749).
const (
	oauthInvalidRequest = "invalid_request"
	oauthInvalidClient  = "invalid_client"
	oauthInvalidGrant   = "invalid_grant"
	oauthUnsupported    = "unsupported_grant_type"
)

func oauthError(code, description string) *Error {
	return &Error{Code: 400, OAuth: code, Message: description}
}

// AuthRequest is an authorization request (oauth2/authorize). The sign-in
// page carries it as oauth_state (SignInState), signed with the store's
// key and dated, so that no client can make one up or change the one it
// was given (a made-up state could name a redirect URI, a code challenge or
// a lifetime the page never showed); the sign-in checks it again in full
// as well.
type AuthRequest struct {
	ClientID        string `json:"c"`
	RedirectURI     string `json:"r"`
	ResponseType    string `json:"t"` // "code" or "token"
	State           string `json:"s,omitempty"`
	Expiration      int    `json:"e,omitempty"` // minutes; 0 for the default
	Challenge       string `json:"p,omitempty"`
	ChallengeMethod string `json:"m,omitempty"`
	Issued          int64  `json:"i,omitempty"` // Unix seconds the page was given
}

// stateLifetime is how long a sign-in page's oauth_state may be posted.
const stateLifetime = time.Hour

// stateMACLen is the length of an oauth_state's signature (base64url).
const stateMACLen = 43

// SignInState is the oauth_state of r, dated now: URL-safe text, no '='.
func (s *Service) SignInState(ctx context.Context, r AuthRequest) (string, error) {
	key, err := s.signingKey(ctx)
	if err != nil {
		return "", err
	}
	r.Issued = s.now().Unix()
	b, _ := json.Marshal(r) // a struct of strings and numbers
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(mac(key, "oauth-state", payload)), nil
}

var errBadState = &Error{Code: 400, Message: "Invalid oauth_state", Details: []string{"oauth_state: not a sign-in request of this portal, or older than an hour; open the sign-in page again"}}

// decodeState reads an oauth_state back: signed with the store's key and
// not expired, else errBadState.
func (s *Service) decodeState(ctx context.Context, state string) (AuthRequest, error) {
	key, err := s.signingKey(ctx)
	if err != nil {
		return AuthRequest{}, err
	}
	payload, sig, ok := strings.Cut(state, ".")
	if !ok || len(sig) != stateMACLen ||
		!hmac.Equal([]byte(sig), []byte(base64.RawURLEncoding.EncodeToString(mac(key, "oauth-state", payload)))) {
		return AuthRequest{}, clone(errBadState)
	}
	var r AuthRequest
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(b, &r) != nil || r.ClientID == "" {
		return AuthRequest{}, clone(errBadState)
	}
	if issued := time.Unix(r.Issued, 0); s.now().Sub(issued) > stateLifetime || issued.After(s.now().Add(time.Minute)) {
		return AuthRequest{}, clone(errBadState)
	}
	return r, nil
}

// app returns the application clientID names: the built-in pythonapi, or
// one the store has. ErrNotFound when none.
func app(ctx context.Context, tx Tx, clientID, origin string) (App, error) {
	if clientID == PythonAPIClientID || clientID == ArcGISOnlineClientID {
		return App{ClientID: clientID, RedirectURIs: []string{origin, OOBRedirectURI}}, nil
	}
	return tx.App(ctx, clientID)
}

// redirectAllowed reports whether uri is one of a's registered redirect
// URIs, both normalised first (scheme and host in lower case, a default
// port dropped, an empty path as "/"), and uri refused outright if it holds
// a dot segment ("..", "%2e%2e") or a fragment, even an empty one: the
// out-of-band URI when registered; a registered URI exactly (RFC 9700
// 4.1.3); or, for a loopback host, the same scheme and host, any port (RFC
// 8252 7.3, native apps) and a path at or under the registered one, as the
// loopback registrations of the seed are origins.
func redirectAllowed(a App, uri string) bool {
	if uri == OOBRedirectURI {
		return slices.Contains(a.RedirectURIs, OOBRedirectURI)
	}
	u, ok := normalRedirect(uri)
	if !ok {
		return false // no URI an application could register
	}
	for _, reg := range a.RedirectURIs {
		r, ok := normalRedirect(reg)
		if !ok || r.Scheme != u.Scheme || r.Hostname() != u.Hostname() {
			continue
		}
		if !isLoopback(u.Hostname()) {
			if r.Host == u.Host && r.EscapedPath() == u.EscapedPath() && r.RawQuery == u.RawQuery {
				return true
			}
			continue
		}
		base := strings.TrimSuffix(r.EscapedPath(), "/")
		if p := u.EscapedPath(); p == base || p == base+"/" || strings.HasPrefix(p, base+"/") {
			return true
		}
	}
	return false
}

// normalRedirect parses a redirect URI that CheckRedirectURI takes, holds
// no dot segment, fragment mark or backslash, into its normal form.
func normalRedirect(uri string) (*url.URL, bool) {
	if CheckRedirectURI(uri) != "" || strings.ContainsAny(uri, "#\\") {
		return nil, false
	}
	u, err := url.Parse(uri)
	if err != nil {
		return nil, false
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if seg == "." || seg == ".." {
			return nil, false
		}
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		u.Host = strings.TrimSuffix(u.Host, ":"+p)
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u, true
}

// CheckRedirectURI returns why uri cannot be registered as a redirect URI,
// "" when it can: the out-of-band URI, or an absolute http or https URL
// without user information or fragment, written with the characters of a
// URI only (RFC 3986: a space or a double quote would go into the Location header
// as sent), its port, if any, one that exists.
func CheckRedirectURI(uri string) string {
	if uri == OOBRedirectURI {
		return ""
	}
	if i := strings.IndexFunc(uri, func(r rune) bool { return !isURIChar(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(uri[i:])
		return fmt.Sprintf("%q: %q is not a character of a URI; percent-encode it", uri, r)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "not a URL: " + err.Error()
	}
	port, perr := strconv.Atoi(u.Port())
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q: want an http or https URL, or %s", uri, OOBRedirectURI)
	case u.Host == "" || u.User != nil || u.Fragment != "":
		return fmt.Sprintf("%q: want a host, and no user information or fragment", uri)
	case u.Port() != "" && (perr != nil || port < 1 || port > 65535):
		return fmt.Sprintf("%q: port %s: want 1 to 65535", uri, u.Port())
	}
	return ""
}

// isURIChar reports whether r may appear in a URI as written (RFC 3986
// unreserved, reserved and '%').
func isURIChar(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", r)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Authorize checks an authorization request, to be carried by the sign-in
// page, and returns it as the page carries it (an expiration past the most
// cut to the most, as the portal does). origin is the portal's own, as the
// request reached it (pythonapi's redirect URI). An unknown client or a
// redirect URI it did not register is refused, as the portal words it.
func (s *Service) Authorize(ctx context.Context, r AuthRequest, origin string) (AuthRequest, error) {
	r = r.clamped()
	return r, s.store.View(ctx, func(tx Tx) error { return s.checkAuthRequest(ctx, tx, r, origin) })
}

// clamped returns r with an expiration past the most of its kind cut to
// that most: the ArcGIS API for Python asks for more than the portal gives,
// and the portal gives the most rather than refuse.
func (r AuthRequest) clamped() AuthRequest {
	most := refreshMaxMinutes
	if r.ResponseType == "token" {
		most = implicitMaxMinutes
	}
	r.Expiration = min(r.Expiration, most)
	return r
}

// checkAuthRequest returns why r is refused, nil when it is not.
func (s *Service) checkAuthRequest(ctx context.Context, tx Tx, r AuthRequest, origin string) error {
	a, err := app(ctx, tx, r.ClientID, origin)
	if errors.Is(err, ErrNotFound) {
		return &Error{Code: 400, OAuth: oauthInvalidRequest, Message: "Invalid client_id"}
	} else if err != nil {
		return err
	}
	if !redirectAllowed(a, r.RedirectURI) {
		return &Error{Code: 400, OAuth: oauthInvalidRequest, Message: "Invalid redirect_uri"}
	}
	switch {
	case r.ResponseType != "code" && r.ResponseType != "token":
		return &Error{Code: 400, OAuth: "unsupported_response_type", Message: "Invalid response_type"}
	case r.ResponseType == "token" && r.RedirectURI == OOBRedirectURI:
		return &Error{Code: 400, OAuth: oauthInvalidRequest, Message: "Invalid redirect_uri",
			Details: []string{"redirect_uri: urn:ietf:wg:oauth:2.0:oob takes response_type=code only"}}
	case r.ResponseType == "token" && r.Expiration < 0:
		return Invalid("expiration: -1 (never) is for refresh tokens; give minutes")
	case r.ChallengeMethod != "" && r.Challenge == "":
		return Invalid("code_challenge: required with code_challenge_method")
	case r.Challenge != "" && r.ResponseType != "code":
		return Invalid("code_challenge: for response_type=code only")
	}
	return nil
}

// SignInRequest is what the sign-in page posts.
type SignInRequest struct {
	State              string
	Username, Password string
	Expiration         *int // minutes, replacing the authorization request's
	SSL                bool // the request came over HTTPS
	// Origin is the portal's origin and ApprovalURL its oauth2/approval
	// page, as the request reached them.
	Origin, ApprovalURL string
}

// SignInResult is the outcome of a sign-in: a redirect, or a refusal to
// show on the sign-in page again.
type SignInResult struct {
	Request  AuthRequest // what the page names, to render it again
	Redirect string      // signed in: where to send the browser
	Refusal  string      // not signed in: why
}

// msgTooManyAttempts is the sign-in page's message for a throttled sign-in,
// in the portal's words (the ArcGIS API for Python looks for them).
const msgTooManyAttempts = "Too many invalid attempts. Please try again later."

// SignIn signs a person in on the sign-in page: the authorization request
// is checked again, then the credentials, throttled as generateToken's are;
// signed in, it issues the token or the code and answers where to redirect.
func (s *Service) SignIn(ctx context.Context, in SignInRequest) (SignInResult, error) {
	r, err := s.decodeState(ctx, in.State)
	if err != nil {
		return SignInResult{}, err
	}
	if in.Expiration != nil {
		r.Expiration = *in.Expiration
	}
	// A request the page could not have named is refused before anything
	// is counted or checked.
	if r, err = s.Authorize(ctx, r, in.Origin); err != nil {
		return SignInResult{}, err
	}
	out := SignInResult{Request: r}
	if in.Username == "" || in.Password == "" {
		out.Refusal = msgInvalidCredential
		// Nothing was tried: the page asks again, no failure counted.
		return out, nil
	}
	attempt, refused := s.signins.admit(ctx, in.Username, clientAddr(ctx), s.now)
	if refused != nil {
		out.Refusal = msgTooManyAttempts
		return out, nil
	}
	// The password is checked outside the write (see GenerateToken).
	u, ok, err := s.checkCredentials(ctx, in.Username, in.Password)
	if err == nil && ok {
		err = s.store.Update(ctx, func(tx Tx) error {
			if err := s.checkAuthRequest(ctx, tx, r, in.Origin); err != nil {
				return err
			}
			var err error
			out.Redirect, err = s.grant(ctx, tx, r, u, in)
			return err
		})
	}
	switch {
	case err != nil:
		// Ended before the credentials were judged, or after (the grant
		// failed): no failure either way.
		attempt.undecided()
	case !ok:
		out.Refusal = msgInvalidCredential
		attempt.failed()
	default:
		attempt.succeeded()
	}
	return out, err
}

// checkCredentials reports whether password is username's, read in a
// transaction of its own and checked after it; an unknown user name costs
// the same password check as a known one.
func (s *Service) checkCredentials(ctx context.Context, username, password string) (User, bool, error) {
	var u User
	err := s.store.View(ctx, func(tx Tx) error {
		var err error
		u, err = tx.User(ctx, username)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		_, err := s.checkPassword(ctx, dummyHash(), password)
		return User{}, false, err
	} else if err != nil {
		return User{}, false, err
	}
	ok, err := s.checkPassword(ctx, u.PasswordHash, password)
	return u, ok, err
}

// grant issues what r asks for u and returns the redirect that delivers
// it: an access token in the fragment (implicit grant), or a code in the
// query (to the approval page for the out-of-band URI).
func (s *Service) grant(ctx context.Context, tx Tx, r AuthRequest, u User, in SignInRequest) (string, error) {
	now := s.now()
	if r.ResponseType == "token" {
		minutes := r.Expiration
		if minutes == 0 {
			minutes = implicitDefaultMinutes
		}
		tok := Token{Token: randomID(), Username: u.Username, Expires: now.Add(time.Duration(minutes) * time.Minute).Truncate(time.Millisecond)}
		if err := tx.PutToken(ctx, tok); err != nil {
			return "", err
		}
		return withParams(r.RedirectURI, "#", [][2]string{
			{"access_token", tok.Token}, {"expires_in", fmt.Sprint(minutes * 60)}, {"username", u.Username},
			{"ssl", fmt.Sprint(in.SSL)}, {"state", r.State}}), nil
	}
	refresh := r.Expiration
	switch {
	case refresh == 0:
		refresh = refreshDefaultMinutes
	case refresh > refreshMaxMinutes:
		refresh = refreshMaxMinutes
	}
	c := OAuthCode{Code: randomID(), ClientID: r.ClientID, Username: u.Username, RedirectURI: r.RedirectURI,
		Challenge: r.Challenge, ChallengeMethod: r.ChallengeMethod, RefreshMinutes: refresh, Expires: now.Add(codeLifetime)}
	if c.Challenge != "" && c.ChallengeMethod == "" {
		c.ChallengeMethod = "plain" // RFC 7636 4.3
	}
	if err := tx.PutOAuthCode(ctx, c); err != nil {
		return "", err
	}
	target := r.RedirectURI
	if target == OOBRedirectURI {
		target = in.ApprovalURL
	}
	return withParams(target, "?", [][2]string{{"code", c.Code}, {"state", r.State}}), nil
}

// withParams appends params to uri after sep ("?" or "#"), percent-encoded
// with %20 for spaces, which every client decodes (some do not decode '+').
// An empty state is left out.
func withParams(uri, sep string, params [][2]string) string {
	var b strings.Builder
	b.WriteString(uri)
	if sep == "?" && strings.Contains(uri, "?") {
		sep = "&"
	}
	for _, kv := range params {
		if kv[0] == "state" && kv[1] == "" {
			continue
		}
		b.WriteString(sep)
		sep = "&"
		b.WriteString(kv[0])
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(url.QueryEscape(kv[1]), "+", "%20"))
	}
	return b.String()
}

// TokenGrant is a request to the token endpoint.
type TokenGrant struct {
	GrantType, ClientID, ClientSecret string
	Code, RedirectURI, CodeVerifier   string
	RefreshToken                      string
	Expiration                        int  // minutes (client_credentials); 0 for the default
	SSL                               bool // the request came over HTTPS
	Origin                            string
}

// OAuthTokens is the token endpoint's answer.
type OAuthTokens struct {
	AccessToken string
	ExpiresIn   int64  // seconds
	Username    string // "" for an application's token
	SSL         bool
	// RefreshToken, when not "", came with RefreshExpiresIn seconds of
	// life (-1: never expires).
	RefreshToken     string
	RefreshExpiresIn int64
}

// Token serves the token endpoint: authorization_code, refresh_token,
// exchange_refresh_token and client_credentials. A refused request issues
// nothing and answers the OAuth error.
func (s *Service) Token(ctx context.Context, g TokenGrant) (OAuthTokens, error) {
	out := OAuthTokens{SSL: g.SSL}
	var key []byte // the signing key, read before the write: codes' tokens derive from it
	if g.GrantType == "authorization_code" {
		var err error
		if key, err = s.signingKey(ctx); err != nil {
			return out, err
		}
	}
	// A client secret is checked (PBKDF2) before the write, outside any
	// transaction, against the hash then stored; the write only makes sure
	// the hash is still that one.
	checked := ""
	if g.ClientSecret != "" {
		var a App
		err := s.store.View(ctx, func(tx Tx) error {
			var err error
			a, err = app(ctx, tx, g.ClientID, g.Origin)
			return err
		})
		if errors.Is(err, ErrNotFound) {
			return out, oauthError(oauthInvalidClient, "Invalid client_id")
		} else if err != nil {
			return out, err
		}
		ok, err := s.checkPassword(ctx, a.SecretHash, g.ClientSecret)
		if err != nil {
			return out, err
		}
		if a.SecretHash == "" || !ok {
			return out, oauthError(oauthInvalidClient, "Invalid client_secret")
		}
		checked = a.SecretHash
	}
	replayed, revoked := false, false
	err := s.store.Update(ctx, func(tx Tx) error {
		out = OAuthTokens{SSL: g.SSL}
		replayed, revoked = false, false
		a, err := app(ctx, tx, g.ClientID, g.Origin)
		if errors.Is(err, ErrNotFound) {
			return oauthError(oauthInvalidClient, "Invalid client_id")
		} else if err != nil {
			return err
		}
		if g.ClientSecret != "" && (a.SecretHash == "" || a.SecretHash != checked) {
			return oauthError(oauthInvalidClient, "Invalid client_secret")
		}
		switch g.GrantType {
		case "client_credentials":
			return s.appToken(ctx, tx, a, g, &out)
		case "authorization_code":
			err := s.exchangeCode(ctx, tx, a, g, key, &out)
			if err == errCodeReplayed {
				// Committed: the revocation stands, the answer refuses.
				replayed = true
				revoked, err = tx.RevokeGrant(ctx, codeGrant(key, g.Code))
			}
			return err
		case "refresh_token":
			rt, err := s.liveRefreshToken(ctx, tx, a, g.RefreshToken, false)
			if err != nil {
				return err
			}
			return s.accessToken(ctx, tx, randomID(), rt.Username, rt.Grant, &out)
		case "exchange_refresh_token":
			if g.RedirectURI == "" {
				return oauthError(oauthInvalidRequest, "redirect_uri not specified")
			}
			if !redirectAllowed(a, g.RedirectURI) {
				return oauthError(oauthInvalidRequest, "Invalid redirect_uri")
			}
			rt, err := s.liveRefreshToken(ctx, tx, a, g.RefreshToken, true)
			if err != nil {
				return err
			}
			if err := s.refreshToken(ctx, tx, randomID(), a.ClientID, rt.Username, rt.Minutes, rt.Grant, &out); err != nil {
				return err
			}
			return s.accessToken(ctx, tx, randomID(), rt.Username, rt.Grant, &out)
		}
		return oauthError(oauthUnsupported, "Invalid grant_type")
	})
	if revoked {
		s.tokens.clear() // the tokens may be cached: forget them now in this process
	}
	if err == nil && replayed {
		return OAuthTokens{SSL: g.SSL}, clone(errCodeReplayed)
	}
	return out, err
}

func (s *Service) appToken(ctx context.Context, tx Tx, a App, g TokenGrant, out *OAuthTokens) error {
	switch {
	case a.SecretHash == "":
		return oauthError(oauthInvalidClient, "Invalid client_id: a public application has no client credentials")
	case g.ClientSecret == "":
		return oauthError(oauthInvalidRequest, "client_secret not specified")
	}
	minutes := g.Expiration
	if minutes == 0 {
		minutes = appTokenDefaultMinutes
	}
	minutes = min(minutes, appTokenMaxMinutes)
	t := AppToken{Token: randomID(), ClientID: a.ClientID, Expires: s.now().Add(time.Duration(minutes) * time.Minute).Truncate(time.Millisecond)}
	out.AccessToken, out.ExpiresIn = t.Token, int64(minutes)*60
	return tx.PutAppToken(ctx, t)
}

func (s *Service) exchangeCode(ctx context.Context, tx Tx, a App, g TokenGrant, key []byte, out *OAuthTokens) error {
	if g.Code == "" {
		return oauthError(oauthInvalidRequest, "code not specified")
	}
	if g.RedirectURI == "" {
		return oauthError(oauthInvalidRequest, "redirect_uri not specified")
	}
	c, err := tx.TakeOAuthCode(ctx, g.Code)
	if errors.Is(err, ErrNotFound) {
		// Used already, or never issued: the tokens it was exchanged for,
		// if any, are revoked (RFC 6749 4.1.2), and the refusal keeps that.
		return errCodeReplayed
	} else if err != nil {
		return err
	}
	switch {
	case !s.now().Before(c.Expires) || c.ClientID != a.ClientID:
		return oauthError(oauthInvalidGrant, "Invalid authorization code")
	case c.RedirectURI != g.RedirectURI:
		return oauthError(oauthInvalidGrant, "Invalid redirect_uri")
	case c.Challenge != "" && g.CodeVerifier == "":
		return oauthError(oauthInvalidRequest, "code_verifier not specified")
	case c.Challenge == "" && g.CodeVerifier != "":
		// A code issued without a challenge is not exchanged as if it had
		// one (PKCE downgrade, RFC 9700 2.1.1).
		return oauthError(oauthInvalidGrant, "Invalid code_verifier: the authorization request had no code_challenge")
	case c.Challenge != "" && !verifierMatches(c, g.CodeVerifier):
		return oauthError(oauthInvalidGrant, "Invalid code_verifier")
	}
	if _, err := tx.User(ctx, c.Username); err != nil {
		if errors.Is(err, ErrNotFound) {
			return oauthError(oauthInvalidGrant, "Invalid authorization code")
		}
		return err
	}
	grant := codeGrant(key, c.Code)
	if err := s.refreshToken(ctx, tx, randomID(), a.ClientID, c.Username, c.RefreshMinutes, grant, out); err != nil {
		return err
	}
	return s.accessToken(ctx, tx, randomID(), c.Username, grant, out)
}

// errCodeReplayed is exchangeCode's answer to a code it does not hold.
var errCodeReplayed = oauthError(oauthInvalidGrant, "Invalid authorization code")

// verifierMatches checks a PKCE code verifier against its code's challenge
// (RFC 7636 4.6).
func verifierMatches(c OAuthCode, verifier string) bool {
	want := verifier
	if c.ChallengeMethod == "S256" {
		sum := sha256.Sum256([]byte(verifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(c.Challenge)) == 1
}

// liveRefreshToken returns the refresh token a names, unexpired; take
// deletes it (exchange_refresh_token revokes the old one).
func (s *Service) liveRefreshToken(ctx context.Context, tx Tx, a App, token string, take bool) (RefreshToken, error) {
	if token == "" {
		return RefreshToken{}, oauthError(oauthInvalidRequest, "refresh_token not specified")
	}
	read := tx.RefreshToken
	if take {
		read = tx.TakeRefreshToken
	}
	rt, err := read(ctx, token)
	if errors.Is(err, ErrNotFound) {
		return rt, oauthError(oauthInvalidGrant, "Invalid refresh_token")
	} else if err != nil {
		return rt, err
	}
	if rt.ClientID != a.ClientID || (!rt.Expires.IsZero() && !s.now().Before(rt.Expires)) {
		return rt, oauthError(oauthInvalidGrant, "Invalid refresh_token")
	}
	return rt, nil
}

// accessToken issues username a token of codeAccessMinutes, of grant.
func (s *Service) accessToken(ctx context.Context, tx Tx, token, username, grant string, out *OAuthTokens) error {
	t := Token{Token: token, Username: username, Expires: s.now().Add(codeAccessMinutes * time.Minute).Truncate(time.Millisecond), Grant: grant}
	out.AccessToken, out.ExpiresIn, out.Username = t.Token, codeAccessMinutes*60, username
	return tx.PutToken(ctx, t)
}

// refreshToken issues username a refresh token of minutes (-1: never
// expires), of grant.
func (s *Service) refreshToken(ctx context.Context, tx Tx, token, clientID, username string, minutes int, grant string, out *OAuthTokens) error {
	t := RefreshToken{Token: token, ClientID: clientID, Username: username, Minutes: minutes, Grant: grant}
	out.RefreshExpiresIn = -1
	if minutes >= 0 {
		t.Expires = s.now().Add(time.Duration(minutes) * time.Minute).Truncate(time.Millisecond)
		out.RefreshExpiresIn = int64(minutes) * 60
	}
	out.RefreshToken = t.Token
	return tx.PutRefreshToken(ctx, t)
}

// RevokeToken revokes a refresh token or an application's token issued to
// clientID (any application's when clientID is ""), or a user's access
// token. A token that is not valid (any more) is no error (RFC 7009).
func (s *Service) RevokeToken(ctx context.Context, clientID, token string) error {
	revoked := false
	err := s.store.Update(ctx, func(tx Tx) error {
		revoked = false
		if clientID != "" {
			if _, err := app(ctx, tx, clientID, ""); errors.Is(err, ErrNotFound) {
				return oauthError(oauthInvalidClient, "Invalid client_id")
			} else if err != nil {
				return err
			}
		}
		// Taken at once; another application's is refused, which rolls the
		// taking back.
		rt, err := tx.TakeRefreshToken(ctx, token)
		if err == nil {
			if clientID != "" && rt.ClientID != clientID {
				return oauthError(oauthInvalidClient, "Invalid client_id")
			}
			return nil
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		at, _, err := tx.AppToken(ctx, token)
		if err == nil {
			if clientID != "" && at.ClientID != clientID {
				return oauthError(oauthInvalidClient, "Invalid client_id")
			}
			revoked = true
			return tx.DeleteAppToken(ctx, token)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := tx.DeleteToken(ctx, token); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		} else if err == nil {
			revoked = true
		}
		return nil
	})
	if revoked {
		// The token may be cached: forget it now in this process.
		s.tokens.clear()
	}
	return err
}
