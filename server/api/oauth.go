package api

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

// The OAuth 2.0 sign-in's pages: the sign-in page (oauth2/authorize, and
// the sign-in it posts when refused), the approval page of an out-of-band
// code, and their error page. Every other answer of the API is JSON.

// noStore marks an answer as not to be stored by any cache, nor its
// older HTTP/1.0 ones.
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Pragma", "no-cache")
		return next(c)
	}
}

// pageHeaders is the middleware of the operations that answer a page, which the
// generated server writes: a sign-in page is not to be framed by another
// site, or cached, and says the charset it is written in, which the
// generated Content-Type leaves out (a client such as Python's requests
// would read the page as Latin-1).
func pageHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Response()
		r.Before(func() {
			h := r.Header()
			if h.Get("Content-Type") == "text/html" {
				h.Set("Content-Type", "text/html; charset=utf-8")
			}
			h.Set("X-Frame-Options", "DENY")
			h.Set("Content-Security-Policy", "frame-ancestors 'none'")
			h.Set("Cache-Control", "no-store")
		})
		return next(c)
	}
}

// refusedSignIn is the sign-in page shown again with why the sign-in was
// refused: HTTP 200, as the portal answers it, and a refusal (code 400) in
// the journal.
type refusedSignIn struct {
	gen.OauthSignIn200TexthtmlResponse
}

// writeErrorPage writes the page of an error of an operation that answers
// HTML (pageHeaders adds its headers).
func writeErrorPage(c echo.Context, status int, body envelopeBody) error {
	html := errorPageHTML(body.Message, body.Details)
	h := c.Response().Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(html)))
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(html)
	return err
}

// signInInfo is the page's oAuthInfo, which clients that sign in for a
// person read (the ArcGIS API for Python reads oauth_state and messages).
type signInInfo struct {
	OAuthState string   `json:"oauth_state"`
	ClientID   string   `json:"client_id"`
	Locale     string   `json:"locale,omitempty"`
	Messages   []string `json:"messages,omitempty"`
}

// signInPage is the sign-in page of r, with refusal when a sign-in was
// refused.
func (h *handlers) signInPage(ctx context.Context, r server.AuthRequest, refusal string) ([]byte, error) {
	st, err := h.svc.SignInState(ctx, r)
	if err != nil {
		return nil, err
	}
	info := signInInfo{OAuthState: st, ClientID: r.ClientID}
	portalName := h.svc.Gates().PortalName()
	if refusal != "" {
		info.Messages = []string{refusal}
	}
	dark := false
	if rs := stateOf(ctx); rs != nil {
		info.Locale = rs.form.Get("locale")
		dark = rs.form.Get("style") == "dark"
	}
	return signInHTML(info, portalName, h.context+"/sharing/oauth2/signin", dark), nil
}

func (h *handlers) OauthAuthorize(ctx context.Context, r gen.OauthAuthorizeRequestObject) (gen.OauthAuthorizeResponseObject, error) {
	q := r.Params
	req := server.AuthRequest{ClientID: q.ClientId, RedirectURI: q.RedirectUri, ResponseType: string(q.ResponseType)}
	if q.State != nil {
		req.State = *q.State
	}
	if q.Expiration != nil {
		req.Expiration = int(*q.Expiration)
	}
	if q.CodeChallenge != nil {
		req.Challenge = *q.CodeChallenge
	}
	if q.CodeChallengeMethod != nil {
		req.ChallengeMethod = string(*q.CodeChallengeMethod)
	}
	orig, _, _ := h.where(ctx)
	req, err := h.svc.Authorize(ctx, req, orig)
	if err != nil {
		return nil, err
	}
	p, err := h.signInPage(ctx, req, "")
	if err != nil {
		return nil, err
	}
	return gen.OauthAuthorize200TexthtmlResponse{Body: bytes.NewReader(p), ContentLength: int64(len(p))}, nil
}

// errCrossSite refuses a sign-in posted by another site's page: a page
// that signs a visitor in to the attacker's account (login CSRF).
var errCrossSite = &server.Error{Code: 400, Message: "Cross-site sign-in refused",
	Details: []string{"the sign-in form is posted from the portal's own sign-in page only"}}

