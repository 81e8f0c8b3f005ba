// Package faults breaks a good portal on purpose: each function returns a
// reverse proxy in front of a portal that alters its answers in one way the
// contract forbids. The conformance suite's own tests use them to show that
// the suite notices.
package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// rewrite returns a proxy to target that passes each answer's decoded JSON
// body through change; change reports whether it altered anything.
func rewrite(target *url.URL, change func(req *http.Request, resp *http.Response, body map[string]any) bool) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		raw, err := takeBody(resp)
		if err != nil {
			return err
		}
		var body map[string]any
		if json.Unmarshal(raw, &body) == nil && change(resp.Request, resp, body) {
			if raw, err = json.Marshal(body); err != nil {
				return err
			}
		}
		setBody(resp, raw)
		return nil
	}
	return p
}

// takeBody reads the whole body of resp, for a fault to look at or change;
// setBody puts it, or what replaces it, back.
func takeBody(resp *http.Response) ([]byte, error) {
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return raw, err
}

func setBody(resp *http.Response, raw []byte) {
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
}

// peekForm reads the form of r's URL-encoded body and puts the body back for
// the proxy; a body that cannot be read is answered 400 and ok is false.
func peekForm(w http.ResponseWriter, r *http.Request) (form url.Values, ok bool) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	form, _ = url.ParseQuery(string(raw))
	return form, true
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

// ForeignInfoAddress answers info with owningSystemUrl and tokenServicesUrl
// on another host than the one the client reached the portal at.
func ForeignInfoAddress(target *url.URL) http.Handler {
	return rewrite(target, func(req *http.Request, _ *http.Response, body map[string]any) bool {
		if !strings.HasSuffix(req.URL.Path, "/sharing/rest/info") {
			return false
		}
		elsewhere := func(v any) any {
			u, err := url.Parse(fmt.Sprint(v))
			if err != nil {
				return v
			}
			u.Host = "portal.invalid"
			return u.String()
		}
		body["owningSystemUrl"] = elsewhere(body["owningSystemUrl"])
		if auth, ok := body["authInfo"].(map[string]any); ok {
			auth["tokenServicesUrl"] = elsewhere(auth["tokenServicesUrl"])
		}
		return true
	})
}

// StaleCategorySchemaFlag answers portals/self with hasMemberCategorySchema
// false, whatever the organization has.
func StaleCategorySchemaFlag(target *url.URL) http.Handler {
	return rewrite(target, func(req *http.Request, _ *http.Response, body map[string]any) bool {
		if _, ok := body["hasMemberCategorySchema"]; !ok || !strings.HasSuffix(req.URL.Path, "/portals/self") {
			return false
		}
		body["hasMemberCategorySchema"] = false
		return true
	})
}

// FormEncodedRedirects re-encodes the parameters of the sign-in's redirects
// as HTML forms do (url.Values.Encode: + for a space), which the ArcGIS API
// for Python decodes and ArcGIS REST JS does not.
func FormEncodedRedirects(target *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		loc, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || resp.StatusCode != http.StatusFound {
			return nil
		}
		if q, err := url.ParseQuery(loc.RawQuery); err == nil && loc.RawQuery != "" {
			loc.RawQuery = q.Encode()
		}
		if f, err := url.ParseQuery(loc.EscapedFragment()); err == nil && loc.Fragment != "" {
			loc.Fragment, loc.RawFragment = "", ""
			resp.Header.Set("Location", loc.String()+"#"+f.Encode())
			return nil
		}
		resp.Header.Set("Location", loc.String())
		return nil
	}
	return p
}

// ReusableCodes answers a second exchange of an authorization code with
// the tokens of the first, instead of refusing it.
func ReusableCodes(target *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	answers := map[string][]byte{} // code -> the first exchange's answer
	p.ModifyResponse = func(resp *http.Response) error {
		code := resp.Request.Header.Get("X-Fault-Code")
		if code == "" {
			return nil
		}
		raw, err := takeBody(resp)
		if err != nil {
			return err
		}
		mu.Lock()
		answers[code] = raw
		mu.Unlock()
		setBody(resp, raw)
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/oauth2/token") {
			form, ok := peekForm(w, r)
			if !ok {
				return
			}
			if form.Get("grant_type") == "authorization_code" {
				mu.Lock()
				first, seen := answers[form.Get("code")]
				mu.Unlock()
				if seen {
					w.Header().Set("Content-Type", "application/json; charset=utf-8")
					w.Write(first)
					return
				}
				r.Header.Set("X-Fault-Code", form.Get("code"))
			}
		}
		p.ServeHTTP(w, r)
	})
}

