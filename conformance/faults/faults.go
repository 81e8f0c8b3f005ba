// Package faults breaks a good portal on purpose: each function returns a
// reverse proxy in front of a portal that alters its answers in one way the
// contract forbids. The conformance suite's own tests use them to show that
// the suite notices.
package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
)

// rewrite returns a proxy to target that passes each answer's decoded JSON
// body through change; change reports whether it altered anything.
func rewrite(target *url.URL, change func(req *http.Request, resp *http.Response, body map[string]any) bool) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var body map[string]any
		if json.Unmarshal(raw, &body) == nil && change(resp.Request, resp, body) {
			if raw, err = json.Marshal(body); err != nil {
				return err
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		resp.ContentLength = int64(len(raw))
		resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
		return nil
	}
	return p
}

// ErrorsAsHTTPStatus answers every error envelope with HTTP 400 instead of
// HTTP 200, as a plain REST API would.
func ErrorsAsHTTPStatus(target *url.URL) http.Handler {
	return rewrite(target, func(_ *http.Request, resp *http.Response, body map[string]any) bool {
		if _, ok := body["error"]; ok && resp.StatusCode == http.StatusOK {
			resp.StatusCode, resp.Status = http.StatusBadRequest, "400 Bad Request"
		}
		return false
	})
}

// DropItemErrors removes the error object from each failed result of
// moveItems, leaving success:false without a reason.
func DropItemErrors(target *url.URL) http.Handler {
	return rewrite(target, func(req *http.Request, _ *http.Response, body map[string]any) bool {
		if !strings.HasSuffix(req.URL.Path, "/moveItems") {
			return false
		}
		results, _ := body["results"].([]any)
		changed := false
		for _, r := range results {
			if m, ok := r.(map[string]any); ok && m["error"] != nil {
				delete(m, "error")
				changed = true
			}
		}
		return changed
	})
}

// AcceptDeepSchemas answers success to a member category schema rejected
// for its depth (4 levels or more), though the portal stored nothing.
func AcceptDeepSchemas(target *url.URL) http.Handler {
	return rewrite(target, func(req *http.Request, _ *http.Response, body map[string]any) bool {
		if !strings.HasSuffix(req.URL.Path, "/assignMemberCategorySchema") {
			return false
		}
		e, _ := body["error"].(map[string]any)
		details, _ := e["details"].([]any)
		for _, d := range details {
			if s, _ := d.(string); strings.Contains(s, "levels") {
				delete(body, "error")
				body["success"] = true
				return true
			}
		}
		return false
	})
}

// SuccessBesideError adds "success":false to every error envelope, an
// answer that is both a success answer and an error.
func SuccessBesideError(target *url.URL) http.Handler {
	return rewrite(target, func(_ *http.Request, _ *http.Response, body map[string]any) bool {
		if _, ok := body["error"]; ok {
			body["success"] = false
			return true
		}
		return false
	})
}

// EmptySuccess answers {} for {"success":true}: neither a success answer
// nor an error.
func EmptySuccess(target *url.URL) http.Handler {
	return rewrite(target, func(_ *http.Request, _ *http.Response, body map[string]any) bool {
		if body["success"] == true && len(body) == 1 {
			delete(body, "success")
			return true
		}
		return false
	})
}
