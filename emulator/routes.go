package emulator

import "net/http"

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
