package emulator

import (
	"net/http"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/docs"
)

// routes adds the endpoints of emulator.yaml besides reset.
func (s *Server) routes(handle func(pattern string, h func(r *http.Request) (any, error))) {
	handle("GET /emulator/snapshots", s.handleListSnapshots)
	handle("PUT /emulator/snapshots/{name}", s.handleSaveSnapshot)
	handle("DELETE /emulator/snapshots/{name}", s.handleDeleteSnapshot)
	handle("POST /emulator/snapshots/{name}/restore", s.handleRestoreSnapshot)
	handle("POST /emulator/organizations", s.handleCreateOrganization)
	handle("DELETE /emulator/organizations/{id}", s.handleDeleteOrganization)
	handle("GET /emulator/faults", s.handleListFaults)
	handle("POST /emulator/faults", s.handleAddFault)
	handle("DELETE /emulator/faults", s.handleClearFaults)
	handle("DELETE /emulator/faults/{id}", s.handleRemoveFault)
	handle("GET /emulator/requests", s.handleRequests)
	handle("DELETE /emulator/requests", s.handleClearRequests)
	handle("GET /emulator/clock", s.handleGetClock)
	handle("POST /emulator/clock", s.handleSetClock)
}

// serveContract answers GET /emulator.yaml and /docs/emulator, the contract
// of the emulator's endpoints and its rendered reference, beside the
// portal's /openapi.yaml and /docs.
func (s *Server) serveContract(w http.ResponseWriter, r *http.Request) bool {
	var body []byte
	var ctype string
	switch r.URL.Path {
	case "/emulator.yaml":
		body, ctype = portalapi.EmulatorYAML, "application/yaml; charset=utf-8"
	case "/docs/emulator":
		body, ctype = docs.EmulatorHTML, "text/html; charset=utf-8"
	default:
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
	return true
}
