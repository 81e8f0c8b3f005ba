// Package gen holds the code oapi-codegen generates from ../openapi.yaml: the
// types, the echo strict server, the client and the embedded spec. Never edit
// the *.gen.go files; run `make generate`.
package gen

//go:generate go tool oapi-codegen -config types.cfg.yaml ../openapi.yaml
//go:generate go tool oapi-codegen -config server.cfg.yaml ../openapi.yaml
//go:generate go tool oapi-codegen -config client.cfg.yaml ../openapi.yaml
//go:generate go tool oapi-codegen -config spec.cfg.yaml ../openapi.yaml
