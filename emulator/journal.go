package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/orgportal/portal-api/server/api"
)

// DefaultJournalSize is how many calls the journal keeps by default.
const DefaultJournalSize = 10_000

// UnmatchedOperation is the operation of a journal entry for a call that
// matched no operation of openapi.yaml: an unknown path (such as a probe
// of /portal/info), a method its path does not answer, or an operation the
// emulated version does not have. No operationId is spelled so.
const UnmatchedOperation = "(unmatched)"

// unmatchedValues are the parameters whose values the entry of an
// unmatched call keeps: words of the protocols clients speak, never a
// secret. Every other value stands as "(not kept)": nothing validated the
// call, and a password or a client secret may come under any name.
var unmatchedValues = map[string]bool{"f": true, "grant_type": true, "response_type": true}

// credentialParams are the names, in any case, whose values are
// credentials whatever the contract declares them as (a code on the
// approval page is a plain string; a client may send a parameter no
// operation declares): the journal never keeps them.
var credentialParams = map[string]bool{"password": true, "pass": true, "passwd": true, "client_secret": true,
	"token": true, "access_token": true, "refresh_token": true, "auth_token": true, "code": true,
	"code_verifier": true, "client_assertion": true}

// isCredential reports whether parameter name of the call holds a
// credential: marked secret by the contract, or named as one.
func isCredential(c *api.Call, name string) bool {
	return c.Secrets[name] || credentialParams[strings.ToLower(name)]
}

// Request is one entry of the journal: an API call as the emulator saw it.
type Request struct {
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"` // the emulator's clock when the call arrived
	// Operation is the operationId, or UnmatchedOperation.
	Operation string `json:"operation"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	// Params are the call's parameters as decoded (JSON documents as JSON,
	// id lists as arrays), path parameters included; the token stands as
	// the user name it belongs to, a parameter the contract marks secret
	// (format: password) or named as a credential (credentialParams) as
	// "(redacted)", a value over 64 KiB as "(not
	// kept: N bytes)". Of an unmatched call, only the names are kept, and
	// the values of f, grant_type and response_type.
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
	Success     bool   `json:"success"`        // no error envelope or page, not dropped
	Code        int    `json:"code,omitempty"` // the error envelope's code
	MessageCode string `json:"messageCode,omitempty"`
	FailedItems int    `json:"failedItems,omitempty"` // moveItems, deleteItems: results that failed
	Dropped     bool   `json:"dropped,omitempty"`     // the connection was closed without an answer
}

// The journal's bounds besides its number of entries: a client sending
// large bodies must not make it hold gigabytes.
const (
	// maxJournalValue is the longest parameter kept; a longer one stands
	// as a note of its size.
	maxJournalValue = 64 << 10
	// maxJournalBytes bounds the bytes of all entries; the oldest go first.
	maxJournalBytes = 64 << 20
)

// journal keeps the last size calls, oldest first.
//
// Each entry is kept as the JSON of its Request, written by hand (see
// appendRequest): the decoded parameters of 10,000 calls kept as Go values
// are a graph of maps the garbage collector traces again and again, and
// encoding/json's reflection cost settings/update a tenth of its CPU.
type journal struct {
	mu    sync.Mutex
	size  int
	q     []entry // q[head:] are the entries, oldest first
	head  int
	bytes int // of the entries' raw
	seq   int64
}

type entry struct {
	seq       int64
	time      time.Time
	operation string
	raw       []byte // the Request as JSON, without its seq and time
}

func (j *journal) add(at time.Time, operation string, raw []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	j.q = append(j.q, entry{seq: j.seq, time: at, operation: operation, raw: raw})
	j.bytes += len(raw)
	for n := len(j.q) - j.head; n > j.size || (j.bytes > maxJournalBytes && n > 1); n-- {
		j.bytes -= len(j.q[j.head].raw)
		j.q[j.head] = entry{}
		j.head++
	}
	if j.head > 1024 && j.head > len(j.q)/2 {
		n := copy(j.q, j.q[j.head:])
		clear(j.q[n:])
		j.q, j.head = j.q[:n], 0
	}
}

// list returns the entries of operation (all when empty; only those of an
// operation when matched) with a seq above since, oldest first, at most
// limit (all when 0).
func (j *journal) list(operation string, matched bool, since int64, limit int) []Request {
	j.mu.Lock()
	var picked []entry
	for _, e := range j.q[j.head:] {
		if e.seq <= since || (operation != "" && e.operation != operation) || (matched && e.operation == UnmatchedOperation) {
			continue
		}
		picked = append(picked, e)
		if limit > 0 && len(picked) == limit {
			break
		}
	}
	j.mu.Unlock()
	out := make([]Request, len(picked))
	for i, e := range picked {
		_ = json.Unmarshal(e.raw, &out[i])
		out[i].Seq, out[i].Time = e.seq, e.time.UTC()
	}
	return out
}

func (j *journal) clear() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.q, j.head, j.bytes = nil, 0, 0
}

// Observe implements api.Hooks: it records the call in the journal.
func (h hooks) Observe(c *api.Call, a api.Answer) {
	s := h.s
	if s.journal.size <= 0 {
		return
	}
	size := 256 + len(c.Path)
	for _, vs := range c.Form {
		for _, v := range vs {
			size += len(v) + 16
		}
	}
	op := c.Operation
	if op == "" {
		op = UnmatchedOperation
	}
	// When the call arrived, on the emulator's clock.
	s.journal.add(s.clock.now().Add(-a.Duration), op, appendRequest(make([]byte, 0, size), op, c, &a))
}

// appendRequest appends the JSON of the call's Request, without its seq and
// time.
func appendRequest(b []byte, op string, c *api.Call, a *api.Answer) []byte {
	b = append(b, `{"operation":`...)
	b = appendString(b, op)
	b = append(b, `,"method":`...)
	b = appendString(b, c.Method)
	b = append(b, `,"path":`...)
	b = appendString(b, c.Path)
	b = append(b, `,"params":{`...)
	b = appendParams(b, c)
	b = append(b, '}')
	if c.User != "" {
		b = append(b, `,"caller":`...)
		b = appendString(b, c.User)
	}
	b = append(b, `,"answer":{"status":`...)
	b = strconv.AppendInt(b, int64(a.Status), 10)
	b = append(b, `,"success":`...)
	// A redirect with no error is a success: the sign-in's answer.
	b = strconv.AppendBool(b, a.Code == 0 && !a.Dropped && a.Status < 400)
	if a.Code != 0 {
		b = append(b, `,"code":`...)
		b = strconv.AppendInt(b, int64(a.Code), 10)
	}
	if a.MessageCode != "" {
		b = append(b, `,"messageCode":`...)
		b = appendString(b, a.MessageCode)
	}
	if a.FailedItems != 0 {
		b = append(b, `,"failedItems":`...)
		b = strconv.AppendInt(b, int64(a.FailedItems), 10)
	}
	if a.Dropped {
		b = append(b, `,"dropped":true`...)
	}
	b = append(b, '}')
	if a.Fault != "" {
		b = append(b, `,"fault":`...)
		b = appendString(b, a.Fault)
	}
	// Milliseconds to the microsecond, without float formatting.
	us := a.Duration.Microseconds()
	b = append(b, `,"durationMs":`...)
	b = strconv.AppendInt(b, us/1000, 10)
	b = append(b, '.', byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10))
	return append(b, '}')
}

// appendParams writes the call's parameters as decoded: path parameters,
// then each form parameter, a JSON document as JSON, an id list as an
// array; the token as the user name it stands for, secrets (passwords,
// client secrets, codes, refresh tokens: format password) redacted.
func appendParams(b []byte, c *api.Call) []byte {
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
	}
	for i, k := range c.ParamNames {
		if i < len(c.ParamValues) {
			key(k)
			b = appendString(b, c.ParamValues[i])
		}
	}
	for k, vs := range c.Form {
		if _, isPath := c.PathParam(k); isPath || len(vs) == 0 {
			continue
		}
		key(k)
		if c.Operation == "" && !unmatchedValues[k] {
			b = append(b, `"(not kept)"`...)
			continue
		}
		if isCredential(c, k) {
			b = append(b, `"(redacted)"`...)
			continue
		}
		if n := len(vs[0]); n > maxJournalValue || len(vs) > 1 && n*len(vs) > maxJournalValue {
			b = append(b, `"(not kept: `...)
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, ` bytes)"`...)
			continue
		}
		b = appendValue(b, vs, c.Fields[k])
	}
	if c.Token != "" {
		// Never the token itself: whoever may call the emulator's
		// endpoints reads the journal.
		who := c.User
		if who == "" {
			who = "(invalid token)"
		}
		key("token")
		b = appendString(b, who)
	}
	return b
}

