package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
)

// Fault is a fault rule: which calls it fires on and what it makes them do.
// It is the body of POST /emulator/faults and an entry of its list.
type Fault struct {
	// ID is given by the emulator.
	ID string `json:"id,omitempty"`
	// Operation is an operationId of openapi.yaml.
	Operation string `json:"operation"`
	// Match narrows the calls: a key naming one of the operation's path
	// parameters matches its value; otherwise "token" matches the caller's
	// token and "userName" the caller's user name.
	Match map[string]string `json:"match,omitempty"`
	// Skip matching calls pass untouched, then the next Times fire (1 when
	// absent; 0 until the rule is removed).
	Skip  int  `json:"skip,omitempty"`
	Times *int `json:"times,omitempty"`
	// One effect: Error, ItemErrors, Status (with Headers) or Drop. Delay
	// may come with any, or alone.
	Error      *FaultError           `json:"error,omitempty"`
	ItemErrors map[string]FaultError `json:"itemErrors,omitempty"`
	Status     int                   `json:"status,omitempty"`
	Headers    map[string]string     `json:"headers,omitempty"`
	Delay      string                `json:"delay,omitempty"` // a Go duration such as "250ms"
	Drop       bool                  `json:"drop,omitempty"`

	// Matched counts the calls the rule matched, Fired those it fired on;
	// Remaining is how many more it fires on (-1: until removed). Answers
	// only.
	Matched   int `json:"matched"`
	Fired     int `json:"fired"`
	Remaining int `json:"remaining"`
}

// FaultError is an error envelope a fault answers with.
type FaultError struct {
	Code        int      `json:"code"`
	MessageCode string   `json:"messageCode,omitempty"`
	Message     string   `json:"message,omitempty"`
	Details     []string `json:"details,omitempty"`
}

func (e FaultError) domain() *server.Error {
	msg := e.Message
	if msg == "" {
		msg = defaultMessages[e.Code]
	}
	if msg == "" {
		msg = "Injected error."
	}
	return &server.Error{Code: e.Code, MessageCode: e.MessageCode, Message: msg, Details: append([]string{}, e.Details...)}
}

// defaultMessages are the portal's messages for the codes a fault most
// often injects.
var defaultMessages = map[int]string{
	498: "Invalid token.",
	499: "Token Required",
	403: "You do not have permissions to access this resource or perform this operation.",
	500: "Unable to complete operation.",
}

// rule is a fault rule with its counters and its effect ready for the API.
type rule struct {
	Fault
	times int // 0: until removed
	fault *api.Fault
}

// faults holds the fault rules in the order they were added.
type faults struct {
	mu    sync.Mutex
	rules []*rule
	next  int
}

// pick counts the call in every rule it matches that is not spent, so that
// each rule's skip and times count the calls it matches whatever the other
// rules do; of the rules whose turn it is, the first added fires. It
// returns that rule's effect.
func (fs *faults) pick(c *api.Call) *api.Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var fired *rule
	for _, r := range fs.rules {
		if r.Operation != c.Operation || (r.times > 0 && r.Fired >= r.times) || !r.matches(c) {
			continue
		}
		r.Matched++
		if r.Matched > r.Skip && fired == nil {
			r.Fired++
			fired = r
		}
	}
	if fired == nil {
		return nil
	}
	return fired.fault
}

func (r *rule) matches(c *api.Call) bool {
	for k, want := range r.Match {
		got, isPath := c.PathParam(k)
		switch {
		case isPath:
		case k == "token":
			got = c.Token
		case k == "userName":
			got = c.User
		}
		if got != want {
			return false
		}
	}
	return true
}

func (r *rule) snapshot() Fault {
	f := r.Fault
	switch {
	case r.times == 0:
		f.Remaining = -1
	default:
		f.Remaining = max(r.times-r.Fired, 0)
	}
	return f
}

// Fault implements api.Hooks.
func (h hooks) Fault(c *api.Call) *api.Fault { return h.s.faults.pick(c) }

// hooks is the emulator as the API's hooks: faults and the journal.
type hooks struct{ s *Server }

// AddFault checks f and adds it after the other rules; it returns the rule
// with its id.
func (s *Server) AddFault(f Fault) (Fault, error) {
	r, err := s.checkFault(f)
	if err != nil {
		return Fault{}, err
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.next++
	r.ID = "f" + strconv.Itoa(s.faults.next)
	r.fault.ID = r.ID
	s.faults.rules = append(s.faults.rules, r)
	return r.snapshot(), nil
}

// Faults lists the fault rules in the order they were added, with their
// counters.
func (s *Server) Faults() []Fault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]Fault, len(s.faults.rules))
	for i, r := range s.faults.rules {
		out[i] = r.snapshot()
	}
	return out
}

// RemoveFault removes the rule id; it reports whether there was one.
func (s *Server) RemoveFault(id string) bool {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for i, r := range s.faults.rules {
		if r.ID == id {
			s.faults.rules = slices.Delete(s.faults.rules, i, i+1)
			return true
		}
	}
	return false
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.rules = nil
}

