package sqlstore

import (
	"runtime"
	"syscall"
)

// pinThread wires the calling goroutine to its OS thread, on which no other
// goroutine then runs, and returns the thread's id: while a fn runs so
// pinned, an Update made on that thread is made by the fn itself (see
// committer.nested).
func pinThread() (id uint64, ok bool) {
	runtime.LockOSThread()
	return thisThread()
}

// unpinThread undoes pinThread.
func unpinThread() { runtime.UnlockOSThread() }

// thisThread is the id of the calling goroutine's OS thread.
func thisThread() (id uint64, ok bool) { return uint64(syscall.Gettid()), true }
