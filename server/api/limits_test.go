package api

import (
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/server"
)

// TestLimitsFollowTheContract: every limit the rules enforce is the figure
// in openapi.yaml, a changed figure changes the limit, and a contract the
// rules cannot follow stops start-up.
func TestLimitsFollowTheContract(t *testing.T) {
	load := func() *specReader {
		doc, err := portalapi.Load()
		if err != nil {
			t.Fatal(err)
		}
		return &specReader{doc: doc}
	}
	l, err := limitsFromSpec(load().doc)
	if err != nil {
		t.Fatal(err)
	}
	r := load() // as published: limitsFromSpec relaxes its document for the validator
	sc := func(name string) *openapi3.Schema { return r.doc.Components.Schemas[name].Value }
	ext := func(schema, name string) any { return sc(schema).Extensions[name] }
	list := func(v any) string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return strings.Join(out, ",")
	}
	hosts := sc("PortalConfigProperties").Properties["httpsDomains"].Value.Items.Value
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"x-max-depth", float64(l.CategoryMaxDepth), ext("MemberCategorySchema", "x-max-depth")},
		{"x-max-nodes", float64(l.CategoryMaxNodes), ext("MemberCategorySchema", "x-max-nodes")},
		{"x-min-nodes", float64(l.CategoryMinNodes), ext("MemberCategorySchema", "x-min-nodes")},
		{"x-max-per-member", float64(l.MemberMaxCategories), ext("CategoryPaths", "x-max-per-member")},
		{"x-max-ids", float64(l.BatchMaxIDs), ext("ItemIDList", "x-max-ids")},
		{"AccessNotice x-required-when-enabled", strings.Join(l.NoticeRequired, ","), list(ext("AccessNotice", "x-required-when-enabled"))},
		{"InformationalBanner x-required-when-enabled", strings.Join(l.BannerRequired, ","), list(ext("InformationalBanner", "x-required-when-enabled"))},
		{"buttons enum", strings.Join(l.NoticeButtons, ","), list(sc("AccessNotice").Properties["buttons"].Value.Enum)},
		{"footer link types", strings.Join(l.FooterLinkTypes, ","), list(sc("FooterMailLink").Properties["type"].Value.Enum)},
		{"title maxLength", uint64(l.CategoryTitleMaxLength), *sc("CategoryNode").Properties["title"].Value.MaxLength},
		{"host name maxLength", uint64(l.HostNameMaxLength), *hosts.MaxLength},
		{"host name pattern", l.HostName.String(), hosts.Pattern},
		{"token expiration", l.TokenMaxExpiration, time.Duration(sc("GenerateTokenForm").Properties["expiration"].Value.Extensions["x-clamped-to"].(float64)) * time.Minute},
		{"x-max-stored-keys", float64(l.PortalConfigMaxKeys), ext("PortalConfigProperties", "x-max-stored-keys")},
		{"x-max-stored-bytes", float64(l.PortalConfigMaxBytes), ext("PortalConfigProperties", "x-max-stored-bytes")},
	} {
		if c.got != c.want {
			t.Errorf("%s: the rules use %v, the contract says %v", c.what, c.got, c.want)
		}
	}
	// The page a read gets when it asks for none is the parameters' defaults.
	params := r.doc.Components.Parameters
	if start, num := params["Start"].Value.Schema.Value.Default, params["Num"].Value.Schema.Value.Default; start != float64(server.DefaultPage.Start) || num != float64(server.DefaultPage.Num) {
		t.Errorf("server.DefaultPage is %+v; the contract's defaults are start %v, num %v", server.DefaultPage, start, num)
	}
	if !l.HostName.MatchString("maps.example.org") || l.HostName.MatchString("-bad-.org") {
		t.Errorf("host name pattern %s", l.HostName)
	}

	r = load()
	s := r.doc.Components.Schemas
	s["MemberCategorySchema"].Value.Extensions["x-max-nodes"] = 7.0
	s["ItemIDList"].Value.Extensions["x-max-ids"] = 3.0
	s["PortalConfigProperties"].Value.Extensions["x-max-stored-keys"] = 9.0
	if l, err = limitsFromSpec(r.doc); err != nil || l.CategoryMaxNodes != 7 || l.BatchMaxIDs != 3 || l.PortalConfigMaxKeys != 9 {
		t.Errorf("edited contract: %d nodes, %d ids, %d keys, %v; want 7, 3, 9", l.CategoryMaxNodes, l.BatchMaxIDs, l.PortalConfigMaxKeys, err)
	}

	for name, edit := range map[string]func(*specReader){
		"no x-max-ids": func(r *specReader) { delete(r.doc.Components.Schemas["ItemIDList"].Value.Extensions, "x-max-ids") },
		"fractional x-max-nodes": func(r *specReader) {
			r.doc.Components.Schemas["MemberCategorySchema"].Value.Extensions["x-max-nodes"] = 2.5
		},
		"another title pattern": func(r *specReader) {
			r.doc.Components.Schemas["CategoryNode"].Value.Properties["title"].Value.Pattern = "^[^|]+$"
		},
		"x-max-depth other than the too-deep answer's": func(r *specReader) {
			r.doc.Components.Schemas["MemberCategorySchema"].Value.Extensions["x-max-depth"] = 4.0
		},
		"no buttons enum": func(r *specReader) {
			r.doc.Components.Schemas["AccessNotice"].Value.Properties["buttons"].Value.Enum = nil
		},
	} {
		r := load()
		edit(r)
		if _, err := limitsFromSpec(r.doc); err == nil {
			t.Errorf("%s: the server would start", name)
		}
	}
}
