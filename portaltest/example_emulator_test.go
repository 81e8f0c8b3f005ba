package portaltest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/orgportal/portal-api/gen/emulatorapi"
	"github.com/orgportal/portal-api/portaltest"
)

// The emulator's own endpoints through their generated client: a fault
// rule fails one item of the next moveItems, and the journal shows what
// the code under test sent and what it got.
func ExamplePortal_Emulator() {
	p, err := portaltest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	emu := p.Emulator()

	rule, err := emu.AddFaultWithResponse(ctx, emulatorapi.Fault{Operation: "moveItems",
		ItemErrors: &map[string]emulatorapi.FaultError{portaltest.RoadsItem: {Code: 500}}})
	if err != nil || rule.JSON200 == nil {
		log.Fatal(err, string(rule.Body))
	}
	results, err := p.Client(portaltest.MemberToken).MoveItems(ctx, portaltest.Member,
		[]string{portaltest.RoadsItem, portaltest.HydrantsItem}, portaltest.ArchiveFolder)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Println(r.ItemID, r.Success)
	}

	op := "moveItems"
	journal, err := emu.ListRequestsWithResponse(ctx, &emulatorapi.ListRequestsParams{Operation: &op})
	if err != nil || journal.JSON200 == nil {
		log.Fatal(err)
	}
	for _, r := range journal.JSON200.Requests {
		fmt.Println(r.Operation, r.Params["items"], *r.Caller, *r.Answer.FailedItems, *r.Fault == *rule.JSON200.Id)
	}
	// Output:
	// 93b54c8930ae46d9a00a7820cb3ebbd1 false
	// 7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3 true
	// moveItems [93b54c8930ae46d9a00a7820cb3ebbd1 7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3] jsmith 1 true
}
