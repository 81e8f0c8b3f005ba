package api

import (
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/server"
)

// specs holds the contract loaded for each API base. Loading and validating
// openapi.yaml takes most of an API's start-up, and tests start an API per
// test; the document is only read once prepared, so APIs on one base share
// it.
var specs sync.Map // base -> *specOnce

type specOnce struct {
	once   sync.Once
	doc    *openapi3.T
	limits server.Limits
	err    error
}

// loadSpec returns the contract for base, prepared for the validator, and
// the limits the rules read from it as published: limitsFromSpec relaxes the
// document it reads, so it runs once, here, before the document is shared.
func loadSpec(base string) (*openapi3.T, server.Limits, error) {
	v, _ := specs.LoadOrStore(base, &specOnce{})
	s := v.(*specOnce)
	s.once.Do(func() {
		if s.doc, s.err = portalapi.LoadFor(base); s.err == nil {
			s.limits, s.err = limitsFromSpec(s.doc)
		}
	})
	return s.doc, s.limits, s.err
}
