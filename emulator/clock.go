package emulator

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// clock is the emulator's "now": the base clock (Options.Now) plus an
// offset that tests move. Token expiry, generateToken's expires, created
// and modified times and the journal read it.
type clock struct {
	base   func() time.Time
	offset atomic.Int64 // nanoseconds
}

func (c *clock) now() time.Time { return c.base().Add(time.Duration(c.offset.Load())) }

// ClockState is the answer of GET and POST /emulator/clock.
type ClockState struct {
	Now    time.Time `json:"now"`
	Offset string    `json:"offset"` // a Go duration, "0s" when not moved
}

func (c *clock) state() ClockState {
	off := time.Duration(c.offset.Load())
	return ClockState{Now: c.base().Add(off).UTC(), Offset: off.String()}
}

// ClockChange is the body of POST /emulator/clock: exactly one of its
// fields.
type ClockChange struct {
	Advance string     `json:"advance,omitempty"` // a Go duration such as "2h" or "-90s"
	Set     *time.Time `json:"set,omitempty"`     // RFC 3339
	Reset   bool       `json:"reset,omitempty"`
}

// Now is the emulator's clock.
func (s *Server) Now() time.Time { return s.clock.now() }

// The emulator's clock reads from clockMin up to clockEnd, excluded.
// Nothing before the Unix epoch makes sense of times the API answers in
// Unix milliseconds; 2200 keeps the offset from today's clock well within
// the ±292 years an int64 of nanoseconds holds.
var (
	clockMin = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	clockEnd = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// clockRange describes the clock's range for a refused change.
func clockRange(at time.Time) error {
	return fmt.Errorf("the clock would read %s; it reads from %s up to, not including, %s",
		at.UTC().Format(time.RFC3339Nano), clockMin.Format(time.RFC3339), clockEnd.Format(time.RFC3339))
}

// offsetTo is the offset that makes the clock read at when the base clock
// reads base; it refuses at outside the range, and an offset an int64
// cannot hold (Time.Sub saturates).
func offsetTo(base, at time.Time) (int64, error) {
	if at.Before(clockMin) || !at.Before(clockEnd) {
		return 0, clockRange(at)
	}
	off := at.Sub(base)
	if !base.Add(off).Equal(at) {
		return 0, fmt.Errorf("the clock would read %s, too far from its base clock's %s", at.UTC().Format(time.RFC3339Nano), base.UTC().Format(time.RFC3339Nano))
	}
	return int64(off), nil
}

// AdvanceClock moves the emulator's clock by d (back when negative). It
// refuses, changing nothing, a move that would take the clock before
// 1970-01-01T00:00:00Z or to 2200-01-01T00:00:00Z or later.
func (s *Server) AdvanceClock(d time.Duration) error {
	for {
		old := s.clock.offset.Load()
		base := s.clock.base()
		// Time arithmetic does not overflow where int64 nanoseconds would.
		off, err := offsetTo(base, base.Add(time.Duration(old)).Add(d))
		if err != nil {
			return err
		}
		// Another change between Load and here: check again from its offset.
		if s.clock.offset.CompareAndSwap(old, off) {
			return nil
		}
	}
}

// SetClock moves the emulator's clock to t. It refuses, changing nothing, a
// t before 1970-01-01T00:00:00Z or from 2200-01-01T00:00:00Z on.
func (s *Server) SetClock(t time.Time) error {
	off, err := offsetTo(s.clock.base(), t)
	if err != nil {
		return err
	}
	s.clock.offset.Store(off)
	return nil
}

// ResetClock puts the emulator's clock back on its base clock.
func (s *Server) ResetClock() { s.clock.offset.Store(0) }

func (s *Server) handleGetClock(*http.Request) (any, error) { return s.clock.state(), nil }

func (s *Server) handleSetClock(r *http.Request) (any, error) {
	var ch ClockChange
	if err := readJSON(r, &ch); err != nil {
		return nil, err
	}
	n := 0
	if ch.Advance != "" {
		n++
	}
	if ch.Set != nil {
		n++
	}
	if ch.Reset {
		n++
	}
	if n != 1 {
		return nil, badRequest("give exactly one of advance, set and reset")
	}
	switch {
	case ch.Advance != "":
		d, err := time.ParseDuration(ch.Advance)
		if err != nil {
			return nil, badRequest("advance: not a duration such as \"2h\" or \"90s\"")
		}
		if err := s.AdvanceClock(d); err != nil {
			return nil, badRequest("advance: " + err.Error())
		}
	case ch.Set != nil:
		if err := s.SetClock(*ch.Set); err != nil {
			return nil, badRequest("set: " + err.Error())
		}
	default:
		s.ResetClock()
	}
	return s.clock.state(), nil
}

func badRequest(details ...string) *adminError {
	return &adminError{http.StatusBadRequest, "The request is not valid.", details}
}
