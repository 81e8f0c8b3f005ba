//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tlscert

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on dir, held until unlock. flock locks
// belong to the open file, so two goroutines of one process exclude each
// other as two processes do; the kernel drops the lock of a process that
// dies.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}