// checkFault validates a rule as emulator.yaml describes it and builds its
// effect; each problem is a detail naming the field.
func (s *Server) checkFault(f Fault) (*rule, error) {
	var bad []string
	params, known := s.operations[f.Operation]
	switch {
	case f.Operation == "":
		bad = append(bad, "operation: required, an operationId of openapi.yaml")
	case !known:
		bad = append(bad, fmt.Sprintf("operation: %q is not an operationId of openapi.yaml", f.Operation))
	}
	keys := make([]string, 0, len(f.Match))
	for k := range f.Match {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if known && !slices.Contains(params, k) && k != "token" && k != "userName" {
			bad = append(bad, fmt.Sprintf("match.%s: not a path parameter of %s, token or userName", k, f.Operation))
		}
	}
	if f.Skip < 0 {
		bad = append(bad, "skip: 0 or more")
	}
	times := 1
	if f.Times != nil {
		times = *f.Times
		if times < 0 {
			bad = append(bad, "times: 0 (until removed) or more")
		}
	}
	eff := &api.Fault{}
	if f.Delay != "" {
		d, err := time.ParseDuration(f.Delay)
		if err != nil || d < 0 || d > maxFaultDelay {
			bad = append(bad, fmt.Sprintf("delay: a Go duration from 0 to %s, such as \"250ms\"", maxFaultDelay))
		}
		eff.Delay = d
	}
	effects := 0
	if f.Error != nil {
		effects++
		if msg := checkCode("error.code", f.Error.Code, 498); msg != "" {
			bad = append(bad, msg)
		}
		eff.Error = f.Error.domain()
	}
	if f.ItemErrors != nil {
		effects++
		if known && f.Operation != "moveItems" && f.Operation != "deleteItems" {
			bad = append(bad, "itemErrors: only for moveItems and deleteItems")
		}
		if len(f.ItemErrors) == 0 {
			bad = append(bad, "itemErrors: name at least one item id, or \"*\"")
		}
		eff.ItemErrors = make(map[string]*server.Error, len(f.ItemErrors))
		for id, e := range f.ItemErrors {
			if msg := checkCode("itemErrors."+id+".code", e.Code, 500); msg != "" {
				bad = append(bad, msg)
			}
			eff.ItemErrors[id] = e.domain()
		}
	}
	if f.Status != 0 {
		effects++
		if f.Status < 300 || f.Status > 599 {
			bad = append(bad, "status: an HTTP status from 300 to 599, such as 429")
		}
		eff.Status, eff.Headers = f.Status, f.Headers
	}
	if f.Headers != nil && f.Status == 0 {
		bad = append(bad, "headers: only with status")
	}
	for k, v := range f.Headers {
		switch {
		case !httpguts.ValidHeaderFieldName(k):
			bad = append(bad, headerField(k)+": not a header name, a token such as Retry-After")
		case !httpguts.ValidHeaderFieldValue(v):
			bad = append(bad, headerField(k)+": a value without control characters (a tab aside)")
		case framing[http.CanonicalHeaderKey(k)]:
			bad = append(bad, headerField(k)+": frames the answer, which the server writes itself")
		}
	}
	if f.Drop {
		effects++
		eff.Drop = true
	}
	if effects > 1 || (effects == 0 && f.Delay == "") {
		bad = append(bad, "give exactly one of error, itemErrors, status and drop (delay may come with any, or alone)")
	}
	if f.Matched != 0 || f.Fired != 0 || f.Remaining != 0 || f.ID != "" {
		bad = append(bad, "id, matched, fired and remaining are given by the emulator")
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, badRequest(bad...)
	}
	t := times
	f.Times = &t
	return &rule{Fault: f, times: times, fault: eff}, nil
}

// A fault's codes are the portal's, HTTP-like (400, 403, 404, 498, 499,
// 500): anything else breaks openapi.yaml's ErrorBody, whose code is an
// int32.
const faultCodeMin, faultCodeMax = 400, 599

// checkCode is the detail refusing code as the field, "" when it is fine.
func checkCode(field string, code, example int) string {
	switch {
	case code == 0:
		return fmt.Sprintf("%s: required, from %d to %d, such as %d", field, faultCodeMin, faultCodeMax, example)
	case code < faultCodeMin || code > faultCodeMax:
		return fmt.Sprintf("%s: %d is not from %d to %d", field, code, faultCodeMin, faultCodeMax)
	}
	return ""
}

// framing are the headers that say how the answer is framed or the
// connection kept: set by a fault, they would make the answer unreadable
// rather than an answer a client must handle.
var framing = map[string]bool{"Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Upgrade": true, "Trailer": true, "Te": true, "Proxy-Connection": true}

// headerField names a header of the rule in a detail, quoted when its name
// would not read plainly.
func headerField(name string) string {
	if q := strconv.Quote(name); name != "" && q[1:len(q)-1] == name {
		return "headers." + name
	}
	return "headers." + strconv.Quote(name)
}

// maxFaultDelay bounds a delay: a rule left behind must not hang a suite.
const maxFaultDelay = 5 * time.Minute

// FaultList is the answer of GET /emulator/faults.
type FaultList struct {
	Faults []Fault `json:"faults"`
}

func (s *Server) handleAddFault(r *http.Request) (any, error) {
	var f Fault
	if err := readJSON(r, &f); err != nil {
		return nil, err
	}
	return s.AddFault(f)
}

func (s *Server) handleListFaults(*http.Request) (any, error) {
	return FaultList{Faults: s.Faults()}, nil
}

func (s *Server) handleRemoveFault(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	if !s.RemoveFault(r.PathValue("id")) {
		return nil, &adminError{http.StatusNotFound, "No fault rule has this id.", []string{"id: " + r.PathValue("id")}}
	}
	return success, nil
}

func (s *Server) handleClearFaults(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	s.ClearFaults()
	return success, nil
}
