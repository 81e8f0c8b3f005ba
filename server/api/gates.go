package api

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/server"
)

// gatesFromSpec reads x-introduced-in and x-deployments of the settings
// form's properties (and the properties of portalConfigProperties) from the
// contract, so that openapi.yaml is the one table of versions.
func gatesFromSpec(doc *openapi3.T, v server.Version, deployment string) (server.Gates, error) {
	g := server.Gates{Version: v, Deployment: deployment, Requirements: map[string]server.Requirement{}}
	form := doc.Components.Schemas["UpdateSettingsForm"]
	props := doc.Components.Schemas["PortalConfigProperties"]
	if form == nil || props == nil {
		return g, fmt.Errorf("api: openapi.yaml lacks UpdateSettingsForm or PortalConfigProperties")
	}
	add := func(path string, ext map[string]any) error {
		r, ok, err := requirement(ext)
		if err != nil {
			return fmt.Errorf("api: openapi.yaml %s: %w", path, err)
		}
		if ok {
			g.Requirements[path] = r
		}
		return nil
	}
	for name, p := range form.Value.Properties {
		if err := add(name, p.Value.Extensions); err != nil {
			return g, err
		}
	}
	for name, p := range props.Value.Properties {
		if err := add("portalConfigProperties."+name, p.Value.Extensions); err != nil {
			return g, err
		}
	}
	rest, err := restVersion(doc, v)
	g.RESTVersion = rest
	return g, err
}

// restVersion reads the REST API's version of release v from getRoot's
// x-rest-versions: v's own, else that of the nearest release before v,
// else (v older than every release listed) the first release's.
func restVersion(doc *openapi3.T, v server.Version) (string, error) {
	table, err := portalapi.RESTVersions(doc)
	if err != nil {
		return "", fmt.Errorf("api: %w", err)
	}
	var best, first server.Version
	var bestREST, firstREST string
	for release, rest := range table {
		rv, err := server.ParseVersion(release)
		if err != nil {
			return "", fmt.Errorf("api: openapi.yaml x-rest-versions: %q: %w", release, err)
		}
		if firstREST == "" || rv.Less(first) {
			first, firstREST = rv, rest
		}
		if !v.Less(rv) && (bestREST == "" || best.Less(rv)) {
			best, bestREST = rv, rest
		}
	}
	if bestREST == "" {
		return firstREST, nil
	}
	return bestREST, nil
}

func requirement(ext map[string]any) (server.Requirement, bool, error) {
	var r server.Requirement
	s, hasVersion := ext["x-introduced-in"].(string)
	if hasVersion {
		v, err := server.ParseVersion(s)
		if err != nil {
			return r, false, err
		}
		r.IntroducedIn = v
	}
	deps, hasDeps := ext["x-deployments"].([]any)
	for _, d := range deps {
		r.Deployments = append(r.Deployments, fmt.Sprint(d))
	}
	return r, hasVersion || hasDeps, nil
}
