package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// Terminating portald's PostgreSQL backends (pg_terminate_backend) while
// requests run costs no request: a transaction that never started, or that
// the terminated backend rolled back, runs again on a fresh connection. No
// answer is a 500 and every acknowledged write is there afterwards.
func TestPostgresKilledBackends(t *testing.T) {
	base := pgtest.URL(t)
	dsn := pgtest.Schema(t, base)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	app := "portald_" + u.Query().Get("search_path")
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	procs := make([]*process, 2)
	for i := range procs {
		procs[i] = startPortald(t, "-db", u.String())
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()

	const writers, writes, killEvery = 6, 40, 15
	var acked atomic.Int64
	kills := make(chan struct{}, writers*writes)
	var killed atomic.Int64
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		for range kills {
			var n int64
			if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid)
				FROM pg_stat_activity WHERE application_name = $1) k`, app).Scan(&n); err != nil {
				t.Errorf("pg_terminate_backend: %v", err)
				return
			}
			killed.Add(n)
		}
	}()
	var mu sync.Mutex
	var ids []string
	errs := make(chan error, writers*writes)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			c := clientFor(t, procs[w%2], pt.MemberToken)
			for i := range writes {
				var err error
				if i%3 == 2 {
					_, err = c.Settings(ctx, "self")
				} else {
					var id string
					id, err = c.AddItem(ctx, pt.Member, "", client.NewItem{Title: fmt.Sprintf("kept %d-%d", w, i), Type: "CSV"})
					if err == nil {
						mu.Lock()
						ids = append(ids, id)
						mu.Unlock()
					}
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d request %d: %w", w, i, err)
					continue
				}
				if acked.Add(1)%killEvery == 0 {
					kills <- struct{}{}
				}
			}
		})
	}
	wg.Wait()
	close(kills)
	<-killerDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if killed.Load() == 0 {
		t.Fatal("no backend was terminated: the test exercised nothing")
	}
	c := clientFor(t, procs[0], pt.MemberToken)
	for _, id := range ids {
		if _, err := c.Item(ctx, id); err != nil {
			t.Errorf("acknowledged item %s: %v", id, err)
		}
	}
	t.Logf("%d requests, %d backends terminated", acked.Load(), killed.Load())
}
