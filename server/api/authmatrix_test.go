package api_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	pt "github.com/orgportal/portal-api/portaltest"
)

// matrixTable is who may do what, written from api.md ("Who may do what",
// Errors, Auth): ✓ succeeds, a number is the envelope code. The target is
// always the demo organization and its member jsmith (the "user" column).
// A member of another organization is "inaccessible" (400) where the portal
// hides what exists: members (community/users) and items (CONT_0001). An
// application's token (client_credentials, "app") acts for no user: it reads
// what anonymous callers read, and anything else is 403, not 498.
const matrixTable = `
operation                  none bad expired admin publisher user secadmin catadmin contentadmin viewer otheradmin app
updateSettings             499  498 498     ✓     403       403  ✓        403      403          403    403        403
getSettings                ✓    498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      ✓          ✓
assignMemberCategorySchema 499  498 498     ✓     403       403  403      ✓        403          403    403        403
getMemberCategorySchema    499  498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      403        403
deleteMemberCategorySchema 499  498 498     ✓     403       403  403      ✓        403          403    403        403
listMembers                499  498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      403        403
getMember                  499  498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      400        403
updateMember               499  498 498     ✓     403       403  403      403      ✓            403    400        403
moveItems                  499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
getUserContent             499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
getFolderContent           499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
getItem                    499  498 498     ✓     400       ✓    400      400      ✓            400    400        400
createFolder               499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
deleteFolder               499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
addItem                    499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
addItemToFolder            499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
deleteItems                499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
generateToken              ✓    498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      ✓          ✓
getRoot                    ✓    498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      ✓          ✓
getInfo                    ✓    498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      ✓          ✓
getPortal                  ✓    498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      ✓          ✓
listRoles                  499  498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      403        403
getSelf                    499  498 498     ✓     ✓         ✓    ✓        ✓        ✓            ✓      ✓          403
moveItem                   499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
moveItemFromFolder         499  498 498     ✓     403       ✓    403      403      ✓            403    403        403
`

// parseMatrix splits matrixTable into its callers and, per operation, the
// expected cells.
func parseMatrix(t *testing.T) (callers []string, ops []string, cells [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(matrixTable), "\n")
	callers = strings.Fields(lines[0])[1:]
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != len(callers)+1 {
			t.Fatalf("matrix row %q: %d cells, want %d", f[0], len(f)-1, len(callers))
		}
		ops, cells = append(ops, f[0]), append(cells, f[1:])
	}
	return callers, ops, cells
}

// matrixOp sends one operation as a caller. setup builds, with the
// administrator's token, what the call consumes, so that every allowed cell
// can succeed; call sends the request; good checks a success is real.
type matrixOp struct {
	setup func(t *testing.T, p *pt.Portal) string
	call  func(t *testing.T, p *pt.Portal, token, fixture string) answer
	good  func(t *testing.T, a answer, fixture string)
}

// newItem adds an item at jsmith's root and returns its id.
func newItem(t *testing.T, p *pt.Portal) string {
	t.Helper()
	return ok(t, post(t, p, hContent+"/addItem", pt.AdminToken, form("title", "Fixture", "type", "CSV"))).body["id"].(string)
}

var folderSeq struct {
	sync.Mutex
	n int
}

// uniqueTitle is a folder title no other cell uses.
func uniqueTitle() string {
	folderSeq.Lock()
	defer folderSeq.Unlock()
	folderSeq.n++
	return fmt.Sprintf("Matrix %d", folderSeq.n)
}

// firstResult is the first item result of a batch answer.
func firstResult(t *testing.T, a answer) map[string]any {
	t.Helper()
	rs, _ := a.body["results"].([]any)
	if len(rs) != 1 {
		t.Fatalf("want one result: %s", a.raw)
	}
	return rs[0].(map[string]any)
}

// wantSuccess fails a cell whose success is not what the operation gives.
func wantSuccess(t *testing.T, cond bool, a answer) {
	t.Helper()
	if !cond {
		t.Errorf("not the success expected: %.400s", a.raw)
	}
}

