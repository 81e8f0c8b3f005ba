package api

// generateToken (rules: server/signin.go); the OAuth 2.0 endpoints are in oauth.go.

import (
	"context"
	"time"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

func (h *handlers) GenerateToken(ctx context.Context, r gen.GenerateTokenRequestObject) (gen.GenerateTokenResponseObject, error) {
	_, _, tls := h.where(ctx)
	req := server.TokenRequest{Username: r.Body.Username, Password: r.Body.Password, SSL: tls}
	if b := r.Body; b.Client != nil {
		req.Binding.Client = string(*b.Client)
		if b.Referer != nil {
			req.Binding.Referer = *b.Referer
		}
		if b.Ip != nil {
			req.Binding.IP = *b.Ip
		}
	}
	if r.Body.Expiration != nil {
		req.Expiration = time.Duration(*r.Body.Expiration) * time.Minute
	}
	t, err := h.svc.GenerateToken(ctx, req)
	if err != nil {
		return nil, err
	}
	return gen.GenerateToken200JSONResponse{Token: ptr(t.Token), Expires: ptr(t.Expires.UnixMilli()), Ssl: ptr(t.SSL)}, nil
}
