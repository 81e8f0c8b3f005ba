package client

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Error is an error the portal stated in its error envelope,
// {"error":{"code":N,"messageCode":"...","message":"...","details":[...]}},
// or an answer that was not the portal's JSON at all.
//
// Compare it with the sentinels through errors.Is, and read it through
// errors.As:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.MessageCode == "ORG_1132" { ... }
type Error struct {
	// Code is the envelope's HTTP-like code: 400 invalid request, 403 not
	// permitted, 404 unknown path, 413 request too large, 498 invalid or
	// expired token, 499 token required, 500 unexpected failure. For an
	// answer without an envelope it is the answer's HTTP status.
	Code int
	// MessageCode is the portal's machine-readable code, such as ORG_1132 or
	// CONT_0001; often empty.
	MessageCode string
	// Message is the portal's message, such as "Unable to move items.".
	Message string
	// Details holds one entry per problem, each usually "field.path: reason".
	Details []string
}

// Error returns the message, the code, the message code and the details.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	b.WriteString(" (code ")
	b.WriteString(strconv.Itoa(e.Code))
	if e.MessageCode != "" {
		b.WriteString(", ")
		b.WriteString(e.MessageCode)
	}
	b.WriteString(")")
	if len(e.Details) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(e.Details, "; "))
	}
	return b.String()
}

// Sentinels for errors.Is. Each matches an *Error by its code, as described
// on [Error.Is]; none is ever returned itself.
var (
	// ErrTokenRequired: the operation needs a token and none was sent (code 499).
	ErrTokenRequired = errors.New("token required")
	// ErrInvalidToken: the token is unknown or expired (code 498).
	ErrInvalidToken = errors.New("invalid token")
	// ErrForbidden: the token is valid but its user may not do this (code 403).
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound: the item, folder, user or portal addressed does not exist
	// or is not visible to the caller, or the path is unknown.
	ErrNotFound = errors.New("not found")
)

// Message code of "Item does not exist or is inaccessible." (portal).
const msgCodeItemNotFound = "CONT_0001"

// Is reports whether e matches one of the sentinels:
//
//   - ErrTokenRequired: code 499;
//   - ErrInvalidToken: code 498;
//   - ErrForbidden: code 403;
//   - ErrNotFound: message code CONT_0001 (an item), or code 404 (a path the
//     server does not know: check the base URL, or the operation is missing
//     from this portal version), or code 400 with a message saying the thing
//     "does not exist". The portal gives no message code for unknown users,
//     folders and portals, only the message "... does not exist or is
//     inaccessible.", so the message is the one signal there is; a 400 with
//     details about a field (such as an unknown destination folder of
//     MoveItems) is a validation error and does not match.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrTokenRequired:
		return e.Code == 499
	case ErrInvalidToken:
		return e.Code == 498
	case ErrForbidden:
		return e.Code == 403
	case ErrNotFound:
		return e.MessageCode == msgCodeItemNotFound ||
			e.Code == http.StatusNotFound ||
			(e.Code == http.StatusBadRequest && strings.Contains(strings.ToLower(e.Message), "does not exist"))
	}
	return false
}

// errorBody is the envelope's error object on the wire.
type errorBody struct {
	Code        int      `json:"code"`
	MessageCode string   `json:"messageCode"`
	Message     string   `json:"message"`
	Details     []string `json:"details"`
}

func (b *errorBody) toError() *Error {
	return &Error{Code: b.Code, MessageCode: b.MessageCode, Message: b.Message, Details: b.Details}
}

// unexpected describes an answer that is not the portal's JSON: a proxy's
// HTML page, an empty body, a shape the operation never returns.
func unexpected(resp *http.Response, body []byte, why string) *Error {
	msg := fmt.Sprintf("unexpected answer: HTTP %s", resp.Status)
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		msg += ", " + ct
	}
	msg += ", " + why
	if len(body) > 0 {
		const limit = 200
		s := string(body)
		if len(s) > limit {
			s = s[:limit] + "..."
		}
		msg += ": " + strconv.Quote(s)
	}
	return &Error{Code: resp.StatusCode, Message: msg}
}
