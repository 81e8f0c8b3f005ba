// Package portalapi embeds openapi.yaml, the contract of the organization
// portal API, and loads it for the server, the client and the conformance
// suite, so that all of them read one document.
package portalapi

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"

	"github.com/getkin/kin-openapi/openapi3"
)

// YAML is openapi.yaml as committed.
//
//go:embed openapi.yaml
var YAML []byte

// Load parses and validates the contract, examples included.
func Load() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(YAML)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return doc, nil
}

// LoadFor loads the contract with its servers replaced by baseURL, so that a
// router built from it matches requests sent to that base (an absolute URL
// such as http://host/portal/sharing/rest, or a path such as /sharing/rest).
func LoadFor(baseURL string) (*openapi3.T, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	if _, err := url.Parse(baseURL); err != nil {
		return nil, fmt.Errorf("base URL %q: %w", baseURL, err)
	}
	doc.Servers = openapi3.Servers{{URL: baseURL}}
	return doc, nil
}
