// Package bench measures what a request costs the portal: Go benchmarks of
// each operation through the real handler (bench_test.go), and the floor they
// are compared with, a bare echo handler that parses the same form and does
// nothing else. The floor is also served by the floor command, so that the
// load generator (cmd/portalload) can compare portald's throughput with it.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"
)

// Floor returns the floor handler: for any POST it parses the form
// (c.FormParams), decodes the informationalBanner field as JSON and answers
// {"success":true}. It is what settings/update would cost with no routing
// against the contract, no validation, no authentication and no store.
func Floor() http.Handler { return FloorWith(nil) }

// FloorStore is what the floor handler does with a store: the floor of
// settings/update and of the settings read on one (PGFloor).
type FloorStore interface {
	// Write is called with the request's context, the token and the
	// banner as sent, once they are decoded.
	Write(ctx context.Context, token, banner string) error
	// Read is called for a GET (its token is not looked at) and returns
	// the answer's fields.
	Read(ctx context.Context) (map[string]json.RawMessage, error)
}

// FloorWith is Floor on store (none when nil); with a store, a GET (but
// /health) is a read.
func FloorWith(store FloorStore) http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// For the load generator, which waits for /health as for portald.
	e.GET("/health", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	if store != nil {
		e.GET("/*", func(c echo.Context) error {
			answer, err := store.Read(c.Request().Context())
			if err != nil {
				return c.JSON(http.StatusOK, map[string]any{"error": map[string]any{"code": 500, "message": err.Error()}})
			}
			return c.JSON(http.StatusOK, answer)
		})
	}
	e.POST("/*", func(c echo.Context) error {
		form, err := c.FormParams()
		if err != nil {
			return c.JSON(http.StatusOK, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		}
		var banner struct {
			Text      string `json:"text"`
			BgColor   string `json:"bgColor"`
			FontColor string `json:"fontColor"`
			Enabled   bool   `json:"enabled"`
		}
		if err := json.Unmarshal([]byte(form.Get("informationalBanner")), &banner); err != nil {
			return c.JSON(http.StatusOK, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		}
		if store != nil {
			if err := store.Write(c.Request().Context(), form.Get("token"), form.Get("informationalBanner")); err != nil {
				return c.JSON(http.StatusOK, map[string]any{"error": map[string]any{"code": 500, "message": err.Error()}})
			}
		}
		return c.JSON(http.StatusOK, map[string]bool{"success": true})
	})
	return e
}

// SettingsForm is the settings/update form of the benchmarks and of the load
// run, sent alike to portald and to the floor: an informational banner whose
// text carries n, so that successive writes differ.
func SettingsForm(token string, n int) url.Values {
	return url.Values{
		"f":                   {"json"},
		"token":               {token},
		"informationalBanner": {fmt.Sprintf(bannerBefore+"%d"+bannerAfter, n)},
	}
}

// The banner of SettingsForm around its n.
const (
	bannerBefore = `{"text":"Maintenance window `
	bannerAfter  = `","bgColor":"#003366","fontColor":"white","enabled":true}`
)

// AppendSettingsBody appends SettingsForm(token, n) URL-encoded to dst,
// without the maps and strings of url.Values: what a benchmark counts is
// then what the server spends, not what making the request costs.
func AppendSettingsBody(dst []byte, token string, n int) []byte {
	dst = append(dst, "f=json&token="...)
	dst = append(dst, url.QueryEscape(token)...)
	dst = append(dst, "&informationalBanner="...)
	dst = append(dst, escapedBannerBefore...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, escapedBannerAfter...)
}

var escapedBannerBefore, escapedBannerAfter = url.QueryEscape(bannerBefore), url.QueryEscape(bannerAfter)
