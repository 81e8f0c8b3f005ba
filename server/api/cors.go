package api

import (
	"net/http"
	"strings"
)

// corsAllowHeaders are the request headers a web page may send the API
// besides the simple ones: where the token goes, and a form's type.
const corsAllowHeaders = "Authorization, X-Esri-Authorization, Content-Type, X-Requested-With"

// cors lets web pages of any origin call the REST API, as the portal does
// while its organization restricts no origins (allowedOrigins empty, the
// default): a browser application signs in with PKCE and calls the API
// with ArcGIS REST JS from its own origin. Tokens travel as parameters or
// headers, never as cookies, so no credentials are allowed. It answers a
// preflight itself (reporting true) and marks the answer of any other
// request with an Origin. The emulator's own endpoints are not the API's
// and stay refused to pages.
func (s *srv) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !strings.HasPrefix(r.URL.Path, s.cfg.Context+"/sharing/") {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}
