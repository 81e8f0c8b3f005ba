package api

import (
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

// htmlPage is an HTML answer (or a redirect), written as it is by
// writeResponse and the error handler.
type htmlPage struct {
	status   int
	body     []byte
	location string // a redirect's target
	code     int    // what the journal records: 0 for a success, else the refusal's code
}

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

func (p htmlPage) write(c echo.Context) error {
	h := c.Response().Header()
	if p.location != "" {
		h.Set("Location", p.location)
		c.Response().WriteHeader(p.status)
		return nil
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(p.body)))
	// The sign-in page is not to be framed by another site, or cached.
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(p.status)
	_, err := c.Response().Write(p.body)
	return err
}

func (p htmlPage) visit(w http.ResponseWriter) error {
	// writeResponse writes a page first; this is the generated handler's
	// way, kept for completeness.
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(p.status)
	_, err := w.Write(p.body)
	return err
}

func (p htmlPage) VisitOauthAuthorizeResponse(w http.ResponseWriter) error { return p.visit(w) }
func (p htmlPage) VisitOauthSignInResponse(w http.ResponseWriter) error    { return p.visit(w) }
func (p htmlPage) VisitOauthApprovalResponse(w http.ResponseWriter) error  { return p.visit(w) }

// signInInfo is the page's oAuthInfo, which clients that sign in for a
// person read (the ArcGIS API for Python reads oauth_state and messages).
type signInInfo struct {
	OAuthState string   `json:"oauth_state"`
	ClientID   string   `json:"client_id"`
	Locale     string   `json:"locale,omitempty"`
	Messages   []string `json:"messages,omitempty"`
}

// errorHTML is the page of an error of an operation that answers HTML.
func errorHTML(status int, body envelopeBody) htmlPage {
	return htmlPage{status: status, body: errorPageHTML(body.Message, body.Details), code: body.Code}
}

func (h *handlers) signInPage(ctx context.Context, r server.AuthRequest, refusal string) (htmlPage, error) {
	st, err := h.svc.SignInState(ctx, r)
	if err != nil {
		return htmlPage{}, err
	}
	info := signInInfo{OAuthState: st, ClientID: r.ClientID}
	portalName := h.svc.Gates().PortalName()
	p := htmlPage{status: http.StatusOK}
	if refusal != "" {
		info.Messages = []string{refusal}
		p.code = 400
	}
	dark := false
	if rs := stateOf(ctx); rs != nil {
		info.Locale = rs.form.Get("locale")
		dark = rs.form.Get("style") == "dark"
	}
	p.body = signInHTML(info, portalName, h.context+"/sharing/oauth2/signin", dark)
	return p, nil
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
	return h.signInPage(ctx, req, "")
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
		return h.signInPage(ctx, res.Request, res.Refusal)
	}
	return htmlPage{status: http.StatusFound, location: res.Redirect}, nil
}

func (h *handlers) OauthApproval(_ context.Context, r gen.OauthApprovalRequestObject) (gen.OauthApprovalResponseObject, error) {
	return htmlPage{status: http.StatusOK, body: approvalHTML(r.Params.Code)}, nil
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
