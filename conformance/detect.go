package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
)

// Detection is what a portal says it is: its REST API's version (the root's
// currentVersion) mapped back to a release through getRoot's
// x-rest-versions, and its deployment (portals/self's isPortal).
type Detection struct {
	// RESTVersion is the root's currentVersion, such as 2025.1.
	RESTVersion string
	// Version is the newest release whose REST version is RESTVersion or
	// older, such as 11.5: the release whose example pairs apply.
	Version string
	// Deployment is enterprise (isPortal true) or online.
	Deployment string
	// Newer is set when RESTVersion is newer than every release the
	// contract lists (Version is then the newest listed); Older when it is
	// older than all of them (Version is then the oldest listed).
	Newer, Older bool
}

// String describes d as the conformance command prints it, such as
// "ArcGIS Enterprise 11.5 (REST 2025.1)".
func (d Detection) String() string {
	s := fmt.Sprintf("ArcGIS Enterprise %s (REST %s)", d.Version, d.RESTVersion)
	if d.Deployment == "online" {
		s = fmt.Sprintf("ArcGIS Online (REST %s, checked as release %s)", d.RESTVersion, d.Version)
	}
	switch {
	case d.Newer:
		s += fmt.Sprintf(", newer than every release openapi.yaml lists (%s is the newest)", d.Version)
	case d.Older:
		s += fmt.Sprintf(", older than every release openapi.yaml lists (%s is the oldest)", d.Version)
	}
	return s
}

// Detect asks the portal at target.BaseURL what it is: GET {base}?f=json
// for currentVersion and GET {base}/portals/self for isPortal, sent with
// Target.AdminToken when given, else anonymously. It is what the suite does
// when Target.Version or Target.Deployment is empty.
func Detect(ctx context.Context, target Target) (Detection, error) {
	doc, err := portalapi.Load()
	if err != nil {
		return Detection{}, err
	}
	table, err := restVersions(doc)
	if err != nil {
		return Detection{}, err
	}
	hc := target.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	return detect(ctx, hc, strings.TrimRight(target.BaseURL, "/"), target.AdminToken, table)
}

// release is one row of x-rest-versions.
type release struct {
	version version // the product's release, such as 11.5
	rest    string  // its REST API's version, such as 2025.1
}

// restVersions reads getRoot's x-rest-versions, oldest release first.
func restVersions(doc *openapi3.T) ([]release, error) {
	table, err := portalapi.RESTVersions(doc)
	if err != nil {
		return nil, err
	}
	var out []release
	for rel, rest := range table {
		v, ok := parseVersion(rel)
		if !ok || restKey(rest) == nil {
			return nil, fmt.Errorf("x-rest-versions: %q: %s: want release: REST version", rel, rest)
		}
		out = append(out, release{v, rest})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version.less(out[j].version) })
	return out, nil
}

// restOf is the REST version table lists for release v, if it lists v.
func restOf(table []release, v version) (string, bool) {
	for _, r := range table {
		if r.version == v {
			return r.rest, true
		}
	}
	return "", false
}

// restKey splits a REST version into its numbers (2025.1 -> [2025 1]),
// which compare element by element; nil when it is not numbers and dots.
func restKey(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// restLess reports whether REST version a is older than b.
func restLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// releaseOf maps a REST version back to a release: the newest release
// whose REST version is rest or older; newer than all, the newest; older
// than all, the oldest.
func releaseOf(table []release, rest string) (Detection, error) {
	key := restKey(rest)
	if key == nil {
		return Detection{}, fmt.Errorf("currentVersion %q is no REST API version (numbers and dots, such as 2025.1)", rest)
	}
	d := Detection{RESTVersion: rest}
	found := false
	for _, r := range table {
		if !restLess(key, restKey(r.rest)) {
			d.Version, found = r.version.String(), true
		}
	}
	if !found {
		d.Version, d.Older = table[0].version.String(), true
	}
	if last := table[len(table)-1]; restLess(restKey(last.rest), key) {
		d.Newer = true
	}
	return d, nil
}

// detect reads the root and portals/self of the portal at base with hc.
func detect(ctx context.Context, hc *http.Client, base, token string, table []release) (Detection, error) {
	var root struct {
		CurrentVersion *string `json:"currentVersion"`
	}
	if err := getJSON(ctx, hc, base+"?f=json", "", &root); err != nil {
		return Detection{}, fmt.Errorf("reading the REST API's version: %w", err)
	}
	if root.CurrentVersion == nil {
		return Detection{}, fmt.Errorf("GET %s?f=json: no currentVersion", base)
	}
	d, err := releaseOf(table, *root.CurrentVersion)
	if err != nil {
		return d, fmt.Errorf("GET %s?f=json: %w", base, err)
	}
	var self struct {
		IsPortal *bool `json:"isPortal"`
	}
	if err := getJSON(ctx, hc, base+"/portals/self?f=json", token, &self); err != nil {
		return d, fmt.Errorf("reading the portal resource: %w", err)
	}
	if self.IsPortal == nil {
		return d, fmt.Errorf("GET %s/portals/self: no isPortal", base)
	}
	d.Deployment = "enterprise"
	if !*self.IsPortal {
		d.Deployment = "online"
	}
	return d, nil
}

// getJSON GETs url, with token in the header the portal's Python client
// uses when given, and decodes the answer into out; an error envelope is an
// error.
func getJSON(ctx context.Context, hc *http.Client, url, token string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("X-Esri-Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	var env struct {
		Error *apiError `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("GET %s: HTTP %d, no JSON object: %s", url, resp.StatusCode, clip(raw, 200))
	}
	if env.Error != nil {
		return fmt.Errorf("GET %s: error %s", url, env.Error)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("GET %s: %w: %s", url, err, clip(raw, 200))
	}
	return nil
}
