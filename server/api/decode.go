package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/orgportal/portal-api/server"
)

// decodeForm turns the form's fields into the JSON value the body's schema
// describes, for the validator and then the handler: fields whose encoding is
// application/json are parsed as JSON (once), array fields as
// comma-separated lists (or JSON arrays), booleans and numbers from their
// text. A field given more than once is refused: the portal would silently
// take the first.
func (o *operation) decodeForm(values url.Values) (map[string]any, error) {
	out := make(map[string]any, len(values))
	var details []string
	for name, vs := range values {
		if len(vs) > 1 {
			details = append(details, givenTimes(name, len(vs)))
			continue
		}
		if err := exploded(name, o.body); err != nil {
			details = append(details, err.Error())
			continue
		}
		var prop *openapi3.Schema
		if p := o.body.Properties[name]; p != nil {
			prop = p.Value
		}
		v, err := decodeField(vs[0], prop, o.encoding[name])
		if err != nil {
			if _, isDomain := server.AsError(err); isDomain {
				return nil, err // a rule the decoder applies itself (maxDepth)
			}
			var fe *fieldError
			if errors.As(err, &fe) && fe.path != "" {
				details = append(details, name+"."+fe.path+": "+fe.reason)
			} else {
				details = append(details, name+": "+err.Error())
			}
			continue
		}
		// JSON escapes a NUL as \u0000, which checkText cannot see in the
		// raw value: no title, text or name holds one. A tree with a depth
		// limit (the member category schema) is judged by its operation,
		// its limits before its titles' characters.
		if strings.Contains(vs[0], `\u0000`) && maxDepth(prop) == 0 {
			if at, found := nulAt(v, name); found {
				details = append(details, at+": holds a NUL character")
				continue
			}
		}
		out[name] = v
	}
	if len(details) > 0 {
		slices.Sort(details)
		return nil, server.Invalid(details...)
	}
	return out, nil
}

// nulAt returns the path, from path, of the first string or member name in
// v, a decoded JSON value, holding a NUL character.
func nulAt(v any, path string) (string, bool) {
	return firstAt(v, path, func(v any) bool {
		s, isString := v.(string)
		return isString && strings.ContainsRune(s, 0)
	})
}

// outOfRange returns the path, inside the JSON document s, of its first
// number no float64 holds; "" for s itself.
func outOfRange(s string) string {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return ""
	}
	at, _ := firstAt(v, "", func(v any) bool {
		n, isNumber := v.(json.Number)
		if !isNumber {
			return false
		}
		_, err := n.Float64()
		return err != nil
	})
	return at
}

// firstAt returns the path, from path, of the first value in v, a decoded
// JSON value, that bad reports (members in name order, so the answer does
// not change from call to call); a member name bad reports is its
// object's path, marked.
func firstAt(v any, path string, bad func(any) bool) (string, bool) {
	if bad(v) {
		return path, true
	}
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			if at, found := firstAt(e, fmt.Sprintf("%s[%d]", path, i), bad); found {
				return at, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if bad(k) {
				return path + " (a member name)", true
			}
			if at, found := firstAt(v[k], join2(path, k), bad); found {
				return at, true
			}
		}
	}
	return "", false
}

// givenTimes is the detail refusing a parameter given n times.
func givenTimes(name string, n int) string {
	return fmt.Sprintf("%s: given %d times; give a parameter once", name, n)
}

// fieldError is a problem at a path inside a field's JSON document.
type fieldError struct{ path, reason string }

func (e *fieldError) Error() string { return join(e.path, e.reason) }

// decodeField turns one form value into the JSON value its schema describes.
// A value that does not parse as the declared scalar type is kept as a
// string, so the validator reports the type mismatch with the field's path.
func decodeField(s string, prop *openapi3.Schema, enc *openapi3.Encoding) (any, error) {
	if enc != nil && strings.HasPrefix(enc.ContentType, "application/json") {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) && strings.HasPrefix(ute.Value, "number") {
				// JSON, but a number no float64 holds, such as 1e400. The
				// error names no path inside maps: found again here.
				return nil, &fieldError{path: outOfRange(s), reason: ute.Value + " is out of range"}
			}
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
		if s == "true" || s == "false" {
			return s == "true", nil
		}
	case prop.Type.Is("integer"):
		// Only the decimal form the generated binder reads: "60 ", "1e3" or
		// "20160.0" stay text, and the validator refuses them by name.
		i, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return float64(i), nil
		}
		if errors.Is(err, strconv.ErrRange) {
			return nil, errors.New("number out of range")
		}
	case prop.Type.Is("number"):
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f, nil
		}
	}
	return s, nil
}

