package portaltest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/gen/emulatorapi"
)

// Always is the Times of a fault that fires until removed.
const Always = -1

// Fault is a fault rule (emulator.yaml's Fault) in Go terms. Set exactly
// one of Error, ItemErrors, Status and Drop; Delay may come with any, or
// alone.
type Fault struct {
	// Operation is an operationId of openapi.yaml, such as "moveItems".
	Operation string
	// Match narrows the calls: a key naming one of the operation's path
	// parameters matches its value; otherwise "token" matches the caller's
	// token and "userName" the caller's user name.
	Match map[string]string
	// Skip matching calls pass untouched, then Times fire: 0 means once,
	// Always until removed.
	Skip, Times int
	// Error answers the whole call with this envelope; it changes nothing.
	Error *client.Error
	// ItemErrors make moveItems and deleteItems report these errors for
	// these item ids ("*": all) and leave those items alone.
	ItemErrors map[string]*client.Error
	// Status answers with this HTTP status and Headers, such as 429 with
	// Retry-After.
	Status  int
	Headers map[string]string
	Delay   time.Duration
	// Drop closes the connection without an answer.
	Drop bool
}

// Emulator returns the generated client of the emulator's endpoints
// (emulator.yaml), for what the methods below do not cover.
func (p *Portal) Emulator() *emulatorapi.ClientWithResponses {
	c, err := emulatorapi.NewClientWithResponses(p.Root, emulatorapi.WithHTTPClient(p.HTTPClient()))
	if err != nil {
		panic(fmt.Sprintf("portaltest: emulator client: %v", err))
	}
	return c
}

func faultError(e *client.Error) emulatorapi.FaultError {
	if e == nil {
		// Refused by the emulator, which names the field.
		return emulatorapi.FaultError{}
	}
	out := emulatorapi.FaultError{Code: e.Code}
	if e.MessageCode != "" {
		out.MessageCode = &e.MessageCode
	}
	if e.Message != "" {
		out.Message = &e.Message
	}
	if len(e.Details) > 0 {
		out.Details = &e.Details
	}
	return out
}