// MoveItemWithoutMoving answers the per-item move with its documented
// success, naming the destination, without moving anything.
func MoveItemWithoutMoving(target *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(r.URL.Path, "/")
		n := len(parts)
		if r.Method != http.MethodPost || n < 4 || parts[n-1] != "move" || parts[n-3] != "items" {
			p.ServeHTTP(w, r)
			return
		}
		_ = r.ParseForm()
		owner := ""
		for i, part := range parts {
			if part == "users" && i+1 < n {
				owner = parts[i+1]
			}
		}
		folder := r.PostForm.Get("folder")
		if folder == "" || folder == "Root Folder" {
			folder = "/"
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"success": true, "itemId": parts[n-2], "owner": owner, "folder": folder})
	})
}

// RefuseGatedField refuses every settings update that sends
// portalConfigProperties, with the 400 a portal too old for the field
// answers, whatever the portal's version: a portal that says it is recent
// and still refuses the field.
func RefuseGatedField(target *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/update") {
			p.ServeHTTP(w, r)
			return
		}
		form, ok := peekForm(w, r)
		if !ok {
			return
		}
		if !form.Has("portalConfigProperties") {
			p.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": 400, "message": "Unable to update portal settings.",
			"details": []string{"portalConfigProperties: requires version 11.0; this portal is 10.8"}}})
	})
}

// MoveItemsWithoutMoving answers moveItems with a success for each item
// listed (spaces trimmed, empty entries left out, as the contract says),
// without moving anything.
func MoveItemsWithoutMoving(target *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/moveItems") {
			p.ServeHTTP(w, r)
			return
		}
		_ = r.ParseForm()
		var results []any
		for _, id := range strings.Split(r.PostForm.Get("items"), ",") {
			if id = strings.TrimSpace(id); id != "" {
				results = append(results, map[string]any{"itemId": id, "success": true})
			}
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"results": results})
	})
}

// PublicGroupsHiddenFromAnonymous answers a group read by GET without a
// token (none in the query or an authorization header) as a group that does
// not exist, public groups included, which anyone may read.
func PublicGroupsHiddenFromAnonymous(target *url.URL) http.Handler {
	return rewrite(target, func(req *http.Request, _ *http.Response, body map[string]any) bool {
		parts := strings.Split(strings.TrimSuffix(req.URL.Path, "/"), "/")
		n := len(parts)
		if req.Method != http.MethodGet || n < 3 || parts[n-3] != "community" || parts[n-2] != "groups" || body["error"] != nil {
			return false
		}
		if req.URL.Query().Get("token") != "" || req.Header.Get("Authorization") != "" || req.Header.Get("X-Esri-Authorization") != "" {
			return false
		}
		for k := range body {
			delete(body, k)
		}
		body["error"] = map[string]any{"code": 400, "message": "Group does not exist or is inaccessible.", "details": []any{}}
		return true
	})
}

// LaggingIndex returns a fault that serves searchItems from an index that
// lags writes, as an ArcGIS portal's does: an item added through it
// (addItem, addItemToFolder) is missing from searchItems' results and total
// for the first searches searches after it was added, then found as the
// portal finds it. A search without such an item, or refused, is the
// portal's answer.
func LaggingIndex(searches int) func(target *url.URL) http.Handler {
	return func(target *url.URL) http.Handler { return laggingIndex(target, searches) }
}

// NeverIndexes serves searchItems from an index that never takes the items
// added through it: they are missing from every search until deleted.
func NeverIndexes(target *url.URL) http.Handler { return laggingIndex(target, -1) }

