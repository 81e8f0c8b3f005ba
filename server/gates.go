package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Version is a portal version such as 11.5.
type Version struct{ Major, Minor int }

// ParseVersion parses "major.minor".
func ParseVersion(s string) (Version, error) {
	maj, min, ok := strings.Cut(strings.TrimSpace(s), ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || a < 0 || b < 0 {
		return Version{}, fmt.Errorf("version %q: want major.minor, such as 11.5", s)
	}
	return Version{a, b}, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	return v.Major < w.Major || (v.Major == w.Major && v.Minor < w.Minor)
}

// Deployments the server can emulate.
const (
	DeploymentEnterprise = "enterprise"
	DeploymentOnline     = "online"
)

// Requirement is where something exists: from a version on, in some
// deployments (none listed: all).
type Requirement struct {
	IntroducedIn Version
	Deployments  []string
}

// Gates hold the emulated deployment and version, and the requirements of
// versioned things, keyed by a dotted path such as "portalConfigProperties"
// or "portalConfigProperties.iotViewerUrl". The transport fills them from
// openapi.yaml's x-introduced-in and x-deployments, so the contract is the
// only table of versions.
type Gates struct {
	Version      Version
	Deployment   string
	Requirements map[string]Requirement
	// RESTVersion is the REST API's version of the emulated release
	// (getRoot's x-rest-versions).
	RESTVersion string
	// Limits are the contract's figures the rules enforce.
	Limits Limits
}

// PortalName is the portal product's name (portals/self's portalName, the
// sign-in page's title).
func (g Gates) PortalName() string { return portalName(g.Deployment == DeploymentOnline) }

func portalName(online bool) string {
	if online {
		return "ArcGIS Online"
	}
	return "ArcGIS Enterprise"
}

// Check returns "" when path exists on the emulated portal, else the reason.
func (g Gates) Check(path string) string {
	r, ok := g.Requirements[path]
	if !ok {
		return ""
	}
	if len(r.Deployments) > 0 && !slices.Contains(r.Deployments, g.Deployment) {
		return fmt.Sprintf("%s: not available on %s deployments (only %s)", path, g.Deployment, strings.Join(r.Deployments, ", "))
	}
	if g.Version.Less(r.IntroducedIn) {
		return fmt.Sprintf("%s: requires version %s; this portal is %s", path, r.IntroducedIn, g.Version)
	}
	return ""
}
