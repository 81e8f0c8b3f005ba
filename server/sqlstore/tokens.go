package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/orgportal/portal-api/server"
)

var _ server.TokenWatch = (*Store)(nil)

// Token removals on PostgreSQL reach every process sharing the database by
// LISTEN/NOTIFY: each Store that watches tokens keeps one connection
// listening on the channel of its schema, named by its application_name so
// that a Reset can count the watchers. A Reset notifies them in its
// transaction (delivered when it commits) and waits for each to answer, once
// it has forgotten its tokens, on the acknowledgement channel.

// ackTimeout bounds how long a Reset waits for the watchers' answers: one
// that does not answer is stuck, and so are its requests.
const ackTimeout = 5 * time.Second

// watcher is the listening side of a Store.
type watcher struct {
	mu      sync.Mutex
	forgets []func()
	started bool
	live    atomic.Bool
}

// channels returns the names the store's schema uses: the channel of token
// removals, of their acknowledgements, and the watchers' application_name.
func (s *Store) channels(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}) (removed, acked, app string, err error) {
	var schema string
	if err := q.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", "", "", fmt.Errorf("sqlstore: current schema: %w", err)
	}
	app = "portald tokens " + schema
	if len(app) > 63 { // NAMEDATALEN: PostgreSQL keeps 63 bytes
		app = app[:63]
	}
	return "portal_tokens:" + schema, "portal_tokens_ack:" + schema, app, nil
}

// WatchTokens implements server.TokenWatch.
func (s *Store) WatchTokens(forget func()) {
	if s.d != postgres {
		return // one process per SQLite file: Reset's caller forgets its own
	}
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	s.watch.forgets = append(s.watch.forgets, forget)
	if !s.watch.started {
		s.watch.started = true
		ctx, cancel := context.WithCancel(context.Background())
		s.stopWatch = cancel
		s.watchDone = make(chan struct{})
		go s.listen(ctx)
	}
}

// TokensWatched implements server.TokenWatch.
func (s *Store) TokensWatched() bool { return s.d != postgres || s.watch.live.Load() }

func (s *Store) forgetTokens() {
	s.watch.mu.Lock()
	fs := append([]func(){}, s.watch.forgets...)
	s.watch.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// listen keeps a connection listening until ctx ends, connecting again after
// a failure. While it is not listening the tokens are not watched, and each
// new connection starts by forgetting them: removals may have been missed.
func (s *Store) listen(ctx context.Context) {
	defer close(s.watchDone)
	for attempt := 1; ctx.Err() == nil; attempt++ {
		err := s.listenOnce(ctx)
		s.watch.live.Store(false)
		s.forgetTokens()
		if ctx.Err() != nil {
			return
		}
		slog.Warn("sqlstore: token watch lost; tokens are read from the store until it is back", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(min(time.Duration(attempt)*100*time.Millisecond, 2*time.Second)):
		}
	}
}

func (s *Store) listenOnce(ctx context.Context) error {
	removed, acked, app, err := s.channels(ctx, s.db)
	if err != nil {
		return err
	}
	cfg, err := pgx.ParseConfig(s.dsn)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["application_name"] = app
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{removed}.Sanitize()); err != nil {
		return err
	}
	s.forgetTokens()
	s.watch.live.Store(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.forgetTokens()
		if _, err := conn.Exec(ctx, "SELECT pg_notify($1, $2)", acked, n.Payload); err != nil {
			return err
		}
	}
}

// notifyReset runs inside a Reset's transaction on PostgreSQL: it notifies
// the watchers (delivered at commit) and returns how many there are and the
// payload they will acknowledge.
func (t *tx) notifyReset(ctx context.Context, removed, app string) (watchers int, payload string, err error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	payload = hex.EncodeToString(b[:])
	if err := t.queryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?", app).Scan(&watchers); err != nil {
		return 0, "", fmt.Errorf("sqlstore: count token watchers: %w", err)
	}
	if _, err := t.exec(ctx, "SELECT pg_notify(?, ?)", removed, payload); err != nil {
		return 0, "", fmt.Errorf("sqlstore: notify token watchers: %w", err)
	}
	return watchers, payload, nil
}

// resetPostgres is Reset on PostgreSQL: the transaction of del, then the
// wait for every watcher to have forgotten its tokens.
func (s *Store) resetPostgres(ctx context.Context, del func(t *tx) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: reset: %w", err)
	}
	defer conn.Close()
	removed, acked, app, err := s.channels(ctx, conn)
	if err != nil {
		return err
	}
	// Listening before the reset commits, so no answer is missed.
	if _, err := conn.ExecContext(ctx, "LISTEN "+pgx.Identifier{acked}.Sanitize()); err != nil {
		return fmt.Errorf("sqlstore: reset: %w", err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "UNLISTEN *") }()
	var watchers int
	var payload string
	err = s.run(ctx, false, func(t *tx) error {
		if err := del(t); err != nil {
			return err
		}
		watchers, payload, err = t.notifyReset(ctx, removed, app)
		return err
	})
	if err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, ackTimeout)
	defer cancel()
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		for answered := 0; answered < watchers; {
			n, err := pc.WaitForNotification(wait)
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				slog.Warn("sqlstore: reset: token watchers did not all answer", "watchers", watchers, "answered", answered)
				return nil
			}
			if err != nil {
				return fmt.Errorf("sqlstore: reset: waiting for token watchers: %w", err)
			}
			if n.Payload == payload {
				answered++
			}
		}
		return nil
	})
}
