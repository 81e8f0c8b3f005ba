package emulator

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
)

// adminPrefix is where the emulator's own endpoints live, at the server
// root whatever the context: they are no part of the portal's API.
const adminPrefix = "/emulator/"

// maxAdminBody bounds the JSON body of an emulator call.
const maxAdminBody = 1 << 20

// adminError is an emulator endpoint's refusal: the HTTP status, and the
// same code in the portal's error envelope.
type adminError struct {
	status  int
	message string
	details []string
}

// Error is the message and, for Go callers (AddFault, SetClock...), the
// details that name what was refused, which HTTP callers get in the envelope.
func (e *adminError) Error() string {
	if len(e.details) == 0 {
		return e.message
	}
	return e.message + " " + strings.Join(e.details, "; ")
}

var errAdminNotFound = &adminError{http.StatusNotFound, "Not found: no such emulator endpoint.", nil}

// adminHandler serves /emulator/: every call passes guard first, so that a
// refused one reaches no endpoint and changes nothing.
func (s *Server) adminHandler() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h func(r *http.Request) (any, error)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.answer(w, r, h) })
	}
	handle("POST /emulator/reset", s.handleReset)
	s.routes(handle)
	// Anything else, including a known path with another method.
	handle("/emulator/", func(*http.Request) (any, error) { return nil, errAdminNotFound })
	handle("/emulator", func(*http.Request) (any, error) { return nil, errAdminNotFound })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.guard(r); err != nil {
			s.answer(w, r, func(*http.Request) (any, error) { return nil, err })
			return
		}
		mux.ServeHTTP(w, r.WithContext(server.WithRequest(r.Context())))
	})
}

// guard decides who may call the emulator's endpoints (docs in
// shared design "Who may call it"): never a web page, loopback only unless
// AllowRemoteAdmin, and with the admin token when one is set.
//
// A web page can send a cross-site POST with a body without asking (a
// "simple" request: a form's content types, or none), and its answer does
// not matter to an attacker who wants the store wiped. A body must
// therefore be application/json, which makes the browser ask first with a
// preflight, never granted. A call without a body needs no Content-Type
// (curl -X DELETE .../emulator/faults): a browser sends no cross-site
// DELETE or PUT without a preflight, and a cross-site POST always carries
// an Origin, which must be the server's own (and Sec-Fetch-Site, when sent,
// not cross-site). The Host must be a name the emulator knows (adminHost),
// or a page on a rebound DNS name would count as same-origin.
func (s *Server) guard(r *http.Request) error {
	if !s.opts.AllowRemoteAdmin && !isLoopbackAddr(r.RemoteAddr) {
		return &adminError{http.StatusForbidden, "Emulator endpoints answer loopback clients only.",
			[]string{"start the emulator with -allow-remote-admin to allow other clients"}}
	}
	if !s.adminHost(r.Host) {
		return &adminError{http.StatusForbidden, "Emulator endpoints answer known host names only.",
			[]string{fmt.Sprintf("Host %q is not localhost, a loopback address or a name of -admin-hosts", r.Host)}}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !strings.EqualFold(origin, s.ownOrigin(r)) {
		return &adminError{http.StatusForbidden, "Emulator endpoints refuse requests from web pages.",
			[]string{fmt.Sprintf("Origin %q is not this server's", origin)}}
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "cross-site", "same-site":
		return &adminError{http.StatusForbidden, "Emulator endpoints refuse requests from web pages.",
			[]string{fmt.Sprintf("Sec-Fetch-Site %q", site)}}
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		ct := r.Header.Get("Content-Type")
		if ct == "" && r.ContentLength == 0 {
			break // no body: nothing a form could have sent
		}
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			detail := fmt.Sprintf("Content-Type %q: want application/json, or no body and no Content-Type", ct)
			if ct == "" {
				detail = "a body without a Content-Type: send it as application/json"
			}
			return &adminError{http.StatusForbidden, "Emulator calls that change something take a JSON body or none.", []string{detail}}
		}
	}
	if tok := s.opts.AdminToken; tok != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(tok)) != 1 {
			return &adminError{http.StatusUnauthorized, "Emulator endpoints need the admin token.",
				[]string{"send Authorization: Bearer <admin token>"}}
		}
	}
	return nil
}

// ownOrigin is the origin a page served by this server would send: https
// when the request came over TLS (or a proxy in front says so).
func (s *Server) ownOrigin(r *http.Request) string {
	origin, _ := api.RequestBase(r, "", s.opts.AdminHosts)
	return origin
}

func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// adminHost reports whether a client may address the emulator's endpoints
// by hostport (the Host header): a loopback name or address, a name of
// AdminHosts, or, from remote clients allowed in, an IP address. A DNS name
// of any other kind could be one a web page rebound to the emulator, which
// would then count as the page's own origin.
func (s *Server) adminHost(hostport string) bool {
	host := api.HostName(hostport)
	if api.NamedHost(host, s.opts.AdminHosts) || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || s.opts.AllowRemoteAdmin)
}

// readJSON decodes the call's body into v; an empty body leaves v as it is.
func readJSON(r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxAdminBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &adminError{http.StatusRequestEntityTooLarge, "Request body too large.", []string{fmt.Sprintf("the limit is %d bytes", maxAdminBody)}}
		}
		return &adminError{http.StatusBadRequest, "The request body could not be read.", []string{err.Error()}}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &adminError{http.StatusBadRequest, "The request body is not the JSON document expected.", []string{err.Error()}}
	}
	if dec.More() {
		return &adminError{http.StatusBadRequest, "The request body is not the JSON document expected.", []string{"more than one JSON value"}}
	}
	return nil
}

// handleReset is POST /emulator/reset: the store back to the seed. Its body
// is empty or {}.
func (s *Server) handleReset(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	if err := s.Reset(r.Context()); err != nil {
		return nil, err
	}
	s.opts.Logger.Info("store reset to the seed", "remote", r.RemoteAddr)
	return map[string]bool{"success": true}, nil
}

// answer runs h and writes its value as JSON, or its error in the portal's
// envelope with the matching HTTP status. Unexpected errors are logged and
// answered without their text.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, h func(r *http.Request) (any, error)) {
	v, err := h(r)
	status := http.StatusOK
	if err != nil {
		var ae *adminError
		if !errors.As(err, &ae) {
			s.opts.Logger.Error("emulator call failed", "method", r.Method, "path", r.URL.Path, "err", err)
			ae = &adminError{http.StatusInternalServerError, "An unexpected error occurred. The failure was logged.", nil}
		} else if ae.status == http.StatusForbidden || ae.status == http.StatusUnauthorized {
			s.opts.Logger.Warn("emulator call refused", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "reason", ae.message)
		}
		if ae.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="emulator"`)
		}
		details := ae.details
		if details == nil {
			details = []string{}
		}
		status = ae.status
		v = map[string]any{"error": map[string]any{"code": ae.status, "message": ae.message, "details": details}}
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.opts.Logger.Error("encoding an emulator answer", "err", err)
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":500,"message":"An unexpected error occurred. The failure was logged.","details":[]}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
