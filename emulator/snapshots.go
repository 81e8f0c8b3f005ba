package emulator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/sqlstore"
)

// snapshotStore is what a store needs for snapshots: package sqlstore has
// it on SQLite and PostgreSQL alike.
type snapshotStore interface {
	SaveSnapshot(ctx context.Context, name string, at time.Time) error
	RestoreSnapshot(ctx context.Context, name string) error
	Snapshots(ctx context.Context) ([]sqlstore.Snapshot, error)
	DeleteSnapshot(ctx context.Context, name string) error
}

// SnapshotInfo is a saved snapshot, as GET /emulator/snapshots lists it.
type SnapshotInfo struct {
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
}

// SnapshotList is the answer of GET /emulator/snapshots.
type SnapshotList struct {
	Snapshots []SnapshotInfo `json:"snapshots"`
}

// snapshotName is what a snapshot may be called: a path segment that needs
// no escaping.
var snapshotName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

func (s *Server) snapshots() (snapshotStore, error) {
	ss, ok := s.store.(snapshotStore)
	if !ok {
		return nil, &adminError{http.StatusNotImplemented, "This store keeps no snapshots.", nil}
	}
	return ss, nil
}

func checkSnapshotName(name string) error {
	if !snapshotName.MatchString(name) {
		return badRequest(fmt.Sprintf("name: %q: 1 to 100 letters, digits, '.', '_' or '-'", name))
	}
	return nil
}

var errNoSnapshot = &adminError{http.StatusNotFound, "No snapshot has this name.", nil}

// SaveSnapshot saves the whole store under name, replacing a snapshot of
// that name. Snapshots live in the store: they survive a restart and are
// shared by every emulator on one PostgreSQL database.
func (s *Server) SaveSnapshot(ctx context.Context, name string) error {
	if err := checkSnapshotName(name); err != nil {
		return err
	}
	ss, err := s.snapshots()
	if err != nil {
		return err
	}
	return ss.SaveSnapshot(ctx, name, s.clock.now())
}

// RestoreSnapshot puts the store back to the snapshot name, atomically, and
// forgets the tokens the API had cached.
func (s *Server) RestoreSnapshot(ctx context.Context, name string) error {
	if err := checkSnapshotName(name); err != nil {
		return err
	}
	ss, err := s.snapshots()
	if err != nil {
		return err
	}
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	if err := ss.RestoreSnapshot(ctx, name); err != nil {
		if errors.Is(err, server.ErrNotFound) {
			return errNoSnapshot
		}
		return err
	}
	s.api.ForgetTokens()
	return nil
}

// Snapshots lists the saved snapshots by name.
func (s *Server) Snapshots(ctx context.Context) ([]SnapshotInfo, error) {
	ss, err := s.snapshots()
	if err != nil {
		return nil, err
	}
	list, err := ss.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SnapshotInfo, len(list))
	for i, sn := range list {
		out[i] = SnapshotInfo{Name: sn.Name, Created: sn.Created.UTC()}
	}
	return out, nil
}

// DeleteSnapshot removes the snapshot name.
func (s *Server) DeleteSnapshot(ctx context.Context, name string) error {
	if err := checkSnapshotName(name); err != nil {
		return err
	}
	ss, err := s.snapshots()
	if err != nil {
		return err
	}
	if err := ss.DeleteSnapshot(ctx, name); err != nil {
		if errors.Is(err, server.ErrNotFound) {
			return errNoSnapshot
		}
		return err
	}
	return nil
}

func (s *Server) handleSaveSnapshot(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	if err := s.SaveSnapshot(r.Context(), r.PathValue("name")); err != nil {
		return nil, err
	}
	return success, nil
}

func (s *Server) handleRestoreSnapshot(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	if err := s.RestoreSnapshot(r.Context(), r.PathValue("name")); err != nil {
		return nil, err
	}
	return success, nil
}

func (s *Server) handleListSnapshots(r *http.Request) (any, error) {
	list, err := s.Snapshots(r.Context())
	if err != nil {
		return nil, err
	}
	return SnapshotList{Snapshots: list}, nil
}

func (s *Server) handleDeleteSnapshot(r *http.Request) (any, error) {
	if err := readJSON(r, &struct{}{}); err != nil {
		return nil, err
	}
	if err := s.DeleteSnapshot(r.Context(), r.PathValue("name")); err != nil {
		return nil, err
	}
	return success, nil
}
