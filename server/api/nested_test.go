package api_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/orgportal/portal-api/client"
	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
)

// nestProbe is a store that, inside each Update's fn, tries an Update of
// the same context as fn would nest it: refused when the context is a
// request's (server.WithRequest).
type nestProbe struct {
	server.Store
	updates, refused atomic.Int32
}

func (p *nestProbe) Update(ctx context.Context, fn func(tx server.Tx) error) error {
	return p.Store.Update(ctx, func(tx server.Tx) error {
		p.updates.Add(1)
		if err := server.EnterUpdate(ctx); errors.Is(err, server.ErrNestedUpdate) {
			p.refused.Add(1)
		} else {
			server.LeaveUpdate(ctx)
		}
		return fn(tx)
	})
}

// Each API request's context is marked as the request's, so that an Update
// nested in another of the request's would be refused rather than wait for
// ever.
func TestRequestContextRefusesNestedUpdates(t *testing.T) {
	ctx := context.Background()
	probe := &nestProbe{Store: demoStore(t)}
	srv := serveAPI(t, api.Config{Store: probe})
	c, err := client.New(srv.URL+"/sharing/rest", client.WithToken(pt.AdminToken))
	if err != nil {
		t.Fatal(err)
	}
	banner := client.Banner{Text: "Nested", BgColor: "red", FontColor: "white", Enabled: true}
	if err := c.UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{InformationalBanner: &banner}); err != nil {
		t.Fatal(err)
	}
	if n, refused := probe.updates.Load(), probe.refused.Load(); n != 1 || refused != 1 {
		t.Errorf("%d Updates, %d nested ones refused; want 1 and 1", n, refused)
	}
}
