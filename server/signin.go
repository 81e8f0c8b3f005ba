package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Sign-in throttling: a sign-in (generateToken, the OAuth sign-in page) is
// refused for a user name after signinMaxPerUser failed attempts, and for a
// client address after signinMaxPerAddr, until signinWindow has passed since
// the first failure counted. Only failures count: an attempt in flight is
// not one, but no more attempts are let through at once than failures are
// left, so concurrent wrong guesses cannot pass the limit together; the
// others wait for those in flight to end. The right password is refused too
// while the refusal lasts, so guessing gains nothing; a success clears the
// user name's count but not the address's: one known account must not reset
// an attacker's count. User names count case-insensitively: sign-in matches
// them exactly, but a portal's user names are unique whatever their case, so
// JSMITH's failures are guesses at jsmith's account.
const (
	signinWindow     = 15 * time.Minute
	signinMaxPerUser = 5
	signinMaxPerAddr = 50
	// signinMaxKeys bounds each table of counts; a new key beyond it
	// drops the expired counts, else the oldest one: never all of them,
	// which a flood of made-up user names would use to wipe a real count.
	signinMaxKeys = 10_000
)

// msgTooManySignins is the message of a throttled generateToken.
const msgTooManySignins = "Too many invalid logon attempts. Try again later."

type clientAddrKey struct{}

// WithClientAddr returns ctx carrying the address of the client that sent
// the request (its IP), by which failed sign-ins are counted.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

func clientAddr(ctx context.Context) string {
	a, _ := ctx.Value(clientAddrKey{}).(string)
	return a
}

// failures is one key's count: failures since the first in the window, and
// the attempts in flight. wake, when not nil, is closed when one of those
// ends (attempts waiting for room select on it).
type failures struct {
	n        int
	since    time.Time
	inflight int
	wake     chan struct{}
}

// signinThrottle counts failed sign-ins per user name and per address. It
// lives in the process: each replica of a PostgreSQL deployment counts its own.
type signinThrottle struct {
	mu     sync.Mutex
	byUser map[string]*failures
	byAddr map[string]*failures
}

// signinAttempt is a sign-in admit let through, in flight until judged.
type signinAttempt struct {
	t          *signinThrottle
	user, addr string
	u, a       *failures // the entries it is in flight on
	now        func() time.Time
}

// admit lets an attempt through, waiting while those in flight could
// still take the last failures left, or reports a refusal when user or
// addr is over its limit. A refusal adds no entry. It gives up when ctx
// ends (as a refusal).
func (t *signinThrottle) admit(ctx context.Context, user, addr string, now func() time.Time) (*signinAttempt, *Error) {
	user = strings.ToLower(user)
	for {
		t.mu.Lock()
		if t.byUser == nil {
			t.byUser, t.byAddr = map[string]*failures{}, map[string]*failures{}
		}
		at := now()
		u, a := t.byUser[user].current(at), t.byAddr[addr].current(at)
		switch {
		case u.n >= signinMaxPerUser:
			t.mu.Unlock()
			return nil, tooMany(u.since, at, fmt.Sprintf("username: %d failed sign-ins", u.n))
		case a.n >= signinMaxPerAddr:
			t.mu.Unlock()
			return nil, tooMany(a.since, at, fmt.Sprintf("%d failed sign-ins from this address", a.n))
		}
		var wait chan struct{}
		switch {
		case u.n+u.inflight >= signinMaxPerUser:
			wait = u.waiter()
		case a.n+a.inflight >= signinMaxPerAddr:
			wait = a.waiter()
		}
		if wait == nil {
			u, a = t.entry(t.byUser, user, u, at), t.entry(t.byAddr, addr, a, at)
			u.inflight++
			a.inflight++
			t.mu.Unlock()
			return &signinAttempt{t: t, user: user, addr: addr, u: u, a: a, now: now}, nil
		}
		t.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, &Error{Code: 429, Message: msgTooManySignins, Details: []string{"the sign-in was abandoned while others for this user name were judged"}}
		}
	}
}

