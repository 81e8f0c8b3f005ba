// Package client is a Go client for the organization portal's REST API (the
// "sharing" API described by openapi.yaml): organization settings, the member
// category schema and members' categories, a user's items and folders, and
// tokens.
//
// Every method takes a context first and speaks in plain Go values; the
// portal's wire format (JSON documents inside form fields, comma-separated id
// lists, the token as a form field or query parameter, f=json) stays inside
// the package.
//
// # Errors
//
// The portal answers errors with HTTP 200 and an error envelope,
// {"error":{"code":N,"messageCode":"...","message":"...","details":[...]}}, so
// the client reads the body, not the status, as the portal's official clients
// do. Every error the portal states becomes an [*Error]; compare it with the
// sentinels ([ErrTokenRequired], [ErrInvalidToken], [ErrForbidden],
// [ErrNotFound]) through [errors.Is], and read its message code and details
// through [errors.As]. Failures of single items in a batch (MoveItems,
// DeleteItems) are results, not errors.
//
// # Authentication
//
// [WithToken] sends a token the caller already has. [WithCredentials] signs in
// with generateToken on first use, shares the token between concurrent calls,
// renews it before it expires, and renews it once more when the portal rejects
// it as invalid.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/orgportal/portal-api/gen"
)

// Client calls one portal. It is safe for concurrent use.
type Client struct {
	api     *gen.ClientWithResponses
	token   string       // from WithToken
	creds   *credentials // from WithCredentials
	referer string
	now     func() time.Time // the clock that judges token expiry; replaced in tests
}

// Option configures a Client in New.
type Option func(*options) error

// options collects the options before New builds the client, so that
// their order does not matter.
type options struct {
	token              string
	username, password string
	hasCreds           bool
	httpClient         *http.Client
	referer            string
	now                func() time.Time
}

// WithToken authenticates every request with token, a token obtained
// elsewhere (GenerateToken, or a static token configured on the server).
func WithToken(token string) Option {
	return func(s *options) error {
		if token == "" {
			return errors.New("client: WithToken: empty token")
		}
		s.token = token
		return nil
	}
}

// WithCredentials authenticates every request with a token that the client
// obtains from generateToken with username and password when first needed.
// Concurrent calls share one token; it is renewed shortly before it expires
// (when less than a tenth of its lifetime, and at most five minutes, is
// left), and once more when the portal answers that it is invalid (code 498),
// after which the request is sent again.
func WithCredentials(username, password string) Option {
	return func(s *options) error {
		if username == "" || password == "" {
			return errors.New("client: WithCredentials: empty username or password")
		}
		s.username, s.password, s.hasCreds = username, password, true
		return nil
	}
}

// WithHTTPClient sends requests through hc instead of a default
// *http.Client, for timeouts, proxies or TLS settings.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *options) error {
		if hc == nil {
			return errors.New("client: WithHTTPClient: nil client")
		}
		s.httpClient = hc
		return nil
	}
}

// WithReferer sends referer as the Referer header of every request, and has
// generateToken issue tokens bound to it (client=referer), as the portal
// requires for tokens used from a web application's origin.
func WithReferer(referer string) Option {
	return func(s *options) error {
		s.referer = referer
		return nil
	}
}

