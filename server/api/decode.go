package api

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/orgportal/portal-api/server"
)

var registerOnce sync.Once

// RegisterFormDecoder installs, once per process, the request body decoder
// that lets kin-openapi validate the portal's forms: fields whose encoding is
// application/json are parsed as JSON, array fields as comma-separated lists
// (or JSON arrays), booleans and numbers from their text. kin-openapi's own
// decoder rejects every form holding a JSON-encoded object field. The
// registry is process-wide, hence the once.
func RegisterFormDecoder() {
	registerOnce.Do(func() {
		openapi3filter.RegisterBodyDecoder("application/x-www-form-urlencoded", decodeForm)
	})
}

func decodeForm(body io.Reader, _ http.Header, schema *openapi3.SchemaRef, encFn openapi3filter.EncodingFn) (any, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	values, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, fmt.Errorf("the form body is not URL-encoded: %w", err)
	}
	out := make(map[string]any, len(values))
	for name, vs := range values {
		if len(vs) > 1 {
			return nil, fmt.Errorf("%s: given %d times; give a parameter once", name, len(vs))
		}
		if err := exploded(name, schema); err != nil {
			return nil, err
		}
		var prop *openapi3.Schema
		if schema != nil && schema.Value != nil {
			if p := schema.Value.Properties[name]; p != nil {
				prop = p.Value
			}
		}
		var enc *openapi3.Encoding
		if encFn != nil {
			enc = encFn(name)
		}
		v, err := decodeField(vs[0], prop, enc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// decodeField turns one form value into the JSON value its schema describes.
// A value that does not parse as the declared scalar type is kept as a
// string, so the validator reports the type mismatch with the field's path.
func decodeField(s string, prop *openapi3.Schema, enc *openapi3.Encoding) (any, error) {
	if enc != nil && strings.HasPrefix(enc.ContentType, "application/json") {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			if strings.Contains(err.Error(), "exceeded max depth") && maxDepth(prop) > 0 {
				// Too deep for the JSON parser (10,000 levels), so far too deep
				// for a tree whose depth the contract limits: the limit's own error.
				return nil, server.SchemaTooDeep()
			}
			return nil, fmt.Errorf("not a JSON document: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return v, nil
	}
	if prop == nil || prop.Type == nil {
		return s, nil
	}
	switch {
	case prop.Type.Is("array"):
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "[") {
			var arr []any
			if err := json.Unmarshal([]byte(t), &arr); err != nil {
				return nil, fmt.Errorf("not a JSON array: %s", strings.TrimPrefix(err.Error(), "json: "))
			}
			return arr, nil
		}
		arr := []any{}
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				arr = append(arr, part)
			}
		}
		return arr, nil
	case prop.Type.Is("boolean"):
		if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
			return b, nil
		}
	case prop.Type.Is("integer"), prop.Type.Is("number"):
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f, nil
		}
	}
	return s, nil
}

// checkText rejects parameter values that are not text: a NUL byte or
// invalid UTF-8. No id, name or title holds them, and PostgreSQL refuses
// both, so letting them through turns a bad request into a store failure.
func checkText(path map[string]string, params url.Values) error {
	var details []string
	for _, name := range slices.Sorted(maps.Keys(path)) {
		if !isText(path[name]) {
			details = append(details, name+": "+notText)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		if slices.ContainsFunc(params[name], notTextValue) {
			details = append(details, name+": "+notText)
		}
	}
	if len(details) > 0 {
		return server.Invalid(details...)
	}
	return nil
}

const notText = "holds a NUL character or bytes that are not UTF-8"

func isText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

func notTextValue(s string) bool { return !isText(s) }

// exploded rejects informationalBanner[text]=... and items[0]=...: what
// generators that ignore the contract's encoding send for an object or a
// list. Unknown parameters are otherwise ignored, as by the portal, so these
// would be silently dropped and the request would succeed doing nothing.
func exploded(name string, schema *openapi3.SchemaRef) error {
	base, _, found := strings.Cut(name, "[")
	if !found || schema == nil || schema.Value == nil || schema.Value.Properties[base] == nil {
		return nil
	}
	return fmt.Errorf("%s: send %s as one form field (a JSON document, or ids separated by commas), not as %s", name, base, name)
}

// maxDepth is the x-max-depth of a property's schema (through allOf), or 0.
func maxDepth(prop *openapi3.Schema) int {
	if prop == nil {
		return 0
	}
	if d, ok := prop.Extensions["x-max-depth"].(float64); ok {
		return int(d)
	}
	for _, sub := range prop.AllOf {
		if d := maxDepth(sub.Value); d > 0 {
			return d
		}
	}
	return 0
}