// checkText rejects parameter values that are not text: a NUL byte or
// invalid UTF-8. No id, name or title holds them, and PostgreSQL refuses
// both, so letting them through turns a bad request into a store failure.
func checkText(names, values []string, params url.Values) error {
	var details []string
	for i, v := range values {
		if !isText(v) {
			details = append(details, names[i]+": "+notText)
		}
	}
	for name, vs := range params {
		if slices.ContainsFunc(vs, notTextValue) {
			details = append(details, name+": "+notText)
		}
	}
	if len(details) > 0 {
		slices.Sort(details)
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
func exploded(name string, schema *openapi3.Schema) error {
	base, _, found := strings.Cut(name, "[")
	if !found || schema == nil || schema.Properties[base] == nil {
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

// decodedNotice is the notice sent as field, from its decoded JSON object
// among fields; nil when not sent. The validator has checked the object
// against its schema (no other member, each of its type), so the errors
// here are for a schema that would let more through.
func decodedNotice(field string, fields map[string]any) (*server.AccessNotice, error) {
	v, sent := fields[field]
	if !sent {
		return nil, nil
	}
	// One allocation holds the notice and the values its fields point to.
	box := new(struct {
		n                    server.AccessNotice
		title, text, buttons string
		enabled              bool
	})
	err := eachMember(field, v, func(name string, v any) bool {
		switch name {
		case "title":
			return text(v, &box.title, &box.n.Title)
		case "text":
			return text(v, &box.text, &box.n.Text)
		case "buttons":
			return text(v, &box.buttons, &box.n.Buttons)
		case "enabled":
			return flag(v, &box.enabled, &box.n.Enabled)
		}
		return false
	})
	return &box.n, err
}

// decodedBanner is the banner sent, as decodedNotice is a notice.
func decodedBanner(fields map[string]any) (*server.Banner, error) {
	const field = "informationalBanner"
	v, sent := fields[field]
	if !sent {
		return nil, nil
	}
	box := new(struct {
		b                        server.Banner
		text, bgColor, fontColor string
		enabled                  bool
	})
	err := eachMember(field, v, func(name string, v any) bool {
		switch name {
		case "text":
			return text(v, &box.text, &box.b.Text)
		case "bgColor":
			return text(v, &box.bgColor, &box.b.BgColor)
		case "fontColor":
			return text(v, &box.fontColor, &box.b.FontColor)
		case "enabled":
			return flag(v, &box.enabled, &box.b.Enabled)
		}
		return false
	})
	return &box.b, err
}

// eachMember calls set with each member of the decoded JSON object v that
// is not null (null leaves a field unset, as encoding/json does); set
// reports false for a member it does not know or whose value is not of its
// type.
func eachMember(field string, v any, set func(name string, v any) bool) error {
	obj, isObject := v.(map[string]any)
	if !isObject {
		return server.Invalid(field + ": must be a JSON object")
	}
	for name, mv := range obj {
		if mv != nil && !set(name, mv) {
			return server.Invalid(fmt.Sprintf("%s.%s: not a member of this type, or not of the member's type", field, name))
		}
	}
	return nil
}

// text points *dst at val holding the decoded JSON string v; false when v
// is not a string.
func text(v any, val *string, dst **string) bool {
	s, ok := v.(string)
	*val, *dst = s, val
	return ok
}

// flag points *dst at val holding the decoded JSON boolean v; false when v
// is not a boolean.
func flag(v any, val *bool, dst **bool) bool {
	b, ok := v.(bool)
	*val, *dst = b, val
	return ok
}