var matrixOps = map[string]matrixOp{
	"updateSettings": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return post(t, p, hUpdate, tok, form("informationalBanner", `{"text":"Matrix","enabled":false}`))
		},
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["success"] == true, a) },
	},
	"getSettings": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, settingsPath, tok, nil) },
		good: func(t *testing.T, a answer, _ string) {},
	},
	"assignMemberCategorySchema": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return assign(t, p, tok, chain(2)) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["success"] == true, a) },
	},
	"getMemberCategorySchema": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, hSchema, tok, nil) },
		good: func(t *testing.T, a answer, _ string) {
			_, has := a.body["memberCategorySchema"]
			wantSuccess(t, has, a)
		},
	},
	"deleteMemberCategorySchema": {
		setup: func(t *testing.T, p *pt.Portal) string { ok(t, assign(t, p, pt.AdminToken, chain(1))); return "" },
		call:  func(t *testing.T, p *pt.Portal, tok, _ string) answer { return post(t, p, hDelSchema, tok, nil) },
		good:  func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["success"] == true, a) },
	},
	"listMembers": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, hUsers, tok, nil) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["total"].(float64) >= 7, a) },
	},
	"getMember": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, hMember, tok, nil) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["username"] == pt.Member, a) },
	},
	"updateMember": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return post(t, p, hMember+"/update", tok, form("categories", `[]`))
		},
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["username"] == pt.Member, a) },
	},
	"moveItems": {
		setup: newItem,
		call: func(t *testing.T, p *pt.Portal, tok, id string) answer {
			return post(t, p, movePath, tok, form("items", id, "folder", pt.ProjectsFolder))
		},
		good: func(t *testing.T, a answer, id string) {
			r := firstResult(t, a)
			wantSuccess(t, r["itemId"] == id && r["success"] == true, a)
		},
	},
	"getUserContent": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, hContent, tok, nil) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["username"] == pt.Member, a) },
	},
	"getFolderContent": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return get(t, p, hContent+"/"+pt.ProjectsFolder, tok, nil)
		},
		good: func(t *testing.T, a answer, _ string) {
			cur, _ := a.body["currentFolder"].(map[string]any)
			wantSuccess(t, cur != nil && cur["id"] == pt.ProjectsFolder, a)
		},
	},
	"getItem": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return get(t, p, "/content/items/"+pt.RoadsItem, tok, nil)
		},
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["id"] == pt.RoadsItem, a) },
	},
	"createFolder": {
		setup: func(*testing.T, *pt.Portal) string { return uniqueTitle() },
		call: func(t *testing.T, p *pt.Portal, tok, title string) answer {
			return post(t, p, hContent+"/createFolder", tok, form("title", title))
		},
		good: func(t *testing.T, a answer, title string) {
			f, _ := a.body["folder"].(map[string]any)
			wantSuccess(t, f != nil && f["title"] == title && f["username"] == pt.Member, a)
		},
	},
	"deleteFolder": {
		setup: func(t *testing.T, p *pt.Portal) string {
			a := ok(t, post(t, p, hContent+"/createFolder", pt.AdminToken, form("title", uniqueTitle())))
			return a.body["folder"].(map[string]any)["id"].(string)
		},
		call: func(t *testing.T, p *pt.Portal, tok, id string) answer {
			return post(t, p, hContent+"/"+id+"/delete", tok, nil)
		},
		good: func(t *testing.T, a answer, id string) {
			f, _ := a.body["folder"].(map[string]any)
			wantSuccess(t, f != nil && f["id"] == id, a)
		},
	},
	"addItem": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return post(t, p, hContent+"/addItem", tok, form("title", "Matrix", "type", "CSV"))
		},
		good: func(t *testing.T, a answer, _ string) {
			folder, has := a.body["folder"]
			wantSuccess(t, a.body["id"] != nil && has && folder == nil, a)
		},
	},
	"addItemToFolder": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return post(t, p, hContent+"/"+pt.ProjectsFolder+"/addItem", tok, form("title", "Matrix", "type", "CSV"))
		},
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["folder"] == pt.ProjectsFolder, a) },
	},
	"deleteItems": {
		setup: newItem,
		call: func(t *testing.T, p *pt.Portal, tok, id string) answer {
			return post(t, p, hContent+"/deleteItems", tok, form("items", id))
		},
		good: func(t *testing.T, a answer, id string) {
			r := firstResult(t, a)
			wantSuccess(t, r["itemId"] == id && r["success"] == true, a)
		},
	},
	"getRoot": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, "", tok, nil) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["currentVersion"] != nil, a) },
	},
	"getInfo": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, "/info", tok, nil) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["authInfo"] != nil, a) },
	},
	"getPortal": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, schemaPath, tok, nil) },
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["id"] == pt.OrgID, a) },
	},
	"listRoles": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return get(t, p, schemaPath+"/roles", tok, nil)
		},
		good: func(t *testing.T, a answer, _ string) { wantSuccess(t, a.body["total"] == 4.0, a) },
	},
	"getSelf": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer { return get(t, p, "/community/self", tok, nil) },
		good: func(t *testing.T, a answer, _ string) {
			wantSuccess(t, a.body["username"] != nil && a.body["id"] != nil, a)
		},
	},
	"moveItem": {
		setup: newItem,
		call: func(t *testing.T, p *pt.Portal, tok, id string) answer {
			return post(t, p, hContent+"/items/"+id+"/move", tok, form("folder", pt.ProjectsFolder))
		},
		good: func(t *testing.T, a answer, id string) {
			wantSuccess(t, a.body["itemId"] == id && a.body["folder"] == pt.ProjectsFolder, a)
		},
	},
	"moveItemFromFolder": {
		setup: newItem,
		call: func(t *testing.T, p *pt.Portal, tok, id string) answer {
			return post(t, p, hContent+"/"+pt.ArchiveFolder+"/items/"+id+"/move", tok, form("folder", pt.ProjectsFolder))
		},
		good: func(t *testing.T, a answer, id string) {
			wantSuccess(t, a.body["itemId"] == id && a.body["folder"] == pt.ProjectsFolder, a)
		},
	},
	"generateToken": {
		call: func(t *testing.T, p *pt.Portal, tok, _ string) answer {
			return post(t, p, "/generateToken", tok, form("username", pt.Member, "password", "jsmith-password"))
		},
		good: func(t *testing.T, a answer, _ string) {
			tok, _ := a.body["token"].(string)
			wantSuccess(t, tok != "", a)
		},
	},
}

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *testClock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// matrixPortal starts the server of one column and returns the token its
// caller sends ("" for none).
func matrixPortal(t *testing.T, caller string) (*pt.Portal, string) {
	t.Helper()
	tokens := map[string]string{
		"none": "", "bad": "not-a-token", "admin": pt.AdminToken, "publisher": pt.PublisherToken,
		"user": pt.MemberToken, "secadmin": pt.SecAdminToken, "catadmin": pt.CatAdminToken,
		"contentadmin": pt.ContentAdminToken, "viewer": pt.ViewerToken, "otheradmin": pt.OtherAdminToken,
	}
	switch caller {
	case "app":
		p := pt.New(t)
		a := ok(t, post(t, p, "/oauth2/token", "", form("grant_type", "client_credentials", "client_id", demoApp, "client_secret", demoSecret)))
		return p, a.body["access_token"].(string)
	case "expired":
	default:
		return pt.New(t), tokens[caller]
	}
	// An administrator's token from generateToken, valid for one minute,
	// then the clock moves past its end.
	clk := &testClock{now: time.Now()}
	p := pt.New(t, pt.WithClock(clk.Now))
	a := ok(t, post(t, p, "/generateToken", "", form("username", "admin", "password", "admin-password", "expiration", "1")))
	tok := a.body["token"].(string)
	ok(t, get(t, p, hSchema, tok, nil)) // valid before it expires
	clk.Advance(time.Minute + time.Second)
	return p, tok
}

