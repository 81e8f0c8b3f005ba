package emulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/emulator"
)

// An organization created through /emulator/organizations brings its
// groups; one naming a group id another organization holds is refused
// (409), changing nothing; removing the organization removes its groups.
func TestOrganizationGroups(t *testing.T) {
	_, hs := start(t, emulator.Options{})
	taken := `{"id":"G1","name":"G","users":[{"username":"g-admin","password":"pw","role":"org_admin","tokens":["g-token"]}],` +
		`"groups":[{"id":"b1a2c3d4e5f6478190a1b2c3d4e5f6a7","title":"Mine now","owner":"g-admin","access":"public"}]}`
	status, raw, _ := call(t, hs.URL, "POST", "/emulator/organizations", taken, nil)
	if status != http.StatusConflict || !strings.Contains(string(raw), "groups: group b1a2c3d4e5f6478190a1b2c3d4e5f6a7 exists") {
		t.Fatalf("a group id of the demo organization: HTTP %d %s", status, raw)
	}
	if _, raw, _ := call(t, hs.URL, "GET", "/sharing/rest/community/groups/b1a2c3d4e5f6478190a1b2c3d4e5f6a7?f=json&token="+memberToken, "", nil); !strings.Contains(string(raw), `"title":"Planning"`) {
		t.Fatalf("the demo's group after the refusal: %s", raw)
	}

	fresh := strings.Replace(taken, "b1a2c3d4e5f6478190a1b2c3d4e5f6a7", "9999999999994999a999999999999999", 1)
	if status, raw, _ := call(t, hs.URL, "POST", "/emulator/organizations", fresh, nil); status/100 != 2 {
		t.Fatalf("a new organization with a group: HTTP %d %s", status, raw)
	}
	const groupURL = "/sharing/rest/community/groups/9999999999994999a999999999999999?f=json"
	if _, raw, _ := call(t, hs.URL, "GET", groupURL, "", nil); !strings.Contains(string(raw), `"title":"Mine now"`) || !strings.Contains(string(raw), `"orgId":"G1"`) {
		t.Fatalf("the new organization's public group, anonymously: %s", raw)
	}
	if status, raw, _ := call(t, hs.URL, "DELETE", "/emulator/organizations/G1", "", nil); status/100 != 2 {
		t.Fatalf("removing the organization: HTTP %d %s", status, raw)
	}
	if _, raw, _ := call(t, hs.URL, "GET", groupURL, "", nil); !strings.Contains(string(raw), "Group does not exist") {
		t.Errorf("the group after its organization was removed: %s", raw)
	}
}
