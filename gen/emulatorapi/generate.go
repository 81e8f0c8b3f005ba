// Package emulatorapi holds the code oapi-codegen generates from
// ../../emulator.yaml: the types and the client of the emulator's own
// endpoints (/emulator/). Never edit the *.gen.go files; run `make generate`.
package emulatorapi

//go:generate go tool oapi-codegen -config types.cfg.yaml ../../emulator.yaml
//go:generate go tool oapi-codegen -config client.cfg.yaml ../../emulator.yaml
