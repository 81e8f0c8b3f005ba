package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// normalize turns any JSON-like value into the shapes encoding/json decodes
// to (map[string]any, []any, float64, string, bool, nil).
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%T: %v>", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return out
}

func jsonEqual(a, b any) bool { return reflect.DeepEqual(normalize(a), normalize(b)) }

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ignoredValue stands for a value x-ignore leaves out of the comparison.
const ignoredValue = "<ignored>"

// ignore replaces, in v, the value at each dotted path by ignoredValue,
// where present; a path through an array applies to each element. The
// field's presence is still compared.
func ignore(v any, paths []string) any {
	for _, p := range paths {
		v = ignorePath(v, strings.Split(p, "."))
	}
	return v
}

func ignorePath(v any, path []string) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = ignorePath(x[i], path)
		}
	case map[string]any:
		if len(path) == 0 {
			return v
		}
		child, ok := x[path[0]]
		if !ok {
			return v
		}
		if len(path) == 1 {
			x[path[0]] = ignoredValue
		} else {
			x[path[0]] = ignorePath(child, path[1:])
		}
	}
	return v
}

// diff lists the differences between want and got, one line each, naming
// the path (results[1].error.code) and both values.
func diff(want, got any) []string { return compare(want, got, false) }

// subsetDiff is diff for a response example marked x-subset: the answer
// may hold fields the example does not, in any object at any depth; the
// example's fields must be there with its values, and arrays still have
// the example's elements, in order, each compared the same way.
func subsetDiff(want, got any) []string { return compare(want, got, true) }

func compare(want, got any, subset bool) []string {
	var out []string
	diffAt("", normalize(want), normalize(got), subset, &out)
	return out
}

func diffAt(path string, want, got any, subset bool, out *[]string) {
	at := path
	if at == "" {
		at = "(the whole body)"
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", at, short(want), short(got)))
			return
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := k
			if path != "" {
				p = path + "." + k
			}
			wv, wok := w[k]
			gv, gok := g[k]
			switch {
			case !gok:
				*out = append(*out, fmt.Sprintf("%s: missing, want %s", p, short(wv)))
			case !wok && !subset:
				*out = append(*out, fmt.Sprintf("%s: unexpected, got %s", p, short(gv)))
			case !wok:
			default:
				diffAt(p, wv, gv, subset, out)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", at, short(want), short(got)))
			return
		}
		if len(w) != len(g) {
			*out = append(*out, fmt.Sprintf("%s: want %d elements, got %d: want %s, got %s", at, len(w), len(g), short(want), short(got)))
			return
		}
		for i := range w {
			diffAt(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], subset, out)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", at, short(want), short(got)))
		}
	}
}

func short(v any) string {
	s := jsonText(v)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// sslByScheme sets, in want, the example of an answer whose schema has a
// boolean ssl (a token's), ssl to whether the request went over HTTPS: the
// example shows one scheme's answer, and a portal answers ssl:true over
// HTTPS and false over HTTP. An example without ssl is left as it is.
func sslByScheme(o *operation, want any, https bool) any {
	m, ok := want.(map[string]any)
	if !ok || !answersSSL(o) {
		return want
	}
	if _, ok := m["ssl"]; ok {
		m["ssl"] = https
	}
	return want
}

// answersSSL reports whether o's JSON answer has a boolean ssl at its top
// level.
func answersSSL(o *operation) bool {
	resp := o.op.Responses.Value("200")
	if resp == nil || resp.Value == nil {
		return false
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil {
		return false
	}
	return schemaHasBool(mt.Schema, "ssl")
}

// schemaHasBool reports whether the schema, or one it combines, has a
// boolean property name.
func schemaHasBool(ref *openapi3.SchemaRef, name string) bool {
	if ref == nil || ref.Value == nil {
		return false
	}
	sc := ref.Value
	if p := sc.Properties[name]; p != nil && p.Value != nil && p.Value.Type.Is(openapi3.TypeBoolean) {
		return true
	}
	for _, list := range []openapi3.SchemaRefs{sc.AllOf, sc.OneOf, sc.AnyOf} {
		for _, r := range list {
			if schemaHasBool(r, name) {
				return true
			}
		}
	}
	return false
}