// crossSite reports whether the browser says r was posted by a page of
// another origin: Sec-Fetch-Site other than same-origin (or none, typed by
// the person), or else an Origin that is not the portal's. Clients that are
// not browsers send neither.
func crossSite(r *http.Request, origin string) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site != "same-origin" && site != "none"
	}
	o := r.Header.Get("Origin")
	return o != "" && !strings.EqualFold(o, origin)
}

func (h *handlers) OauthSignIn(ctx context.Context, r gen.OauthSignInRequestObject) (gen.OauthSignInResponseObject, error) {
	orig, portal, tls := h.where(ctx)
	if rs := stateOf(ctx); rs != nil && rs.req != nil && crossSite(rs.req, orig) {
		e := *errCrossSite
		return nil, &e
	}
	in := server.SignInRequest{State: r.Body.OauthState, SSL: tls, Origin: orig, ApprovalURL: portal + "/sharing/rest/oauth2/approval"}
	if r.Body.Username != nil {
		in.Username = *r.Body.Username
	}
	if r.Body.Password != nil {
		in.Password = *r.Body.Password
	}
	if r.Body.Expiration != nil {
		e := int(*r.Body.Expiration)
		in.Expiration = &e
	}
	res, err := h.svc.SignIn(ctx, in)
	if err != nil {
		return nil, err
	}
	if res.Refusal != "" {
		p, err := h.signInPage(ctx, res.Request, res.Refusal)
		if err != nil {
			return nil, err
		}
		return refusedSignIn{gen.OauthSignIn200TexthtmlResponse{Body: bytes.NewReader(p), ContentLength: int64(len(p))}}, nil
	}
	return gen.OauthSignIn302Response{Headers: gen.OauthSignIn302ResponseHeaders{Location: &res.Redirect}}, nil
}

func (h *handlers) OauthApproval(_ context.Context, r gen.OauthApprovalRequestObject) (gen.OauthApprovalResponseObject, error) {
	p := approvalHTML(r.Params.Code)
	return gen.OauthApproval200TexthtmlResponse{Body: bytes.NewReader(p), ContentLength: int64(len(p))}, nil
}

func (h *handlers) OauthToken(ctx context.Context, r gen.OauthTokenRequestObject) (gen.OauthTokenResponseObject, error) {
	b := r.Body
	orig, _, tls := h.where(ctx)
	g := server.TokenGrant{GrantType: string(b.GrantType), ClientID: b.ClientId, SSL: tls, Origin: orig}
	for dst, src := range map[*string]*string{&g.ClientSecret: b.ClientSecret, &g.Code: b.Code, &g.RedirectURI: b.RedirectUri,
		&g.CodeVerifier: b.CodeVerifier, &g.RefreshToken: b.RefreshToken} {
		if src != nil {
			*dst = *src
		}
	}
	if b.Expiration != nil {
		g.Expiration = int(*b.Expiration)
	}
	t, err := h.svc.Token(ctx, g)
	if err != nil {
		return nil, err
	}
	out := gen.OauthToken200JSONResponse{AccessToken: ptr(t.AccessToken), ExpiresIn: ptr(t.ExpiresIn), Ssl: ptr(t.SSL)}
	if t.Username != "" {
		out.Username = ptr(t.Username)
	}
	if t.RefreshToken != "" {
		out.RefreshToken, out.RefreshTokenExpiresIn = ptr(t.RefreshToken), ptr(t.RefreshExpiresIn)
	}
	return out, nil
}

func (h *handlers) OauthRevokeToken(ctx context.Context, r gen.OauthRevokeTokenRequestObject) (gen.OauthRevokeTokenResponseObject, error) {
	client := ""
	if r.Body.ClientId != nil {
		client = *r.Body.ClientId
	}
	if err := h.svc.RevokeToken(ctx, client, r.Body.AuthToken); err != nil {
		return nil, err
	}
	return gen.OauthRevokeToken200JSONResponse{Success: successTrue}, nil
}
