package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/wire"
)

// Values of AccessNotice.Buttons.
const (
	// ButtonsAcceptAndDecline: the user accepts or declines the notice.
	ButtonsAcceptAndDecline = "acceptAndDecline"
	// ButtonsOKOnly: the user only acknowledges the notice.
	ButtonsOKOnly = "okOnly"
)

// AccessNotice is a terms-of-service prompt that users answer before they use
// the portal site. An enabled notice needs Title, Text and Buttons.
//
// The zero AccessNotice is sent as {}: with SettingsUpdate.ClearEmptyFields it
// clears the notice. Otherwise empty strings are left out and Enabled is
// always sent.
type AccessNotice struct {
	Title   string `json:"title,omitempty"`
	Text    string `json:"text,omitempty"`
	Buttons string `json:"buttons,omitempty"` // ButtonsAcceptAndDecline or ButtonsOKOnly
	Enabled bool   `json:"enabled"`
}

// MarshalJSON writes the notice as the portal expects it in its form field.
func (n AccessNotice) MarshalJSON() ([]byte, error) {
	if n == (AccessNotice{}) {
		return []byte("{}"), nil
	}
	type plain AccessNotice // without this method
	return json.Marshal(plain(n))
}

// Banner is the informational banner shown at the top of the organization's
// pages, such as a read-only status or a classification level. An enabled
// banner needs Text, BgColor and FontColor; colors are CSS names ("navy") or
// #rgb, #rgba, #rrggbb, #rrggbbaa.
//
// The zero Banner is sent as {}: with SettingsUpdate.ClearEmptyFields it clears
// the banner. Otherwise empty strings are left out and Enabled is always sent.
type Banner struct {
	Text      string `json:"text,omitempty"`
	BgColor   string `json:"bgColor,omitempty"`
	FontColor string `json:"fontColor,omitempty"`
	Enabled   bool   `json:"enabled"`
}

// MarshalJSON writes the banner as the portal expects it in its form field.
func (b Banner) MarshalJSON() ([]byte, error) {
	if b == (Banner{}) {
		return []byte("{}"), nil
	}
	type plain Banner // without this method
	return json.Marshal(plain(b))
}

// SettingsUpdate is a change of organization settings. A nil field leaves
// that setting as it is; a non-nil notice or banner replaces the current one
// wholly.
type SettingsUpdate struct {
	AnonymousAccessNotice     *AccessNotice
	AuthenticatedAccessNotice *AccessNotice
	InformationalBanner       *Banner
	// PortalConfigProperties is merged key by key into the current
	// properties; a key mapped to nil (JSON null) is removed. Self-hosted
	// deployments at 11.0 and later only.
	PortalConfigProperties map[string]any
	// ClearEmptyFields makes a zero notice or banner clear that setting
	// instead of storing it empty.
	ClearEmptyFields bool
}

// Settings are an organization's settings. A setting never set, or cleared,
// is nil.
type Settings struct {
	AnonymousAccessNotice     *AccessNotice
	AuthenticatedAccessNotice *AccessNotice
	InformationalBanner       *Banner
	// PortalConfigProperties holds the advanced portal configuration
	// properties as decoded JSON (numbers are float64). Nil for anonymous
	// callers, who are not shown them.
	PortalConfigProperties map[string]any
}

// UpdateSettings changes the organization's access notices, informational
// banner and advanced portal configuration properties. portalID is the
// organization's id; "" means the caller's own ("self"). Nothing is stored
// when any part of u is invalid. Callers: org_admin, or a role holding
// portal:admin:manageSecurity.
func (c *Client) UpdateSettings(ctx context.Context, portalID string, u SettingsUpdate) error {
	const op = "updateSettings"
	form := gen.UpdateSettingsForm{F: jsonFormat()}
	var err error
	if u.AnonymousAccessNotice != nil {
		form.AnonymousAccessNotice, err = jsonField[gen.AccessNotice](u.AnonymousAccessNotice)
	}
	if err == nil && u.AuthenticatedAccessNotice != nil {
		form.AuthenticatedAccessNotice, err = jsonField[gen.AccessNotice](u.AuthenticatedAccessNotice)
	}
	if err == nil && u.InformationalBanner != nil {
		form.InformationalBanner, err = jsonField[gen.InformationalBanner](u.InformationalBanner)
	}
	if err == nil && u.PortalConfigProperties != nil {
		form.PortalConfigProperties, err = jsonField[gen.PortalConfigProperties](u.PortalConfigProperties)
	}
	if err != nil {
		return wrap(op, err)
	}
	if u.ClearEmptyFields {
		form.ClearEmptyFields = ptr(true)
	}
	var out gen.SuccessResponse
	if err := c.do(ctx, op, func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateSettingsWithFormdataBody(ctx, selfIfEmpty(portalID), form, edit)
	}, &out); err != nil {
		return err
	}
	return succeeded(op, out.Success)
}

// Settings reads the organization's settings. portalID "" means the caller's
// own organization ("self"). Anonymous clients may read them, without the
// portal configuration properties.
func (c *Client) Settings(ctx context.Context, portalID string) (*Settings, error) {
	// Decoded into a type of this package rather than gen.SettingsResponse:
	// the properties stay the JSON the portal sent, unknown keys included.
	var out struct {
		AnonymousAccessNotice     *AccessNotice  `json:"anonymousAccessNotice"`
		AuthenticatedAccessNotice *AccessNotice  `json:"authenticatedAccessNotice"`
		InformationalBanner       *Banner        `json:"informationalBanner"`
		PortalConfigProperties    map[string]any `json:"portalConfigProperties"`
	}
	params := &gen.GetSettingsParams{F: jsonFormat()}
	if err := c.do(ctx, "getSettings", func(ctx context.Context, edit gen.RequestEditorFn) (*http.Response, error) {
		return c.api.GetSettings(ctx, selfIfEmpty(portalID), params, edit)
	}, &out); err != nil {
		return nil, err
	}
	s := Settings(out)
	return &s, nil
}

// jsonField encodes v as the JSON document of one form field of type T.
func jsonField[T any](v any) (*wire.JSON[T], error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("client: encoding %T: %w", v, err)
	}
	j := wire.JSON[T](b)
	return &j, nil
}

// succeeded checks the {"success":true} answer.
func succeeded(op string, success *bool) error {
	if success == nil || !*success {
		return missing(op, `"success":true`)
	}
	return nil
}
