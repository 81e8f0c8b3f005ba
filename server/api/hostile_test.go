package api_test

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	portalapi "github.com/orgportal/portal-api"
	pt "github.com/orgportal/portal-api/portaltest"
)

// Paths of the operations the catalog aims at.
const (
	hUpdate    = settingsPath + "/update"
	hAssign    = schemaPath + "/assignMemberCategorySchema"
	hSchema    = schemaPath + "/memberCategorySchema"
	hDelSchema = schemaPath + "/deleteMemberCategorySchema"
	hUsers     = schemaPath + "/users"
	hMember    = "/community/users/" + pt.Member
	hContent   = "/content/users/" + pt.Member
	otherItem  = "0d0d0d0d0d0d4d0d8d0d0d0d0d0d0d0d" // otheruser's, in the other organization
	otherDir   = "0c0c0c0c0c0c4c0c8c0c0c0c0c0c0c0c"
)

// Hostile strings.
const (
	sqlOr     = `' OR 1=1 --`
	sqlDrop   = `"; DROP TABLE items; --`
	rtl       = "\u202eevil\u202c"
	emoji     = "📁🚀👩‍👩‍👧"
	combining = "jsmith\u0301\u0308"
	nul       = "a\x00b"
	badUTF8   = "a\xff\xfeb"
)

var pe = url.PathEscape

