package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Log output is buffered, as a web server's access log usually is (nginx's
// access_log buffer= and flush=): under load, one write of many request
// lines instead of a write, and a wake-up of whatever reads stderr, per
// request. A line waits at most logFlushDelay; warnings and errors are
// written at once, with the lines before them.
const (
	logFlushDelay = 100 * time.Millisecond
	logFlushSize  = 32 << 10
)

// logWriter buffers what is written to it and writes it to w after
// logFlushDelay, once logFlushSize bytes wait, or on Flush.
type logWriter struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	armed bool // a flush is scheduled
	err   error
}

func newLogWriter(w io.Writer) *logWriter { return &logWriter{w: w} }

// Write buffers p; it reports the error of an earlier write, if any, since a
// line it buffers is written later.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	switch {
	case len(l.buf) >= logFlushSize:
		l.flushLocked()
	case !l.armed:
		l.armed = true
		time.AfterFunc(logFlushDelay, func() { _ = l.Flush() })
	}
	if l.err != nil {
		return 0, l.err
	}
	return len(p), nil
}

// Flush writes what waits.
func (l *logWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	return l.err
}

func (l *logWriter) flushLocked() {
	l.armed = false
	if len(l.buf) == 0 {
		return
	}
	// Written under the lock: lines keep their order.
	_, l.err = l.w.Write(l.buf)
	l.buf = l.buf[:0]
}

// flushingHandler writes the records of level Warn and above, and what was
// logged before them, at once.
type flushingHandler struct {
	slog.Handler
	w *logWriter
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		_ = h.w.Flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.w}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.w}
}
