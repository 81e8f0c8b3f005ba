package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/orgportal/portal-api/server"
)

// envelope is the portal's error body.
type envelope struct {
	Error envelopeBody `json:"error"`
}

type envelopeBody struct {
	Code int `json:"code"`
	// OAuth and OAuthDescription are the OAuth 2.0 error of an OAuth
	// endpoint (RFC 6749), beside the portal's own fields.
	OAuth            string   `json:"error,omitempty"`
	OAuthDescription string   `json:"error_description,omitempty"`
	MessageCode      string   `json:"messageCode,omitempty"`
	Message          string   `json:"message"`
	Details          []string `json:"details"`
}

// transportError is a failure that keeps a real HTTP status (unknown path,
// body too large); everything else is answered with HTTP 200.
type transportError struct {
	status int
	body   envelopeBody
}

func (e *transportError) Error() string { return e.body.Message }

var (
	errNotFound = &transportError{http.StatusNotFound, envelopeBody{Code: 404, Message: "Not found: no such operation.", Details: []string{}}}
	errTooLarge = &transportError{http.StatusRequestEntityTooLarge, envelopeBody{Code: 413, Message: "Request body too large.", Details: []string{fmt.Sprintf("the limit is %d bytes", MaxBodyBytes)}}}
	// errBusy answers a body beyond the bytes in flight; Retry-After goes with it.
	errBusy = &transportError{http.StatusServiceUnavailable, envelopeBody{Code: 503, Message: "Too many request bodies in flight; retry later.", Details: []string{}}}
)

// badBody is a body that could not be read: broken chunked framing, or a
// client that hung up before sending it all.
func badBody(err error) *transportError {
	return &transportError{http.StatusBadRequest, envelopeBody{Code: 400, Message: "The request body could not be read.", Details: []string{"body: " + err.Error()}}}
}

// errorHandler is echo's one error handler: every failure of every route,
// the unknown ones included, leaves as the error envelope.
func (s *srv) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := s.toEnvelope(err, c)
	var werr error
	if rs := stateOf(c.Request().Context()); rs != nil && rs.op != nil && rs.op.html {
		werr = writeErrorPage(c, pageErrorStatus(status), body)
	} else {
		werr = writeJSON(c, status, envelope{Error: body})
	}
	if werr != nil {
		// The client is gone: nothing to do about it.
		s.log.Debug("writing an error answer", "err", werr)
	}
}

func (s *srv) toEnvelope(err error, c echo.Context) (int, envelopeBody) {
	var (
		de  *server.Error
		te  *transportError
		he  *echo.HTTPError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &te):
		return te.status, te.body
	case errors.As(err, &mbe):
		return errTooLarge.status, errTooLarge.body
	case errors.As(err, &de):
		body := envelopeBody{Code: de.Code, MessageCode: de.MessageCode, Message: de.Message, Details: de.Details, OAuth: de.OAuth}
		if body.Message == "" {
			body.Message = s.opMessage(c)
		}
		if body.Details == nil {
			body.Details = []string{}
		}
		if rs := stateOf(c.Request().Context()); rs != nil && rs.op != nil && rs.op.oauthErrors && body.OAuth == "" && body.Code == 400 {
			// What an OAuth endpoint refuses before its rules run (the
			// contract's checks) is a malformed request to OAuth clients.
			body.OAuth = "invalid_request"
		}
		if body.OAuth != "" {
			body.OAuthDescription = body.Message
		}
		return http.StatusOK, body
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound, http.StatusMethodNotAllowed:
			return errNotFound.status, errNotFound.body
		case http.StatusRequestEntityTooLarge:
			return errTooLarge.status, errTooLarge.body
		case http.StatusBadRequest:
			// The generated binders report malformed parameters this way.
			return http.StatusOK, envelopeBody{Code: 400, Message: s.opMessage(c), Details: []string{fmt.Sprint(he.Message)}}
		}
	}
	if errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil {
		// The client hung up while the request was served: its doing, not
		// a failure of the server, and nobody reads this answer.
		s.log.Debug("client went away", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
		return http.StatusOK, envelopeBody{Code: 400, Message: "The client closed the connection.", Details: []string{}}
	}
	s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	return http.StatusOK, envelopeBody{Code: 500, Message: "An unexpected error occurred. The failure was logged.", Details: []string{}}
}

