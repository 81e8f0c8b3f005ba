package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orgportal/portal-api/server"
)

// groupRig is a PostgreSQL store with organization o1, its settings row
// and token tok, a connection that can hold that row locked, and the sizes
// of the groups sent.
type groupRig struct {
	t      *testing.T
	s      *Store
	holder *pgxpool.Conn
	admin  *pgxpool.Pool
	mu     sync.Mutex
	sizes  []int
}

const groupKey = "settings o1"

func newGroupRig(t *testing.T) *groupRig {
	t.Helper()
	dsn := postgresSchema(t, postgresURL(t))
	r := &groupRig{t: t, s: openT(t, dsn)}
	putAlice(t, r.s)
	if err := r.s.Update(t.Context(), func(tx server.Tx) error {
		return tx.PutToken(t.Context(), server.Token{Token: "tok", Username: "alice"})
	}); err != nil {
		t.Fatal(err)
	}
	r.setHook(func(n int) { r.mu.Lock(); r.sizes = append(r.sizes, n); r.mu.Unlock() })
	var err error
	if r.admin, err = pgxpool.New(t.Context(), dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.admin.Close)
	if r.holder, err = r.admin.Acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.holder.Release)
	return r
}

// patch is a settings/update of o1's banner with token.
func (r *groupRig) patch(ctx context.Context, token, text string) error {
	return r.s.Update(ctx, func(tx server.Tx) error {
		if err := tx.ConfirmToken(ctx, token); err != nil {
			return err
		}
		return tx.PatchSettings(ctx, "o1", server.Settings{InformationalBanner: &server.Banner{Text: &text}}, server.PartInformationalBanner)
	})
}

func (r *groupRig) banner() string {
	st := must(r.t, r.s, func(tx server.Tx) (server.Settings, error) {
		return tx.Settings(r.t.Context(), "o1", server.AllSettingsParts)
	})
	if st.InformationalBanner == nil || st.InformationalBanner.Text == nil {
		return ""
	}
	return *st.InformationalBanner.Text
}

