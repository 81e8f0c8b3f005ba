package portaltest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/portaltest"
)

// A test starts its own emulator with portaltest.New(t); outside a test,
// Start and Close do the same. The code under test talks to p.URL; here,
// the Go client moves an item of the demo organization.
func Example() {
	p, err := portaltest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()

	c := p.Client(portaltest.MemberToken)
	results, err := c.MoveItems(ctx, portaltest.Member, []string{portaltest.RoadsItem, portaltest.ParcelsItem}, portaltest.ProjectsFolder)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Println(r.ItemID, r.Success, r.Err)
	}
	item, err := c.Item(ctx, portaltest.RoadsItem)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(item.Title, "in Projects:", item.Folder == portaltest.ProjectsFolder)

	// A client that signs in with a user name and password.
	member, err := client.New(p.URL, client.WithCredentials(portaltest.Member, portaltest.MemberPassword))
	if err != nil {
		log.Fatal(err)
	}
	m, err := member.Member(ctx, portaltest.Member)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.FullName)
	// Output:
	// 93b54c8930ae46d9a00a7820cb3ebbd1 true <nil>
	// 2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8 false Item already exists in target folder (code 500)
	// Roads in Projects: true
	// Jane Smith
}
