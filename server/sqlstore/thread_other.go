//go:build !linux

package sqlstore

// Elsewhere than on Linux no thread id is read: a nested Update is
// recognized only by its context (see committer.nested).

func pinThread() (id uint64, ok bool) { return 0, false }

func unpinThread() {}

func thisThread() (id uint64, ok bool) { return 0, false }
