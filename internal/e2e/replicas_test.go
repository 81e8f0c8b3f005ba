package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// replicas starts n portald processes at once on one fresh PostgreSQL
// schema: they race to migrate and to seed the empty store.
func replicas(t *testing.T, n int) []*process {
	t.Helper()
	dsn := pgtest.DSN(t)
	procs := make([]*process, n)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() { procs[i] = startPortald(t, "-db", dsn) })
	}
	wg.Wait()
	for _, p := range procs {
		if !p.healthy(context.Background()) {
			t.Fatalf("%s is not healthy", p.Root)
		}
	}
	return procs
}

func clientFor(t *testing.T, p *process, token string) *client.Client {
	t.Helper()
	opts := []client.Option{client.WithToken(token)}
	if p.CertFile != "" {
		opts = append(opts, client.WithHTTPClient(p.client))
	}
	c, err := client.New(p.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A write on one replica is read on the other.
func TestReplicasShareState(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	a, b := clientFor(t, procs[0], pt.AdminToken), clientFor(t, procs[1], pt.AdminToken)
	if _, err := a.MoveItems(ctx, pt.Member, []string{pt.RoadsItem}, pt.ArchiveFolder); err != nil {
		t.Fatal(err)
	}
	it, err := b.Item(ctx, pt.RoadsItem)
	if err != nil || it.Folder != pt.ArchiveFolder {
		t.Fatalf("the other replica reads %+v, %v", it, err)
	}
	// The seed was applied once although both started on an empty store.
	content, err := b.UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 100})
	if err != nil || len(content.Folders) != 2 {
		t.Fatalf("jsmith's folders after two seedings: %+v, %v", content, err)
	}
}

