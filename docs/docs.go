// Package docs holds the reference documentation of the portal API: one
// self-contained HTML page rendered by Redoc from openapi.yaml, which the
// server serves at /docs.
package docs

import _ "embed"

// ReferenceHTML is reference.html as committed; `make docs` rebuilds it from
// openapi.yaml and `make check-docs` fails when it is out of date.
//
//go:embed reference.html
var ReferenceHTML []byte
