package server

import (
	"errors"
	"fmt"
)

// Error is the one domain error type. The transport turns it into the
// portal's error envelope; Code is the envelope's HTTP-like code.
type Error struct {
	Code        int
	MessageCode string
	// Message is the envelope's message; empty means "the operation's
	// x-error-message" (filled in by the transport, which knows the operation).
	Message string
	Details []string
	// OAuth is the OAuth 2.0 error code (RFC 6749), such as
	// "invalid_grant", of an OAuth endpoint's refusal; "" elsewhere.
	OAuth string
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "invalid request"
	}
	if len(e.Details) > 0 {
		return fmt.Sprintf("%d %s: %v", e.Code, msg, e.Details)
	}
	return fmt.Sprintf("%d %s", e.Code, msg)
}

// Is makes errors.Is(err, ErrForbidden) and the like match any *Error with
// the same code and message code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.MessageCode == e.MessageCode
}

// Message codes and messages the portal uses.
const (
	MsgCodePermission    = "GWM_0003"
	MsgCodeItemNotFound  = "CONT_0001"
	MsgCodeSchemaTooBig  = "ORG_1132"
	msgPermission        = "You do not have permissions to access this resource or perform this operation."
	msgItemNotFound      = "Item does not exist or is inaccessible."
	msgAssignSchema      = "Unable to assign member category schema."
	msgItemAlreadyThere  = "Item already exists in target folder"
	msgPortalNotFound    = "Portal does not exist or is inaccessible."
	msgUserNotFound      = "User does not exist or is inaccessible."
	msgFolderNotFound    = "Folder does not exist or is inaccessible."
	msgInvalidCredential = "Invalid username or password."
)

// Sentinels, for errors.Is.
var (
	ErrTokenRequired = &Error{Code: 499, MessageCode: MsgCodePermission, Message: "Token Required."}
	ErrInvalidToken  = &Error{Code: 498, Message: "Invalid token."}
	ErrForbidden     = &Error{Code: 403, MessageCode: MsgCodePermission, Message: msgPermission}
	ErrItemNotFound  = &Error{Code: 400, MessageCode: MsgCodeItemNotFound, Message: msgItemNotFound}
)

// Invalid is a 400 carrying one detail per problem, each "field.path: reason".
func Invalid(details ...string) *Error { return &Error{Code: 400, Details: details} }

func notFound(message string) *Error { return &Error{Code: 400, Message: message} }

// clone returns a copy of a sentinel, so callers may not mutate the shared one.
func clone(e *Error) *Error { c := *e; c.Details = nil; return &c }

// AsError returns err as an *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
