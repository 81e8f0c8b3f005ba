package server

import "testing"

// A custom role is reported as the built-in role its privileges amount to:
// any administrative privilege makes it org_admin, else any publisher's
// org_publisher, else org_user.
func TestReportedRole(t *testing.T) {
	for _, c := range []struct {
		privs []string
		want  string
	}{
		{nil, RoleUser},
		{[]string{"portal:user:joinGroup"}, RoleUser},
		{[]string{"portal:user:createItem", "portal:publisher:publishFeatures"}, RolePublisher},
		{[]string{"portal:publisher:publishTiles", PrivUpdateMemberCategorySchema}, RoleAdmin},
		{[]string{PrivManageSecurity}, RoleAdmin},
		{[]string{"portal:adminish"}, RoleUser},
	} {
		if got := reportedRole(c.privs); got != c.want {
			t.Errorf("reportedRole(%v) = %s, want %s", c.privs, got, c.want)
		}
	}
	// The built-in roles' own privileges amount to themselves.
	for role, privs := range builtinPrivileges {
		if got := reportedRole(privs); got != role {
			t.Errorf("the privileges of %s amount to %s", role, got)
		}
	}
}
