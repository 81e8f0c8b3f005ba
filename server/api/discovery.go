package api

import (
	"context"
	"strings"
	"time"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

// where returns the request's origin and the portal's address (origin
// and context), as RequestBase gives them, and whether the request came
// over HTTPS (as the proxy in front says, when there is one); empty outside
// a request.
func (h *handlers) where(ctx context.Context) (orig, portal string, tls bool) {
	rs := stateOf(ctx)
	if rs == nil || rs.req == nil {
		return "", "", false
	}
	orig, portal = RequestBase(rs.req, h.context, h.hosts)
	return orig, portal, strings.HasPrefix(orig, "https://")
}

func (h *handlers) GetRoot(ctx context.Context, _ gen.GetRootRequestObject) (gen.GetRootResponseObject, error) {
	g := h.svc.Gates()
	out := gen.GetRoot200JSONResponse{CurrentVersion: ptr(g.RESTVersion)}
	if g.Deployment == server.DeploymentEnterprise && !g.Version.Less(server.Version{Major: 11, Minor: 3}) {
		// From 11.3 on, the root also names the release (the REST API
		// reference, Root).
		out.EnterpriseVersion = ptr(g.Version.String() + ".0")
	}
	return out, nil
}

func (h *handlers) GetInfo(ctx context.Context, _ gen.GetInfoRequestObject) (gen.GetInfoResponseObject, error) {
	_, portal, _ := h.where(ctx)
	out := gen.GetInfo200JSONResponse{OwningSystemUrl: ptr(portal)}
	out.AuthInfo = &struct {
		IsTokenBasedSecurity bool    `json:"isTokenBasedSecurity"`
		TokenServicesUrl     *string `json:"tokenServicesUrl,omitempty"`
	}{IsTokenBasedSecurity: true, TokenServicesUrl: ptr(portal + "/sharing/rest/generateToken")}
	return out, nil
}

func (h *handlers) GetPortal(ctx context.Context, r gen.GetPortalRequestObject) (gen.GetPortalResponseObject, error) {
	v, err := h.svc.Portal(ctx, principal(ctx), r.PortalId)
	if err != nil {
		return nil, err
	}
	_, portal, tls := h.where(ctx)
	out := gen.GetPortal200JSONResponse{Id: ptr(v.ID), Name: ptr(v.Name), PortalName: ptr(v.PortalName()),
		IsPortal: ptr(!v.Online), CurrentVersion: ptr(v.RESTVersion), Access: ptr("public"), AllSSL: ptr(tls),
		SupportsOAuth: ptr(true), PortalHostname: ptr(strings.TrimPrefix(strings.TrimPrefix(portal, "https://"), "http://"))}
	if v.Online {
		out.PortalMode = ptr("multitenant")
		out.UrlKey = ptr(urlKey(v.Name, v.ID))
		out.CustomBaseUrl = ptr("maps.arcgis.com")
	} else {
		out.PortalMode = ptr("singletenant")
	}
	if v.Member {
		out.HasMemberCategorySchema = ptr(v.HasCategorySchema)
		u := toGenUser(*v.User)
		out.User = &u
	}
	if v.App != nil {
		out.AppInfo = &struct {
			AppId      *string   `json:"appId,omitempty"`
			AppOwner   *string   `json:"appOwner,omitempty"`
			OrgId      *string   `json:"orgId,omitempty"`
			Privileges *[]string `json:"privileges,omitempty"`
		}{AppId: ptr(v.App.ClientID), OrgId: ptr(v.App.OrgID), Privileges: ptr([]string{})}
		if v.AppOwner != "" {
			out.AppInfo.AppOwner = ptr(v.AppOwner)
		}
	}
	out.HelperServices = ptr(helperServices())
	out.DefaultExtent = ptr(map[string]any{"type": "extent", "xmin": -17999999.999994524, "ymin": -11999999.999991827,
		"xmax": 17999999.999994524, "ymax": 15999999.999982955, "spatialReference": map[string]any{"wkid": 102100, "latestWkid": 3857}})
	out.AuthorizedCrossOriginDomains = ptr([]string{}) // every origin is allowed (cors.go)
	out.AllowedRedirectUris = ptr([]string{})
	out.MaxTokenExpirationMinutes = ptr(int32(h.svc.Gates().Limits.TokenMaxExpiration / time.Minute))
	return out, nil
}

// helperServices are the utility services a portal without its own
// answers: the hosted ones, as the portal resource documents them. A fresh
// map each call: the answer is the caller's to change.
func helperServices() map[string]any {
	url := func(u string) map[string]any { return map[string]any{"url": u} }
	return map[string]any{
		"geocode": []any{map[string]any{"url": "https://geocode.arcgis.com/arcgis/rest/services/World/GeocodeServer",
			"name": "ArcGIS World Geocoding Service", "northLat": "Ymax", "southLat": "Ymin", "eastLon": "Xmax", "westLon": "Xmin",
			"batch": false, "placefinding": true, "suggest": true, "zoomScale": 10000}},
		"geometry":        url("https://utility.arcgisonline.com/arcgis/rest/services/Geometry/GeometryServer"),
		"printTask":       url("https://utility.arcgisonline.com/arcgis/rest/services/Utilities/PrintingTools/GPServer/Export%20Web%20Map%20Task"),
		"elevation":       url("https://elevation.arcgis.com/arcgis/rest/services/Tools/Elevation/GPServer"),
		"route":           url("https://route.arcgis.com/arcgis/rest/services/World/Route/NAServer/Route_World"),
		"closestFacility": url("https://route.arcgis.com/arcgis/rest/services/World/ClosestFacility/NAServer/ClosestFacility_World"),
		"serviceArea":     url("https://route.arcgis.com/arcgis/rest/services/World/ServiceAreas/NAServer/ServiceArea_World"),
	}
}

// urlKey is a hosted organization's key in its address
// (urlKey.maps.arcgis.com): its name's letters and digits, lower case, or
// its id for a name without any.
func urlKey(name, id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return strings.ToLower(id)
	}
	return b.String()
}

