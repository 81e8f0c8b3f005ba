package portalapi_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
)

// walkSchemas calls visit on every schema reachable from doc, each once.
func walkSchemas(doc *openapi3.T, visit func(at string, s *openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(at string, r *openapi3.SchemaRef)
	walk = func(at string, r *openapi3.SchemaRef) {
		if r == nil || r.Value == nil || seen[r.Value] {
			return
		}
		s := r.Value
		seen[s] = true
		visit(at, s)
		for name, p := range s.Properties {
			walk(at+"."+name, p)
		}
		walk(at+"[]", s.Items)
		walk(at+".*", s.AdditionalProperties.Schema)
		walk(at+"!", s.Not)
		for _, subs := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, sub := range subs {
				walk(at, sub)
			}
		}
	}
	for name, r := range doc.Components.Schemas {
		walk(name, r)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				walk(method+" "+path+" "+p.Value.Name, p.Value.Schema)
			}
			if op.RequestBody != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(method+" "+path+" body", mt.Schema)
				}
			}
			for code, resp := range op.Responses.Map() {
				for _, mt := range resp.Value.Content {
					walk(method+" "+path+" "+code, mt.Schema)
				}
			}
		}
	}
}

// What standard tools (Spectral, Redocly, ogen, Dredd, Prism, Ajv) need of
// the document, beyond what their linters check.
func TestSpecForStandardTools(t *testing.T) {
	doc := mustLoad(t)
	walkSchemas(doc, func(at string, s *openapi3.Schema) {
		// OpenAPI 3.0.3: nullable widens the type beside it, nothing else.
		if s.Nullable && (s.Type == nil || len(s.Type.Slice()) == 0 || len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0) {
			t.Errorf("%s: nullable without a type, or beside allOf/oneOf/anyOf: standard validators refuse null there", at)
		}
		// ogen cannot generate a oneOf or anyOf of required-only branches.
		for _, subs := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
			for _, sub := range subs {
				if v := sub.Value; sub.Ref == "" && v != nil && len(v.Required) > 0 && len(v.Properties) == 0 && v.Type == nil {
					t.Errorf("%s: a oneOf/anyOf branch that only lists required properties", at)
				}
			}
		}
		// ogen cannot generate additionalProperties: true beside properties.
		if len(s.Properties) > 0 && s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has {
			t.Errorf("%s: additionalProperties: true beside properties", at)
		}
	})
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				if p.Value.In == "path" && p.Value.Example == nil && len(p.Value.Examples) == 0 {
					t.Errorf("%s %s: path parameter %s has no example", method, path, p.Value.Name)
				}
			}
			for _, code := range []string{"200", "404", "413"} {
				if op.Responses.Value(code) == nil {
					t.Errorf("%s %s: no %s answer", method, path, code)
				}
			}
		}
	}
}

// A flow collection ([...] or {...}) holding a plain scalar with a colon
// (portal:admin:x, https://...) is valid YAML 1.2 that older parsers (Dredd's,
// among others) refuse: such scalars are quoted.
func TestSpecYAMLForOldParsers(t *testing.T) {
	quoted := regexp.MustCompile(`'(?:[^']|'')*'|"(?:[^"\\]|\\.)*"`)
	flow := regexp.MustCompile(`[\[{].*[\]}]\s*$`)
	separators := regexp.MustCompile(`[\[\]{},]`)
	block := -1 // the indentation of the key opening a literal block, -1 outside one
	checked := 0
	for i, line := range strings.Split(string(portalapi.YAML), "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		trimmed := strings.TrimSpace(line)
		if block >= 0 && (trimmed == "" || indent > block) {
			continue // text of a description or a code sample, not YAML
		}
		block = -1
		if strings.HasSuffix(trimmed, "|") || strings.HasSuffix(trimmed, "|-") {
			block = indent
			continue
		}
		m := flow.FindString(line)
		if m == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		checked++
		for _, item := range separators.Split(quoted.ReplaceAllString(m, "''"), -1) {
			item = strings.TrimSuffix(strings.TrimSpace(item), ":") // a key whose value is a flow collection
			if _, v, ok := strings.Cut(item, ": "); ok {
				item = strings.TrimSpace(v)
			}
			if strings.Contains(item, ":") {
				t.Errorf("openapi.yaml:%d: quote %q inside a flow collection", i+1, item)
			}
		}
	}
	if checked < 50 {
		t.Errorf("%d flow collections checked: the check lost its way", checked)
	}
}

// Where null is valid the schema is written out in full (nullable beside a
// type), so the nullable copies must say what the schema they copy says.
func TestNullableCopiesMatch(t *testing.T) {
	doc := mustLoad(t)
	url := doc.Components.Schemas["HTTPURL"].Value
	props := doc.Components.Schemas["PortalConfigProperties"].Value.Properties
	for _, name := range []string{"extentService", "gcsBasemapService", "surveyUrl", "iotViewerUrl"} {
		p := props[name].Value
		if !p.Nullable || p.Format != url.Format || p.Pattern != url.Pattern || *p.MaxLength != *url.MaxLength || !p.Type.Is("string") {
			t.Errorf("portalConfigProperties.%s does not copy HTTPURL (nullable): %+v", name, p)
		}
	}
	folder := doc.Components.Schemas["Folder"].Value
	cur := doc.Components.Schemas["UserContentResponse"].Value.Properties["currentFolder"].Value
	if !cur.Nullable || cur.Extensions["x-go-type"] != "Folder" || strings.Join(cur.Required, ",") != strings.Join(folder.Required, ",") ||
		len(cur.Properties) != len(folder.Properties) || *cur.AdditionalProperties.Has != *folder.AdditionalProperties.Has {
		t.Errorf("currentFolder does not copy Folder (nullable)")
	}
	for name, p := range folder.Properties {
		c := cur.Properties[name]
		if c == nil || !c.Value.Type.Is(p.Value.Type.Slice()[0]) || c.Value.Format != p.Value.Format {
			t.Errorf("currentFolder.%s differs from Folder.%s", name, name)
		}
	}
}
