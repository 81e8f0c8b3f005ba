package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

// Hooks lets an owner of the API (package emulator) see every call and
// inject faults into it. Both methods are called from the request's
// goroutine and must be safe for concurrent use.
type Hooks interface {
	// Fault is asked once a call has been routed, authenticated and
	// validated, before the operation runs: a non-nil Fault changes what the
	// call does.
	Fault(c *Call) *Fault
	// Observe is told how each call to an operation ended, whatever step
	// ended it, and how each call that reached no operation was answered
	// (Call.Operation empty; see unmatched).
	Observe(c *Call, a Answer)
}

// Call is one API call as the hooks see it.
type Call struct {
	// Operation is the operationId; empty for a call that matched no
	// operation: an unknown path, a method its path does not answer, or an
	// operation the emulated version does not have.
	Operation string
	Method    string
	Path      string
	// ParamNames and ParamValues are the path parameters, in path order;
	// they are valid until the call ends.
	ParamNames, ParamValues []string
	// Form holds the other parameters but the token, as sent (query and
	// form body); Fields are those of the form body as the validator
	// decoded them (JSON documents as values, id lists as arrays), nil for
	// a call that did not reach validation. Both are the call's own: read
	// them, never change them.
	Form   url.Values
	Fields map[string]any
	// Token is the token sent, empty for none; User is the user name it
	// stands for, empty when anonymous or invalid.
	Token, User string
	Start       time.Time
	// Secrets names the parameters the contract marks secret (format:
	// password): passwords, client secrets, codes and refresh tokens,
	// which a journal must not keep. Shared: never change it.
	Secrets map[string]bool
}

// PathParam returns the path parameter name and whether the operation has
// one.
func (c *Call) PathParam(name string) (string, bool) {
	for i, n := range c.ParamNames {
		if n == name && i < len(c.ParamValues) {
			return c.ParamValues[i], true
		}
	}
	return "", false
}

// Fault is what a fault rule makes a call do. Exactly one of Error,
// ItemErrors, Status and Drop is set; Delay may go with any.
type Fault struct {
	ID    string
	Delay time.Duration
	// Error answers the call with this envelope; the operation does not run.
	Error *server.Error
	// ItemErrors are reported for these item ids ("*": all) by moveItems and
	// deleteItems, which leave those items alone.
	ItemErrors map[string]*server.Error
	// Status answers with this HTTP status, Headers and the envelope.
	Status  int
	Headers map[string]string
	Message string
	// Drop closes the connection without an answer.
	Drop bool
}

// Answer is how a call ended.
type Answer struct {
	Status      int    // the HTTP status
	Code        int    // the envelope's code; 0 for a success
	MessageCode string // the envelope's messageCode
	FailedItems int    // for per-item operations, the results that failed
	Fault       string // the id of the fault that fired, if any
	Dropped     bool
	Duration    time.Duration
}

// unmatched tells Hooks.Observe of a call, begun at start, that reached no
// operation and is answered 404 by any route (every path of the server but
// the emulator's own, which never reach the API). With it a client's author
// sees what their client asked for that the server does not have. Its Form
// is the query and a form body of up to freeBodyBytes; nothing validated it.
// API.ServeHTTP calls it, rather than a middleware of its own, which would
// cost every call an allocation.
func (s *srv) unmatched(c echo.Context, start time.Time) {
	r := c.Request()
	hc := &Call{Method: r.Method, Path: r.URL.Path, Start: start}
	hc.Form, hc.Token = unmatchedParams(r)
	if hc.Token != "" {
		// Only to name the caller: a refused token leaves User empty.
		if p, aerr := s.svc.Authenticate(r.Context(), hc.Token); aerr == nil {
			hc.User = p.User.Username
		}
	}
	s.cfg.Hooks.Observe(hc, Answer{Status: errNotFound.status, Code: errNotFound.body.Code, Duration: time.Since(start)})
}

// routingMiss reports whether err is the answer of a call that reached no
// operation: echo's own 404 and 405 (errorHandler answers both as 404), and
// errNotFound from the catch-all under the API root and from serve's gate.
func routingMiss(err error) bool {
	if err == nil || err == errNotFound {
		return err != nil
	}
	var he *echo.HTTPError
	return errors.As(err, &he) && (he.Code == http.StatusNotFound || he.Code == http.StatusMethodNotAllowed)
}