// TestAuthMatrix runs every operation as every kind of caller: exactly the
// cells api.md allows succeed, every other cell gets its code and changes
// nothing.
func TestAuthMatrix(t *testing.T) {
	callers, ops, expect := parseMatrix(t)
	if len(ops) != 25 || len(matrixOps) != 25 {
		t.Fatalf("the matrix has %d rows and %d requests, want 25 operations", len(ops), len(matrixOps))
	}
	got := make([][]string, len(ops))
	for i := range got {
		got[i] = make([]string, len(callers))
	}
	for col, caller := range callers {
		t.Run(caller, func(t *testing.T) {
			p, token := matrixPortal(t, caller)
			for row, name := range ops {
				op, known := matrixOps[name]
				if !known {
					t.Fatalf("no request for %s", name)
				}
				t.Run(name, func(t *testing.T) {
					got[row][col] = "?"
					var fixture string
					if op.setup != nil {
						fixture = op.setup(t, p)
					}
					before := dump(t, p)
					a := op.call(t, p, token, fixture)
					got[row][col] = cell(a)
					if expect[row][col] == "✓" {
						ok(t, a)
						op.good(t, a, fixture)
						return
					}
					var code int
					if _, err := fmt.Sscan(expect[row][col], &code); err != nil {
						t.Fatalf("cell %q: %v", expect[row][col], err)
					}
					fails(t, a, code, matrixMessage(code))
					if dump(t, p) != before {
						t.Error("the refused request changed the store")
					}
				})
			}
		})
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "operation\t%s\n", strings.Join(callers, "\t"))
	for row, name := range ops {
		fmt.Fprintf(tw, "%s\t%s\n", name, strings.Join(got[row], "\t"))
	}
	tw.Flush()
	t.Logf("auth matrix (✓ success, otherwise the envelope code):\n%s", b.String())
}

// cell renders an answer as the matrix shows it.
func cell(a answer) string {
	switch {
	case a.status != 200:
		return fmt.Sprintf("HTTP%d", a.status)
	case a.body["error"] != nil:
		return fmt.Sprint(a.errCode())
	default:
		return "✓"
	}
}

// matrixMessage is what an auth refusal must say, by code.
func matrixMessage(code int) string {
	switch code {
	case 499:
		return "Token Required."
	case 498:
		return "Invalid token."
	case 403:
		return "GWM_0003"
	default:
		return "does not exist or is inaccessible"
	}
}
