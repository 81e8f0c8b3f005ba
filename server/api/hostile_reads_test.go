package api_test

import (
	"net/url"
	"strings"

	pt "github.com/orgportal/portal-api/portaltest"
)

// qe escapes a query value.
var qe = url.QueryEscape

// demo groups (server/seed/demo.yaml) the member may not see.
const (
	fieldCrewsGroup   = "c2b3d4e5f6a7489201b2c3d4e5f6a7b8" // the admin's, private; jsmith is not in it
	otherPrivateGroup = "f5e6f7a8b9c0412534e5f6a7b8c9d0e1" // the other organization's, private
)

// readsCatalog is the hostile catalog of the searches and the group read:
// queries that do not parse, parameters out of bounds, and groups the
// caller may not see, answered as absent.
func readsCatalog() []hostileCase {
	var cs []hostileCase
	for _, r := range []struct{ op, path string }{{"searchItems", "/search"}, {"searchGroups", "/community/groups"}} {
		cs = append(cs,
			hostileCase{op: r.op, name: "q over 2048 characters", method: "GET", path: r.path, query: "q=" + strings.Repeat("a", 2049), code: 400, detail: "q: maximum string length is 2048"},
			hostileCase{op: r.op, name: "parenthesis left open", method: "GET", path: r.path, query: "q=" + qe("(owner:jsmith"), code: 400, detail: "q: a parenthesis is not closed"},
			hostileCase{op: r.op, name: "stray closing parenthesis", method: "GET", path: r.path, query: "q=" + qe("owner:jsmith)"), code: 400, detail: "q: unexpected )"},
			hostileCase{op: r.op, name: "an operator alone", method: "GET", path: r.path, query: "q=AND", code: 400, detail: "q: an operator without a term"},
			hostileCase{op: r.op, name: "a closing parenthesis alone", method: "GET", path: r.path, query: "q=" + qe(")"), code: 400, detail: "q: unexpected )"},
			hostileCase{op: r.op, name: "opening parentheses only", method: "GET", path: r.path, query: "q=" + qe(strings.Repeat("(", 2048)), code: 400, detail: "q: a parenthesis is not closed"},
			hostileCase{op: r.op, name: "empty parentheses", method: "GET", path: r.path, query: "q=" + qe("owner:jsmith AND ()"), code: 400, detail: "q: empty parentheses"},
			hostileCase{op: r.op, name: "an operator before a closing parenthesis", method: "GET", path: r.path, query: "q=" + qe("(owner:jsmith OR)"), code: 400, detail: "q: an operator without a term"},
			hostileCase{op: r.op, name: "phrase left open", method: "GET", path: r.path, query: "q=" + qe(`owner:"jsmith`), code: 400, detail: "q: a quotation mark is not closed"},
			hostileCase{op: r.op, name: "a quotation mark alone", method: "GET", path: r.path, query: "q=" + qe(`"`), code: 400, detail: "q: a quotation mark is not closed"},
			hostileCase{op: r.op, name: "query ending with NOT", method: "GET", path: r.path, query: "q=" + qe("owner:jsmith NOT"), code: 400, detail: "q: the query ends with an operator"},
			hostileCase{op: r.op, name: "sortOrder sideways", method: "GET", path: r.path, query: "sortOrder=sideways", code: 400, detail: "sortOrder: value is not one of the allowed values"},
			hostileCase{op: r.op, name: "num 101", method: "GET", path: r.path, query: "num=101", code: 400, detail: "num"},
			hostileCase{op: r.op, name: "NUL in q", method: "GET", path: r.path, query: "q=" + qe("owner:jsmith\x00"), code: 400, detail: "q: holds a NUL"},
		)
	}
	g := "/community/groups/"
	cs = append(cs,
		hostileCase{op: "getGroup", name: "SQL OR as group id", method: "GET", path: g + pe(sqlOr), code: 400, detail: "Group does not exist"},
		hostileCase{op: "getGroup", name: "group id of 129 characters", method: "GET", path: g + strings.Repeat("a", 129), code: 400, detail: "groupId: maximum string length is 128"},
		hostileCase{op: "getGroup", name: "NUL in group id", method: "GET", path: g + pe(fieldCrewsGroup+"\x00"), code: 400, detail: "groupId: holds a NUL"},
		hostileCase{op: "getGroup", name: "a private group the member is not in", method: "GET", path: g + fieldCrewsGroup, auth: pt.MemberToken, code: 400, detail: "Group does not exist"},
		hostileCase{op: "getGroup", name: "a private group, anonymously", method: "GET", path: g + fieldCrewsGroup, auth: "none", code: 400, detail: "Group does not exist"},
		hostileCase{op: "getGroup", name: "another organization's private group, to an administrator", method: "GET", path: g + otherPrivateGroup, code: 400, detail: "Group does not exist"},
	)
	// getUserTags: a user that does not exist, or cannot be named.
	tags := func(user string) string { return "/community/users/" + user + "/tags" }
	cs = append(cs,
		hostileCase{op: "getUserTags", name: "SQL OR as user name", method: "GET", path: tags(pe(sqlOr)), code: 400, detail: "User does not exist"},
		hostileCase{op: "getUserTags", name: "user name of 129 characters", method: "GET", path: tags(strings.Repeat("a", 129)), code: 400, detail: "userName: maximum string length is 128"},
		hostileCase{op: "getUserTags", name: "NUL in user name", method: "GET", path: tags(pe("jsmith\x00")), code: 400, detail: "userName: holds a NUL"},
		hostileCase{op: "getUserTags", name: "encoded traversal", method: "GET", path: tags("..%2fjsmith"), code: 400, detail: "User does not exist"},
		hostileCase{op: "getUserTags", name: "f=xml", method: "GET", path: tags(pt.Member), query: "f=xml", code: 400, detail: "f: value is not one of the allowed values"},
		hostileCase{op: "getUserTags", name: "PUT is not allowed", method: "PUT", path: tags(pt.Member), body: "x", status: 404, code: 404, detail: "Not found"},
	)
	return cs
}

// planningGroup is jsmith's group of the demo organization (access org).
const planningGroup = "b1a2c3d4e5f6478190a1b2c3d4e5f6a7"
