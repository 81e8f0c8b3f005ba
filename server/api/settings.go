package api

// The settings operations: settings/update and the settings read (rules: server/settings.go).

import (
	"context"
	"encoding/json"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

// UpdateSettings takes the notices and the banner as the transport decoded
// and validated them (call.fields), not parsed again from their text.
func (h *handlers) UpdateSettings(ctx context.Context, r gen.UpdateSettingsRequestObject) (gen.UpdateSettingsResponseObject, error) {
	b := r.Body
	u := server.SettingsUpdate{PortalConfigProperties: raw(b.PortalConfigProperties), ClearEmptyFields: b.ClearEmptyFields != nil && *b.ClearEmptyFields}
	var fields map[string]any
	if rs := stateOf(ctx); rs != nil {
		fields = rs.fields
	}
	var err error
	if u.AnonymousAccessNotice, err = decodedNotice("anonymousAccessNotice", fields); err != nil {
		return nil, err
	}
	if u.AuthenticatedAccessNotice, err = decodedNotice("authenticatedAccessNotice", fields); err != nil {
		return nil, err
	}
	if u.InformationalBanner, err = decodedBanner(fields); err != nil {
		return nil, err
	}
	if err := h.svc.UpdateSettings(ctx, principal(ctx), r.PortalId, u); err != nil {
		return nil, err
	}
	return succeeded, nil
}

func (h *handlers) GetSettings(ctx context.Context, r gen.GetSettingsRequestObject) (gen.GetSettingsResponseObject, error) {
	s, err := h.svc.Settings(ctx, principal(ctx), r.PortalId)
	if err != nil {
		return nil, err
	}
	out := settingsAnswer{AnonymousAccessNotice: s.AnonymousAccessNotice, AuthenticatedAccessNotice: s.AuthenticatedAccessNotice, InformationalBanner: s.InformationalBanner}
	if s.PortalConfig != nil {
		out.PortalConfigProperties = &s.PortalConfig
	}
	return exact{out}, nil
}

// settingsAnswer is the settings read as stored: the generated type would
// drop the advanced configuration properties whose names the contract does
// not list, which the read must return.
type settingsAnswer struct {
	AnonymousAccessNotice     *server.AccessNotice        `json:"anonymousAccessNotice,omitempty"`
	AuthenticatedAccessNotice *server.AccessNotice        `json:"authenticatedAccessNotice,omitempty"`
	InformationalBanner       *server.Banner              `json:"informationalBanner,omitempty"`
	PortalConfigProperties    *map[string]json.RawMessage `json:"portalConfigProperties,omitempty"` // a pointer, so an empty set reads {}
}
