//go:build !unix

package bench

import (
	"testing"
	"time"
)

// cpuTime is -1 where the process's CPU time is not read: no cpu-ns/op.
func cpuTime(*testing.B) time.Duration { return -1 }