// holdFlight locks o1's settings row and starts a patch, which waits for it
// in flight; release lets it land.
func (r *groupRig) holdFlight() (first <-chan error, release func()) {
	t := r.t
	if _, err := r.holder.Exec(t.Context(), "BEGIN; SELECT 1 FROM settings WHERE org_id = 'o1' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := r.holder.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.patch(t.Context(), "tok", "first") }()
	until(t, "the first patch to wait for the row", func() bool {
		var n int
		if err := r.admin.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
			pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	return done, func() {
		if _, err := r.holder.Exec(t.Context(), "COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
}

// queue starts a patch, once the previous ones wait for the next flight,
// and returns once it waits too.
func (r *groupRig) queue(ctx context.Context, token, text string) <-chan error {
	done := make(chan error, 1)
	n := r.waiting()
	go func() { done <- r.patch(ctx, token, text) }()
	until(r.t, text+" to wait for the next flight", func() bool { return r.waiting() == n+1 })
	return done
}

func (r *groupRig) waiting() int {
	r.s.writes.mu.Lock()
	defer r.s.writes.mu.Unlock()
	if q := r.s.writes.queue[groupKey]; q != nil {
		return len(q.waiting)
	}
	return 0
}

func (r *groupRig) setHook(hook func(n int)) {
	r.s.writes.mu.Lock()
	r.s.writes.hook = hook
	r.s.writes.mu.Unlock()
}

func (r *groupRig) groupSizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sizes)
}

// Patches of one row arriving while one is in flight are sent together, in
// the order they came, once it lands: each succeeds, the last one's value
// stays.
func TestGroupedWritesCommitTogether(t *testing.T) {
	r := newGroupRig(t)
	first, release := r.holdFlight()
	var queued []<-chan error
	for i := range 4 {
		queued = append(queued, r.queue(t.Context(), "tok", fmt.Sprint("w", i)))
	}
	release()
	if err := <-first; err != nil {
		t.Fatalf("the first patch: %v", err)
	}
	for i, c := range queued {
		if err := <-c; err != nil {
			t.Errorf("patch w%d: %v", i, err)
		}
	}
	if got := r.groupSizes(); !slices.Equal(got, []int{4}) {
		t.Errorf("groups sent: %v, want one of 4", got)
	}
	if got := r.banner(); got != "w3" {
		t.Errorf("banner = %q, want w3, the last one's", got)
	}
	if r.waiting() != 0 || len(r.s.writes.queue) != 0 {
		t.Error("the row's queue outlived its flights")
	}
}

// A member of a group whose token was removed fails alone: the group is
// rolled back and each member sent again by itself.
func TestGroupedWriteFailsAlone(t *testing.T) {
	r := newGroupRig(t)
	first, release := r.holdFlight()
	a := r.queue(t.Context(), "tok", "a")
	gone := r.queue(t.Context(), "gone", "gone")
	b := r.queue(t.Context(), "tok", "b")
	release()
	if err := <-first; err != nil {
		t.Fatalf("the first patch: %v", err)
	}
	if err := <-a; err != nil {
		t.Errorf("patch a: %v", err)
	}
	if err := <-gone; !errors.Is(err, server.ErrTokenRemoved) {
		t.Errorf("patch with a removed token: %v, want ErrTokenRemoved", err)
	}
	if err := <-b; err != nil {
		t.Errorf("patch b: %v", err)
	}
	if got := r.groupSizes(); !slices.Equal(got, []int{3}) {
		t.Errorf("groups sent: %v, want one of 3", got)
	}
	// Sent again alone, a and b commit in either order.
	if got := r.banner(); got != "a" && got != "b" {
		t.Errorf("banner = %q, want a or b", got)
	}
}

// A patch whose context ends while it waits for the next flight leaves
// the queue and writes nothing; the flight goes on without it (had it
// written, its value, after last's, would stay).
func TestGroupedWriteGivesUp(t *testing.T) {
	r := newGroupRig(t)
	first, release := r.holdFlight()
	last := r.queue(t.Context(), "tok", "last")
	ctx, cancel := context.WithCancel(t.Context())
	quitter := r.queue(ctx, "tok", "quitter")
	cancel()
	if err := <-quitter; !errors.Is(err, context.Canceled) {
		t.Errorf("the patch whose context ended: %v, want context.Canceled", err)
	}
	if n := r.waiting(); n != 1 {
		t.Errorf("%d patches wait for the next flight, want 1", n)
	}
	release()
	if err := <-first; err != nil {
		t.Fatalf("the first patch: %v", err)
	}
	if err := <-last; err != nil {
		t.Errorf("the last patch: %v", err)
	}
	if got := r.groupSizes(); len(got) != 0 {
		t.Errorf("groups sent: %v, want none (one patch flies alone)", got)
	}
	if got := r.banner(); got != "last" {
		t.Errorf("banner = %q, want last", got)
	}
}

// A group's flight ends when every member's context has, not when one's
// does: the others still wait for it.
func TestGroupFlightOutlivesAMember(t *testing.T) {
	ctxA, cancelA := context.WithCancel(t.Context())
	ctxB, cancelB := context.WithCancel(t.Context())
	defer cancelB()
	fctx, end := flightContext(ctxA, []*groupMember{{ctx: ctxA}, {ctx: ctxB}})
	defer end()
	cancelA()
	select {
	case <-fctx.Done():
		t.Fatal("the flight ended with its first member's context")
	case <-time.After(50 * time.Millisecond):
	}
	cancelB()
	select {
	case <-fctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the flight outlived every member's context")
	}
}

// Should sending a group panic, its other members fail (their outcome
// unknown) instead of waiting for ever, and the row's next writes go on.
func TestGroupFlightPanicReleases(t *testing.T) {
	r := newGroupRig(t)
	first, release := r.holdFlight()
	var recovered any
	leader := make(chan struct{})
	n := r.waiting()
	go func() {
		defer close(leader)
		defer func() { recovered = recover() }()
		_ = r.patch(t.Context(), "tok", "leader")
	}()
	until(t, "the leader to wait for the next flight", func() bool { return r.waiting() == n+1 })
	member := r.queue(t.Context(), "tok", "member")
	r.setHook(func(int) { panic("sending failed") })
	release()
	if err := <-first; err != nil {
		t.Fatalf("the first patch: %v", err)
	}
	<-leader
	if recovered == nil {
		t.Fatal("the group's leader did not panic")
	}
	var ce *errCommit
	select {
	case err := <-member:
		if !errors.As(err, &ce) {
			t.Errorf("the other member: %v, want an unknown outcome (errCommit)", err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("the other member still waits for the lost flight")
	}
	r.setHook(nil)
	if err := r.patch(t.Context(), "tok", "after"); err != nil {
		t.Fatalf("a patch after the lost flight: %v", err)
	}
	if got := r.banner(); got != "after" {
		t.Errorf("banner = %q, want after", got)
	}
}
