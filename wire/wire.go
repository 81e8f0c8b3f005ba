// Package wire holds the Go types for the portal's form-field encodings: a JSON
// document carried in one form field, and a list of ids carried as one
// comma-separated field. The generated server and client use them (through
// x-go-type in openapi.yaml) so that both put these fields on the wire exactly
// as the portal and its official clients do.
package wire

import (
	"encoding/json"
	"strings"
)

// JSON is the raw text of a JSON document sent in one form field, such as
// informationalBanner={"text":"..."}. It is string-kinded on purpose: the
// oapi-codegen form binder and marshaller copy strings verbatim, whereas they
// would explode a struct into field[key]=value pairs.
type JSON[T any] string

// EncodeJSON returns the form-field value for v.
func EncodeJSON[T any](v T) (JSON[T], error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return JSON[T](b), nil
}

// MustEncodeJSON is EncodeJSON for values that always marshal (plain structs,
// maps of scalars); it panics otherwise, so use it only with literals.
func MustEncodeJSON[T any](v T) JSON[T] {
	j, err := EncodeJSON(v)
	if err != nil {
		panic(err)
	}
	return j
}

// Decode parses the document into a T.
func (j JSON[T]) Decode() (T, error) {
	var v T
	err := json.Unmarshal([]byte(j), &v)
	return v, err
}

// Raw returns the document's bytes.
func (j JSON[T]) Raw() []byte { return []byte(j) }

// List is a list of ids in one form field. The portal's JavaScript client
// joins ids with commas; its Python client sends a JSON array of strings. Both
// are accepted; Join produces the comma form.
type List string

// Join returns the comma-separated form of ids.
func Join(ids ...string) List { return List(strings.Join(ids, ",")) }

// Values returns the ids in order: entries are trimmed and empty ones dropped;
// a repeated id stays repeated. A value that is a JSON array of strings is
// read as such.
func (l List) Values() []string {
	s := strings.TrimSpace(string(l))
	if strings.HasPrefix(s, "[") {
		var arr []string
		if err := json.Unmarshal([]byte(s), &arr); err == nil {
			return compact(arr)
		}
	}
	if s == "" {
		return nil
	}
	return compact(strings.Split(s, ","))
}

func compact(in []string) []string {
	out := make([]string, 0, len(in))
	for _, v := range in {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