func tooMany(since, now time.Time, why string) *Error {
	wait := "1 minute"
	if m := int((since.Add(signinWindow).Sub(now) + time.Minute - 1) / time.Minute); m > 1 {
		wait = fmt.Sprintf("%d minutes", m)
	}
	return &Error{Code: 429, Message: msgTooManySignins,
		Details: []string{fmt.Sprintf("%s in %d minutes; try again in %s", why, int(signinWindow/time.Minute), wait)}}
}

// current returns f with its failures forgotten once its window has passed
// (a zero entry for nil); f itself is changed only under the lock's holder.
func (f *failures) current(now time.Time) *failures {
	if f == nil {
		return &failures{}
	}
	if f.n > 0 && now.Sub(f.since) >= signinWindow {
		f.n, f.since = 0, time.Time{}
	}
	return f
}

// waiter returns the channel closed when one of f's attempts in flight ends.
func (f *failures) waiter() chan struct{} {
	if f.wake == nil {
		f.wake = make(chan struct{})
	}
	return f.wake
}

// ended marks one of f's attempts in flight ended, waking those waiting.
func (f *failures) ended() {
	if f.inflight > 0 {
		f.inflight--
	}
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// entry returns key's entry in m, f when it is there already; a new one
// makes room first (evict).
func (t *signinThrottle) entry(m map[string]*failures, key string, f *failures, now time.Time) *failures {
	if got, ok := m[key]; ok {
		return got
	}
	if len(m) >= signinMaxKeys {
		evict(m, now)
	}
	m[key] = f
	return f
}

// evict drops the expired counts of m, or when none has expired the oldest
// one; an entry with attempts in flight stays.
func evict(m map[string]*failures, now time.Time) {
	var oldest string
	var oldestSince time.Time
	dropped := false
	for k, f := range m {
		if f.inflight > 0 {
			continue
		}
		if now.Sub(f.since) >= signinWindow {
			delete(m, k)
			dropped = true
		} else if oldest == "" || f.since.Before(oldestSince) {
			oldest, oldestSince = k, f.since
		}
	}
	if !dropped && oldest != "" {
		delete(m, oldest)
	}
}

// clear forgets every count.
func (t *signinThrottle) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range []map[string]*failures{t.byUser, t.byAddr} {
		for _, f := range m {
			if f.wake != nil {
				close(f.wake)
				f.wake = nil
			}
		}
	}
	t.byUser, t.byAddr = nil, nil
}

// failed counts the attempt as a failure of its user name and address.
func (at *signinAttempt) failed() {
	at.end(func(now time.Time) {
		for _, f := range []*failures{at.u, at.a} {
			f.current(now)
			if f.n == 0 {
				f.since = now
			}
			f.n++
		}
	})
}

// succeeded clears the user name's count; the address's stays.
func (at *signinAttempt) succeeded() {
	at.end(func(time.Time) { at.u.n, at.u.since = 0, time.Time{} })
}

// undecided ends the attempt without counting it: it ended before its
// credentials were judged (the store failed), so it is no failure.
func (at *signinAttempt) undecided() { at.end(func(time.Time) {}) }

// end ends the attempt's flight on both entries after judge, and drops an
// entry left with nothing to count.
func (at *signinAttempt) end(judge func(now time.Time)) {
	t := at.t
	t.mu.Lock()
	defer t.mu.Unlock()
	judge(at.now())
	for _, e := range []struct {
		m   map[string]*failures
		key string
		f   *failures
	}{{t.byUser, at.user, at.u}, {t.byAddr, at.addr, at.a}} {
		e.f.ended()
		if e.f.n == 0 && e.f.inflight == 0 && e.m[e.key] == e.f {
			delete(e.m, e.key)
		}
	}
}

// dummyHash is checked against the password of an unknown user name, so that
// it costs what a known one does and the answer's timing tells nothing.
var dummyHash = sync.OnceValue(func() string { return HashPassword("no user has this password") })