func toGenUser(p server.Profile) gen.User {
	m := toGenMember(p)
	u := gen.User{Id: p.ID, Username: m.Username, FullName: m.FullName, OrgId: m.OrgId, Role: m.Role, RoleId: m.RoleId,
		Privileges: p.Privileges, Categories: m.Categories}
	if !p.Created.IsZero() { // 0 for a user stored before creation times were
		u.Created = p.Created.UnixMilli()
	}
	if u.Privileges == nil {
		u.Privileges = []string{}
	}
	d := userDoc(p)
	u.Email, u.FirstName, u.LastName, u.Description, u.Tags, u.Thumbnail = d.Email, d.FirstName, d.LastName, d.Description, d.Tags, nil
	u.Access, u.Provider, u.Units, u.Culture, u.Region, u.Modified, u.Groups = d.Access, d.Provider, d.Units, d.Culture, d.Region, d.Modified, d.Groups
	return u
}

// userDoc is what a user document carries beyond the member's fields:
// the email (to the user and its organization's administrators), the names,
// the groups its reader may see, and the portal's defaults for what the
// emulator does not keep (no description, tags or thumbnail; profile
// visible to the organization; English units and culture).
func userDoc(p server.Profile) gen.MemberResponse {
	first, last := p.FirstLast()
	groups := make([]gen.Group, len(p.Groups))
	for i, g := range p.Groups {
		groups[i] = toGenGroup(g)
	}
	d := gen.MemberResponse{FirstName: ptr(first), LastName: ptr(last), Description: ptr(""), Tags: &[]string{},
		Access: ptr("org"), Provider: ptr("arcgis"), Units: ptr("english"), Culture: ptr("en"), Region: ptr(""),
		Groups: &groups}
	if p.Full {
		d.Email = ptr(p.Email)
	}
	if !p.Created.IsZero() {
		d.Modified = ptr(p.Created.UnixMilli()) // the emulator keeps no later change of the profile
	}
	return d
}

// memberAnswer is a user resource's answer (community/self,
// community/users/{u}).
func memberAnswer(p server.Profile) gen.MemberResponse {
	u := toGenUser(p)
	d := userDoc(p)
	d.Id, d.Username, d.FullName, d.OrgId, d.Role = &u.Id, &u.Username, u.FullName, &u.OrgId, &u.Role
	d.RoleId, d.Privileges, d.Categories, d.Created = u.RoleId, &u.Privileges, &u.Categories, &u.Created
	return d
}

func (h *handlers) GetSelf(ctx context.Context, _ gen.GetSelfRequestObject) (gen.GetSelfResponseObject, error) {
	p, err := h.svc.Self(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return gen.GetSelf200JSONResponse(memberAnswer(p)), nil
}

func (h *handlers) ListRoles(ctx context.Context, r gen.ListRolesRequestObject) (gen.ListRolesResponseObject, error) {
	l, err := h.svc.Roles(ctx, principal(ctx), r.PortalId, page(r.Params.Start, r.Params.Num))
	if err != nil {
		return nil, err
	}
	roles := make([]gen.Role, len(l.Roles))
	for i, ro := range l.Roles {
		// Custom roles have no name or description of their own here:
		// the id names them.
		roles[i] = gen.Role{Id: ro.ID, Name: ro.ID, Description: ""}
	}
	return gen.ListRoles200JSONResponse{Total: ptr(int32(l.Total)), Start: ptr(int32(l.Start)), Num: ptr(int32(l.Num)),
		NextStart: ptr(int32(l.NextStart)), Roles: &roles}, nil
}
