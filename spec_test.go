package portalapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/gen"
)

func mustLoad(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The document validates, examples included (kin-openapi validates every
// request and response example against its schema by default).
func TestSpecValidates(t *testing.T) {
	doc := mustLoad(t)
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatal(err)
	}
}

// The embedded spec in gen/ is generated from the same document.
func TestGeneratedSpecMatches(t *testing.T) {
	doc := mustLoad(t)
	embedded, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		other := embedded.Paths.Find(path)
		if other == nil {
			t.Errorf("gen spec lacks %s", path)
			continue
		}
		for method, op := range item.Operations() {
			if o := other.GetOperation(method); o == nil || o.OperationID != op.OperationID {
				t.Errorf("gen spec %s %s differs", method, path)
			}
		}
	}
	if len(embedded.Paths.Map()) != len(doc.Paths.Map()) {
		t.Errorf("gen spec has %d paths, openapi.yaml %d", len(embedded.Paths.Map()), len(doc.Paths.Map()))
	}
}

// Every operation api.md puts in scope is described, the seeded ones with
// their versions.
func TestSpecOperations(t *testing.T) {
	doc := mustLoad(t)
	want := map[string]string{
		"updateSettings":             "POST /portals/{portalId}/settings/update",
		"assignMemberCategorySchema": "POST /portals/{portalId}/assignMemberCategorySchema",
		"moveItems":                  "POST /content/users/{userName}/moveItems",
		"getSettings":                "GET /portals/{portalId}/settings",
		"getMemberCategorySchema":    "GET /portals/{portalId}/memberCategorySchema",
		"deleteMemberCategorySchema": "POST /portals/{portalId}/deleteMemberCategorySchema",
		"generateToken":              "POST /generateToken",
		"getUserContent":             "GET /content/users/{userName}",
		"getFolderContent":           "GET /content/users/{userName}/{folderId}",
		"getItem":                    "GET /content/items/{itemId}",
		"createFolder":               "POST /content/users/{userName}/createFolder",
		"addItem":                    "POST /content/users/{userName}/addItem",
		"addItemToFolder":            "POST /content/users/{userName}/{folderId}/addItem",
		"deleteItems":                "POST /content/users/{userName}/deleteItems",
		"deleteFolder":               "POST /content/users/{userName}/{folderId}/delete",
		"getMember":                  "GET /community/users/{userName}",
		"updateMember":               "POST /community/users/{userName}/update",
		"listMembers":                "GET /portals/{portalId}/users",
		"getRoot":                    "GET /",
		"getInfo":                    "GET /info",
		"getPortal":                  "GET /portals/{portalId}",
		"listRoles":                  "GET /portals/{portalId}/roles",
		"getSelf":                    "GET /community/self",
		"moveItem":                   "POST /content/users/{userName}/items/{itemId}/move",
		"moveItemFromFolder":         "POST /content/users/{userName}/{folderId}/items/{itemId}/move",
		"oauthAuthorize":             "GET /oauth2/authorize",
		"oauthSignIn":                "POST /oauth2/signin",
		"oauthApproval":              "GET /oauth2/approval",
		"oauthToken":                 "POST /oauth2/token",
		"searchItems":                "GET /search",
		"searchGroups":               "GET /community/groups",
		"getGroup":                   "GET /community/groups/{groupId}",
		"getUserTags":                "GET /community/users/{userName}/tags",
		"oauthRevokeToken":           "POST /oauth2/revokeToken",
	}
	got := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got[op.OperationID] = method + " " + path
		}
	}
	for id, route := range want {
		if got[id] != route {
			t.Errorf("%s: got %q, want %q", id, got[id], route)
		}
	}
	if len(got) != len(want) {
		t.Errorf("spec has %d operations, want %d", len(got), len(want))
	}
	if v := doc.Paths.Find("/portals/{portalId}/settings/update").Post.Extensions["x-introduced-in"]; v != "10.8" {
		t.Errorf("settings/update x-introduced-in = %v", v)
	}
	props := doc.Components.Schemas["PortalConfigProperties"].Value.Properties
	for name, version := range map[string]string{"extentService": "11.0", "iotViewerUrl": "11.1", "searchHostedEnabled": "11.0"} {
		if props[name] == nil || props[name].Value.Extensions["x-introduced-in"] != version {
			t.Errorf("%s: x-introduced-in want %s", name, version)
		}
	}
	named := []string{"extentService", "footerLinks", "gcsBasemapService", "httpsDomains", "longTokenExpiration",
		"tokenExpiration", "searchHostedEnabled", "surveyUrl", "configurePortalHostedEnv", "portalHostedConfigEnabled",
		"portalLivingAtlasConfigEnabled", "iotViewerUrl", "restrictOrganizationPageToAdmin", "showInAppLauncher",
		"sceneViewerEnabled", "webAppBuilderEnabled"}
	for _, n := range named {
		if props[n] == nil {
			t.Errorf("PortalConfigProperties lacks %s", n)
		}
	}
	if len(props) != len(named) {
		t.Errorf("PortalConfigProperties has %d properties, want %d", len(props), len(named))
	}
}

