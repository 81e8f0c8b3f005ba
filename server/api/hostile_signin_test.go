package api_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
)

// discoveryAndSignInCatalog is the hostile catalog of discovery, the OAuth
// 2.0 sign-in and the per-item move. The sign-in's pages answer their
// errors as pages; the token endpoints as the envelope with the OAuth
// error. None may issue or change anything.
func discoveryAndSignInCatalog() []hostileCase {
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }

	// getRoot and getInfo take anyone, and any valid token.
	add(
		hostileCase{op: "getRoot", name: "f=html", method: "GET", path: "", query: "f=html", auth: "none", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getRoot", name: "f given twice", method: "GET", path: "/", query: "f=json&f=pjson", auth: "none", code: 400, detail: "multiple values"},
		hostileCase{op: "getRoot", name: "bad token in the query", method: "GET", path: "/", query: "token=bogus", auth: "none", code: 498, detail: "Invalid token."},
		hostileCase{op: "getRoot", name: "JSON body", path: "", ctype: "application/json", body: `{"f":"json"}`, auth: "none", code: 400, detail: "Content-Type"},
		hostileCase{op: "getRoot", name: "PUT is not allowed", method: "PUT", path: "/", status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getRoot", name: "DELETE is not allowed", method: "DELETE", path: "", status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getRoot", name: "two trailing slashes", method: "GET", path: "//", auth: "none", status: 404, code: 404, detail: "Not found"},
	)
	add(
		hostileCase{op: "getInfo", name: "f=xml", method: "GET", path: "/info", query: "f=xml", auth: "none", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getInfo", name: "bad token in X-Esri-Authorization", method: "GET", path: "/info", auth: "none", header: map[string]string{"X-Esri-Authorization": "Bearer bogus"}, code: 498, detail: "Invalid token."},
		hostileCase{op: "getInfo", name: "text/plain body", path: "/info", ctype: "text/plain", body: "f=json", code: 400, detail: "Content-Type"},
		hostileCase{op: "getInfo", name: "PUT is not allowed", method: "PUT", path: "/info", status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getInfo", name: "trailing slash", method: "GET", path: "/info/", auth: "none", status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getInfo", name: "extra segment", method: "GET", path: "/info/extra", auth: "none", status: 404, code: 404, detail: "Not found"},
	)

	// getPortal.
	add(
		hostileCase{op: "getPortal", name: "unknown portal", method: "GET", path: "/portals/FFFFFFFFFFFFFFFF", auth: "none", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getPortal", name: "SQL OR in portal id", method: "GET", path: "/portals/" + pe(sqlOr), code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getPortal", name: "encoded traversal in portal id", method: "GET", path: "/portals/..%2f" + pt.OtherOrgID, code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getPortal", name: "NUL in portal id", method: "GET", path: "/portals/" + pe(nul), code: 400, detail: "portalId: holds a NUL"},
		hostileCase{op: "getPortal", name: "portal id of 65 characters", method: "GET", path: "/portals/" + strings.Repeat("A", 65), code: 400, detail: "portalId: maximum string length is 64"},
		hostileCase{op: "getPortal", name: "SELF in capitals", method: "GET", path: "/portals/SELF", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "getPortal", name: "f=html", method: "GET", path: "/portals/self", query: "f=html", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getPortal", name: "bad token in Authorization", method: "GET", path: "/portals/self", auth: "bogus", code: 498, detail: "Invalid token."},
		hostileCase{op: "getPortal", name: "PUT is not allowed", method: "PUT", path: "/portals/self", status: 404, code: 404, detail: "Not found"},
	)

	// listRoles: members of the organization only.
	roles := "/portals/self/roles"
	add(
		hostileCase{op: "listRoles", name: "no token", method: "GET", path: roles, auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "listRoles", name: "bad token", method: "GET", path: roles, auth: "bogus", code: 498, detail: "Invalid token."},
		hostileCase{op: "listRoles", name: "other organization's administrator", method: "GET", path: schemaPath + "/roles", auth: pt.OtherAdminToken, code: 403, detail: "GWM_0003"},
		hostileCase{op: "listRoles", name: "unknown portal", method: "GET", path: "/portals/FFFFFFFFFFFFFFFF/roles", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "listRoles", name: "SQL DROP in portal id", method: "GET", path: "/portals/" + pe(sqlDrop) + "/roles", code: 400, detail: "Portal does not exist"},
		hostileCase{op: "listRoles", name: "start=0", method: "GET", path: roles, query: "start=0", code: 400, detail: "start: number must be at least 1"},
		hostileCase{op: "listRoles", name: "num=101", method: "GET", path: roles, query: "num=101", code: 400, detail: "num"},
		hostileCase{op: "listRoles", name: "num is a word", method: "GET", path: roles, query: "num=all", code: 400, detail: "num"},
		hostileCase{op: "listRoles", name: "token given twice", method: "GET", path: roles, auth: "none", query: "token=" + pt.MemberToken + "&token=garbage", code: 400, detail: "token: given 2 times"},
		hostileCase{op: "listRoles", name: "start given twice in the form", path: roles, body: "start=1&start=2", code: 400, detail: "multiple values"},
		hostileCase{op: "listRoles", name: "DELETE is not allowed", method: "DELETE", path: roles, status: 404, code: 404, detail: "Not found"},
	)

	// getSelf: a user's token only.
	add(
		hostileCase{op: "getSelf", name: "no token", method: "GET", path: "/community/self", auth: "none", code: 499, detail: "Token Required."},
		hostileCase{op: "getSelf", name: "empty Bearer", method: "GET", path: "/community/self", auth: "none", header: map[string]string{"Authorization": "Bearer "}, code: 499, detail: "Token Required."},
		hostileCase{op: "getSelf", name: "SQL OR as the token", method: "GET", path: "/community/self", auth: "none", query: enc("token", sqlOr), code: 498, detail: "Invalid token."},
		hostileCase{op: "getSelf", name: "f=html", method: "GET", path: "/community/self", query: "f=html", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getSelf", name: "JSON body", path: "/community/self", ctype: "application/json", body: `{}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "getSelf", name: "PUT is not allowed", method: "PUT", path: "/community/self", status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "getSelf", name: "extra segment", method: "GET", path: "/community/self/extra", status: 404, code: 404, detail: "Not found"},
	)

	// moveItem.
	mi := func(user, item string) string { return "/content/users/" + user + "/items/" + item + "/move" }
	roads := mi(pt.Member, pt.RoadsItem)
	add(
		hostileCase{op: "moveItem", name: "unknown item", path: mi(pt.Member, "00000000000000000000000000000000"), body: enc("folder", pt.ArchiveFolder), code: 400, detail: "CONT_0001"},
		hostileCase{op: "moveItem", name: "another organization's item", path: mi(pt.Member, otherItem), body: enc("folder", "/"), code: 400, detail: "CONT_0001"},
		hostileCase{op: "moveItem", name: "SQL OR as item id", path: mi(pt.Member, pe(sqlOr)), body: enc("folder", pt.ArchiveFolder), code: 400, detail: "CONT_0001"},
		hostileCase{op: "moveItem", name: "item id of 129 characters", path: mi(pt.Member, strings.Repeat("9", 129)), body: enc("folder", "/"), code: 400, detail: "itemId: maximum string length is 128"},
		hostileCase{op: "moveItem", name: "unknown destination", path: roads, body: enc("folder", "ffffffffffffffffffffffffffffffff"), code: 400, detail: "folder: ffffffffffffffffffffffffffffffff is not a folder of jsmith"},
		hostileCase{op: "moveItem", name: "another user's folder", path: roads, body: enc("folder", otherDir), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItem", name: "traversal as folder", path: roads, body: enc("folder", "../"+pt.ArchiveFolder), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItem", name: "Root Folder in other case", path: roads, body: enc("folder", "ROOT FOLDER"), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItem", name: "NUL in folder", path: roads, body: enc("folder", pt.ArchiveFolder+"\x00"), code: 400, detail: "folder: holds a NUL"},
		hostileCase{op: "moveItem", name: "folder of 129 characters", path: roads, body: enc("folder", strings.Repeat("f", 129)), code: 400, detail: "folder"},
		hostileCase{op: "moveItem", name: "folder missing", path: roads, body: enc("f", "json"), code: 400, detail: "folder: property is missing"},
		hostileCase{op: "moveItem", name: "folder given twice", path: roads, body: "folder=%2F&folder=" + pt.ArchiveFolder, code: 400, detail: "given 2 times"},
		hostileCase{op: "moveItem", name: "SQL OR as user name", path: mi(pe(sqlOr), pt.RoadsItem), body: enc("folder", "/"), code: 400, detail: "User does not exist"},
		hostileCase{op: "moveItem", name: "the item under its owner's administrator", path: mi(pt.Admin, pt.RoadsItem), body: enc("folder", "/"), code: 400, detail: "CONT_0001"},
		hostileCase{op: "moveItem", name: "no token", path: roads, auth: "none", body: enc("folder", pt.ArchiveFolder), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItem", name: "publisher", path: roads, auth: pt.PublisherToken, body: enc("folder", pt.ArchiveFolder), code: 403, detail: "GWM_0003"},
		hostileCase{op: "moveItem", name: "other organization's administrator", path: roads, auth: pt.OtherAdminToken, body: enc("folder", pt.ArchiveFolder), code: 403, detail: "GWM_0003"},
		hostileCase{op: "moveItem", name: "JSON body", path: roads, ctype: "application/json", body: `{"folder":"/"}`, code: 400, detail: "Content-Type"},
		hostileCase{op: "moveItem", name: "GET is not allowed", method: "GET", path: roads, query: enc("folder", pt.ArchiveFolder), status: 404, code: 404, detail: "Not found"},
	)

	// moveItemFromFolder.
	mf := func(folder, item string) string { return hContent + "/" + folder + "/items/" + item + "/move" }
	add(
		hostileCase{op: "moveItemFromFolder", name: "unknown folder in the path", path: mf("ffffffffffffffffffffffffffffffff", pt.ParcelsItem), body: enc("folder", "/"), code: 400, detail: "folderId: ffffffffffffffffffffffffffffffff is not a folder of jsmith"},
		hostileCase{op: "moveItemFromFolder", name: "another user's folder in the path", path: mf(otherDir, pt.ParcelsItem), body: enc("folder", "/"), code: 400, detail: "folderId: " + otherDir + " is not a folder of jsmith"},
		hostileCase{op: "moveItemFromFolder", name: "encoded traversal as folder", path: mf("%2e%2e%2f"+pt.ProjectsFolder, pt.ParcelsItem), body: enc("folder", "/"), code: 400, detail: "is not a folder of jsmith"},
		hostileCase{op: "moveItemFromFolder", name: "space as the path's folder", path: mf("%20", pt.ParcelsItem), body: enc("folder", pt.ArchiveFolder), code: 400, detail: "folderId:   is not a folder of jsmith"},
		hostileCase{op: "moveItemFromFolder", name: "encoded slash as the path's folder", path: mf("%2F", pt.ParcelsItem), body: enc("folder", pt.ArchiveFolder), code: 400, detail: "folderId: / is not a folder of jsmith"},
		hostileCase{op: "moveItemFromFolder", name: "NUL in the path's folder", path: mf(pe(pt.ProjectsFolder+"\x00"), pt.ParcelsItem), body: enc("folder", "/"), code: 400, detail: "folderId: holds a NUL"},
		hostileCase{op: "moveItemFromFolder", name: "unknown item", path: mf(pt.ProjectsFolder, "00000000000000000000000000000000"), body: enc("folder", "/"), code: 400, detail: "CONT_0001"},
		hostileCase{op: "moveItemFromFolder", name: "unknown destination", path: mf(pt.ProjectsFolder, pt.ParcelsItem), body: enc("folder", "ffffffffffffffffffffffffffffffff"), code: 400, detail: "folder: ffffffffffffffffffffffffffffffff is not a folder of jsmith"},
		hostileCase{op: "moveItemFromFolder", name: "viewer", path: mf(pt.ProjectsFolder, pt.ParcelsItem), auth: pt.ViewerToken, body: enc("folder", "/"), code: 403, detail: "GWM_0003"},
		hostileCase{op: "moveItemFromFolder", name: "no token", path: mf(pt.ProjectsFolder, pt.ParcelsItem), auth: "none", body: enc("folder", "/"), code: 499, detail: "Token Required."},
		hostileCase{op: "moveItemFromFolder", name: "DELETE is not allowed", method: "DELETE", path: mf(pt.ProjectsFolder, pt.ParcelsItem), status: 404, code: 404, detail: "Not found"},
	)

	// oauthAuthorize: its refusals are error pages, HTTP 400.
	az := func(kv ...string) string {
		base := []string{"client_id", demoApp, "response_type", "code", "redirect_uri", demoCallback}
		f := form(base...)
		for i := 0; i < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return f.Encode()
	}
	const authz = "/oauth2/authorize"
	add(
		hostileCase{op: "oauthAuthorize", name: "unknown client", method: "GET", path: authz, auth: "none", query: az("client_id", "nope"), page: true, detail: "Error: Invalid client_id"},
		hostileCase{op: "oauthAuthorize", name: "SQL OR as client id", method: "GET", path: authz, auth: "none", query: az("client_id", sqlOr), page: true, detail: "Error: Invalid client_id"},
		hostileCase{op: "oauthAuthorize", name: "NUL in client id", method: "GET", path: authz, auth: "none", query: az("client_id", demoApp+"\x00"), page: true, detail: "client_id: holds a NUL"},
		hostileCase{op: "oauthAuthorize", name: "redirect to another host", method: "GET", path: authz, auth: "none", query: az("redirect_uri", "https://evil.example.org/cb"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "redirect with user information", method: "GET", path: authz, auth: "none", query: az("redirect_uri", "http://evil.example.org@127.0.0.1:5000/"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "redirect with a raw space", method: "GET", path: authz, auth: "none", query: az("redirect_uri", "http://127.0.0.1/ x"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "redirect to port 99999", method: "GET", path: authz, auth: "none", query: az("redirect_uri", "http://127.0.0.1:99999/"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "redirect to port 0", method: "GET", path: authz, auth: "none", query: az("redirect_uri", "http://127.0.0.1:0/"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "code_challenge of characters PKCE does not use", method: "GET", path: authz, auth: "none", query: az("code_challenge", strings.Repeat("!", 43), "code_challenge_method", "S256"), page: true, detail: "code_challenge: string doesn't match the regular expression"},
		hostileCase{op: "oauthAuthorize", name: "javascript: redirect", method: "GET", path: authz, auth: "none", query: az("redirect_uri", "javascript:alert(1)//127.0.0.1"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "pythonapi to another origin", method: "GET", path: authz, auth: "none", query: az("client_id", "pythonapi", "redirect_uri", "https://www.arcgis.com"), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "implicit grant out of band", method: "GET", path: authz, auth: "none", query: az("client_id", "pythonapi", "response_type", "token", "redirect_uri", oob), page: true, detail: "Error: Invalid redirect_uri"},
		hostileCase{op: "oauthAuthorize", name: "response_type missing", method: "GET", path: authz, auth: "none", query: "client_id=demo-app&redirect_uri=" + demoCallback, page: true, detail: "response_type: value is required but missing"},
		hostileCase{op: "oauthAuthorize", name: "response_type password", method: "GET", path: authz, auth: "none", query: az("response_type", "password"), page: true, detail: "response_type: value is not one of the allowed values"},
		hostileCase{op: "oauthAuthorize", name: "implicit grant forever", method: "GET", path: authz, auth: "none", query: az("response_type", "token", "expiration", "-1"), page: true, detail: "expiration: -1 (never) is for refresh tokens"},
		hostileCase{op: "oauthAuthorize", name: "expiration is a word", method: "GET", path: authz, auth: "none", query: az("expiration", "soon"), page: true, detail: "expiration: value soon"},
		hostileCase{op: "oauthAuthorize", name: "code_challenge of 42 characters", method: "GET", path: authz, auth: "none", query: az("code_challenge", strings.Repeat("c", 42), "code_challenge_method", "S256"), page: true, detail: "code_challenge: minimum string length is 43"},
		hostileCase{op: "oauthAuthorize", name: "code_challenge_method without a challenge", method: "GET", path: authz, auth: "none", query: az("code_challenge_method", "S256"), page: true, detail: "code_challenge: required with code_challenge_method"},
		hostileCase{op: "oauthAuthorize", name: "code_challenge on an implicit grant", method: "GET", path: authz, auth: "none", query: az("response_type", "token", "code_challenge", strings.Repeat("c", 43)), page: true, detail: "code_challenge: for response_type=code only"},
		hostileCase{op: "oauthAuthorize", name: "code_challenge_method S512", method: "GET", path: authz, auth: "none", query: az("code_challenge", strings.Repeat("c", 43), "code_challenge_method", "S512"), page: true, detail: "code_challenge_method: value is not one of the allowed values"},
		hostileCase{op: "oauthAuthorize", name: "state of 2,049 characters", method: "GET", path: authz, auth: "none", query: az("state", strings.Repeat("s", 2049)), page: true, detail: "state: maximum string length is 2048"},
		hostileCase{op: "oauthAuthorize", name: "client_id given twice", method: "GET", path: authz, auth: "none", query: az() + "&client_id=pythonapi", page: true, detail: "multiple values for single value parameter 'client_id'"},
		hostileCase{op: "oauthAuthorize", name: "PUT is not allowed", method: "PUT", path: authz, auth: "none", query: az(), status: 404, code: 404, detail: "Not found"},
	)

	// oauthSignIn: beside the REST root. A request the page could not have
	// named is an error page: a state not signed by the portal (made up, or
	// changed) is refused whatever it names; wrong credentials answer the
	// sign-in page again (HTTP 200) with its message. goodState stands for
	// a state the sign-in page gave (sendHostile asks the page for it).
	made := func(r server.AuthRequest) string {
		b, _ := json.Marshal(r)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	good := server.AuthRequest{ClientID: demoApp, RedirectURI: demoCallback, ResponseType: "code", State: "x"}
	with := func(edit func(r *server.AuthRequest)) string { r := good; edit(&r); return made(r) }
	const signin = "/sharing/oauth2/signin"
	creds := func(st string, kv ...string) string {
		f := form("oauth_state", st, "username", pt.Member, "password", pt.MemberPassword)
		for i := 0; i < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return f.Encode()
	}
	add(
		hostileCase{op: "oauthSignIn", name: "oauth_state not base64", root: true, path: signin, auth: "none", body: creds("!!!"), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "oauth_state not JSON", root: true, path: signin, auth: "none", body: creds(base64.RawURLEncoding.EncodeToString([]byte("not json"))), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "oauth_state of an empty request", root: true, path: signin, auth: "none", body: creds(base64.RawURLEncoding.EncodeToString([]byte("{}"))), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "oauth_state missing", root: true, path: signin, auth: "none", body: enc("username", pt.Member, "password", pt.MemberPassword), page: true, detail: "oauth_state: property is missing"},
		hostileCase{op: "oauthSignIn", name: "oauth_state given twice", root: true, path: signin, auth: "none", body: creds(goodState) + "&oauth_state=x", page: true, detail: "given 2 times"},
		hostileCase{op: "oauthSignIn", name: "made-up state of a good request", root: true, path: signin, auth: "none", body: creds(made(good)), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "made-up state: unknown client", root: true, path: signin, auth: "none", body: creds(with(func(r *server.AuthRequest) { r.ClientID = "nope" })), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "made-up state: redirect not registered", root: true, path: signin, auth: "none", body: creds(with(func(r *server.AuthRequest) { r.RedirectURI = "https://evil.example.org/cb" })), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "made-up state: pythonapi to another origin", root: true, path: signin, auth: "none", body: creds(with(func(r *server.AuthRequest) {
			r.ClientID, r.RedirectURI, r.ResponseType = "pythonapi", "https://evil.example.org", "token"
		})), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "made-up state: response_type password", root: true, path: signin, auth: "none", body: creds(with(func(r *server.AuthRequest) { r.ResponseType = "password" })), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "a good state's signature on another request", root: true, path: signin, auth: "none", body: creds(goodStateOf(with(func(r *server.AuthRequest) { r.RedirectURI = "https://evil.example.org/cb" }))), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "cross-site post (Sec-Fetch-Site)", root: true, path: signin, auth: "none", body: creds(goodState), header: map[string]string{"Sec-Fetch-Site": "cross-site"}, page: true, detail: "Error: Cross-site sign-in refused"},
		hostileCase{op: "oauthSignIn", name: "cross-site post (Origin)", root: true, path: signin, auth: "none", body: creds(goodState), header: map[string]string{"Origin": "https://evil.example.org"}, page: true, detail: "Error: Cross-site sign-in refused"},
		hostileCase{op: "oauthSignIn", name: "post from an opaque origin", root: true, path: signin, auth: "none", body: creds(goodState), header: map[string]string{"Origin": "null"}, page: true, detail: "Error: Cross-site sign-in refused"},
		hostileCase{op: "oauthSignIn", name: "wrong password", root: true, path: signin, auth: "none", body: enc("oauth_state", goodState, "username", "ghost", "password", "x"), page: true, status: 200, detail: "Invalid username or password."},
		hostileCase{op: "oauthSignIn", name: "SQL OR as user name", root: true, path: signin, auth: "none", body: enc("oauth_state", goodState, "username", sqlOr, "password", sqlOr), page: true, status: 200, detail: "Invalid username or password."},
		hostileCase{op: "oauthSignIn", name: "NUL in user name", root: true, path: signin, auth: "none", body: creds(goodState, "username", pt.Member+"\x00"), page: true, detail: "username: holds a NUL"},
		hostileCase{op: "oauthSignIn", name: "password of 1,025 characters", root: true, path: signin, auth: "none", body: creds(goodState, "password", strings.Repeat("p", 1025)), page: true, detail: "password: maximum string length is 1024"},
		hostileCase{op: "oauthSignIn", name: "expiration is a word", root: true, path: signin, auth: "none", body: creds(goodState, "expiration", "soon"), page: true, detail: "expiration: value must be an integer"},
		hostileCase{op: "oauthSignIn", name: "JSON body", root: true, path: signin, auth: "none", ctype: "application/json", body: `{"oauth_state":"` + goodState + `"}`, page: true, detail: `Content-Type: "application/json" is not accepted`},
		hostileCase{op: "oauthSignIn", name: "GET is not allowed", method: "GET", root: true, path: signin, auth: "none", query: creds(goodState), status: 404, code: 404, detail: "Not found"},
		hostileCase{op: "oauthSignIn", name: "under the REST root, a made-up state", path: "/oauth2/signin", auth: "none", body: creds(with(func(r *server.AuthRequest) { r.ClientID = "nope" })), page: true, detail: "Error: Invalid oauth_state"},
		hostileCase{op: "oauthSignIn", name: "PUT under the REST root", method: "PUT", path: "/oauth2/signin", auth: "none", body: creds(goodState), status: 404, code: 404, detail: "Not found"},
	)

	// oauthApproval.
	const approval = "/oauth2/approval"
	add(
		hostileCase{op: "oauthApproval", name: "code missing", method: "GET", path: approval, auth: "none", page: true, detail: "code: value is required but missing"},
		hostileCase{op: "oauthApproval", name: "code empty", method: "GET", path: approval, auth: "none", query: "code=", page: true, detail: "code: minimum string length is 1"},
		hostileCase{op: "oauthApproval", name: "code of 257 characters", method: "GET", path: approval, auth: "none", query: enc("code", strings.Repeat("c", 257)), page: true, detail: "code: maximum string length is 256"},
		hostileCase{op: "oauthApproval", name: "NUL in code", method: "GET", path: approval, auth: "none", query: enc("code", "a\x00b"), page: true, detail: "code: holds a NUL"},
		hostileCase{op: "oauthApproval", name: "state of 2,049 characters", method: "GET", path: approval, auth: "none", query: enc("code", "c", "state", strings.Repeat("s", 2049)), page: true, detail: "state: maximum string length is 2048"},
		hostileCase{op: "oauthApproval", name: "JSON body", path: approval, auth: "none", ctype: "application/json", body: `{"code":"c"}`, page: true, detail: `Content-Type: "application/json" is not accepted`},
		hostileCase{op: "oauthApproval", name: "DELETE is not allowed", method: "DELETE", path: approval, auth: "none", query: "code=c", status: 404, code: 404, detail: "Not found"},
	)

	// oauthToken: the envelope with the OAuth error; nothing issued.
	const tokenPath = "/oauth2/token"
	tok := func(kv ...string) string { return enc(kv...) }
	add(
		hostileCase{op: "oauthToken", name: "unknown client", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", "nope", "client_secret", "x"), code: 400, oauth: "invalid_client", detail: "Invalid client_id"},
		hostileCase{op: "oauthToken", name: "SQL OR as client id", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", sqlOr, "client_secret", sqlOr), code: 400, oauth: "invalid_client", detail: "Invalid client_id"},
		hostileCase{op: "oauthToken", name: "wrong client secret", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", demoApp, "client_secret", "wrong"), code: 400, oauth: "invalid_client", detail: "Invalid client_secret"},
		hostileCase{op: "oauthToken", name: "client credentials of a public client", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", "pythonapi", "client_secret", "x"), code: 400, oauth: "invalid_client", detail: "Invalid client"},
		hostileCase{op: "oauthToken", name: "grant_type missing", path: tokenPath, auth: "none", body: tok("client_id", demoApp), code: 400, oauth: "invalid_request", detail: "grant_type: property is missing"},
		hostileCase{op: "oauthToken", name: "grant_type password", path: tokenPath, auth: "none", body: tok("grant_type", "password", "client_id", demoApp, "username", pt.Member, "password", pt.MemberPassword), code: 400, oauth: "invalid_request", detail: "grant_type"},
		hostileCase{op: "oauthToken", name: "code never issued", path: tokenPath, auth: "none", body: tok("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback, "code", "never-issued"), code: 400, oauth: "invalid_grant", detail: "Invalid authorization code"},
		hostileCase{op: "oauthToken", name: "SQL OR as code", path: tokenPath, auth: "none", body: tok("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback, "code", sqlOr), code: 400, oauth: "invalid_grant", detail: "Invalid authorization code"},
		hostileCase{op: "oauthToken", name: "code missing", path: tokenPath, auth: "none", body: tok("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback), code: 400, oauth: "invalid_request", detail: "code not specified"},
		hostileCase{op: "oauthToken", name: "refresh token never issued", path: tokenPath, auth: "none", body: tok("grant_type", "refresh_token", "client_id", demoApp, "refresh_token", "never-issued"), code: 400, oauth: "invalid_grant", detail: "Invalid refresh_token"},
		hostileCase{op: "oauthToken", name: "a user's token as refresh token", path: tokenPath, auth: "none", body: tok("grant_type", "refresh_token", "client_id", demoApp, "refresh_token", pt.AdminToken), code: 400, oauth: "invalid_grant", detail: "Invalid refresh_token"},
		hostileCase{op: "oauthToken", name: "exchange without redirect_uri", path: tokenPath, auth: "none", body: tok("grant_type", "exchange_refresh_token", "client_id", demoApp, "refresh_token", "x"), code: 400, oauth: "invalid_request", detail: "redirect_uri not specified"},
		hostileCase{op: "oauthToken", name: "code_verifier of characters PKCE does not use", path: tokenPath, auth: "none", body: tok("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback, "code", "c", "code_verifier", strings.Repeat(" ", 43)), code: 400, oauth: "invalid_request", detail: "code_verifier"},
		hostileCase{op: "oauthToken", name: "code_verifier of 42 characters", path: tokenPath, auth: "none", body: tok("grant_type", "authorization_code", "client_id", demoApp, "redirect_uri", demoCallback, "code", "c", "code_verifier", strings.Repeat("v", 42)), code: 400, oauth: "invalid_request", detail: "code_verifier"},
		hostileCase{op: "oauthToken", name: "expiration 0", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret, "expiration", "0"), code: 400, oauth: "invalid_request", detail: "expiration"},
		hostileCase{op: "oauthToken", name: "client_id given twice", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_secret", demoSecret) + "&client_id=demo-app&client_id=nope", code: 400, oauth: "invalid_request", detail: "given 2 times"},
		hostileCase{op: "oauthToken", name: "f=html", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret, "f", "html"), code: 400, oauth: "invalid_request", detail: "f: value is not one of the allowed values"},
		hostileCase{op: "oauthToken", name: "JSON body", path: tokenPath + "/", auth: "none", ctype: "application/json", body: `{"grant_type":"client_credentials","client_id":"demo-app","client_secret":"demo-app-secret"}`, code: 400, oauth: "invalid_request", detail: "Content-Type"},
		hostileCase{op: "oauthToken", name: "GET with a wrong secret", method: "GET", path: tokenPath, auth: "none", query: tok("grant_type", "client_credentials", "client_id", demoApp, "client_secret", "wrong"), code: 400, oauth: "invalid_client", detail: "Invalid client_secret"},
		hostileCase{op: "oauthToken", name: "PUT is not allowed", method: "PUT", path: tokenPath, auth: "none", body: tok("grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret), status: 404, code: 404, detail: "Not found"},
	)

	// oauthRevokeToken: refusals revoke nothing.
	const revoke = "/oauth2/revokeToken"
	add(
		hostileCase{op: "oauthRevokeToken", name: "auth_token missing", path: revoke, auth: "none", body: enc("client_id", demoApp), code: 400, oauth: "invalid_request", detail: "auth_token: property is missing"},
		hostileCase{op: "oauthRevokeToken", name: "auth_token empty", path: revoke, auth: "none", body: enc("client_id", demoApp, "auth_token", ""), code: 400, oauth: "invalid_request", detail: "auth_token"},
		hostileCase{op: "oauthRevokeToken", name: "auth_token of 257 characters", path: revoke, auth: "none", body: enc("auth_token", strings.Repeat("t", 257)), code: 400, oauth: "invalid_request", detail: "auth_token: maximum string length is 256"},
		hostileCase{op: "oauthRevokeToken", name: "token_type_hint id_token", path: revoke, auth: "none", body: enc("auth_token", "x", "token_type_hint", "id_token"), code: 400, oauth: "invalid_request", detail: "token_type_hint"},
		hostileCase{op: "oauthRevokeToken", name: "auth_token given twice", path: revoke + "/", auth: "none", body: "auth_token=" + pt.AdminToken + "&auth_token=" + pt.MemberToken, code: 400, oauth: "invalid_request", detail: "given 2 times"},
		hostileCase{op: "oauthRevokeToken", name: "JSON body", path: revoke, auth: "none", ctype: "application/json", body: `{"auth_token":"` + pt.AdminToken + `"}`, code: 400, oauth: "invalid_request", detail: "Content-Type"},
		hostileCase{op: "oauthRevokeToken", name: "GET is not allowed", method: "GET", path: revoke, auth: "none", query: enc("auth_token", pt.AdminToken), status: 404, code: 404, detail: "Not found"},
	)
	return cs
}

// goodState stands, in a hostile case, for an oauth_state the sign-in page
// gave for demo-app's code flow; goodStateOf(payload) for that state's
// signature put after another payload. sendHostile puts the real ones in.
const (
	goodState      = "GOOD-STATE"
	goodStatePlace = "GOOD-SIGNATURE-AFTER."
)

func goodStateOf(payload string) string { return goodStatePlace + payload }

// withGoodStates returns s with the stand-ins replaced by a state p's
// sign-in page gives, or its signature after another payload.
func withGoodStates(t *testing.T, p *pt.Portal, s string) string {
	if !strings.Contains(s, goodState) && !strings.Contains(s, url.QueryEscape(goodStatePlace)) {
		return s
	}
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/oauth2/authorize?"+codeParams("state", "x").Encode(), nil)
	st := oAuthInfo(t, fetch(t, req))["oauth_state"].(string)
	_, sig, _ := strings.Cut(st, ".")
	s = strings.ReplaceAll(s, goodState, st)
	for {
		i := strings.Index(s, url.QueryEscape(goodStatePlace))
		if i < 0 {
			return s
		}
		rest := s[i+len(url.QueryEscape(goodStatePlace)):]
		end := strings.IndexAny(rest, "&\"")
		if end < 0 {
			end = len(rest)
		}
		s = s[:i] + rest[:end] + "." + sig + rest[end:]
	}
}
