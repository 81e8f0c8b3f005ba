package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
)

// ErrUnhealthy is what a write answers, and Ping reports, when the store
// cannot be trusted to keep what it commits: its SQLite file was deleted or
// replaced since it was opened (a commit would go to a file no one will open
// again), or its last commit failed (the disk is full, or failing).
var ErrUnhealthy = errors.New("sqlstore: the store cannot commit")

// fileIdentity is the SQLite file as opened, and what went wrong with it.
type fileIdentity struct {
	path    string
	opened  os.FileInfo
	mu      sync.Mutex
	failure error // the last commit's failure; nil after a success
}

// sqlitePath returns the path of the file a SQLite dsn names ("" when it
// names none: ":memory:", or a URI with mode=memory).
func sqlitePath(dsn string) string {
	if !strings.HasPrefix(dsn, "file:") {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Query().Get("mode") == "memory" {
		return ""
	}
	if u.Opaque != "" {
		return u.Opaque
	}
	return u.Path
}

// identify records the identity of the file at path once it exists.
func identify(path string) (*fileIdentity, error) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	// os.SameFile compares device and inode (volume and file index on
	// Windows, which it reads on first use: read them now, while the path
	// still leads to the file opened).
	os.SameFile(fi, fi)
	return &fileIdentity{path: path, opened: fi}, nil
}

// gone reports ErrUnhealthy when the path no longer leads to the file opened.
func (f *fileIdentity) gone() error {
	fi, err := os.Stat(f.path)
	if err != nil || !os.SameFile(fi, f.opened) {
		return fmt.Errorf("%w: %s was deleted or replaced since it was opened", ErrUnhealthy, f.path)
	}
	return nil
}

// failing reports ErrUnhealthy when the last commit failed.
func (f *fileIdentity) failing() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failure != nil {
		return fmt.Errorf("%w: the last commit failed: %w", ErrUnhealthy, f.failure)
	}
	return nil
}

// committed records the outcome of a write transaction on SQLite: the error
// of its commit (storeErr), nil when it committed.
func (f *fileIdentity) committed(storeErr error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failure = storeErr
}

// Ping implements server.Store: the database answers and, on a SQLite file,
// the file is still the one opened and commits succeed. A store whose last
// commit failed probes with a write of its own (one that changes nothing but
// writes a page), so that it recovers when the disk does.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return err
	}
	if s.file == nil {
		return nil
	}
	if err := s.file.gone(); err != nil {
		return err
	}
	if s.file.failing() == nil {
		return nil
	}
	return s.run(ctx, false, func(t *tx) error {
		_, err := t.exec(ctx, "UPDATE schema_migrations SET version = version")
		return err
	})
}