// hostileCatalog is every malformed or hostile request with the answer it
// must get. None of them may change the store.
func hostileCatalog() []hostileCase {
	const mib = 1 << 20
	okBanner := `{"text":"ok","bgColor":"red","fontColor":"white","enabled":true}`
	hugeTitle := strings.Repeat("t", 100_000)
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }

	// updateSettings: every JSON-in-form field broken, mistyped, huge or deep.
	add(
		hostileCase{op: "updateSettings", name: "anonymousAccessNotice broken JSON", path: hUpdate, body: enc("anonymousAccessNotice", `{"title":`), code: 400, detail: "anonymousAccessNotice: not a JSON document"},
		hostileCase{op: "updateSettings", name: "authenticatedAccessNotice single quotes", path: hUpdate, body: enc("authenticatedAccessNotice", `{'title':'x'}`), code: 400, detail: "authenticatedAccessNotice: not a JSON document"},
		hostileCase{op: "updateSettings", name: "informationalBanner trailing comma", path: hUpdate, body: enc("informationalBanner", `{"text":"x",}`), code: 400, detail: "informationalBanner: not a JSON document"},
		hostileCase{op: "updateSettings", name: "portalConfigProperties missing value", path: hUpdate, body: enc("portalConfigProperties", `{"tokenExpiration":}`), code: 400, detail: "portalConfigProperties: not a JSON document"},
		hostileCase{op: "updateSettings", name: "two JSON documents in one field", path: hUpdate, body: enc("informationalBanner", `{}{}`), code: 400, detail: "informationalBanner: not a JSON document"},
		hostileCase{op: "updateSettings", name: "byte order mark before the JSON", path: hUpdate, body: enc("informationalBanner", "\ufeff{}"), code: 400, detail: "informationalBanner: not a JSON document"},
		hostileCase{op: "updateSettings", name: "NaN number", path: hUpdate, body: enc("portalConfigProperties", `{"tokenExpiration":NaN}`), code: 400, detail: "portalConfigProperties: not a JSON document"},
		hostileCase{op: "updateSettings", name: "JSON with a comment", path: hUpdate, body: enc("anonymousAccessNotice", `{/* x */}`), code: 400, detail: "anonymousAccessNotice: not a JSON document"},
		hostileCase{op: "updateSettings", name: "number beyond float64", path: hUpdate, body: enc("portalConfigProperties", `{"tokenExpiration":1e400}`), code: 400, detail: "portalConfigProperties"},
		hostileCase{op: "updateSettings", name: "notice null", path: hUpdate, body: enc("anonymousAccessNotice", `null`), code: 400, detail: "anonymousAccessNotice"},
		hostileCase{op: "updateSettings", name: "portalConfigProperties null", path: hUpdate, body: enc("portalConfigProperties", `null`), code: 400, detail: "portalConfigProperties"},
		hostileCase{op: "updateSettings", name: "notice is an array", path: hUpdate, body: enc("anonymousAccessNotice", `[]`), code: 400, detail: "anonymousAccessNotice"},
		hostileCase{op: "updateSettings", name: "banner is a string", path: hUpdate, body: enc("informationalBanner", `"Read-only"`), code: 400, detail: "informationalBanner"},
		hostileCase{op: "updateSettings", name: "enabled is a string", path: hUpdate, body: enc("informationalBanner", `{"enabled":"true"}`), code: 400, detail: "informationalBanner.enabled"},
		hostileCase{op: "updateSettings", name: "title is a number", path: hUpdate, body: enc("anonymousAccessNotice", `{"title":5}`), code: 400, detail: "anonymousAccessNotice.title"},
		hostileCase{op: "updateSettings", name: "buttons is an object", path: hUpdate, body: enc("authenticatedAccessNotice", `{"buttons":{"a":1}}`), code: 400, detail: "authenticatedAccessNotice.buttons"},
		hostileCase{op: "updateSettings", name: "clearEmptyFields yes", path: hUpdate, body: enc("informationalBanner", `{}`, "clearEmptyFields", "yes"), code: 400, detail: "clearEmptyFields"},
		hostileCase{op: "updateSettings", name: "clearEmptyFields 1", path: hUpdate, body: enc("informationalBanner", `{}`, "clearEmptyFields", "1"), code: 400, detail: "clearEmptyFields"},
		hostileCase{op: "updateSettings", name: "portalConfigProperties is an array", path: hUpdate, body: enc("portalConfigProperties", `[{"tokenExpiration":5}]`), code: 400, detail: "portalConfigProperties"},
		hostileCase{op: "updateSettings", name: "tokenExpiration is a string", path: hUpdate, body: enc("portalConfigProperties", `{"tokenExpiration":"120"}`), code: 400, detail: "portalConfigProperties.tokenExpiration"},
		hostileCase{op: "updateSettings", name: "tokenExpiration past int32", path: hUpdate, body: enc("portalConfigProperties", `{"tokenExpiration":2147483648}`), code: 400, detail: "portalConfigProperties.tokenExpiration"},
		hostileCase{op: "updateSettings", name: "httpsDomains is an object", path: hUpdate, body: enc("portalConfigProperties", `{"httpsDomains":{"a":"b"}}`), code: 400, detail: "portalConfigProperties.httpsDomains"},
		hostileCase{op: "updateSettings", name: "extentService is a number", path: hUpdate, body: enc("portalConfigProperties", `{"extentService":42}`), code: 400, detail: "portalConfigProperties.extentService"},
		hostileCase{op: "updateSettings", name: "empty property name", path: hUpdate, body: enc("portalConfigProperties", `{"":1}`), code: 400, detail: "a property name is empty"},
		hostileCase{op: "updateSettings", name: "property value nested 10,000 levels", path: hUpdate, body: enc("portalConfigProperties", `{"x":`+nest(10_000, "1")+`}`), code: 400, detail: "portalConfigProperties: not a JSON document"},
		hostileCase{op: "updateSettings", name: "httpsDomains nested 10,000 levels", path: hUpdate, body: enc("portalConfigProperties", `{"httpsDomains":`+nest(10_000, `"a.org"`)+`}`), code: 400, detail: "portalConfigProperties: not a JSON document"},
		hostileCase{op: "updateSettings", name: "httpsDomains nested 9,998 levels", path: hUpdate, body: enc("portalConfigProperties", `{"httpsDomains":`+nest(9_998, `"a.org"`)+`}`), code: 400, detail: "portalConfigProperties.httpsDomains"},
		hostileCase{op: "updateSettings", name: "a legal 9,998-level array beside a bad property", path: hUpdate, body: enc("portalConfigProperties", `{"deep":`+nest(9_998, "1")+`,"tokenExpiration":0}`), code: 400, detail: "portalConfigProperties.tokenExpiration"},
		hostileCase{op: "updateSettings", name: "banner text nested 10,000 levels", path: hUpdate, body: enc("informationalBanner", `{"text":`+nest(9_999, `"x"`)+`}`), code: 400, detail: "informationalBanner"},
		hostileCase{op: "updateSettings", name: "100 KB banner text", path: hUpdate, body: enc("informationalBanner", `{"text":"`+hugeTitle+`"}`), code: 400, detail: "informationalBanner.text"},
		hostileCase{op: "updateSettings", name: "notice text one past 65,536", path: hUpdate, body: enc("anonymousAccessNotice", `{"text":"`+strings.Repeat("x", 65_537)+`"}`), code: 400, detail: "anonymousAccessNotice.text"},
		hostileCase{op: "updateSettings", name: "RTL override title, enabled without buttons", path: hUpdate, body: enc("anonymousAccessNotice", `{"title":"`+rtl+`","text":"x","enabled":true}`), code: 400, detail: "anonymousAccessNotice.buttons: required when the notice is enabled"},
		hostileCase{op: "updateSettings", name: "emoji color", path: hUpdate, body: enc("informationalBanner", `{"text":"x","bgColor":"🟥","fontColor":"white"}`), code: 400, detail: "informationalBanner.bgColor"},
		hostileCase{op: "updateSettings", name: "raw NUL in banner text", path: hUpdate, body: enc("informationalBanner", `{"text":"`+nul+`"}`), code: 400, detail: "informationalBanner: holds a NUL"},
		hostileCase{op: "updateSettings", name: "invalid UTF-8 in banner text", path: hUpdate, body: enc("informationalBanner", `{"text":"`+badUTF8+`"}`), code: 400, detail: "informationalBanner: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "updateSettings", name: "valid banner, invalid notice: nothing stored", path: hUpdate, body: enc("informationalBanner", okBanner, "anonymousAccessNotice", `{"buttons":"yesNo"}`), code: 400, detail: "anonymousAccessNotice.buttons"},
		hostileCase{op: "updateSettings", name: "informationalBanner given twice", path: hUpdate, body: "informationalBanner=%7B%7D&informationalBanner=%7B%7D", code: 400, detail: "given 2 times"},
		hostileCase{op: "updateSettings", name: "split: bad banner in the query, f in the body", path: hUpdate, query: enc("informationalBanner", `{"enabled":"no"}`), body: enc("f", "json"), code: 400, detail: "informationalBanner.enabled"},
		hostileCase{op: "updateSettings", name: "split: the body's bad banner beats the query's good one", path: hUpdate, query: enc("informationalBanner", okBanner), body: enc("informationalBanner", `{"bgColor":"blurple"}`), code: 400, detail: "informationalBanner.bgColor"},
		hostileCase{op: "updateSettings", name: "f=html", path: hUpdate, body: enc("informationalBanner", okBanner, "f", "html"), code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "updateSettings", name: "f=JSON in capitals", path: hUpdate, body: enc("informationalBanner", okBanner, "f", "JSON"), code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "updateSettings", name: "unknown portal", path: "/portals/FFFFFFFFFFFFFFFF/settings/update", body: enc("informationalBanner", okBanner), code: 400, detail: "Portal does not exist"},
		hostileCase{op: "updateSettings", name: "SQL OR in portal id", path: "/portals/" + pe(sqlOr) + "/settings/update", body: enc("informationalBanner", okBanner), code: 400, detail: "Portal does not exist"},
		hostileCase{op: "updateSettings", name: "SQL DROP in portal id", path: "/portals/" + pe(sqlDrop) + "/settings/update", body: enc("informationalBanner", okBanner), code: 400, detail: "Portal does not exist"},
		hostileCase{op: "updateSettings", name: "portal id of 65 characters", path: "/portals/" + strings.Repeat("A", 65) + "/settings/update", body: enc("informationalBanner", okBanner), code: 400, detail: "portalId: maximum string length is 64"},
		hostileCase{op: "updateSettings", name: "JSON body", path: hUpdate, body: `{"informationalBanner":{"enabled":false}}`, ctype: "application/json", code: 400, detail: "Content-Type"},
		hostileCase{op: "updateSettings", name: "multipart body, banner broken", path: hUpdate, body: "--b\r\nContent-Disposition: form-data; name=\"informationalBanner\"\r\n\r\n{\"text\":\r\n--b--\r\n", ctype: "multipart/form-data; boundary=b", code: 400, detail: "informationalBanner: not a JSON document"},
		hostileCase{op: "updateSettings", name: "semicolon separators", path: hUpdate, body: "informationalBanner=%7B%7D;f=json", code: 400, detail: "not URL-encoded"},
		hostileCase{op: "updateSettings", name: "broken percent escape", path: hUpdate, body: "informationalBanner=%7B%7", code: 400, detail: "not URL-encoded"},
		hostileCase{op: "updateSettings", name: "publisher with a valid update", path: hUpdate, auth: pt.PublisherToken, body: enc("informationalBanner", okBanner), code: 403, detail: "GWM_0003"},
		hostileCase{op: "updateSettings", name: "other organization's administrator", path: hUpdate, auth: pt.OtherAdminToken, body: enc("informationalBanner", okBanner), code: 403, detail: "GWM_0003"},
	)

	// Tokens in every place, alone and in conflict.
	add(
		hostileCase{op: "updateSettings", name: "bad token in the form", path: hUpdate, auth: "none", body: enc("informationalBanner", okBanner, "token", "bogus"), code: 498, detail: "Invalid token."},
		hostileCase{op: "updateSettings", name: "bad token in the query", path: hUpdate, auth: "none", query: "token=bogus", body: enc("informationalBanner", okBanner), code: 498, detail: "Invalid token."},
		hostileCase{op: "updateSettings", name: "NUL escaped in a notice's title", path: hUpdate, body: enc("anonymousAccessNotice", `{"title":"a\u0000b","text":"t","buttons":"okOnly","enabled":true}`), code: 400, detail: "anonymousAccessNotice.title: holds a NUL character"},
		hostileCase{op: "updateSettings", name: "NUL escaped in a property's name", path: hUpdate, body: enc("portalConfigProperties", `{"ok":1,"\u0000":1}`), code: 400, detail: "portalConfigProperties (a member name): holds a NUL character"},
		hostileCase{op: "updateSettings", name: "NUL escaped deep in a property", path: hUpdate, body: enc("portalConfigProperties", `{"a":{"b":[1,"x\u0000"]}}`), code: 400, detail: "portalConfigProperties.a.b[1]: holds a NUL character"},
		hostileCase{op: "updateSettings", name: "token given twice in the form", path: hUpdate, auth: "none", body: enc("informationalBanner", okBanner) + "&token=bogus&token=" + pt.AdminToken, code: 400, detail: "token: given 2 times"},
		hostileCase{op: "updateSettings", name: "token given twice in the query", path: hUpdate, auth: "none", query: "token=" + pt.AdminToken + "&token=bogus", body: enc("informationalBanner", okBanner), code: 400, detail: "token: given 2 times"},
		hostileCase{op: "updateSettings", name: "bad token in X-Esri-Authorization", path: hUpdate, auth: "none", header: map[string]string{"X-Esri-Authorization": "Bearer bogus"}, body: enc("informationalBanner", okBanner), code: 498, detail: "Invalid token."},
		hostileCase{op: "updateSettings", name: "bad token in Authorization", path: hUpdate, auth: "bogus", body: enc("informationalBanner", okBanner), code: 498, detail: "Invalid token."},
		hostileCase{op: "updateSettings", name: "member's token in the form beats the admin's header", path: hUpdate, body: enc("informationalBanner", okBanner, "token", pt.MemberToken), code: 403, detail: "GWM_0003"},
		hostileCase{op: "updateSettings", name: "member's token in the query beats the admin's X-Esri header", path: hUpdate, auth: "none", query: "token=" + pt.MemberToken, header: map[string]string{"X-Esri-Authorization": "Bearer " + pt.AdminToken}, body: enc("informationalBanner", okBanner), code: 403, detail: "GWM_0003"},
		hostileCase{op: "updateSettings", name: "member's X-Esri header beats the admin's Authorization", path: hUpdate, header: map[string]string{"X-Esri-Authorization": "Bearer " + pt.MemberToken}, body: enc("informationalBanner", okBanner), code: 403, detail: "GWM_0003"},
		hostileCase{op: "updateSettings", name: "bad form token beats the admin's query token", path: hUpdate, auth: "none", query: "token=" + pt.AdminToken, body: enc("informationalBanner", okBanner, "token", "bogus"), code: 498, detail: "Invalid token."},
		hostileCase{op: "updateSettings", name: "admin's form token beats a bad query token, then the banner is bad", path: hUpdate, auth: "none", query: "token=bogus", body: enc("informationalBanner", `{"bgColor":"blurple"}`, "token", pt.AdminToken), code: 400, detail: "informationalBanner.bgColor"},
		hostileCase{op: "moveItems", name: "empty Bearer", path: movePath, auth: "none", header: map[string]string{"Authorization": "Bearer "}, body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItems", name: "Bearer without a space", path: movePath, auth: "none", header: map[string]string{"Authorization": "Bearer" + pt.MemberToken}, body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItems", name: "Basic credentials", path: movePath, auth: "none", header: map[string]string{"Authorization": "Basic amFzbWl0aDpqc21pdGgtcGFzc3dvcmQ="}, body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItems", name: "X-Esri-Authorization without Bearer", path: movePath, auth: "none", header: map[string]string{"X-Esri-Authorization": pt.MemberToken}, body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItems", name: "empty token field", path: movePath, auth: "none", body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder, "token", ""), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItems", name: "empty Bearer beside a bad X-Esri token", path: movePath, auth: "none", header: map[string]string{"Authorization": "Bearer ", "X-Esri-Authorization": "Bearer bogus"}, body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 498, detail: "Invalid token."},
		hostileCase{op: "moveItems", name: "SQL OR as the token", path: movePath, auth: "none", body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder, "token", sqlOr), code: 498, detail: "Invalid token."},
		hostileCase{op: "moveItems", name: "NUL in the token", path: movePath, auth: "none", body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder, "token", pt.MemberToken+"\x00"), code: 498, detail: "Invalid token."},
		hostileCase{op: "moveItems", name: "invalid UTF-8 token", path: movePath, auth: "none", query: "token=%ff%fe", body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 498, detail: "Invalid token."},
		hostileCase{op: "moveItems", name: "100 KB token", path: movePath, auth: strings.Repeat("k", 100_000), body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 498, detail: "Invalid token."},
		hostileCase{op: "moveItems", name: "publisher's token with a lowercase bearer", path: movePath, auth: "none", header: map[string]string{"Authorization": "bearer " + pt.PublisherToken}, body: enc("items", pt.RoadsItem, "folder", pt.ArchiveFolder), code: 403, detail: "GWM_0003"},
	)

	// getSettings (anonymous callers may read it).
	add(
		hostileCase{op: "getSettings", name: "unknown portal", method: "GET", path: "/portals/FFFFFFFFFFFFFFFF/settings", auth: "none", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getSettings", name: "SQL OR in portal id", method: "GET", path: "/portals/" + pe(sqlOr) + "/settings", auth: "none", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getSettings", name: "encoded ../ as portal id", method: "GET", path: "/portals/%2e%2e%2f/settings", auth: "none", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getSettings", name: "literal .. as portal id", method: "GET", path: "/portals/../settings", auth: "none", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getSettings", name: "NUL in portal id", method: "GET", path: "/portals/" + pe(nul) + "/settings", auth: "none", code: 400, detail: "portalId: holds a NUL"},
		hostileCase{op: "getSettings", name: "RTL override portal id", method: "GET", path: "/portals/" + pe(rtl) + "/settings", auth: "none", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getSettings", name: "f=html", method: "GET", path: settingsPath, query: "f=html", auth: "none", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getSettings", name: "f given twice", method: "GET", path: settingsPath, query: "f=json&f=pjson", auth: "none", code: 400, detail: "multiple values"},
		hostileCase{op: "getSettings", name: "bad token in the query", method: "GET", path: settingsPath, query: "token=bogus", auth: "none", code: 498, detail: "Invalid token."},
		hostileCase{op: "getSettings", name: "PUT is not allowed", method: "PUT", path: settingsPath, body: enc("f", "json"), status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getSettings", name: "DELETE is not allowed", method: "DELETE", path: settingsPath, status: 404, code: 404, detail: "Not found"},
	)

	// assignMemberCategorySchema.
	schemaDoc := func(nodes string) string { return `{"memberCategorySchema":` + nodes + `}` }
	flatNodes := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"title":"C%d"}`, i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	add(
		hostileCase{op: "assignMemberCategorySchema", name: "broken JSON", path: hAssign, body: enc("memberCategorySchema", `{"memberCategorySchema":[`), code: 400, detail: "memberCategorySchema: not a JSON document"},
		hostileCase{op: "assignMemberCategorySchema", name: "single quotes", path: hAssign, body: enc("memberCategorySchema", `{'memberCategorySchema':[]}`), code: 400, detail: "memberCategorySchema: not a JSON document"},
		hostileCase{op: "assignMemberCategorySchema", name: "null", path: hAssign, body: enc("memberCategorySchema", `null`), code: 400, detail: "memberCategorySchema"},
		hostileCase{op: "assignMemberCategorySchema", name: "bare array instead of the wrapping object", path: hAssign, body: enc("memberCategorySchema", `[{"title":"A"}]`), code: 400, detail: "memberCategorySchema"},
		hostileCase{op: "assignMemberCategorySchema", name: "object for the array", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`{"title":"A"}`)), code: 400, detail: "memberCategorySchema.memberCategorySchema"},
		hostileCase{op: "assignMemberCategorySchema", name: "number for a title", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":1}]`)), code: 400, detail: "title"},
		hostileCase{op: "assignMemberCategorySchema", name: "string for categories", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"A","categories":"B"}]`)), code: 400, detail: "categories"},
		hostileCase{op: "assignMemberCategorySchema", name: "null node", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[null]`)), code: 400, detail: "memberCategorySchema"},
		hostileCase{op: "assignMemberCategorySchema", name: "unknown node property", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"A","color":"red"}]`)), code: 400, detail: "color"},
		hostileCase{op: "assignMemberCategorySchema", name: "unknown top-level property", path: hAssign, body: enc("memberCategorySchema", `{"memberCategorySchema":[{"title":"A"}],"drop":true}`), code: 400, detail: "drop"},
		hostileCase{op: "assignMemberCategorySchema", name: "empty array", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[]`)), code: 400, detail: "ORG_1132"},
		hostileCase{op: "assignMemberCategorySchema", name: "10,000 levels", path: hAssign, body: enc("memberCategorySchema", deepSchema(10_000)), code: 400, detail: "ORG_1132 Unable to assign member category schema. Schema exceeds max tree size: more than 4 levels, the maximum is 3"},
		hostileCase{op: "assignMemberCategorySchema", name: "4,000 levels", path: hAssign, body: enc("memberCategorySchema", deepSchema(4_000)), code: 400, detail: "Schema exceeds max tree size: more than 4 levels, the maximum is 3"},
		hostileCase{op: "assignMemberCategorySchema", name: "4,000 levels, the deepest title a number", path: hAssign, body: enc("memberCategorySchema", strings.Replace(deepSchema(4_000), `"leaf"`, `7`, 1)), code: 400, detail: "title"},
		hostileCase{op: "assignMemberCategorySchema", name: "4 levels", path: hAssign, body: enc("memberCategorySchema", deepSchema(4)), code: 400, detail: "Schema exceeds max tree size: 4 levels, the maximum is 3"},
		hostileCase{op: "assignMemberCategorySchema", name: "201 nodes", path: hAssign, body: enc("memberCategorySchema", schemaDoc(flatNodes(201))), code: 400, detail: "201 categories, the maximum is 200"},
		hostileCase{op: "assignMemberCategorySchema", name: "2,000 nodes", path: hAssign, body: enc("memberCategorySchema", schemaDoc(flatNodes(2000))), code: 400, detail: "2000 categories, the maximum is 200"},
		hostileCase{op: "assignMemberCategorySchema", name: "slash behind an RTL override", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"`+rtl+`/x"}]`)), code: 400, detail: "title"},
		hostileCase{op: "assignMemberCategorySchema", name: "emoji siblings repeated", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"`+emoji+`"},{"title":"`+emoji+`"}]`)), code: 400, detail: "title repeats a sibling's title"},
		hostileCase{op: "assignMemberCategorySchema", name: "siblings differing in accented case", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"Café"},{"title":"CAFÉ"}]`)), code: 400, detail: "title repeats a sibling's title"},
		hostileCase{op: "assignMemberCategorySchema", name: "129 emoji in a title", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"`+strings.Repeat("🚀", 129)+`"}]`)), code: 400, detail: "title"},
		hostileCase{op: "assignMemberCategorySchema", name: "empty title", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":""}]`)), code: 400, detail: "title"},
		hostileCase{op: "assignMemberCategorySchema", name: "title of Unicode spaces", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"\u2003\u00a0"}]`)), code: 400, detail: "title is empty"},
		hostileCase{op: "assignMemberCategorySchema", name: "NUL-escaped titles 4 levels deep", path: hAssign, body: enc("memberCategorySchema", strings.ReplaceAll(deepSchema(4), `"a"`, `"\u0000"`)), code: 400, detail: "ORG_1132"},
		hostileCase{op: "assignMemberCategorySchema", name: "parameter missing", path: hAssign, body: enc("f", "json"), code: 400, detail: "memberCategorySchema: property is missing"},
		hostileCase{op: "assignMemberCategorySchema", name: "parameter given twice", path: hAssign, body: enc("memberCategorySchema", schemaDoc(`[{"title":"A"}]`)) + "&" + enc("memberCategorySchema", schemaDoc(`[{"title":"B"}]`)), code: 400, detail: "given 2 times"},
		hostileCase{op: "assignMemberCategorySchema", name: "SQL DROP in portal id", path: "/portals/" + pe(sqlDrop) + "/assignMemberCategorySchema", body: enc("memberCategorySchema", schemaDoc(`[{"title":"A"}]`)), code: 400, detail: "Portal does not exist"},
		hostileCase{op: "assignMemberCategorySchema", name: "category administrator on the other organization", path: "/portals/" + pt.OtherOrgID + "/assignMemberCategorySchema", auth: pt.CatAdminToken, body: enc("memberCategorySchema", schemaDoc(`[{"title":"A"}]`)), code: 403, detail: "GWM_0003"},
		hostileCase{op: "assignMemberCategorySchema", name: "text/plain body", path: hAssign, ctype: "text/plain", body: schemaDoc(`[{"title":"A"}]`), code: 400, detail: "Content-Type"},
		hostileCase{op: "assignMemberCategorySchema", name: "body without a content type", path: hAssign, ctype: "none", body: enc("memberCategorySchema", schemaDoc(`[{"title":"A"}]`)), code: 400, detail: "Content-Type"},
	)

	// getMemberCategorySchema.
	add(
		hostileCase{op: "getMemberCategorySchema", name: "SQL OR in portal id", method: "GET", path: "/portals/" + pe(sqlOr) + "/memberCategorySchema", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getMemberCategorySchema", name: "invalid UTF-8 portal id", method: "GET", path: "/portals/%ff%fe/memberCategorySchema", code: 400, detail: "portalId: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "getMemberCategorySchema", name: "encoded traversal to the other organization", method: "GET", path: "/portals/..%2f" + pt.OtherOrgID + "/memberCategorySchema", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getMemberCategorySchema", name: "other organization's schema", method: "GET", path: "/portals/" + pt.OtherOrgID + "/memberCategorySchema", code: 403, detail: "GWM_0003"},
		hostileCase{op: "getMemberCategorySchema", name: "no token", method: "GET", path: hSchema, auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "getMemberCategorySchema", name: "f=xml", method: "GET", path: hSchema, query: "f=xml", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getMemberCategorySchema", name: "PUT is not allowed", method: "PUT", path: hSchema, body: "x", status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getMemberCategorySchema", name: "trailing segment", method: "GET", path: hSchema + "/extra", status: 404, code: 404, detail: "Not found"},
	)

	// deleteMemberCategorySchema: every refusal must keep the schema.
	add(
		hostileCase{op: "deleteMemberCategorySchema", name: "no token", path: hDelSchema, auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "deleteMemberCategorySchema", name: "member", path: hDelSchema, auth: pt.MemberToken, code: 403, detail: "GWM_0003"},
		hostileCase{op: "deleteMemberCategorySchema", name: "other organization's administrator", path: hDelSchema, auth: pt.OtherAdminToken, code: 403, detail: "GWM_0003"},
		hostileCase{op: "deleteMemberCategorySchema", name: "bad token in X-Esri-Authorization", path: hDelSchema, auth: "none", header: map[string]string{"X-Esri-Authorization": "Bearer bogus"}, code: 498, detail: "Invalid token."},
		hostileCase{op: "deleteMemberCategorySchema", name: "SQL OR in portal id", path: "/portals/" + pe(sqlOr) + "/deleteMemberCategorySchema", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "deleteMemberCategorySchema", name: "encoded traversal in portal id", path: "/portals/%2e%2e%2f%2e%2e%2f/deleteMemberCategorySchema", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "deleteMemberCategorySchema", name: "JSON body", path: hDelSchema, ctype: "application/json", body: `{"f":"json"}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "deleteMemberCategorySchema", name: "f=html", path: hDelSchema, body: enc("f", "html"), code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "deleteMemberCategorySchema", name: "GET is not allowed", method: "GET", path: hDelSchema, status: 404, code: 404, detail: "Not found"},
	)

	// listMembers.
	cats := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("/C%d", i)
		}
		return strings.Join(out, ",")
	}
	add(
		hostileCase{op: "listMembers", name: "2,000 categories", method: "GET", path: hUsers, query: enc("categories", cats(2000)), code: 400, detail: "categories: maximum number of items is 20"},
		hostileCase{op: "listMembers", name: "21 categories", method: "GET", path: hUsers, query: enc("categories", cats(21)), code: 400, detail: "categories"},
		hostileCase{op: "listMembers", name: "broken JSON array of categories", method: "GET", path: hUsers, query: enc("categories", `["/Dept"`), code: 400, detail: "categories: not a JSON array of paths"},
		hostileCase{op: "listMembers", name: "a number among JSON categories", method: "GET", path: hUsers, query: enc("categories", `["/Dept",1]`), code: 400, detail: "categories: not a JSON array of paths"},
		hostileCase{op: "listMembers", name: "an empty JSON category", method: "GET", path: hUsers, query: enc("categories", `["/Dept"," "]`), code: 400, detail: "categories[1]: an empty path"},
		hostileCase{op: "listMembers", name: "start=0", method: "GET", path: hUsers, query: "start=0", code: 400, detail: "start: number must be at least 1"},
		hostileCase{op: "listMembers", name: "start is a word", method: "GET", path: hUsers, query: "start=abc", code: 400, detail: "start"},
		hostileCase{op: "listMembers", name: "start past int32", method: "GET", path: hUsers, query: "start=99999999999", code: 400, detail: "start"},
		hostileCase{op: "listMembers", name: "num=101", method: "GET", path: hUsers, query: "num=101", code: 400, detail: "num"},
		hostileCase{op: "listMembers", name: "num=-1", method: "GET", path: hUsers, query: "num=-1", code: 400, detail: "num"},
		hostileCase{op: "listMembers", name: "num is a fraction", method: "GET", path: hUsers, query: "num=1.5", code: 400, detail: "num"},
		hostileCase{op: "listMembers", name: "start given twice", method: "GET", path: hUsers, query: "start=1&start=2", code: 400, detail: "multiple values"},
		hostileCase{op: "listMembers", name: "SQL in categories, num mistyped", method: "GET", path: hUsers, query: enc("categories", sqlOr, "num", "ten"), code: 400, detail: "num"},
		hostileCase{op: "listMembers", name: "SQL DROP in portal id", method: "GET", path: "/portals/" + pe(sqlDrop) + "/users", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "listMembers", name: "other organization's members", method: "GET", path: "/portals/" + pt.OtherOrgID + "/users", code: 403, detail: "GWM_0003"},
		hostileCase{op: "listMembers", name: "PUT is not allowed", method: "PUT", path: hUsers, body: enc("num", "1"), status: 404, code: 404, detail: "Not found"},
	)

	// getMember.
	add(
		hostileCase{op: "getMember", name: "SQL OR as user name", method: "GET", path: "/community/users/" + pe(sqlOr), code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "SQL DROP as user name", method: "GET", path: "/community/users/" + pe(sqlDrop), code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "encoded traversal as user name", method: "GET", path: "/community/users/..%2fadmin", code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "user name of 129 characters", method: "GET", path: "/community/users/" + strings.Repeat("u", 129), code: 400, detail: "userName: maximum string length is 128"},
		hostileCase{op: "getMember", name: "user name of 30 accented letters is within the limit, and no one", method: "GET", path: "/community/users/" + pe(strings.Repeat("é", 30)), code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "NUL in user name", method: "GET", path: "/community/users/" + pe("jsmith\x00"), code: 400, detail: "userName: holds a NUL"},
		hostileCase{op: "getMember", name: "RTL override user name", method: "GET", path: "/community/users/" + pe("admin"+rtl), code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "combining marks on a user name", method: "GET", path: "/community/users/" + pe(combining), code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "emoji user name", method: "GET", path: "/community/users/" + pe(emoji), code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "member of another organization", method: "GET", path: "/community/users/otheruser", code: 400, detail: "User does not exist"},
		hostileCase{op: "getMember", name: "no token", method: "GET", path: "/community/users/" + pt.Member, auth: "none", code: 499, detail: "Token Required."},
	)

	// updateMember: categories is a JSON-in-form field.
	add(
		hostileCase{op: "updateMember", name: "broken JSON", path: hMember + "/update", body: enc("categories", `["/a"`), code: 400, detail: "categories: not a JSON array"},
		hostileCase{op: "updateMember", name: "object for the array", path: hMember + "/update", body: enc("categories", `{"/a":1}`), code: 400, detail: "categories"},
		hostileCase{op: "updateMember", name: "string for the array", path: hMember + "/update", body: enc("categories", `"/a"`), code: 400, detail: "categories"},
		hostileCase{op: "updateMember", name: "numbers for paths", path: hMember + "/update", body: enc("categories", `[1,2]`), code: 400, detail: "categories[0]"},
		hostileCase{op: "updateMember", name: "null", path: hMember + "/update", body: enc("categories", `null`), code: 400, detail: "categories"},
		hostileCase{op: "updateMember", name: "comma list of unknown paths", path: hMember + "/update", body: enc("categories", `/a,/b`), code: 400, detail: "categories[1]: /b is not in the member category schema"},
		hostileCase{op: "updateMember", name: "path without a leading slash", path: hMember + "/update", body: enc("categories", `["Office"]`), code: 400, detail: "categories[0]"},
		hostileCase{op: "updateMember", name: "21 paths", path: hMember + "/update", body: enc("categories", js(strings.Split(cats(21), ","))), code: 400, detail: "categories"},
		hostileCase{op: "updateMember", name: "2,000 paths", path: hMember + "/update", body: enc("categories", js(strings.Split(cats(2000), ","))), code: 400, detail: "categories"},
		hostileCase{op: "updateMember", name: "nested 10,000 levels", path: hMember + "/update", body: enc("categories", nest(10_000, "")), code: 400, detail: "categories[0]"},
		hostileCase{op: "updateMember", name: "path not in the schema", path: hMember + "/update", body: enc("categories", js([]string{"/" + sqlDrop})), code: 400, detail: "is not in the member category schema"},
		hostileCase{op: "updateMember", name: "SQL OR as user name", path: "/community/users/" + pe(sqlOr) + "/update", body: enc("categories", `[]`), code: 400, detail: "User does not exist"},
		hostileCase{op: "updateMember", name: "parameter missing", path: hMember + "/update", body: enc("f", "json"), code: 400, detail: "categories: property is missing"},
		hostileCase{op: "updateMember", name: "other organization's administrator", path: hMember + "/update", auth: pt.OtherAdminToken, body: enc("categories", `[]`), code: 400, detail: "User does not exist"},
		hostileCase{op: "updateMember", name: "the member itself", path: hMember + "/update", auth: pt.MemberToken, body: enc("categories", `[]`), code: 403, detail: "GWM_0003"},
	)

	// moveItems: ids, folders and user names of every kind.
	move := func(items, folder string) string { return enc("items", items, "folder", folder) }
	add(
		hostileCase{op: "moveItems", name: "2,000 ids", path: movePath, body: move(ids(2000), "/"), code: 400, detail: "items"},
		hostileCase{op: "moveItems", name: "2,000 ids as a JSON array", path: movePath, body: move(js(strings.Split(ids(2000), ",")), "/"), code: 400, detail: "items"},
		hostileCase{op: "moveItems", name: "1,001 ids", path: movePath, body: move(ids(1001), "/"), code: 400, detail: "items"},
		hostileCase{op: "moveItems", name: "empty items", path: movePath, body: move("", "/"), code: 400, detail: "items"},
		hostileCase{op: "moveItems", name: "only commas and spaces", path: movePath, body: move(" , ,,", "/"), code: 400, detail: "items"},
		hostileCase{op: "moveItems", name: "broken JSON array", path: movePath, body: move(`["`+pt.RoadsItem+`",`, "/"), code: 400, detail: "items: not a JSON array"},
		hostileCase{op: "moveItems", name: "JSON array of numbers", path: movePath, body: move(`[1,2]`, "/"), code: 400, detail: "items[0]"},
		hostileCase{op: "moveItems", name: "JSON array of arrays", path: movePath, body: move(`[[]]`, "/"), code: 400, detail: "items[0]"},
		hostileCase{op: "moveItems", name: "null in the JSON array", path: movePath, body: move(`["`+pt.RoadsItem+`",null]`, "/"), code: 400, detail: "items[1]"},
		hostileCase{op: "moveItems", name: "nested 10,000 levels", path: movePath, body: move(nest(10_000, `"`+pt.RoadsItem+`"`), "/"), code: 400, detail: "items"},
		hostileCase{op: "moveItems", name: "JSON object for the list, unknown folder", path: movePath, body: move(`{"id":"`+pt.RoadsItem+`"}`, "ffffffffffffffffffffffffffffffff"), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "id of 129 characters", path: movePath, body: move(strings.Repeat("9", 129), "/"), code: 400, detail: "items[0]"},
		hostileCase{op: "moveItems", name: "folder of 129 characters", path: movePath, body: move(pt.RoadsItem, strings.Repeat("f", 129)), code: 400, detail: "folder"},
		hostileCase{op: "moveItems", name: "SQL OR as folder", path: movePath, body: move(pt.RoadsItem, sqlOr), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "SQL DROP as folder", path: movePath, body: move(pt.RoadsItem, sqlDrop), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "traversal as folder", path: movePath, body: move(pt.RoadsItem, "../../etc/passwd"), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "percent-encoded traversal as folder", path: movePath, body: "items=" + pt.RoadsItem + "&folder=%252e%252e%252f", code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "RTL override folder", path: movePath, body: move(pt.RoadsItem, rtl+pt.ArchiveFolder), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "emoji folder", path: movePath, body: move(pt.RoadsItem, emoji), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "NUL in folder", path: movePath, body: move(pt.RoadsItem, pt.ArchiveFolder+"\x00"), code: 400, detail: "folder: holds a NUL"},
		hostileCase{op: "moveItems", name: "folder as a JSON array", path: movePath, body: move(pt.RoadsItem, `["`+pt.ArchiveFolder+`"]`), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "another user's folder", path: movePath, body: move(pt.RoadsItem, otherDir), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "JSON-escaped NUL in an id", path: movePath, body: move(`["`+pt.RoadsItem+`\u0000"]`, "/"), code: 400, detail: "items[0]: holds a NUL"},
		hostileCase{op: "moveItems", name: "invalid UTF-8 id", path: movePath, body: move(pt.RoadsItem+","+badUTF8, "/"), code: 400, detail: "items: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "moveItems", name: "SQL OR as user name", path: "/content/users/" + pe(sqlOr) + "/moveItems", body: move(pt.RoadsItem, "/"), code: 400, detail: "User does not exist"},
		hostileCase{op: "moveItems", name: "encoded ../ before a user name", path: "/content/users/%2e%2e%2fadmin/moveItems", body: move(pt.RoadsItem, "/"), code: 400, detail: "User does not exist"},
		hostileCase{op: "moveItems", name: "encoded slash in the user name", path: "/content/users/jsmith%2F..%2Fadmin/moveItems", body: move(pt.RoadsItem, "/"), code: 400, detail: "User does not exist"},
		hostileCase{op: "moveItems", name: "literal ../ in the path", path: "/content/users/otheruser/../" + pt.Member + "/moveItems", body: move(pt.RoadsItem, "/"), status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "moveItems", name: "items given twice", path: movePath, body: "items=" + pt.RoadsItem + "&items=" + pt.HydrantsItem + "&folder=%2F", code: 400, detail: "given 2 times"},
		hostileCase{op: "moveItems", name: "folder given twice", path: movePath, body: "items=" + pt.RoadsItem + "&folder=" + pt.ArchiveFolder + "&folder=%2F", code: 400, detail: "given 2 times"},
		hostileCase{op: "moveItems", name: "split: items in the query, unknown folder in the body", path: movePath, query: "items=" + pt.RoadsItem, body: enc("folder", "ffffffffffffffffffffffffffffffff"), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "split: the body's unknown folder beats the query's root", path: movePath, query: "folder=%2F", body: move(pt.RoadsItem, "ffffffffffffffffffffffffffffffff"), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItems", name: "text/plain body", path: movePath, ctype: "text/plain", body: move(pt.RoadsItem, "/"), code: 400, detail: "Content-Type"},
		hostileCase{op: "moveItems", name: "multipart body with a file part", path: movePath, ctype: "multipart/form-data; boundary=b", body: "--b\r\nContent-Disposition: form-data; name=\"items\"; filename=\"ids.txt\"\r\n\r\n" + pt.RoadsItem + "\r\n--b--\r\n", code: 400, detail: "items: a file part"},
		hostileCase{op: "moveItems", name: "JSON body", path: movePath, ctype: "application/json", body: `{"items":["` + pt.RoadsItem + `"],"folder":"/"}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "moveItems", name: "GET is not allowed", method: "GET", path: movePath, query: move(pt.RoadsItem, "/"), status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "moveItems", name: "PATCH is not allowed", method: "PATCH", path: movePath, body: move(pt.RoadsItem, "/"), status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "moveItems", name: "other organization's administrator", path: movePath, auth: pt.OtherAdminToken, body: move(pt.RoadsItem, pt.ArchiveFolder), code: 403, detail: "GWM_0003"},
		hostileCase{op: "moveItems", name: "SQL ids are unknown items", path: movePath, body: move(sqlOr+","+sqlDrop, "/"), code: 0, items: 2},
		hostileCase{op: "moveItems", name: "odd Unicode ids are unknown items", path: movePath, body: move(strings.Join([]string{rtl, emoji, combining, "\u200b"}, ","), pt.ArchiveFolder), code: 0, items: 4},
		hostileCase{op: "moveItems", name: "another organization's item", path: movePath, body: move(otherItem, pt.ArchiveFolder), code: 0, items: 1},
	)

	// getUserContent.
	add(
		hostileCase{op: "getUserContent", name: "SQL OR as user name", method: "GET", path: "/content/users/" + pe(sqlOr), code: 400, detail: "User does not exist"},
		hostileCase{op: "getUserContent", name: "encoded .. as user name", method: "GET", path: "/content/users/%2e%2e", code: 400, detail: "User does not exist"},
		hostileCase{op: "getUserContent", name: "user name of 129 characters", method: "GET", path: "/content/users/" + strings.Repeat("u", 129), code: 400, detail: "userName"},
		hostileCase{op: "getUserContent", name: "emoji user name", method: "GET", path: "/content/users/" + pe(emoji), code: 400, detail: "User does not exist"},
		hostileCase{op: "getUserContent", name: "num is a word", method: "GET", path: hContent, query: "num=abc", code: 400, detail: "num"},
		hostileCase{op: "getUserContent", name: "start=-5", method: "GET", path: hContent, query: "start=-5", code: 400, detail: "start"},
		hostileCase{op: "getUserContent", name: "no token", method: "GET", path: hContent, auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "getUserContent", name: "publisher", method: "GET", path: hContent, auth: pt.PublisherToken, code: 403, detail: "GWM_0003"},
		hostileCase{op: "getUserContent", name: "DELETE is not allowed", method: "DELETE", path: hContent, status: 404, code: 404, detail: "Not found"},
	)

	// getFolderContent.
	add(
		hostileCase{op: "getFolderContent", name: "SQL OR as folder", method: "GET", path: hContent + "/" + pe(sqlOr), code: 400, detail: "Folder does not exist"},
		hostileCase{op: "getFolderContent", name: "literal .. as folder", method: "GET", path: hContent + "/..", code: 400, detail: "Folder does not exist"},
		hostileCase{op: "getFolderContent", name: "encoded traversal as folder", method: "GET", path: hContent + "/%2e%2e%2f%2e%2e%2fotheruser", code: 400, detail: "Folder does not exist"},
		hostileCase{op: "getFolderContent", name: "another user's folder", method: "GET", path: hContent + "/" + otherDir, code: 400, detail: "Folder does not exist"},
		hostileCase{op: "getFolderContent", name: "NUL in folder", method: "GET", path: hContent + "/" + pe(pt.ProjectsFolder+"\x00"), code: 400, detail: "folderId: holds a NUL"},
		hostileCase{op: "getFolderContent", name: "invalid UTF-8 folder", method: "GET", path: hContent + "/%c3%28", code: 400, detail: "folderId: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "getFolderContent", name: "folder of 129 characters", method: "GET", path: hContent + "/" + strings.Repeat("f", 129), code: 400, detail: "folderId"},
		hostileCase{op: "getFolderContent", name: "num=1000", method: "GET", path: hContent + "/" + pt.ProjectsFolder, query: "num=1000", code: 400, detail: "num"},
		hostileCase{op: "getFolderContent", name: "viewer", method: "GET", path: hContent + "/" + pt.ProjectsFolder, auth: pt.ViewerToken, code: 403, detail: "GWM_0003"},
	)

	// getItem: an inaccessible item looks like an absent one.
	add(
		hostileCase{op: "getItem", name: "SQL OR as id", method: "GET", path: "/content/items/" + pe(sqlOr), code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "SQL DROP as id", method: "GET", path: "/content/items/" + pe(sqlDrop), code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "encoded traversal as id", method: "GET", path: "/content/items/..%2f..%2fetc%2fpasswd", code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "NUL as id", method: "GET", path: "/content/items/%00", code: 400, detail: "itemId: holds a NUL"},
		hostileCase{op: "getItem", name: "invalid UTF-8 id", method: "GET", path: "/content/items/%ff", code: 400, detail: "itemId: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "getItem", name: "id of 129 characters", method: "GET", path: "/content/items/" + strings.Repeat("9", 129), code: 400, detail: "itemId"},
		hostileCase{op: "getItem", name: "id of 128 emoji is within the limit, and no item", method: "GET", path: "/content/items/" + pe(strings.Repeat("🚀", 128)), code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "id of 129 emoji", method: "GET", path: "/content/items/" + pe(strings.Repeat("🚀", 129)), code: 400, detail: "itemId: maximum string length is 128"},
		hostileCase{op: "getItem", name: "id of 100 KB", method: "GET", path: "/content/items/" + strings.Repeat("9", 100_000), code: 400, detail: "itemId: maximum string length is 128"},
		hostileCase{op: "getItem", name: "RTL override id", method: "GET", path: "/content/items/" + pe(rtl+pt.RoadsItem), code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "combining marks on an id", method: "GET", path: "/content/items/" + pe(pt.RoadsItem+"\u0301"), code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "another organization's item", method: "GET", path: "/content/items/" + otherItem, code: 400, detail: "CONT_0001"},
		hostileCase{op: "getItem", name: "no token", method: "GET", path: "/content/items/" + pt.RoadsItem, auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "getItem", name: "f=html", method: "GET", path: "/content/items/" + pt.RoadsItem, query: "f=html", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getItem", name: "PUT is not allowed", method: "PUT", path: "/content/items/" + pt.RoadsItem, body: enc("f", "json"), status: 404, code: 404, detail: "Not found"},
	)

	// createFolder: huge bodies and titles.
	cf := hContent + "/createFolder"
	add(
		hostileCase{op: "createFolder", name: "100 KB title", path: cf, body: enc("title", hugeTitle), code: 400, detail: "title"},
		hostileCase{op: "createFolder", name: "body one byte under 1 MiB", path: cf, body: "title=" + strings.Repeat("t", mib-1-len("title=")), code: 400, detail: "title"},
		hostileCase{op: "createFolder", name: "body of exactly 1 MiB", path: cf, body: "title=" + strings.Repeat("t", mib-len("title=")), code: 400, detail: "title"},
		hostileCase{op: "createFolder", name: "body one byte over 1 MiB", path: cf, body: "title=" + strings.Repeat("t", mib+1-len("title=")), status: 413, code: 413, detail: "too large"},
		hostileCase{op: "createFolder", name: "chunked body over 1 MiB", path: cf, chunked: true, body: "title=" + strings.Repeat("t", mib+1-len("title=")), status: 413, code: 413, detail: "too large"},
		hostileCase{op: "createFolder", name: "257 emoji", path: cf, body: enc("title", strings.Repeat("📁", 257)), code: 400, detail: "title"},
		hostileCase{op: "createFolder", name: "NUL in title", path: cf, body: enc("title", "Field"+nul), code: 400, detail: "title: holds a NUL"},
		hostileCase{op: "createFolder", name: "invalid UTF-8 title", path: cf, body: enc("title", "Field "+badUTF8), code: 400, detail: "title: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "createFolder", name: "line break in title", path: cf, body: enc("title", "Field\nwork"), code: 400, detail: "title: holds a control character"},
		hostileCase{op: "createFolder", name: "line separator in title", path: cf, body: enc("title", "Field\u2028work"), code: 400, detail: "title: holds a control character"},
		hostileCase{op: "createFolder", name: "title of Unicode spaces", path: cf, body: enc("title", "\u00a0\u2003\u3000"), code: 400, detail: "title: required"},
		hostileCase{op: "createFolder", name: "empty title", path: cf, body: enc("title", ""), code: 400, detail: "title"},
		hostileCase{op: "createFolder", name: "title repeats a folder in capitals", path: cf, body: enc("title", "PROJECTS"), code: 400, detail: "already exists"},
		hostileCase{op: "createFolder", name: "split: repeated title in the query", path: cf, query: "title=Archive", body: enc("f", "json"), code: 400, detail: "already exists"},
		hostileCase{op: "createFolder", name: "title given twice", path: cf, body: "title=One&title=Two", code: 400, detail: "given 2 times"},
		hostileCase{op: "createFolder", name: "title missing", path: cf, body: enc("f", "json"), code: 400, detail: "title: property is missing"},
		hostileCase{op: "createFolder", name: "empty body", path: cf, body: "", code: 400, detail: "value is required but missing"},
		hostileCase{op: "createFolder", name: "SQL DROP as user name", path: "/content/users/" + pe(sqlDrop) + "/createFolder", body: enc("title", "New"), code: 400, detail: "User does not exist"},
		hostileCase{op: "createFolder", name: "JSON body", path: cf, ctype: "application/json", body: `{"title":"New"}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "createFolder", name: "body without a content type", path: cf, ctype: "none", body: enc("title", "New"), code: 400, detail: "Content-Type"},
		hostileCase{op: "createFolder", name: "other organization's administrator", path: cf, auth: pt.OtherAdminToken, body: enc("title", "New"), code: 403, detail: "GWM_0003"},
	)

	// deleteFolder: every refusal keeps the folder and its items.
	df := func(folder string) string { return hContent + "/" + folder + "/delete" }
	add(
		hostileCase{op: "deleteFolder", name: "SQL OR as folder", path: df(pe(sqlOr)), code: 400, detail: "Folder does not exist"},
		hostileCase{op: "deleteFolder", name: "SQL DROP as folder", path: df(pe(`"; DROP TABLE folders; --`)), code: 400, detail: "Folder does not exist"},
		hostileCase{op: "deleteFolder", name: "literal .. as folder", path: df(".."), code: 400, detail: "Folder does not exist"},
		hostileCase{op: "deleteFolder", name: "encoded .. as folder", path: df("%2e%2e"), code: 400, detail: "Folder does not exist"},
		hostileCase{op: "deleteFolder", name: "another user's folder", path: df(otherDir), code: 400, detail: "Folder does not exist"},
		hostileCase{op: "deleteFolder", name: "NUL after a real folder id", path: df(pe(pt.ArchiveFolder + "\x00")), code: 400, detail: "folderId: holds a NUL"},
		hostileCase{op: "deleteFolder", name: "SQL OR as user name", path: "/content/users/" + pe(sqlOr) + "/" + pt.ArchiveFolder + "/delete", code: 400, detail: "User does not exist"},
		hostileCase{op: "deleteFolder", name: "f=html", path: df(pt.ArchiveFolder), body: enc("f", "html"), code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "deleteFolder", name: "JSON body", path: df(pt.ArchiveFolder), ctype: "application/json", body: `{}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "deleteFolder", name: "publisher", path: df(pt.ArchiveFolder), auth: pt.PublisherToken, code: 403, detail: "GWM_0003"},
		hostileCase{op: "deleteFolder", name: "no token", path: df(pt.ArchiveFolder), auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "deleteFolder", name: "GET is not allowed", method: "GET", path: df(pt.ArchiveFolder), status: 404, code: 404, detail: "Not found"},
	)

	// addItem.
	ai := hContent + "/addItem"
	add(
		hostileCase{op: "addItem", name: "type missing", path: ai, body: enc("title", "Trails"), code: 400, detail: "type: property is missing"},
		hostileCase{op: "addItem", name: "tab in title", path: ai, body: enc("title", "Trails\tmap", "type", "CSV"), code: 400, detail: "title: holds a control character"},
		hostileCase{op: "addItem", name: "100 KB title", path: ai, body: enc("title", hugeTitle, "type", "CSV"), code: 400, detail: "title"},
		hostileCase{op: "addItem", name: "type of 129 characters", path: ai, body: enc("title", "Trails", "type", strings.Repeat("T", 129)), code: 400, detail: "type"},
		hostileCase{op: "addItem", name: "tags of 4,097 characters", path: ai, body: enc("title", "Trails", "type", "CSV", "tags", strings.Repeat("t", 4097)), code: 400, detail: "tags"},
		hostileCase{op: "addItem", name: "description of 65,537 characters", path: ai, body: enc("title", "Trails", "type", "CSV", "description", strings.Repeat("d", 65_537)), code: 400, detail: "description"},
		hostileCase{op: "addItem", name: "title of Unicode spaces", path: ai, body: enc("title", "\u2003", "type", "CSV"), code: 400, detail: "title: required"},
		hostileCase{op: "addItem", name: "NUL in title", path: ai, body: enc("title", nul, "type", "CSV"), code: 400, detail: "title: holds a NUL"},
		hostileCase{op: "addItem", name: "invalid UTF-8 in description", path: ai, body: enc("title", "Trails", "type", "CSV", "description", badUTF8), code: 400, detail: "description: holds a NUL character or bytes that are not UTF-8"},
		hostileCase{op: "addItem", name: "RTL title, type missing", path: ai, body: enc("title", rtl), code: 400, detail: "type: property is missing"},
		hostileCase{op: "addItem", name: "257 combining marks", path: ai, body: enc("title", "e"+strings.Repeat("\u0301", 256), "type", "CSV"), code: 400, detail: "title"},
		hostileCase{op: "addItem", name: "split: title in the query, no type", path: ai, query: "title=Trails", body: enc("tags", "a"), code: 400, detail: "type: property is missing"},
		hostileCase{op: "addItem", name: "type given twice", path: ai, body: "title=Trails&type=CSV&type=Web+Map", code: 400, detail: "given 2 times"},
		hostileCase{op: "addItem", name: "SQL OR as user name", path: "/content/users/" + pe(sqlOr) + "/addItem", body: enc("title", "Trails", "type", "CSV"), code: 400, detail: "User does not exist"},
		hostileCase{op: "addItem", name: "text/plain body", path: ai, ctype: "text/plain", body: enc("title", "Trails", "type", "CSV"), code: 400, detail: "Content-Type"},
	)

	// addItemToFolder.
	af := func(folder string) string { return hContent + "/" + folder + "/addItem" }
	item := enc("title", "Zoning", "type", "Web Map")
	add(
		hostileCase{op: "addItemToFolder", name: "SQL DROP as folder", path: af(pe(sqlDrop)), body: item, code: 400, detail: "Folder does not exist"},
		hostileCase{op: "addItemToFolder", name: "encoded traversal as folder", path: af("%2e%2e%2f" + pt.ProjectsFolder), body: item, code: 400, detail: "Folder does not exist"},
		hostileCase{op: "addItemToFolder", name: "another user's folder", path: af(otherDir), body: item, code: 400, detail: "Folder does not exist"},
		hostileCase{op: "addItemToFolder", name: "NUL in folder", path: af("%00"), body: item, code: 400, detail: "folderId: holds a NUL"},
		hostileCase{op: "addItemToFolder", name: "folder of 129 characters", path: af(strings.Repeat("f", 129)), body: item, code: 400, detail: "folderId"},
		hostileCase{op: "addItemToFolder", name: "title missing", path: af(pt.ProjectsFolder), body: enc("type", "Web Map"), code: 400, detail: "title: property is missing"},
		hostileCase{op: "addItemToFolder", name: "encoded traversal as user name", path: "/content/users/..%2fadmin/" + pt.ProjectsFolder + "/addItem", body: item, code: 400, detail: "User does not exist"},
		hostileCase{op: "addItemToFolder", name: "DELETE is not allowed", method: "DELETE", path: af(pt.ProjectsFolder), status: 404, code: 404, detail: "Not found"},
	)

	// deleteItems.
	di := hContent + "/deleteItems"
	add(
		hostileCase{op: "deleteItems", name: "2,000 ids", path: di, body: enc("items", ids(2000)), code: 400, detail: "items"},
		hostileCase{op: "deleteItems", name: "empty items", path: di, body: enc("items", ""), code: 400, detail: "items"},
		hostileCase{op: "deleteItems", name: "broken JSON array", path: di, body: enc("items", `["a"`), code: 400, detail: "items: not a JSON array"},
		hostileCase{op: "deleteItems", name: "JSON array of objects", path: di, body: enc("items", `[{"id":"`+pt.RoadsItem+`"}]`), code: 400, detail: "items[0]"},
		hostileCase{op: "deleteItems", name: "NUL in an id", path: di, body: enc("items", pt.RoadsItem+"\x00"), code: 400, detail: "items: holds a NUL"},
		hostileCase{op: "deleteItems", name: "JSON-escaped NUL in an id", path: di, body: enc("items", `["x","\u0000"]`), code: 400, detail: "items[1]: holds a NUL"},
		hostileCase{op: "deleteItems", name: "items given twice", path: di, body: "items=a&items=b", code: 400, detail: "given 2 times"},
		hostileCase{op: "deleteItems", name: "SQL OR as user name", path: "/content/users/" + pe(sqlOr) + "/deleteItems", body: enc("items", pt.RoadsItem), code: 400, detail: "User does not exist"},
		hostileCase{op: "deleteItems", name: "no token", path: di, auth: "none", body: enc("items", pt.RoadsItem), code: 499, detail: "Token Required."},
		hostileCase{op: "deleteItems", name: "viewer", path: di, auth: pt.ViewerToken, body: enc("items", pt.RoadsItem), code: 403, detail: "GWM_0003"},
		hostileCase{op: "deleteItems", name: "multipart body, unknown id", path: di, ctype: "multipart/form-data; boundary=b", body: "--b\r\nContent-Disposition: form-data; name=\"items\"\r\n\r\nx\r\n--b--\r\n", items: 1},
		hostileCase{op: "deleteItems", name: "SQL ids are unknown items", path: di, body: enc("items", js([]string{sqlOr, sqlDrop, "1; DELETE FROM items"})), code: 0, items: 3},
		hostileCase{op: "deleteItems", name: "odd Unicode ids are unknown items", path: di, body: enc("items", rtl+","+emoji+","+combining), code: 0, items: 3},
		hostileCase{op: "deleteItems", name: "another organization's item", path: di, body: enc("items", otherItem), code: 0, items: 1},
	)

	// generateToken: every attempt must fail, so no token is stored.
	gt := "/generateToken"
	add(
		hostileCase{op: "generateToken", name: "SQL OR as user name", path: gt, auth: "none", body: enc("username", sqlOr, "password", "x"), code: 400, detail: "Invalid username or password."},
		hostileCase{op: "generateToken", name: "SQL comment after a user name", path: gt, auth: "none", body: enc("username", "admin'--", "password", "x"), code: 400, detail: "Invalid username or password."},
		hostileCase{op: "generateToken", name: "SQL OR as password", path: gt, auth: "none", body: enc("username", "admin", "password", `' OR '1'='1`), code: 400, detail: "Invalid username or password."},
		hostileCase{op: "generateToken", name: "combining mark on a user name", path: gt, auth: "none", body: enc("username", combining, "password", "jsmith-password"), code: 400, detail: "Invalid username or password."},
		hostileCase{op: "generateToken", name: "NUL after a user name", path: gt, auth: "none", body: enc("username", "jsmith\x00", "password", "jsmith-password"), code: 400, detail: "username: holds a NUL"},
		hostileCase{op: "generateToken", name: "user name of 129 characters", path: gt, auth: "none", body: enc("username", strings.Repeat("u", 129), "password", "x"), code: 400, detail: "username"},
		hostileCase{op: "generateToken", name: "password of 1,025 characters", path: gt, auth: "none", body: enc("username", "jsmith", "password", strings.Repeat("p", 1025)), code: 400, detail: "password"},
		hostileCase{op: "generateToken", name: "expiration is a word", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password", "expiration", "soon"), code: 400, detail: "expiration"},
		hostileCase{op: "generateToken", name: "expiration 0", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password", "expiration", "0"), code: 400, detail: "expiration"},
		hostileCase{op: "generateToken", name: "client=referer without a referer", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password", "client", "referer"), code: 400, detail: "referer: required with client=referer"},
		hostileCase{op: "generateToken", name: "client=ip with no address", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password", "client", "ip", "ip", "a.b.c.d"), code: 400, detail: "ip: \"a.b.c.d\" is not an IP address"},
		hostileCase{op: "generateToken", name: "expiration is a fraction", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password", "expiration", "1.5"), code: 400, detail: "expiration"},
		hostileCase{op: "generateToken", name: "unknown client", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password", "client", "browser"), code: 400, detail: "client"},
		hostileCase{op: "generateToken", name: "password missing", path: gt, auth: "none", body: enc("username", "jsmith"), code: 400, detail: "password: property is missing"},
		hostileCase{op: "generateToken", name: "user name given twice", path: gt, auth: "none", body: "username=jsmith&username=admin&password=jsmith-password", code: 400, detail: "given 2 times"},
		hostileCase{op: "generateToken", name: "JSON body", path: gt, auth: "none", ctype: "application/json", body: `{"username":"jsmith","password":"jsmith-password"}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "generateToken", name: "credentials in the query, bad token in the header", path: gt, auth: "bogus", query: enc("username", "jsmith", "password", "jsmith-password"), code: 498, detail: "Invalid token."},
		hostileCase{op: "generateToken", name: "GET is not allowed", method: "GET", path: gt, auth: "none", query: enc("username", "jsmith", "password", "jsmith-password"), status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "generateToken", name: "PUT is not allowed", method: "PUT", path: gt, auth: "none", body: enc("username", "jsmith", "password", "jsmith-password"), status: 404, code: 404, detail: "Not found"},
	)

	// Paths that are no operation.
	add(
		hostileCase{name: "unknown path", method: "GET", path: "/nope", status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "extra segment after an operation", path: hUpdate + "/extra", body: enc("informationalBanner", okBanner), status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "empty user name", method: "GET", path: "/content/users/", status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "empty portal id", method: "GET", path: "/portals//settings", status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "operation name in other case", path: "/GenerateToken", auth: "none", body: enc("username", "jsmith", "password", "jsmith-password"), status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "trailing slash", path: "/generateToken/", auth: "none", body: enc("username", "jsmith", "password", "jsmith-password"), status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "literal .. between two operations", path: movePath + "/../deleteItems", body: enc("items", pt.RoadsItem), status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "outside the API root", method: "GET", root: true, path: "/sharing/restx/generateToken", status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "OPTIONS", method: "OPTIONS", path: movePath, status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "POST to /health", root: true, path: "/health", status: 404, code: 404, detail: "Not found"},
		hostileCase{name: "GET of /emulator/reset", method: "GET", root: true, path: "/emulator/reset", status: 404, code: 404, detail: "Not found"},
	)
	add(discoveryAndSignInCatalog()...)
	add(readsCatalog()...)
	return cs
}

// TestHostileRequests sends the whole catalog to one server and checks each
// answer and that the store is byte for byte what it was.
func TestHostileRequests(t *testing.T) {
	catalog := hostileCatalog()
	checkCatalogCoverage(t, catalog)
	t.Run("sqlite", func(t *testing.T) { runHostile(t, pt.New(t), catalog) })
	// PostgreSQL refuses text SQLite takes (NUL, invalid UTF-8): the same
	// catalog must get the same answers there.
	t.Run("postgres", func(t *testing.T) { runHostile(t, postgresPortal(t), catalog) })
}

func runHostile(t *testing.T, p *pt.Portal, catalog []hostileCase) {
	// A schema to delete and member categories to lose, so that the
	// refused schema operations have something to change.
	ok(t, assign(t, p, pt.AdminToken, chain(2)))
	ok(t, post(t, p, hMember+"/update", pt.AdminToken, form("categories", `["/L1/L2"]`)))
	before := dump(t, p)
	for _, c := range catalog {
		t.Run(c.op+"/"+c.name, func(t *testing.T) {
			checkHostile(t, c, sendHostile(t, p, c))
			if after := dump(t, p); after != before {
				t.Fatalf("the request changed the store")
			}
		})
	}
	if after := dump(t, p); after != before {
		t.Error("the catalog changed the store")
	}
}

// checkCatalogCoverage keeps the catalog honest: unique names, every
// operation of the contract aimed at, and its size.
func checkCatalogCoverage(t *testing.T, catalog []hostileCase) {
	t.Helper()
	doc, err := portalapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	perOp := map[string]int{}
	seen := map[string]bool{}
	for _, c := range catalog {
		key := c.op + "/" + c.name
		if seen[key] {
			t.Errorf("case %q appears twice", key)
		}
		seen[key] = true
		perOp[c.op]++
	}
	var lines []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if perOp[op.OperationID] < 5 {
				t.Errorf("%s %s (%s): %d cases, want at least 5", method, path, op.OperationID, perOp[op.OperationID])
			}
		}
	}
	for _, op := range slices.Sorted(maps.Keys(perOp)) {
		name := op
		if name == "" {
			name = "(no operation)"
		}
		lines = append(lines, fmt.Sprintf("%-28s %3d", name, perOp[op]))
	}
	if len(catalog) < 150 {
		t.Errorf("the catalog holds %d cases, want at least 150", len(catalog))
	}
	t.Logf("hostile catalog, %d cases:\n%s", len(catalog), strings.Join(lines, "\n"))
}