// New returns a client of the portal whose REST root is baseURL, such as
// http://127.0.0.1:8080/sharing/rest or https://portal.example.org/portal/sharing/rest.
// A trailing slash is optional.
func New(baseURL string, opts ...Option) (*Client, error) {
	var s options
	for _, o := range opts {
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	if s.token != "" && s.hasCreds {
		return nil, errors.New("client: WithToken and WithCredentials exclude each other")
	}
	server, err := normaliseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	var genOpts []gen.ClientOption
	if s.httpClient != nil {
		genOpts = append(genOpts, gen.WithHTTPClient(s.httpClient))
	}
	api, err := gen.NewClientWithResponses(server, genOpts...)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	c := &Client{api: api, token: s.token, referer: s.referer, now: time.Now}
	if s.now != nil {
		c.now = s.now
	}
	if s.hasCreds {
		c.creds = &credentials{username: s.username, password: s.password}
	}
	return c, nil
}

// normaliseBaseURL checks baseURL and makes it end with "/": the generated
// request builders resolve operation paths relative to it, which would drop
// a last segment ("rest") not followed by a slash.
func normaliseBaseURL(baseURL string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", fmt.Errorf("client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("client: base URL %q: want http(s)://host/.../sharing/rest", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("client: base URL %q: no query or fragment allowed", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/"
	u.RawPath = ""
	return u.String(), nil
}

// jsonFormat is sent as f on every request: the portal's own default is an
// HTML page, so a client that relies on the default breaks against it.
func jsonFormat() *gen.Format { return ptr(gen.Json) }

// sendFunc sends one request through the generated client, with the editor
// that adds the token and the Referer header.
type sendFunc func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error)

// do sends a request, detects the error envelope and decodes a success answer
// into out. op names the operation in error messages. A token rejected as
// invalid is renewed and the request sent once more when the client holds
// credentials: the portal judges the token before anything else, so nothing
// happened on the first attempt.
func (c *Client) do(ctx context.Context, op string, send sendFunc, out any) error {
	for attempt := 0; ; attempt++ {
		tok, err := c.currentToken(ctx)
		if err != nil {
			return wrap(op, err)
		}
		err = c.roundTrip(ctx, send, tok, out)
		if attempt == 0 && c.creds != nil && errors.Is(err, ErrInvalidToken) {
			c.creds.invalidate(tok)
			continue
		}
		return wrap(op, err)
	}
}

// wrap names the operation (its operationId) in err, keeping err reachable
// for errors.Is and errors.As; nil stays nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// missing reports a success answer without a field the operation always
// returns, as an *Error like any other answer that is not the portal's.
func missing(op, field string) error {
	return wrap(op, &Error{Code: http.StatusOK, Message: "unexpected answer: no " + field})
}

// currentToken returns the token to send, or "" for an anonymous client.
func (c *Client) currentToken(ctx context.Context) (string, error) {
	if c.creds != nil {
		return c.creds.get(ctx, c)
	}
	return c.token, nil
}

// maxAnswer bounds the answer read into memory; the largest answers of this
// API (a page of 100 items) are far smaller.
const maxAnswer = 32 << 20

func (c *Client) roundTrip(ctx context.Context, send sendFunc, tok string, out any) error {
	resp, err := send(ctx, c.editor(tok))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > maxAnswer {
		return unexpected(resp, nil, "answer larger than 32 MiB")
	}
	return decodeAnswer(resp, body, out)
}

// decodeAnswer judges the body, never the status alone: the portal answers
// its errors with HTTP 200, and its transport failures (404, 413) carry the
// same envelope. The Content-Type is not trusted either, as some portal
// deployments label JSON text/plain.
func decodeAnswer(resp *http.Response, body []byte, out any) error {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return unexpected(resp, body, "not a JSON object")
	}
	if len(env.Error) > 0 && string(env.Error) != "null" {
		var e errorBody
		if err := json.Unmarshal(env.Error, &e); err != nil {
			return unexpected(resp, body, "malformed error envelope")
		}
		return e.toError()
	}
	if resp.StatusCode != http.StatusOK {
		return unexpected(resp, body, "no error envelope")
	}
	if err := json.Unmarshal(body, out); err != nil {
		return unexpected(resp, body, err.Error())
	}
	return nil
}

// editor returns the RequestEditorFn that authenticates one request. The
// token goes where the portal's official JavaScript client puts it: the form
// field token for a POST, the query parameter token for a GET.
func (c *Client) editor(tok string) gen.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		if c.referer != "" {
			req.Header.Set("Referer", c.referer)
		}
		if tok == "" {
			return nil
		}
		field := "token=" + url.QueryEscape(tok)
		if req.Method == http.MethodGet {
			// Appended rather than re-encoded, so the comma-separated lists
			// the generated builder wrote keep their literal commas.
			req.URL.RawQuery = joinQuery(req.URL.RawQuery, field)
			return nil
		}
		var form []byte
		if req.Body != nil {
			var err error
			form, err = io.ReadAll(req.Body)
			req.Body.Close()
			if err != nil {
				return err
			}
		}
		form = []byte(joinQuery(string(form), field))
		req.Body = io.NopCloser(strings.NewReader(string(form)))
		req.GetBody = func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(string(form))), nil
		}
		req.ContentLength = int64(len(form))
		return nil
	}
}

func joinQuery(q, field string) string {
	if q == "" {
		return field
	}
	return q + "&" + field
}

// Page selects a page of a listing. Zero values leave the portal's defaults:
// Start 1 (the first entry; entries count from 1) and Num 10 (at most 100).
type Page struct {
	Start int
	Num   int
}

// params converts p to the generated parameters, leaving zero values out.
func (p Page) params() (start, num *int32) {
	if p.Start != 0 {
		v := int32(p.Start)
		start = &v
	}
	if p.Num != 0 {
		v := int32(p.Num)
		num = &v
	}
	return start, num
}

// selfIfEmpty lets callers pass "" for the caller's own organization, which
// the portal names "self".
func selfIfEmpty(portalID string) string {
	if portalID == "" {
		return "self"
	}
	return portalID
}

// need rejects an empty path parameter before sending: the request would
// otherwise reach another operation's path.
func need(name, value string) error {
	if value == "" {
		return fmt.Errorf("client: empty %s", name)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// millis converts the portal's epoch milliseconds; absent stays zero.
func millis(ms *int64) time.Time {
	if ms == nil {
		return time.Time{}
	}
	return time.UnixMilli(*ms)
}

// withClock replaces the clock that judges token expiry.
func withClock(now func() time.Time) Option {
	return func(s *options) error {
		s.now = now
		return nil
	}
}
