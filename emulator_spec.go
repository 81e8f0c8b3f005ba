package portalapi

import _ "embed"

// EmulatorYAML is emulator.yaml as committed: the contract of the
// emulator's own endpoints (/emulator/), apart from the portal's.
//
//go:embed emulator.yaml
var EmulatorYAML []byte
