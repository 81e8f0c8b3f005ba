package emulator

import (
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

// AdvanceClock moves the emulator's clock by d (back when negative).
func (s *Server) AdvanceClock(d time.Duration) { s.clock.offset.Add(int64(d)) }

// SetClock moves the emulator's clock to t.
func (s *Server) SetClock(t time.Time) { s.clock.offset.Store(int64(t.Sub(s.clock.base()))) }

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
		s.AdvanceClock(d)
	case ch.Set != nil:
		s.SetClock(*ch.Set)
	default:
		s.ResetClock()
	}
	return s.clock.state(), nil
}

func badRequest(details ...string) *adminError {
	return &adminError{http.StatusBadRequest, "The request is not valid.", details}
}
