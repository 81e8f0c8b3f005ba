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

func TestSetMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	cfg, err := Load(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := setMemoryLimit(cfg.MemoryLimit, env(nil)); got != 100<<20 {
		t.Errorf("without GOMEMLIMIT: %d, want the default, 100 MiB", got)
	}
	if now := debug.SetMemoryLimit(-1); now != 100<<20 {
		t.Errorf("without GOMEMLIMIT the runtime's limit is %d, want 100 MiB", now)
	}
	// GOMEMLIMIT set: the runtime's limit (here 300 MiB, standing for
	// what the runtime read from GOMEMLIMIT) wins over the flag's.
	debug.SetMemoryLimit(300 << 20)
	if got := setMemoryLimit(64<<20, env(map[string]string{"GOMEMLIMIT": "300MiB"})); got != 300<<20 {
		t.Errorf("with GOMEMLIMIT=300MiB: %d, want 300 MiB", got)
	}
	if now := debug.SetMemoryLimit(-1); now != 300<<20 {
		t.Errorf("with GOMEMLIMIT set the runtime's limit is %d, want it left at 300 MiB", now)
	}
}
