package api

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/wire"
)

// handlers adapts the generated strict-server interface to server.Service:
// generated types in, domain values to the service, generated types out.
// Errors are returned as Go errors and leave through the error handler.
type handlers struct {
	svc     *server.Service
	context string   // Config.Context: the segment before /sharing
	hosts   []string // Config.Hosts
}

var _ gen.StrictServerInterface = (*handlers)(nil)

func ptr[T any](v T) *T { return &v }

func raw[T any](j *wire.JSON[T]) json.RawMessage {
	if j == nil {
		return nil
	}
	return json.RawMessage(*j)
}

func page(start, num *int32) server.Page {
	p := server.DefaultPage
	if start != nil {
		p.Start = int(*start)
	}
	if num != nil {
		p.Num = int(*num)
	}
	return p
}

// list is a list field as the validator decoded it (a JSON array or the
// comma-separated form), read as wire.List.Values reads it: entries trimmed,
// empty ones dropped.
func list(ctx context.Context, name string, l wire.List) []string {
	rs := stateOf(ctx)
	if rs == nil {
		return l.Values()
	}
	arr, decoded := rs.fields[name].([]any)
	if !decoded {
		return l.Values()
	}
	var out []string
	for _, v := range arr {
		if s, isText := v.(string); isText {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func millis(t time.Time) *int64 { return ptr(t.UnixMilli()) }

var successTrue = ptr(true)

// succeeded is the answer {"success": true} of most writes.
var succeeded = gen.SuccessResponse{Success: successTrue}
