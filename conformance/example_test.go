package conformance_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/orgportal/portal-api/conformance"
)

// A test of a live portal, skipped unless its address is given.
func ExampleRun() {
	_ = func(t *testing.T) {
		base := os.Getenv("PORTAL_BASE_URL")
		if base == "" {
			t.Skip("PORTAL_BASE_URL not set")
		}
		conformance.Run(t, conformance.Target{
			BaseURL:     base, // such as https://portal.example.org/portal/sharing/rest
			AdminToken:  os.Getenv("PORTAL_ADMIN_TOKEN"),
			MemberToken: os.Getenv("PORTAL_MEMBER_TOKEN"),
			User:        os.Getenv("PORTAL_MEMBER"),
		})
	}
}

// Running the suite outside go test, and reading the results.
func ExampleRunner() {
	rn := &conformance.Runner{
		Pattern:  "moveItems|memberCategorySchema",
		Progress: func(r *conformance.Result) { fmt.Println(r.Status, r.Name) },
	}
	rep, err := rn.Run(conformance.Target{BaseURL: "https://portal.example.org/portal/sharing/rest", Username: "admin", Password: "secret"})
	if err != nil {
		fmt.Println(err)
		return
	}
	passed, failed, notRun := rep.Counts()
	fmt.Println(passed, "passed,", failed, "failed,", notRun, "not run")
	for _, c := range rep.Cases() {
		for _, e := range c.Errors() {
			fmt.Println(c.Name, e)
		}
	}
}
