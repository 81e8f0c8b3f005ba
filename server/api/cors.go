package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// corsAllowHeaders are the request headers a web page may send the API
// besides the simple ones: where the token goes, and a form's type.
const corsAllowHeaders = "Authorization, X-Esri-Authorization, Content-Type, X-Requested-With"

// cors lets web pages of any origin call the REST API, as the portal does
// while its organization restricts no origins (allowedOrigins empty, the
// default): a browser application signs in with PKCE and calls the API
// with ArcGIS REST JS from its own origin. Tokens travel as parameters or
// headers, never as cookies, so no credentials are allowed. A preflight is
// answered before routing; any other request goes on, its answer marked.
// The emulator's own endpoints are not the API's and stay refused to pages.
func (s *srv) cors(next echo.HandlerFunc) echo.HandlerFunc {
	prefix := s.cfg.Context + "/sharing/"
	return func(c echo.Context) error {
		r := c.Request()
		origin := r.Header.Get("Origin")
		if origin == "" || !strings.HasPrefix(r.URL.Path, prefix) {
			return next(c)
		}
		h := c.Response().Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST")
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", "600")
			return c.NoContent(http.StatusNoContent)
		}
		return next(c)
	}
}