// examplePairs returns, per operation, the names of its request examples
// (request body or x-examples) and of its response examples.
func examplePairs(op *openapi3.Operation) (req, resp map[string]bool) {
	req, resp = map[string]bool{}, map[string]bool{}
	if op.RequestBody != nil {
		for _, mt := range op.RequestBody.Value.Content {
			for name := range mt.Examples {
				req[name] = true
			}
		}
	}
	if x, ok := op.Extensions["x-examples"].(map[string]any); ok {
		for name := range x {
			req[name] = true
		}
	}
	for _, mt := range op.Responses.Value("200").Value.Content {
		for name := range mt.Examples {
			resp[name] = true
		}
	}
	return req, resp
}

// Every operation has named request/response pairs, at least one success and
// one error, and every x-setup names a pair that exists.
func TestExamplePairs(t *testing.T) {
	doc := mustLoad(t)
	pairs := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			req, resp := examplePairs(op)
			for name := range req {
				pairs[op.OperationID+"/"+name] = true
			}
			for name := range resp {
				if !req[name] {
					t.Errorf("%s: response example %q has no request example", op.OperationID, name)
				}
			}
		}
	}
	needErrors := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Responses.Value("200").Value.Content.Get("application/json") == nil {
				// The sign-in's pages: HTML, checked by their tests, not by
				// example pairs.
				continue
			}
			req, resp := examplePairs(op)
			var ok, bad int
			for name := range req {
				if !resp[name] {
					t.Errorf("%s: request example %q has no response example", op.OperationID, name)
					continue
				}
				for _, mt := range op.Responses.Value("200").Value.Content {
					v, _ := json.Marshal(mt.Examples[name].Value.Value)
					if strings.HasPrefix(string(v), `{"error":`) {
						bad++
					} else {
						ok++
					}
				}
			}
			if ok == 0 {
				t.Errorf("%s: no success example", op.OperationID)
			}
			if bad == 0 {
				needErrors[op.OperationID] = true
			}
			for _, setup := range exampleSetups(op) {
				if !pairs[setup] {
					t.Errorf("%s: x-setup names %q, which is no example pair", op.OperationID, setup)
				}
			}
		}
	}
	// Operations whose only failures are shown through other operations' pairs.
	for _, id := range []string{"addItemToFolder", "deleteFolder", "deleteItems", "getUserContent", "listMembers"} {
		delete(needErrors, id)
	}
	if len(needErrors) > 0 {
		ids := make([]string, 0, len(needErrors))
		for id := range needErrors {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		t.Errorf("operations without an error example: %v", ids)
	}
}

func exampleSetups(op *openapi3.Operation) []string {
	var out []string
	collect := func(ext map[string]any) {
		if list, ok := ext["x-setup"].([]any); ok {
			for _, s := range list {
				out = append(out, fmt.Sprint(s))
			}
		}
	}
	if op.RequestBody != nil {
		for _, mt := range op.RequestBody.Value.Content {
			for _, ex := range mt.Examples {
				collect(ex.Value.Extensions)
			}
		}
	}
	if x, ok := op.Extensions["x-examples"].(map[string]any); ok {
		for _, v := range x {
			if m, ok := v.(map[string]any); ok {
				collect(m)
			}
		}
	}
	return out
}

// The seed's own cases are among the examples.
func TestSeedExamples(t *testing.T) {
	doc := mustLoad(t)
	respExample := func(path, name string) string {
		item := doc.Paths.Find(path)
		ex := item.Post.Responses.Value("200").Value.Content["application/json"].Examples[name]
		if ex == nil {
			t.Fatalf("%s: no example %q", path, name)
		}
		b, _ := json.Marshal(ex.Value.Value)
		return string(b)
	}
	for _, name := range []string{"fourLevels", "emptySchema"} {
		if got := respExample("/portals/{portalId}/assignMemberCategorySchema", name); !strings.Contains(got, `"messageCode":"ORG_1132"`) {
			t.Errorf("%s: %s", name, got)
		}
	}
	got := respExample("/content/users/{userName}/moveItems", "oneMovedOneAlreadyThere")
	if !strings.Contains(got, `"success":true`) || !strings.Contains(got, `"message":"Item already exists in target folder"`) {
		t.Errorf("moveItems example: %s", got)
	}
	ex := doc.Paths.Find("/portals/{portalId}/settings/update").Post.Responses.Value("200").Value.Content["application/json"].Examples["prettyJSON"]
	if raw, _ := ex.Value.Extensions["x-raw-body"].(string); !strings.Contains(raw, "\n  \"success\"") {
		t.Errorf("prettyJSON example has no indented x-raw-body: %q", raw)
	}
}

// RESTVersions reads the table getRoot's description promises, and refuses
// one that is missing or holds a value that is no text.
func TestRESTVersions(t *testing.T) {
	table, err := portalapi.RESTVersions(mustLoad(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, release := range []string{"10.8", "11.0", "11.1", "11.3", "11.5"} {
		if table[release] == "" {
			t.Errorf("x-rest-versions lacks release %s: %v", release, table)
		}
	}
	doc := mustLoad(t)
	doc.Paths.Value("/").Get.Extensions["x-rest-versions"] = map[string]any{"11.5": 2025.1}
	if _, err := portalapi.RESTVersions(doc); err == nil || !strings.Contains(err.Error(), `"11.5"`) {
		t.Errorf("a number for a REST version: %v, want an error naming the release", err)
	}
	delete(doc.Paths.Value("/").Get.Extensions, "x-rest-versions")
	if _, err := portalapi.RESTVersions(doc); err == nil {
		t.Error("no x-rest-versions: no error")
	}
}