// laggingIndex hides each item added through it from the next searches
// searchItems requests (GET), every one if searches is negative, by asking
// the portal for the query without them. An item deleted (deleteItems) is
// forgotten.
func laggingIndex(target *url.URL, searches int) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	hidden := map[string]int{} // item id -> searches left to hide it from; -1 all
	p.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPost || !strings.HasSuffix(resp.Request.URL.Path, "/addItem") {
			return nil
		}
		raw, err := takeBody(resp)
		if err != nil {
			return err
		}
		setBody(resp, raw)
		var added struct {
			Success bool   `json:"success"`
			ID      string `json:"id"`
		}
		if json.Unmarshal(raw, &added) == nil && added.Success && added.ID != "" && searches != 0 {
			mu.Lock()
			hidden[added.ID] = searches
			mu.Unlock()
		}
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/deleteItems") {
			form, ok := peekForm(w, r)
			if !ok {
				return
			}
			mu.Lock()
			for _, id := range strings.Split(form.Get("items"), ",") {
				delete(hidden, strings.TrimSpace(id))
			}
			mu.Unlock()
		}
		if r.Method != http.MethodGet || !strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/sharing/rest/search") {
			p.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		var ids []string
		for id, left := range hidden {
			if left != 0 {
				ids = append(ids, "id:"+id)
			}
			if left > 0 {
				hidden[id] = left - 1
			}
		}
		mu.Unlock()
		if len(ids) == 0 {
			p.ServeHTTP(w, r)
			return
		}
		// The query as sent first, so that a query the portal refuses is
		// refused as it is; then without the hidden items.
		asSent := httptest.NewRecorder()
		p.ServeHTTP(asSent, r)
		var body map[string]any
		if json.Unmarshal(asSent.Body.Bytes(), &body) != nil || body["error"] != nil {
			copyRecorded(w, asSent)
			return
		}
		query := r.URL.Query()
		q := query.Get("q")
		without := "NOT (" + strings.Join(ids, " OR ") + ")"
		if strings.TrimSpace(q) != "" {
			without = "(" + q + ") AND " + without
		}
		query.Set("q", without)
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = query.Encode()
		lagging := httptest.NewRecorder()
		p.ServeHTTP(lagging, r2)
		body = nil
		if json.Unmarshal(lagging.Body.Bytes(), &body) != nil || body["error"] != nil {
			copyRecorded(w, lagging)
			return
		}
		if _, ok := body["query"]; ok {
			body["query"] = q // the query the client sent, as the portal echoes it
		}
		raw, err := json.Marshal(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		lagging.Body = bytes.NewBuffer(raw)
		copyRecorded(w, lagging)
	})
}

// copyRecorded writes a recorded answer to w.
func copyRecorded(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(rec.Body.Len()))
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// SettingsUnwrittenWithBearerHeader answers a settings update whose token
// comes in the Authorization header with success, without passing it on:
// the write is never done.
func SettingsUnwrittenWithBearerHeader(target *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/settings/update") || r.Header.Get("Authorization") == "" {
			p.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"success": true})
	})
}

// LaggingTags returns a fault that counts getUserTags from an index that
// lags writes, as LaggingIndex does searches: the tags of an item added
// through it (addItem, addItemToFolder) are left out of the counts of the
// first reads reads of a user's tags after it was added, of every one when
// reads is negative.
func LaggingTags(reads int) func(target *url.URL) http.Handler {
	return func(target *url.URL) http.Handler {
		p := httputil.NewSingleHostReverseProxy(target)
		var mu sync.Mutex
		type added struct {
			tags []string
			left int // reads left to leave them out of; -1 all
		}
		var items []*added
		p.ModifyResponse = func(resp *http.Response) error {
			tags := resp.Request.Header.Get("X-Fault-Tags")
			isTags := resp.Request.Method == http.MethodGet && strings.HasSuffix(strings.TrimSuffix(resp.Request.URL.Path, "/"), "/tags")
			if tags == "" && !isTags {
				return nil
			}
			raw, err := takeBody(resp)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			var body struct {
				Success bool `json:"success"`
				Tags    []struct {
					Tag   string `json:"tag"`
					Count int    `json:"count"`
				} `json:"tags"`
			}
			switch {
			case tags != "" && json.Unmarshal(raw, &body) == nil && body.Success:
				items = append(items, &added{tags: strings.Split(tags, ","), left: reads})
			case isTags && json.Unmarshal(raw, &body) == nil && body.Tags != nil:
				out := body.Tags[:0]
				for _, c := range body.Tags {
					for _, it := range items {
						if it.left != 0 && slices.Contains(it.tags, c.Tag) {
							c.Count--
						}
					}
					if c.Count > 0 {
						out = append(out, c)
					}
				}
				for _, it := range items {
					if it.left > 0 {
						it.left--
					}
				}
				if raw, err = json.Marshal(map[string]any{"tags": out}); err != nil {
					return err
				}
			}
			setBody(resp, raw)
			return nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/addItem") {
				form, ok := peekForm(w, r)
				if !ok {
					return
				}
				var tags []string
				for _, tag := range strings.Split(form.Get("tags"), ",") {
					if tag = strings.TrimSpace(tag); tag != "" {
						tags = append(tags, tag)
					}
				}
				r.Header.Set("X-Fault-Tags", strings.Join(tags, ","))
			}
			p.ServeHTTP(w, r)
		})
	}
}
