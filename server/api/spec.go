package api

import (
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
)

// specs holds the contract loaded for each API base. Loading and validating
// openapi.yaml takes most of an API's start-up, and tests start an API per
// test; the document is only read once loaded, so APIs on one base share
// it.
var specs sync.Map // base -> *specOnce

type specOnce struct {
	once sync.Once
	doc  *openapi3.T
	err  error
}

func loadSpec(base string) (*openapi3.T, error) {
	v, _ := specs.LoadOrStore(base, &specOnce{})
	s := v.(*specOnce)
	s.once.Do(func() { s.doc, s.err = portalapi.LoadFor(base) })
	return s.doc, s.err
}
