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

// RESTVersions reads getRoot's x-rest-versions: each release the contract
// lists, such as 11.5, with its REST API's version, such as 2025.1. The
// server answers by it and the conformance suite detects by it.
func RESTVersions(doc *openapi3.T) (map[string]string, error) {
	root := doc.Paths.Value("/")
	if root == nil || root.Get == nil {
		return nil, fmt.Errorf("openapi.yaml: no GET /")
	}
	table, _ := root.Get.Extensions["x-rest-versions"].(map[string]any)
	if len(table) == 0 {
		return nil, fmt.Errorf("openapi.yaml: GET / has no x-rest-versions")
	}
	out := make(map[string]string, len(table))
	for release, r := range table {
		rest, isText := r.(string)
		if !isText {
			return nil, fmt.Errorf("openapi.yaml: x-rest-versions: %q: %v: want release: REST version", release, r)
		}
		out[release] = rest
	}
	return out, nil
}