// opMessage is the operation's x-error-message, the message of its 400s.
func (s *srv) opMessage(c echo.Context) string {
	if rs := stateOf(c.Request().Context()); rs != nil && rs.op != nil {
		if m, ok := rs.op.spec.Extensions["x-error-message"].(string); ok {
			return m
		}
	}
	return "Invalid request."
}

// validationError turns kin-openapi's errors into one detail per problem,
// "field.path: reason", instead of its default text that dumps the schema.
func validationError(err error) *server.Error {
	var details []string
	var walk func(error, string)
	walk = func(err error, prefix string) {
		var me openapi3.MultiError
		var re *openapi3filter.RequestError
		var se *openapi3.SchemaError
		var pe *openapi3filter.ParseError
		if r, isReq := err.(*openapi3filter.RequestError); isReq && r.Parameter != nil && r.Err != nil {
			// Taken before errors.As, which would look through it to the
			// errors it wraps and lose the parameter's name.
			walk(r.Err, r.Parameter.Name)
			return
		}
		switch {
		case errors.As(err, &me):
			for _, e := range me {
				walk(e, prefix)
			}
		case errors.As(err, &re):
			p := prefix
			if re.Parameter != nil {
				p = re.Parameter.Name
			}
			if re.Err == nil {
				details = append(details, join(p, re.Reason))
			} else {
				walk(re.Err, p)
			}
		case errors.As(err, &se):
			details = append(details, schemaDetail(prefix, se))
		case errors.As(err, &pe):
			details = append(details, join(prefix, pe.Error()))
		default:
			details = append(details, join(prefix, err.Error()))
		}
	}
	walk(err, "")
	return server.Invalid(details...)
}

var missingProp = regexp.MustCompile(`^property "(.+)" is missing$`)

func schemaDetail(prefix string, se *openapi3.SchemaError) string {
	path := prefix
	for _, seg := range se.JSONPointer() {
		if isIndex(seg) {
			path += "[" + seg + "]"
		} else if path == "" {
			path = seg
		} else {
			path += "." + seg
		}
	}
	reason := se.Reason
	if se.SchemaField == "format" && se.Schema != nil {
		// kin-openapi words a number beyond int64 with the int64 bounds,
		// whatever the format: say the format's own range.
		if f, isNum := se.Value.(float64); isNum && (f >= math.MaxInt64 || f < math.MinInt64) {
			switch se.Schema.Format {
			case "int32":
				reason = fmt.Sprintf("number out of range: an int32, from %d to %d", math.MinInt32, math.MaxInt32)
			default:
				reason = fmt.Sprintf("number out of range: an int64, from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
			}
		}
	}
	if m := missingProp.FindStringSubmatch(reason); m != nil {
		if !strings.HasSuffix(path, m[1]) {
			path = join2(path, m[1])
		}
		reason = "property is missing"
	}
	return join(path, reason)
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func join(path, reason string) string {
	if path == "" {
		return reason
	}
	return path + ": " + reason
}

func join2(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// writeJSON writes v as the portal does: application/json; charset=utf-8,
// indented when the request asked for f=pjson.
func writeJSON(c echo.Context, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if rs := stateOf(c.Request().Context()); rs != nil && rs.pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeRaw(c, status, buf.Bytes())
}

func writeRaw(c echo.Context, status int, body []byte) error {
	h := c.Response().Header()
	h["Content-Type"] = jsonContentType
	// Always a length: without one, net/http chunks an answer past 2 KiB,
	// and the ArcGIS API for Python reads a chunked error differently.
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(body)
	return err
}

var jsonContentType = []string{"application/json; charset=utf-8"}

// pageErrorStatus is the status of a page's error: a page, with a real
// status, as a person reads it, where the API's errors answer 200.
func pageErrorStatus(status int) int {
	if status == http.StatusOK {
		return http.StatusBadRequest
	}
	return status
}
