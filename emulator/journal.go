package emulator

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/orgportal/portal-api/server/api"
)

// DefaultJournalSize is how many calls the journal keeps by default.
const DefaultJournalSize = 10_000

// Request is one entry of the journal: an API call as the emulator saw it.
type Request struct {
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"time"` // the emulator's clock when the call arrived
	Operation string    `json:"operation"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	// Params are the call's parameters as decoded (JSON documents as JSON,
	// id lists as arrays), path parameters included; the token stands as
	// the user name it belongs to, a password as "(redacted)".
	Params map[string]any `json:"params"`
	// Caller is the user name of the token, empty when anonymous or when
	// the token was refused.
	Caller     string        `json:"caller,omitempty"`
	Answer     RequestAnswer `json:"answer"`
	Fault      string        `json:"fault,omitempty"` // the id of the fault rule that fired
	DurationMs float64       `json:"durationMs"`
}

// RequestAnswer is how a call was answered.
type RequestAnswer struct {
	Status      int    `json:"status"`         // the HTTP status
	Success     bool   `json:"success"`        // no error envelope
	Code        int    `json:"code,omitempty"` // the error envelope's code
	MessageCode string `json:"messageCode,omitempty"`
	FailedItems int    `json:"failedItems,omitempty"` // moveItems, deleteItems: results that failed
	Dropped     bool   `json:"dropped,omitempty"`     // the connection was closed without an answer
}

// journal keeps the last size calls, oldest first.
type journal struct {
	mu   sync.Mutex
	size int
	buf  []Request // a ring once full
	head int       // index of the oldest entry once full
	seq  int64
}

func (j *journal) add(e Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq = j.seq
	if j.size <= 0 {
		return
	}
	if len(j.buf) < j.size {
		j.buf = append(j.buf, e)
		return
	}
	j.buf[j.head] = e
	j.head = (j.head + 1) % j.size
}

// list returns the entries of operation (all when empty) with a seq above
// since, oldest first, at most limit (all when 0).
func (j *journal) list(operation string, since int64, limit int) []Request {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []Request{}
	for i := range j.buf {
		e := j.buf[(j.head+i)%len(j.buf)]
		if e.Seq <= since || (operation != "" && e.Operation != operation) {
			continue
		}
		out = append(out, e)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

func (j *journal) clear() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf, j.head = nil, 0
}

// Observe implements api.Hooks: it records the call in the journal.
func (h hooks) Observe(c *api.Call, a *api.Answer) {
	s := h.s
	params := make(map[string]any, len(c.Params)+len(c.PathParams)+1)
	for k, v := range c.PathParams {
		params[k] = v
	}
	for k, v := range c.Params {
		if k == "password" {
			v = "(redacted)"
		}
		params[k] = v
	}
	if c.Token != "" {
		// Never the token itself: the journal is read by whoever may call
		// the emulator's endpoints.
		who := c.User
		if who == "" {
			who = "(invalid token)"
		}
		params["token"] = who
	}
	s.journal.add(Request{
		Time:      s.clock.now().UTC(),
		Operation: c.Operation, Method: c.Method, Path: c.Path,
		Params: params, Caller: c.User,
		Answer: RequestAnswer{Status: a.Status, Success: a.Code == 0 && !a.Dropped && a.Status < 300, Code: a.Code,
			MessageCode: a.MessageCode, FailedItems: a.FailedItems, Dropped: a.Dropped},
		Fault:      a.Fault,
		DurationMs: float64(a.Duration.Microseconds()) / 1000,
	})
}

// Requests returns the journal: the calls to operation (all when empty)
// after seq since, oldest first, at most limit (all when 0).
func (s *Server) Requests(operation string, since int64, limit int) []Request {
	return s.journal.list(operation, since, limit)
}

// ClearRequests empties the journal.
func (s *Server) ClearRequests() { s.journal.clear() }

// RequestList is the answer of GET /emulator/requests.
type RequestList struct {
	Requests []Request `json:"requests"`
}

func (s *Server) handleRequests(r *http.Request) (any, error) {
	q := r.URL.Query()
	var since int64
	limit := 0
	if v := q.Get("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, badRequest("since: a sequence number, 0 or more")
		}
		since = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, badRequest("limit: a number, 1 or more")
		}
		limit = n
	}
	op := q.Get("operation")
	if op != "" {
		if _, ok := s.operations[op]; !ok {
			return nil, badRequest("operation: " + op + " is not an operationId of openapi.yaml")
		}
	}
	return RequestList{Requests: s.Requests(op, since, limit)}, nil
}

func (s *Server) handleClearRequests(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	s.ClearRequests()
	return success, nil
}

var success = map[string]bool{"success": true}

// hooks is what the API calls on each call: the fault rules and the
// journal.
func (s *Server) hooks() api.Hooks { return hooks{s} }
