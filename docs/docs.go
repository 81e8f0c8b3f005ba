// Package docs holds the reference documentation of the portal API: one
// self-contained HTML page rendered by Redoc from openapi.yaml, which the
// server serves at /docs, and the favicon its pages link to.
package docs

import _ "embed"

// ReferenceHTML is reference.html as committed; `make docs` rebuilds it from
// openapi.yaml and `make check-docs` fails when it is out of date.
//
//go:embed reference.html
var ReferenceHTML []byte

// Favicon is the icon the pages link to as /favicon.ico (tools/redocly/template.hbs),
// served by the server beside /docs: an ICO holding 16×16 and 32×32 PNGs.
//
//go:embed favicon.ico
var Favicon []byte
