package server

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// fail admits an attempt of user from addr and counts it failed.
func fail(t *testing.T, th *signinThrottle, user, addr string, now func() time.Time) {
	t.Helper()
	at, refused := th.admit(context.Background(), user, addr, now)
	if refused != nil {
		t.Fatalf("%s from %s refused: %v", user, addr, refused.Details)
	}
	at.failed()
}

// TestThrottleFullTableEvictsOldest: a table of counts at its bound drops
// the oldest count for a new key, never all of them: made-up user names
// cannot wipe the count of the user name under attack.
func TestThrottleFullTableEvictsOldest(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	now := func() time.Time { return clock }
	th := &signinThrottle{}
	for i := range signinMaxKeys - 1 {
		fail(t, th, fmt.Sprintf("filler%d", i), fmt.Sprintf("10.%d.%d.1", i/256, i%256), now)
	}
	clock = t0.Add(time.Second)
	for range signinMaxPerUser {
		fail(t, th, "victim", "192.0.2.1", now)
	}
	clock = t0.Add(2 * time.Second)
	fail(t, th, "one-more", "192.0.2.2", now) // the table is full: room is made
	if n := len(th.byUser); n != signinMaxKeys {
		t.Errorf("%d user names counted, want the bound %d", n, signinMaxKeys)
	}
	if th.byUser["one-more"] == nil || th.byUser["victim"] == nil {
		t.Fatalf("the newest counts were dropped")
	}
	if _, refused := th.admit(context.Background(), "victim", "192.0.2.3", now); refused == nil {
		t.Errorf("the victim's count was wiped by a new user name")
	}
}

// TestThrottleRefusalsAddNoKeys: a refused attempt adds no count, and a
// success leaves none behind.
func TestThrottleRefusalsAddNoKeys(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	th := &signinThrottle{}
	for range signinMaxPerUser {
		fail(t, th, "victim", "192.0.2.1", now)
	}
	users, addrs := len(th.byUser), len(th.byAddr)
	for i := range 20 {
		if _, refused := th.admit(context.Background(), "VICTIM", fmt.Sprintf("198.51.100.%d", i), now); refused == nil {
			t.Fatalf("attempt %d for VICTIM (victim, case aside) let through", i)
		}
	}
	if len(th.byUser) != users || len(th.byAddr) != addrs {
		t.Errorf("refusals added keys: %d user names (was %d), %d addresses (was %d)", len(th.byUser), users, len(th.byAddr), addrs)
	}
	at, refused := th.admit(context.Background(), "someone", "203.0.113.9", now)
	if refused != nil {
		t.Fatal(refused)
	}
	at.succeeded()
	if th.byUser["someone"] != nil || th.byAddr["203.0.113.9"] != nil {
		t.Errorf("a success left counts behind")
	}
}

// TestThrottleWaitsForRoom: attempts past the failures left wait for those
// in flight rather than being refused or let through; one abandoned while
// waiting is refused and counts nothing.
func TestThrottleWaitsForRoom(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	th := &signinThrottle{}
	var inFlight []*signinAttempt
	for range signinMaxPerUser {
		at, refused := th.admit(context.Background(), "u", "192.0.2.1", now)
		if refused != nil {
			t.Fatal(refused)
		}
		inFlight = append(inFlight, at)
	}
	admitted := make(chan *signinAttempt)
	go func() {
		at, _ := th.admit(context.Background(), "u", "192.0.2.1", now)
		admitted <- at
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, refused := th.admit(ctx, "u", "192.0.2.1", now); refused == nil {
		t.Errorf("an abandoned attempt past the room was let through")
	}
	inFlight[0].succeeded() // room again: the waiting attempt goes on
	at := <-admitted
	if at == nil {
		t.Fatal("the waiting attempt was refused")
	}
	at.failed()
	for _, a := range inFlight[1:] {
		a.failed()
	}
	if n := th.byUser["u"].n; n != signinMaxPerUser {
		t.Errorf("%d failures counted, want %d", n, signinMaxPerUser)
	}
}