// unmatchedParams reads what a call no operation took sent: its query, a
// URL-encoded or multipart body of up to freeBodyBytes over it (a larger
// body, or another kind, is left unread), and the token, taken out of them
// and the headers as readParams does.
func unmatchedParams(r *http.Request) (url.Values, string) {
	query, _ := url.ParseQuery(r.URL.RawQuery) // what parsed, when some did not
	form := url.Values{}
	if r.Body != nil && r.ContentLength <= freeBodyBytes && r.ContentLength != 0 {
		raw, err := io.ReadAll(io.LimitReader(r.Body, freeBodyBytes+1))
		if err == nil && len(raw) <= freeBodyBytes {
			if body, err := parseBody(r.Header.Get(echo.HeaderContentType), raw); err == nil {
				form = body
			}
		}
	}
	token := sentToken(form, query, r.Header)
	addQuery(form, query)
	delete(form, "token")
	return form, token
}

// observe starts the Call of a request routed to an operation.
func (s *srv) observe(c echo.Context, rs *requestState) {
	rs.hooked = Call{Operation: rs.op.spec.OperationID, Method: c.Request().Method, Path: c.Request().URL.Path, Start: time.Now(),
		Secrets: rs.op.secrets}
	hc := &rs.hooked
	hc.ParamNames, hc.ParamValues = c.ParamNames(), c.ParamValues()
	rs.hook = hc
}

// finish gives the call its parameters and reports its end.
func (s *srv) finish(c echo.Context, rs *requestState, err error) {
	hc := rs.hook
	hc.Form, hc.Fields = rs.form, rs.fields
	a := Answer{Status: http.StatusOK, Duration: time.Since(hc.Start)}
	if rs.fault != nil {
		a.Fault = rs.fault.ID
	}
	if err == errDrop {
		a.Status, a.Dropped = 0, true
	} else if err != nil {
		var (
			de *server.Error
			te *transportError
		)
		switch {
		case errors.As(err, &te):
			a.Status, a.Code, a.MessageCode = te.status, te.body.Code, te.body.MessageCode
		case errors.As(err, &de):
			a.Code, a.MessageCode = de.Code, de.MessageCode
		default:
			var he *echo.HTTPError
			if errors.As(err, &he) && he.Code == http.StatusBadRequest {
				a.Code = 400
			} else {
				a.Code = 500
			}
		}
	}
	if err != nil && rs.op.html {
		a.Status = pageErrorStatus(a.Status) // as the error handler answers it
	}
	switch r := rs.answer.(type) {
	case refusedSignIn:
		a.Code = 400
	case gen.OauthSignIn302Response:
		a.Status = http.StatusFound
	case gen.MoveItems200JSONResponse:
		a.FailedItems = failedItems(r.Results)
	case gen.DeleteItems200JSONResponse:
		a.FailedItems = failedItems(r.Results)
	}
	s.cfg.Hooks.Observe(hc, a)
}

func failedItems(rs *[]gen.ItemResult) int {
	if rs == nil {
		return 0
	}
	n := 0
	for _, r := range *rs {
		if !r.Success {
			n++
		}
	}
	return n
}

// applyFault carries out f on the call: it returns the error to answer
// with, or nil to run the operation (with per-item faults in its context).
func (s *srv) applyFault(c echo.Context, rs *requestState, f *Fault) error {
	rs.fault = f
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-rs.Done():
			t.Stop()
			return rs.Err()
		case <-t.C:
		}
	}
	switch {
	case f.Drop:
		return errDrop
	case f.Error != nil:
		e := *f.Error
		e.Details = append([]string{}, f.Error.Details...)
		return &e
	case f.Status != 0:
		for k, v := range f.Headers {
			c.Response().Header().Set(k, v)
		}
		msg := f.Message
		if msg == "" {
			msg = http.StatusText(f.Status)
		}
		return &transportError{f.Status, envelopeBody{Code: f.Status, Message: msg, Details: []string{}}}
	case f.ItemErrors != nil:
		// A context over the request's, not a change to rs.Context: the
		// store's goroutines may still be reading that field.
		r := c.Request()
		c.SetRequest(r.WithContext(server.WithItemFaults(r.Context(), f.ItemErrors)))
	}
	return nil
}

// errDrop ends a call by closing its connection without an answer.
var errDrop = errors.New("api: connection dropped by a fault")

// drop closes the connection of the call, as a proxy that gave up would.
func drop(c echo.Context) {
	if conn, _, err := c.Response().Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler)
}

var _ context.Context = (*requestState)(nil)

// Operations returns the operationIds of the contract, available in the
// emulated version or not, each with the names of its path parameters.
func (a *API) Operations() map[string][]string {
	out := make(map[string][]string, len(a.ops))
	for id, o := range a.ops {
		names := []string{}
		for _, p := range o.params {
			if p.In == "path" {
				names = append(names, p.Name)
			}
		}
		out[id] = names
	}
	return out
}