// wire is f as emulator.yaml's Fault.
func (f Fault) wire() emulatorapi.Fault {
	out := emulatorapi.Fault{Operation: f.Operation}
	if f.Match != nil {
		out.Match = &f.Match
	}
	if f.Skip != 0 {
		out.Skip = &f.Skip
	}
	switch {
	case f.Times == Always:
		out.Times = ptr(0)
	case f.Times != 0:
		out.Times = &f.Times
	}
	if f.Error != nil {
		out.Error = ptr(faultError(f.Error))
	}
	if f.ItemErrors != nil {
		m := make(map[string]emulatorapi.FaultError, len(f.ItemErrors))
		for id, e := range f.ItemErrors {
			m[id] = faultError(e)
		}
		out.ItemErrors = &m
	}
	if f.Status != 0 {
		out.Status = &f.Status
	}
	if f.Headers != nil {
		out.Headers = &f.Headers
	}
	if f.Delay != 0 {
		out.Delay = ptr(f.Delay.String())
	}
	if f.Drop {
		out.Drop = ptr(true)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// check fails tb unless the emulator answered 200.
func check(tb testing.TB, what string, r *http.Response, body []byte, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("portaltest: %s: %v", what, err)
	}
	if r.StatusCode != http.StatusOK {
		tb.Fatalf("portaltest: %s: HTTP %d: %s", what, r.StatusCode, body)
	}
}

var ctx = context.Background()

// Fault adds a fault rule through POST /emulator/faults and returns its id.
func (p *Portal) Fault(tb testing.TB, f Fault) string {
	tb.Helper()
	r, err := p.Emulator().AddFaultWithResponse(ctx, f.wire())
	if err != nil {
		check(tb, "add fault", nil, nil, err)
	}
	check(tb, "add fault", r.HTTPResponse, r.Body, nil)
	return *r.JSON200.Id
}

// Faults lists the fault rules with their counters.
func (p *Portal) Faults(tb testing.TB) []emulatorapi.Fault {
	tb.Helper()
	r, err := p.Emulator().ListFaultsWithResponse(ctx)
	if err != nil {
		check(tb, "list faults", nil, nil, err)
	}
	check(tb, "list faults", r.HTTPResponse, r.Body, nil)
	return r.JSON200.Faults
}

// RemoveFault removes the fault rule id.
func (p *Portal) RemoveFault(tb testing.TB, id string) {
	tb.Helper()
	r, err := p.Emulator().RemoveFaultWithResponse(ctx, id, emulatorapi.RemoveFaultJSONRequestBody{})
	if err != nil {
		check(tb, "remove fault", nil, nil, err)
	}
	check(tb, "remove fault", r.HTTPResponse, r.Body, nil)
}

// ClearFaults removes every fault rule.
func (p *Portal) ClearFaults(tb testing.TB) {
	tb.Helper()
	r, err := p.Emulator().ClearFaultsWithResponse(ctx, emulatorapi.ClearFaultsJSONRequestBody{})
	if err != nil {
		check(tb, "clear faults", nil, nil, err)
	}
	check(tb, "clear faults", r.HTTPResponse, r.Body, nil)
}

// Requests returns the journal's calls of operation, oldest first: an
// operationId such as "updateSettings", or the end of the calls' path such
// as "settings/update"; all calls when empty, those that matched no
// operation too (see Unmatched).
func (p *Portal) Requests(tb testing.TB, operation string) []emulatorapi.Request {
	tb.Helper()
	params := &emulatorapi.ListRequestsParams{}
	if strings.Contains(operation, "/") {
		all := p.Requests(tb, "")
		out := []emulatorapi.Request{}
		for _, r := range all {
			if strings.HasSuffix(r.Path, "/"+operation) {
				out = append(out, r)
			}
		}
		return out
	}
	if operation != "" {
		params.Operation = &operation
	}
	r, err := p.Emulator().ListRequestsWithResponse(ctx, params)
	if err != nil {
		check(tb, "requests", nil, nil, err)
	}
	check(tb, "requests", r.HTTPResponse, r.Body, nil)
	return r.JSON200.Requests
}

// Unmatched returns the journal's calls that matched no operation of
// openapi.yaml, oldest first: what the code under test asked for that the
// emulator does not have (an unknown path, a method its path does not
// answer, an operation of a later version), each answered 404. Their
// Params keep the names, and the values of f, grant_type and response_type
// only.
func (p *Portal) Unmatched(tb testing.TB) []emulatorapi.Request {
	tb.Helper()
	r, err := p.Emulator().ListRequestsWithResponse(ctx, &emulatorapi.ListRequestsParams{Unmatched: ptr(true)})
	if err != nil {
		check(tb, "unmatched requests", nil, nil, err)
	}
	check(tb, "unmatched requests", r.HTTPResponse, r.Body, nil)
	return r.JSON200.Requests
}

// ClearRequests empties the journal.
func (p *Portal) ClearRequests(tb testing.TB) {
	tb.Helper()
	r, err := p.Emulator().ClearRequestsWithResponse(ctx, emulatorapi.ClearRequestsJSONRequestBody{})
	if err != nil {
		check(tb, "clear requests", nil, nil, err)
	}
	check(tb, "clear requests", r.HTTPResponse, r.Body, nil)
}

// AdvanceClock moves the emulator's clock by d: tokens expire, and
// timestamps are stamped, as if d had passed. It panics if the clock would
// leave its range, 1970-01-01 up to 2200-01-01: a test must not go on with
// a time it did not ask for.
func (p *Portal) AdvanceClock(d time.Duration) {
	if err := p.Server.AdvanceClock(d); err != nil {
		panic(fmt.Sprintf("portaltest: AdvanceClock(%s): %v", d, err))
	}
}

// SetClock moves the emulator's clock to t. It panics as AdvanceClock does.
func (p *Portal) SetClock(t time.Time) {
	if err := p.Server.SetClock(t); err != nil {
		panic(fmt.Sprintf("portaltest: SetClock(%s): %v", t.Format(time.RFC3339Nano), err))
	}
}

// ResetClock puts the emulator's clock back on the wall clock (or the
// WithClock clock).
func (p *Portal) ResetClock() { p.Server.ResetClock() }

// Now is the emulator's clock.
func (p *Portal) Now() time.Time { return p.Server.Now() }

// Snapshot saves the store under name (replacing a snapshot of that name).
func (p *Portal) Snapshot(tb testing.TB, name string) {
	tb.Helper()
	r, err := p.Emulator().SaveSnapshotWithResponse(ctx, name, emulatorapi.SaveSnapshotJSONRequestBody{})
	if err != nil {
		check(tb, "snapshot", nil, nil, err)
	}
	check(tb, "snapshot", r.HTTPResponse, r.Body, nil)
}

// Restore puts the store back to the snapshot name.
func (p *Portal) Restore(tb testing.TB, name string) {
	tb.Helper()
	r, err := p.Emulator().RestoreSnapshotWithResponse(ctx, name, emulatorapi.RestoreSnapshotJSONRequestBody{})
	if err != nil {
		check(tb, "restore", nil, nil, err)
	}
	check(tb, "restore", r.HTTPResponse, r.Body, nil)
}

// Snapshots lists the snapshots by name.
func (p *Portal) Snapshots(tb testing.TB) []emulatorapi.Snapshot {
	tb.Helper()
	r, err := p.Emulator().ListSnapshotsWithResponse(ctx)
	if err != nil {
		check(tb, "snapshots", nil, nil, err)
	}
	check(tb, "snapshots", r.HTTPResponse, r.Body, nil)
	return r.JSON200.Snapshots
}

// DeleteSnapshot removes the snapshot name.
func (p *Portal) DeleteSnapshot(tb testing.TB, name string) {
	tb.Helper()
	r, err := p.Emulator().DeleteSnapshotWithResponse(ctx, name, emulatorapi.DeleteSnapshotJSONRequestBody{})
	if err != nil {
		check(tb, "delete snapshot", nil, nil, err)
	}
	check(tb, "delete snapshot", r.HTTPResponse, r.Body, nil)
}

// CreateOrganization adds an organization (seed-shaped: roles, members,
// tokens, folders, items), so that a test has one of its own.
func (p *Portal) CreateOrganization(tb testing.TB, o emulatorapi.Organization) {
	tb.Helper()
	r, err := p.Emulator().CreateOrganizationWithResponse(ctx, o)
	if err != nil {
		check(tb, "create organization", nil, nil, err)
	}
	check(tb, "create organization", r.HTTPResponse, r.Body, nil)
}

// DeleteOrganization removes the organization id and everything it owns.
func (p *Portal) DeleteOrganization(tb testing.TB, id string) {
	tb.Helper()
	r, err := p.Emulator().DeleteOrganizationWithResponse(ctx, id, emulatorapi.DeleteOrganizationJSONRequestBody{})
	if err != nil {
		check(tb, "delete organization", nil, nil, err)
	}
	check(tb, "delete organization", r.HTTPResponse, r.Body, nil)
}