// appendValue writes one form parameter: its decoded value when the
// validator decoded it, else its text (a list of texts when repeated).
func appendValue(b []byte, vs []string, decoded any) []byte {
	switch v := decoded.(type) {
	case map[string]any, []any:
		raw := strings.TrimSpace(vs[0])
		if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') {
			// Sent as JSON, and it decoded: its text is the document.
			return append(b, raw...)
		}
		if list, ok := v.([]any); ok {
			// A comma-separated list: the ids it decoded to.
			b = append(b, '[')
			for i, e := range list {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendAny(b, e)
			}
			return append(b, ']')
		}
		return appendAny(b, v)
	case nil:
		if len(vs) == 1 {
			return appendString(b, vs[0])
		}
		b = append(b, '[')
		for i, s := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']')
	default:
		return appendAny(b, v)
	}
}

func appendAny(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendString writes s as a JSON string; bytes that are not UTF-8 become
// U+FFFD, as encoding/json writes them.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// Requests returns the journal: the calls to operation (all when empty;
// UnmatchedOperation: those that matched none) after seq since, oldest
// first, at most limit (all when 0).
func (s *Server) Requests(operation string, since int64, limit int) []Request {
	return s.journal.list(operation, false, since, limit)
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
	if op != "" && op != UnmatchedOperation {
		if _, ok := s.operations[op]; !ok {
			return nil, badRequest("operation: " + op + " is not an operationId of openapi.yaml, nor " + UnmatchedOperation)
		}
	}
	matched := false
	switch v := q.Get("unmatched"); v {
	case "":
	case "true":
		if op != "" && op != UnmatchedOperation {
			return nil, badRequest("unmatched: true asks for the calls that matched no operation, operation: " + op + " for calls of one")
		}
		op = UnmatchedOperation
	case "false":
		if op == UnmatchedOperation {
			return nil, badRequest("unmatched: false asks for the calls that matched an operation, operation: " + op + " for those that matched none")
		}
		matched = true
	default:
		return nil, badRequest("unmatched: " + v + " is neither true nor false")
	}
	return RequestList{Requests: s.journal.list(op, matched, since, limit)}, nil
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
