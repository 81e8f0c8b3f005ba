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
// the first failure counted. Only failures count. The right password is
// refused too while the refusal lasts, so guessing gains nothing; a success
// clears the user name's count, but of the address's it takes back only its
// own attempt: one known account must not reset an attacker's count.
const (
	signinWindow     = 15 * time.Minute
	signinMaxPerUser = 5
	signinMaxPerAddr = 50
	// signinMaxKeys bounds each table of counts; beyond it, expired counts
	// are dropped, then the table starts again empty.
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

type failures struct {
	n     int
	since time.Time
}

// signinThrottle counts failed sign-ins per user name and per address. It
// lives in the process: each replica of a PostgreSQL deployment counts its own.
type signinThrottle struct {
	mu     sync.Mutex
	byUser map[string]*failures
	byAddr map[string]*failures
}

// signinAttempt is a sign-in admit let through, counted as a failure in
// advance until it succeeds.
type signinAttempt struct {
	t          *signinThrottle
	user, addr string
	u, a       *failures // the counts it was added to
}

// admit counts an attempt as a failure in advance (so concurrent attempts
// cannot pass the limit together) and reports a refusal when user or addr
// is over its limit; the attempt is then not counted.
func (t *signinThrottle) admit(user, addr string, now time.Time) (*signinAttempt, *Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byUser == nil {
		t.byUser, t.byAddr = map[string]*failures{}, map[string]*failures{}
	}
	user = strings.ToLower(user)
	u := current(t.byUser, user, now)
	a := current(t.byAddr, addr, now)
	var until time.Time
	var why string
	switch {
	case u.n >= signinMaxPerUser:
		until, why = u.since.Add(signinWindow), fmt.Sprintf("username: %d failed sign-ins", u.n)
	case a.n >= signinMaxPerAddr:
		until, why = a.since.Add(signinWindow), fmt.Sprintf("%d failed sign-ins from this address", a.n)
	default:
		u.n++
		a.n++
		return &signinAttempt{t: t, user: user, addr: addr, u: u, a: a}, nil
	}
	wait := "1 minute"
	if m := int((until.Sub(now) + time.Minute - 1) / time.Minute); m > 1 {
		wait = fmt.Sprintf("%d minutes", m)
	}
	return nil, &Error{Code: 429, Message: msgTooManySignins,
		Details: []string{fmt.Sprintf("%s in %d minutes; try again in %s", why, int(signinWindow/time.Minute), wait)}}
}

// clear forgets every count.
func (t *signinThrottle) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byUser, t.byAddr = nil, nil
}

// succeeded takes the attempt's advance count back from its address, whose
// earlier failures stay counted, and clears its user name's count.
func (at *signinAttempt) succeeded() { at.takeBack(true) }

// undecided takes the attempt's advance counts back: it ended before its
// credentials were judged (the store failed), so it is no failure.
func (at *signinAttempt) undecided() { at.takeBack(false) }

// takeBack removes the attempt's advance counts, and with clearUser its user
// name's whole count. A count started afresh (or cleared by a reset) since
// admit is left alone.
func (at *signinAttempt) takeBack(clearUser bool) {
	t := at.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.byAddr[at.addr]; a == at.a && a.n > 0 {
		a.n--
	}
	if u := t.byUser[at.user]; u == at.u {
		if clearUser {
			delete(t.byUser, at.user)
		} else if u.n > 0 {
			u.n--
		}
	}
}

// current returns key's count in m, started afresh when its window has passed.
func current(m map[string]*failures, key string, now time.Time) *failures {
	f := m[key]
	if f != nil && now.Sub(f.since) < signinWindow {
		return f
	}
	if f == nil && len(m) >= signinMaxKeys {
		for k, old := range m {
			if now.Sub(old.since) >= signinWindow {
				delete(m, k)
			}
		}
		if len(m) >= signinMaxKeys {
			clear(m)
		}
	}
	f = &failures{since: now}
	m[key] = f
	return f
}

// dummyHash is checked against the password of an unknown user name, so that
// it costs what a known one does and the answer's timing tells nothing.
var dummyHash = sync.OnceValue(func() string { return HashPassword("no user has this password") })