// Many clients move the same items between two folders through both
// replicas. A successful move changes the item's folder, a refused one finds
// it already there; in any serial order successes to the two folders
// alternate, so their counts differ by at most one, and the last one names
// the folder the item ends in. A lost or doubled update breaks that.
func TestReplicasConcurrentMoves(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	items := []string{pt.RoadsItem, pt.ParcelsItem, pt.HydrantsItem}
	folders := []string{pt.ProjectsFolder, pt.ArchiveFolder}
	start := clientFor(t, procs[0], pt.MemberToken)
	if _, err := start.MoveItems(ctx, pt.Member, items, pt.ArchiveFolder); err != nil {
		t.Fatal(err)
	}
	type tally struct{ toProjects, toArchive int }
	var mu sync.Mutex
	counts := map[string]*tally{}
	for _, id := range items {
		counts[id] = &tally{}
	}
	const clients, rounds = 12, 25
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			cls := []*client.Client{clientFor(t, procs[0], pt.MemberToken), clientFor(t, procs[1], pt.MemberToken)}
			for r := range rounds {
				batch := []string{}
				for _, id := range items {
					if rng.IntN(2) == 0 {
						batch = append(batch, id)
					}
				}
				if len(batch) == 0 {
					batch = items[:1]
				}
				dest := folders[rng.IntN(2)]
				res, err := cls[(c+r)%2].MoveItems(ctx, pt.Member, batch, dest)
				if err != nil {
					errs <- fmt.Errorf("client %d round %d: %w", c, r, err)
					return
				}
				if len(res) != len(batch) {
					errs <- fmt.Errorf("client %d: %d results for %d ids", c, len(res), len(batch))
					return
				}
				mu.Lock()
				for i, x := range res {
					switch {
					case x.ItemID != batch[i]:
						errs <- fmt.Errorf("result %d is for %s, want %s (request order)", i, x.ItemID, batch[i])
					case x.Success && dest == pt.ProjectsFolder:
						counts[x.ItemID].toProjects++
					case x.Success:
						counts[x.ItemID].toArchive++
					case x.Err == nil || x.Err.Code != 500:
						errs <- fmt.Errorf("item %s: unexpected failure %+v", x.ItemID, x.Err)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Every item is in exactly one folder.
	seen := map[string]string{}
	for _, f := range []string{"", pt.ProjectsFolder, pt.ArchiveFolder} {
		c, err := start.UserContent(ctx, pt.Member, f, client.Page{Start: 1, Num: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range c.Items {
			if prev, dup := seen[it.ID]; dup {
				t.Errorf("item %s is in %q and in %q", it.ID, prev, f)
			}
			seen[it.ID] = f
		}
	}
	for _, id := range items {
		n := counts[id]
		want := pt.ArchiveFolder
		switch n.toProjects - n.toArchive {
		case 0:
		case 1:
			want = pt.ProjectsFolder
		default:
			t.Errorf("item %s: %d successful moves to Projects and %d to Archive: no serial order gives that", id, n.toProjects, n.toArchive)
		}
		if seen[id] != want {
			t.Errorf("item %s ends in %q; the results say %q", id, seen[id], want)
		}
		if n.toProjects == 0 {
			t.Errorf("item %s never moved: the test exercised nothing", id)
		}
	}
}

// Concurrent settings updates through both replicas never mix the fields of
// two requests: every read shows one request's banner and one request's
// properties whole.
func TestReplicasSettingsNeverMix(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	colors := []string{"red", "navy", "teal", "olive", "maroon", "purple", "black", "gray"}
	const writers, rounds = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	check := func(s *client.Settings) {
		if s == nil || s.InformationalBanner == nil {
			return
		}
		b := s.InformationalBanner
		var w, r int
		if _, err := fmt.Sscanf(b.Text, "writer %d round %d", &w, &r); err != nil {
			errs <- fmt.Errorf("banner text %q", b.Text)
			return
		}
		if b.BgColor != colors[w] || b.FontColor != colors[(w+r+1)%len(colors)] {
			errs <- fmt.Errorf("mixed banner: %+v", b)
		}
		p := s.PortalConfigProperties
		if p["writer"] != p["stamp"] {
			errs <- fmt.Errorf("mixed properties: writer %v, stamp %v", p["writer"], p["stamp"])
		}
	}
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				c := clientFor(t, procs[(w+r)%2], pt.AdminToken)
				err := c.UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{
					InformationalBanner:    &client.Banner{Text: fmt.Sprintf("writer %d round %d", w, r), BgColor: colors[w], FontColor: colors[(w+r+1)%len(colors)], Enabled: true},
					PortalConfigProperties: map[string]any{"writer": float64(w*100 + r), "stamp": float64(w*100 + r)},
				})
				if err != nil {
					errs <- err
					return
				}
				s, err := clientFor(t, procs[(w+r+1)%2], pt.AdminToken).Settings(ctx, pt.OrgID)
				if err != nil {
					errs <- err
					return
				}
				check(s)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := clientFor(t, procs[0], pt.AdminToken).Settings(ctx, pt.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	if s.InformationalBanner == nil {
		t.Fatal("no banner after the updates")
	}
}

// Reads of one organization's settings on one replica, many at a time (they
// share round trips there), see every settings/update that returned on the
// other replica before they were sent: a read started after write k shows
// k or later.
func TestReplicasReadsSeeReturnedWrites(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	writer := clientFor(t, procs[0], pt.AdminToken)
	reader := clientFor(t, procs[1], pt.AdminToken)
	const writes, readers = 60, 12
	var returned atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	var reads atomic.Int64
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				floor := returned.Load()
				s, err := reader.Settings(ctx, pt.OrgID)
				if err != nil {
					errs <- err
					return
				}
				var v int64
				if s.InformationalBanner != nil {
					if _, err := fmt.Sscanf(s.InformationalBanner.Text, "write %d", &v); err != nil {
						errs <- fmt.Errorf("banner text %q", s.InformationalBanner.Text)
						return
					}
				}
				if v < floor {
					errs <- fmt.Errorf("a read sent after write %d returned shows write %d", floor, v)
					return
				}
				reads.Add(1)
			}
		})
	}
	for k := int64(1); k <= writes; k++ {
		err := writer.UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{
			InformationalBanner: &client.Banner{Text: fmt.Sprintf("write %d", k), BgColor: "navy", FontColor: "white", Enabled: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		returned.Store(k)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := reads.Load(); n < writes {
		t.Errorf("%d reads beside %d writes: the test exercised little", n, writes)
	}
}
