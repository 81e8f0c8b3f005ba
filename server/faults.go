package server

import "context"

// itemFaultsKey carries the per-item errors a test harness wants a batch
// operation (moveItems, deleteItems) to report.
type itemFaultsKey struct{}

// WithItemFaults returns ctx carrying errors keyed by item id ("*" for every
// item): MoveItems and DeleteItems report them for those ids and leave the
// items alone, processing the others as usual. The emulator's fault rules
// use it; nothing else should.
func WithItemFaults(ctx context.Context, faults map[string]*Error) context.Context {
	return context.WithValue(ctx, itemFaultsKey{}, faults)
}

// itemFault is the error ctx injects for item id, nil when none.
func itemFault(ctx context.Context, id string) *Error {
	m, _ := ctx.Value(itemFaultsKey{}).(map[string]*Error)
	if m == nil {
		return nil
	}
	e, ok := m[id]
	if !ok {
		e = m["*"]
	}
	if e == nil {
		return nil
	}
	c := *e
	c.Details = append([]string(nil), e.Details...)
	return &c
}
