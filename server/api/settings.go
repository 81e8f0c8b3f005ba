package api

// The settings operations: settings/update and the settings read (rules: server/settings.go).

import (
	"context"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

// UpdateSettings takes the notices and the banner as the transport decoded
// and validated them (requestState.fields), not parsed again from their text.
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
	return gen.UpdateSettings200JSONResponse(succeeded), nil
}

func (h *handlers) GetSettings(ctx context.Context, r gen.GetSettingsRequestObject) (gen.GetSettingsResponseObject, error) {
	s, err := h.svc.Settings(ctx, principal(ctx), r.PortalId)
	if err != nil {
		return nil, err
	}
	out := gen.GetSettings200JSONResponse{AnonymousAccessNotice: toGenNotice(s.AnonymousAccessNotice),
		AuthenticatedAccessNotice: toGenNotice(s.AuthenticatedAccessNotice), InformationalBanner: toGenBanner(s.InformationalBanner)}
	if s.PortalConfig != nil { // a pointer, so an empty set reads {}
		props := make(gen.PortalConfigProperties, len(s.PortalConfig))
		for k, v := range s.PortalConfig {
			props[k] = v // as stored: a json.RawMessage marshals as it is
		}
		out.PortalConfigProperties = &props
	}
	return out, nil
}

func toGenNotice(n *server.AccessNotice) *gen.AccessNotice {
	if n == nil {
		return nil
	}
	return &gen.AccessNotice{Title: n.Title, Text: n.Text, Buttons: (*gen.AccessNoticeButtons)(n.Buttons), Enabled: n.Enabled}
}

func toGenBanner(b *server.Banner) *gen.InformationalBanner {
	if b == nil {
		return nil
	}
	return &gen.InformationalBanner{Text: b.Text, BgColor: b.BgColor, FontColor: b.FontColor, Enabled: b.Enabled}
}
