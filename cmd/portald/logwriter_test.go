package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the flush timer's goroutine.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines wait at most logFlushDelay and leave together; a warning leaves at
// once with the lines before it; a full buffer leaves at once; Flush
// empties it.
func TestLogWriterBuffersLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		w := newLogWriter(&out)
		log := slog.New(flushingHandler{slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}), w})

		log.Info("one")
		log.Info("two")
		if got := out.String(); got != "" {
			t.Fatalf("info lines written before the delay: %q", got)
		}
		time.Sleep(logFlushDelay - time.Millisecond)
		synctest.Wait()
		if got := out.String(); got != "" {
			t.Fatalf("info lines written before the delay: %q", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := out.String(); !strings.Contains(got, "msg=one") || !strings.Contains(got, "msg=two") || out.writes != 1 {
			t.Fatalf("after the delay: %d writes of %q, want both lines in one", out.writes, got)
		}

		log.Info("three")
		log.Warn("four")
		if got := out.String(); !strings.Contains(got, "msg=three") || !strings.Contains(got, "msg=four") ||
			strings.Index(got, "msg=three") > strings.Index(got, "msg=four") {
			t.Fatalf("a warning was not written at once after the line before it: %q", got)
		}
		sub := log.With("k", "v").WithGroup("g")
		sub.Error("five", "a", 1)
		if got := out.String(); !strings.Contains(got, "msg=five k=v g.a=1") {
			t.Fatalf("an error through With and WithGroup was not written at once: %q", got)
		}

		before := out.writes
		long := strings.Repeat("x", logFlushSize)
		log.Info(long)
		if out.writes != before+1 || !strings.Contains(out.String(), long) {
			t.Fatalf("a full buffer was not written at once (%d writes, was %d)", out.writes, before)
		}

		log.Info("six")
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "msg=six") {
			t.Fatalf("Flush left a line behind: %q", out.String())
		}
		// The timer armed for "six" finds nothing left to write.
		before = out.writes
		time.Sleep(logFlushDelay)
		synctest.Wait()
		if out.writes != before {
			t.Fatalf("an empty buffer was written: %d writes, want %d", out.writes, before)
		}
	})
}
