package api

import (
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/orgportal/portal-api/server"
)

// categoryTitlePattern is the one pattern of CategoryNode.title the rules
// implement (no '/', not empty); another one in the contract stops start-up.
const categoryTitlePattern = `^[^/]+$`

// limitsFromSpec reads the figures and lists of the contract that the rules
// enforce, so that openapi.yaml is the one place each is decided. A missing
// or malformed one is an error: the server does not start on a contract it
// cannot follow.
func limitsFromSpec(doc *openapi3.T) (server.Limits, error) {
	r := specReader{doc: doc}
	schema := r.schema("MemberCategorySchema")
	node := r.schema("CategoryNode")
	notice := r.schema("AccessNotice")
	banner := r.schema("InformationalBanner")
	hosts := r.prop(r.schema("PortalConfigProperties"), "httpsDomains")
	config := r.schema("PortalConfigProperties")
	var hostItem *openapi3.Schema
	if hosts != nil && hosts.Items != nil {
		hostItem = hosts.Items.Value
	}
	l := server.Limits{
		CategoryMaxDepth:       r.intExt(schema, "MemberCategorySchema", "x-max-depth"),
		CategoryMaxNodes:       r.intExt(schema, "MemberCategorySchema", "x-max-nodes"),
		CategoryMinNodes:       r.intExt(schema, "MemberCategorySchema", "x-min-nodes"),
		CategoryTitleMaxLength: r.maxLength(r.prop(node, "title"), "CategoryNode.title"),
		MemberMaxCategories:    r.intExt(r.schema("CategoryPaths"), "CategoryPaths", "x-max-per-member"),
		BatchMaxIDs:            r.intExt(r.schema("ItemIDList"), "ItemIDList", "x-max-ids"),
		NoticeRequired:         r.strings(notice, "AccessNotice", "x-required-when-enabled"),
		BannerRequired:         r.strings(banner, "InformationalBanner", "x-required-when-enabled"),
		NoticeButtons:          r.enum(r.prop(notice, "buttons"), "AccessNotice.buttons"),
		FooterLinkTypes:        r.enum(r.prop(r.schema("FooterMailLink"), "type"), "FooterMailLink.type"),
		HostNameMaxLength:      r.maxLength(hostItem, "PortalConfigProperties.httpsDomains.items"),
		PortalConfigMaxKeys:    r.intExt(config, "PortalConfigProperties", "x-max-stored-keys"),
		PortalConfigMaxBytes:   r.intExt(config, "PortalConfigProperties", "x-max-stored-bytes"),
	}
	if hostItem != nil {
		var err error
		if l.HostName, err = regexp.Compile(hostItem.Pattern); err != nil || hostItem.Pattern == "" {
			r.fail("PortalConfigProperties.httpsDomains.items: pattern %q does not compile", hostItem.Pattern)
		}
	}
	if exp := r.prop(r.schema("GenerateTokenForm"), "expiration"); exp != nil {
		// Clamped to, not refused past (x-clamped-to), as the portal does.
		l.TokenMaxExpiration = time.Duration(r.intExt(exp, "GenerateTokenForm.expiration", "x-clamped-to")) * time.Minute
	}
	if title := r.prop(node, "title"); title != nil && title.Pattern != categoryTitlePattern {
		r.fail("CategoryNode.title: pattern %q; the rules implement %q", title.Pattern, categoryTitlePattern)
	}
	if l.CategoryMaxDepth != server.TooDeepMaxDepth {
		r.fail("MemberCategorySchema: x-max-depth %d; the answer to a document too deep to parse names %d", l.CategoryMaxDepth, server.TooDeepMaxDepth)
	}
	if r.err != nil {
		return server.Limits{}, r.err
	}
	leaveTreeRulesToTheOperation(schema, node)
	return l, nil
}

// leaveTreeRulesToTheOperation relaxes, for the request validator, the
// constraints of the member category schema that the operation itself
// judges: the tree limits come first and answer ORG_1132 (a 4-level tree is
// ORG_1132 even when one of its titles is also empty), and an absent, null or
// empty category array is ORG_1132 too (api.md). Left in the validator,
// `required`, the non-null array and the title's length and pattern would
// refuse those documents with a plain 400 before the rules see them. The
// rules read the same figures through Limits.
func leaveTreeRulesToTheOperation(schema, node *openapi3.Schema) {
	schema.Required = nil
	if arr := schema.Properties["memberCategorySchema"]; arr != nil && arr.Value != nil {
		arr.Value.Nullable = true
	}
	if title := node.Properties["title"]; title != nil && title.Value != nil {
		title.Value.MinLength, title.Value.MaxLength, title.Value.Pattern = 0, nil, ""
	}
}

// specReader reads components of the contract, keeping the first problem.
type specReader struct {
	doc *openapi3.T
	err error
}

func (r *specReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("api: openapi.yaml "+format, args...)
	}
}

func (r *specReader) schema(name string) *openapi3.Schema {
	ref := r.doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		r.fail("lacks the schema %s", name)
		return nil
	}
	return ref.Value
}

func (r *specReader) prop(s *openapi3.Schema, name string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	p := s.Properties[name]
	if p == nil || p.Value == nil {
		r.fail("lacks the property %s", name)
		return nil
	}
	return p.Value
}

func (r *specReader) intExt(s *openapi3.Schema, where, ext string) int {
	if s == nil {
		return 0
	}
	v, ok := s.Extensions[ext].(float64)
	if !ok || v < 0 || v != float64(int(v)) {
		r.fail("%s: %s is missing or not a whole number", where, ext)
		return 0
	}
	return int(v)
}

func (r *specReader) strings(s *openapi3.Schema, where, ext string) []string {
	if s == nil {
		return nil
	}
	list, ok := s.Extensions[ext].([]any)
	if !ok || len(list) == 0 {
		r.fail("%s: %s is missing or not a list", where, ext)
		return nil
	}
	return r.texts(list, where+" "+ext)
}

func (r *specReader) enum(s *openapi3.Schema, where string) []string {
	if s == nil {
		return nil
	}
	if len(s.Enum) == 0 {
		r.fail("%s: no enum", where)
	}
	return r.texts(s.Enum, where)
}

func (r *specReader) texts(list []any, where string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			r.fail("%s: %v is not a string", where, v)
		}
		out = append(out, s)
	}
	return out
}

func (r *specReader) maxLength(s *openapi3.Schema, where string) int {
	if s == nil {
		return 0
	}
	if s.MaxLength == nil {
		r.fail("%s: no maxLength", where)
		return 0
	}
	return int(*s.MaxLength)
}

// withClientAddr puts the client's IP on the context of a generateToken
// request (the only operation it is registered for), by which the rules count
// failed sign-ins. It is the connection's peer: headers such
// as X-Forwarded-For are the client's to write, so they are not trusted.
func (s *srv) withClientAddr(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		c.SetRequest(r.WithContext(server.WithClientAddr(r.Context(), s.clientIP(r))))
		return next(c)
	}
}

// clientIP is the address of the client that sent r (ClientIP).
func (s *srv) clientIP(r *http.Request) string { return ClientIP(r, s.cfg.TrustedProxies) }
