package docs

import _ "embed"

// EmulatorHTML is emulator.html as committed: the reference of the
// emulator's own endpoints, rendered by Redoc from emulator.yaml, served at
// /docs/emulator. `make docs-emulator` rebuilds it.
//
//go:embed emulator.html
var EmulatorHTML []byte
