package main

import (
	"testing"
	"time"
)

func TestABRatios(t *testing.T) {
	rs := []abRound{
		{n: result{rps: 95, cpu: 110 * time.Microsecond}, b: result{rps: 100, cpu: 100 * time.Microsecond}},
		{n: result{rps: 80, cpu: 90 * time.Microsecond}, b: result{rps: 100, cpu: 100 * time.Microsecond}},
		{n: result{rps: 120, cpu: 100 * time.Microsecond}, b: result{rps: 100, cpu: 100 * time.Microsecond}},
	}
	// The median of the rounds' ratios (0.95, 0.80, 1.20), not the ratio of
	// the medians.
	if got := median(rs, abRound.rateRatio); got != 0.95 {
		t.Errorf("throughput ratio %v, want 0.95", got)
	}
	if got := median(rs, abRound.cpuRatio); got != 1 {
		t.Errorf("CPU ratio %v, want 1", got)
	}
	if got := (abRound{n: result{cpu: time.Microsecond}}).cpuRatio(); got != 0 {
		t.Errorf("CPU ratio without the base's CPU = %v, want 0", got)
	}
	m := medianOf(rs, func(rd abRound) result { return rd.n })
	if m.rps != 95 || m.cpu != 100*time.Microsecond {
		t.Errorf("medianOf = %+v", m)
	}
	if got := median(rs[:2], abRound.rateRatio); got != 0.875 {
		t.Errorf("median of two rounds %v, want their mean 0.875", got)
	}
}

func TestParseCounts(t *testing.T) {
	got, err := parseCounts("1, 16")
	if err != nil || len(got) != 2 || got[0] != 1 || got[1] != 16 {
		t.Errorf("parseCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "1,x"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) accepted", bad)
		}
	}
}
