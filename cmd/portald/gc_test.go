package main

import (
	"runtime/debug"
	"testing"
)

func TestSetGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	if got := setGCPercent(env(nil)); got != defaultGCPercent {
		t.Errorf("without GOGC: %d, want %d", got, defaultGCPercent)
	}
	if now := debug.SetGCPercent(100); now != defaultGCPercent {
		t.Errorf("without GOGC the runtime runs at %d, want %d", now, defaultGCPercent)
	}
	// GOGC set: the runtime's value (here 150, standing for what the
	// runtime read from GOGC) is left alone.
	debug.SetGCPercent(150)
	if got := setGCPercent(env(map[string]string{"GOGC": "150"})); got != 150 {
		t.Errorf("with GOGC=150: %d, want 150", got)
	}
	if now := debug.SetGCPercent(100); now != 150 {
		t.Errorf("with GOGC set the runtime runs at %d, want it left at 150", now)
	}
}
