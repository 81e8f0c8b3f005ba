package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// These tests run writes that contend for the same rows through two portald
// processes on one PostgreSQL database, then check the final state and the
// answers against what one serial order of the requests allows. They assert
// nothing about timing.

// isCode reports whether err is the envelope with code.
func isCode(err error, code int) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Code == code
}

// Moves, deletions of items and deletions of their folders, all at once on
// the same items: every item ends in exactly one existing folder (or the
// root) or is gone; an item or a folder is deleted at most once, and what was
// deleted is gone; what remains was never reported deleted.
func TestReplicasMovesDeletesAndFolderDeletions(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	setup := clientFor(t, procs[0], pt.MemberToken)
	var movedOK, deletedOK, folderDeletedOK int
	for round := range 3 {
		var folders []string
		for i := range 2 {
			f, err := setup.CreateFolder(ctx, pt.Member, fmt.Sprintf("contention %d-%d", round, i))
			if err != nil {
				t.Fatal(err)
			}
			folders = append(folders, f.ID)
		}
		var items []string
		for i := range 8 {
			folder := ""
			if i%2 == 1 {
				folder = folders[i%4/2]
			}
			id, err := setup.AddItem(ctx, pt.Member, folder, client.NewItem{Title: fmt.Sprintf("item %d-%d", round, i), Type: "CSV"})
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, id)
		}
		var mu sync.Mutex
		itemDeletes := map[string]int{}
		folderDeletes := map[string]int{}
		errs := make(chan error, 1000)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				c := clientFor(t, procs[w%2], pt.MemberToken)
				for range 12 {
					var batch []string
					for _, id := range items {
						if rng.IntN(3) == 0 {
							batch = append(batch, id)
						}
					}
					if len(batch) == 0 {
						batch = items[rng.IntN(len(items)):][:1]
					}
					switch op := rng.IntN(10); {
					case op < 6:
						dest := append([]string{"/"}, folders...)[rng.IntN(3)]
						res, err := c.MoveItems(ctx, pt.Member, batch, dest)
						if isCode(err, 400) && dest != "/" {
							continue // the folder was deleted: nothing moved
						}
						if err != nil {
							errs <- fmt.Errorf("move: %w", err)
							continue
						}
						for i, r := range res {
							switch {
							case r.ItemID != batch[i]:
								errs <- fmt.Errorf("move result %d is for %s, want %s", i, r.ItemID, batch[i])
							case r.Success:
								mu.Lock()
								movedOK++
								mu.Unlock()
							case r.Err == nil || (r.Err.Code != 500 && r.Err.MessageCode != "CONT_0001"):
								errs <- fmt.Errorf("move %s: unexpected failure %+v", r.ItemID, r.Err)
							}
						}
					case op < 8:
						res, err := c.DeleteItems(ctx, pt.Member, batch)
						if err != nil {
							errs <- fmt.Errorf("delete items: %w", err)
							continue
						}
						for i, r := range res {
							switch {
							case r.ItemID != batch[i]:
								errs <- fmt.Errorf("delete result %d is for %s, want %s", i, r.ItemID, batch[i])
							case r.Success:
								mu.Lock()
								itemDeletes[r.ItemID]++
								deletedOK++
								mu.Unlock()
							case r.Err == nil || r.Err.MessageCode != "CONT_0001":
								errs <- fmt.Errorf("delete %s: unexpected failure %+v", r.ItemID, r.Err)
							}
						}
					default:
						f := folders[rng.IntN(2)]
						err := c.DeleteFolder(ctx, pt.Member, f)
						switch {
						case err == nil:
							mu.Lock()
							folderDeletes[f]++
							folderDeletedOK++
							mu.Unlock()
						case !isCode(err, 400) && !isCode(err, 404):
							errs <- fmt.Errorf("delete folder: %w", err)
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}

		content, err := setup.UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 100})
		if err != nil {
			t.Fatal(err)
		}
		existing := map[string]bool{}
		for _, f := range content.Folders {
			existing[f.ID] = true
		}
		for _, f := range folders {
			if folderDeletes[f] > 1 {
				t.Errorf("folder %s deleted %d times", f, folderDeletes[f])
			}
			if folderDeletes[f] == 1 && existing[f] {
				t.Errorf("folder %s was deleted and still exists", f)
			}
		}
		listed := map[string]string{}
		for _, f := range append([]string{""}, folders...) {
			if f != "" && !existing[f] {
				continue
			}
			c, err := setup.UserContent(ctx, pt.Member, f, client.Page{Start: 1, Num: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range c.Items {
				if prev, dup := listed[it.ID]; dup {
					t.Errorf("item %s is listed in %q and in %q", it.ID, prev, f)
				}
				listed[it.ID] = f
			}
		}
		for _, id := range items {
			it, err := setup.Item(ctx, id)
			var ce *client.Error
			gone := errors.As(err, &ce) && ce.MessageCode == "CONT_0001"
			if err != nil && !gone {
				t.Fatalf("item %s: %v", id, err)
			}
			switch {
			case itemDeletes[id] > 1:
				t.Errorf("item %s deleted %d times", id, itemDeletes[id])
			case itemDeletes[id] == 1 && !gone:
				t.Errorf("item %s was deleted and still exists", id)
			case !gone && it.Folder != "" && !existing[it.Folder]:
				t.Errorf("item %s is in folder %s, which no longer exists", id, it.Folder)
			case !gone && listed[id] != it.Folder:
				t.Errorf("item %s is in %q but listed in %q", id, it.Folder, listed[id])
			case gone && itemDeletes[id] == 0 && len(folderDeletes) == 0:
				t.Errorf("item %s is gone, and neither it nor a folder was deleted", id)
			}
		}
	}
	if movedOK == 0 || deletedOK == 0 || folderDeletedOK == 0 {
		t.Errorf("%d moves, %d item deletions, %d folder deletions succeeded: the test exercised too little", movedOK, deletedOK, folderDeletedOK)
	}
}

// Schema assignments that drop a category race member updates that assign
// it: whatever the order, no member keeps a category the final schema does
// not have.
func TestReplicasSchemaAgainstMemberCategories(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	wide := []client.Category{
		{Title: "Office", Categories: []client.Category{{Title: "Maine"}}},
		{Title: "Department", Categories: []client.Category{{Title: "Planning"}}},
	}
	narrow := wide[:1]
	members := []string{"jsmith", "jdoe", "viewer", "catadmin"}
	var mu sync.Mutex
	var narrowed, assigned int
	errs := make(chan error, 1000)
	var wg sync.WaitGroup
	for w := range 10 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			c := clientFor(t, procs[w%2], pt.AdminToken)
			for r := range 15 {
				if w < 2 {
					schema := wide
					if (w+r)%2 == 1 {
						schema = narrow
					}
					if err := c.AssignMemberCategorySchema(ctx, pt.OrgID, schema); err != nil {
						errs <- fmt.Errorf("assign: %w", err)
					} else if len(schema) == 1 {
						mu.Lock()
						narrowed++
						mu.Unlock()
					}
					continue
				}
				paths := []string{"/Department/Planning"}
				if rng.IntN(2) == 0 {
					paths = append(paths, "/Office/Maine")
				}
				err := c.SetMemberCategories(ctx, members[rng.IntN(len(members))], paths)
				switch {
				case err == nil:
					mu.Lock()
					assigned++
					mu.Unlock()
				case !isCode(err, 400): // 400: the schema had no Planning then
					errs <- fmt.Errorf("set categories: %w", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if narrowed == 0 || assigned == 0 {
		t.Fatalf("%d narrowing assignments, %d member updates succeeded: the test exercised too little", narrowed, assigned)
	}
	c := clientFor(t, procs[1], pt.AdminToken)
	schema, err := c.MemberCategorySchema(ctx, pt.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	valid := map[string]bool{}
	var walk func(prefix string, cs []client.Category)
	walk = func(prefix string, cs []client.Category) {
		for _, n := range cs {
			valid[strings.ToLower(prefix+"/"+n.Title)] = true
			walk(prefix+"/"+n.Title, n.Categories)
		}
	}
	walk("", schema)
	for _, u := range members {
		m, err := c.Member(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		for _, cat := range m.Categories {
			if !valid[strings.ToLower(cat)] {
				t.Errorf("member %s keeps %s, which the schema %+v does not have", u, cat, schema)
			}
		}
	}
}

// postReset empties and reseeds the store through p.
func postReset(ctx context.Context, p *process) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Root+"/emulator/reset", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("reset: HTTP %d", resp.StatusCode)
	}
	return nil
}

// A write authenticated before a reset whose transaction comes after it:
// the test holds the users table, which the reset locks and a write reads,
// so that the reset, through one replica, waits for it with the tables it
// locks before; then sends a write with a generated token, already checked
// and cached by the other replica, which waits behind the reset for its
// first statement; then lets both go. Only two answers agree with a serial order: the write before the
// reset (acknowledged, and wiped by the reset) or after it (498, the reset
// removed the token). Which one the write gets is the store's affair; the
// test waits for states of PostgreSQL's lock table, never for time.
func TestReplicasResetAgainstWrites(t *testing.T) {
	dsn := pgtest.DSN(t)
	procs := make([]*process, 2)
	for i := range procs {
		procs[i] = startPortald(t, "-db", dsn)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	// The replica that will serve the write reads tokens from its cache
	// only while it listens for removals.
	waitForState(t, db, "both replicas listen for token removals",
		`SELECT count(*) = 2 FROM pg_stat_activity WHERE application_name = left('portald tokens ' || current_schema(), 63) AND query LIKE 'LISTEN %'`)
	admin := clientFor(t, procs[0], pt.AdminToken)
	for round := range 2 {
		anon, err := client.New(procs[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := anon.GenerateToken(ctx, pt.Member, "jsmith-password", 0)
		if err != nil {
			t.Fatal(err)
		}
		writer := clientFor(t, procs[1], tok.Token)
		if _, err := writer.UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 1}); err != nil {
			t.Fatalf("round %d: the new token: %v", round, err)
		}

		hold, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hold.ExecContext(ctx, "LOCK TABLE users IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		resetDone := make(chan error, 1)
		go func() { resetDone <- postReset(ctx, procs[0]) }()
		waitForState(t, db, "the reset waits for the users table",
			`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock' AND relation = 'users'::regclass)`)
		type answer struct {
			res []client.ItemResult
			err error
		}
		writeDone := make(chan answer, 1)
		go func() {
			res, err := writer.MoveItems(ctx, pt.Member, []string{pt.RoadsItem}, pt.ArchiveFolder)
			writeDone <- answer{res, err}
		}()
		waitForState(t, db, "the write waits behind the reset",
			`SELECT count(*) >= 2 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE NOT l.granted AND c.relnamespace = current_schema()::regnamespace`)
		if err := hold.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := <-resetDone; err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		w := <-writeDone
		switch {
		case w.err == nil && (len(w.res) != 1 || !w.res[0].Success):
			t.Errorf("round %d: the write's results %+v: one success expected", round, w.res)
		case w.err != nil && !isCode(w.err, 498):
			t.Errorf("round %d: the write answered %v; a serial order allows success (before the reset) or 498 (after it)", round, w.err)
		}
		t.Logf("round %d: the write answered %v", round, w.err)

		for _, p := range procs {
			_, err := clientFor(t, p, tok.Token).UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 10})
			if !isCode(err, 498) {
				t.Errorf("round %d: %s accepts the token removed by the reset: %v", round, p.Root, err)
			}
		}
		it, err := admin.Item(ctx, pt.RoadsItem)
		if err != nil {
			t.Fatal(err)
		}
		if it.Folder != "" {
			t.Errorf("round %d: after the reset the seed's item %s is in folder %q, not the root: the write landed after the reset", round, pt.RoadsItem, it.Folder)
		}
		content, err := admin.UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 100})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range content.Items {
			ids = append(ids, it.ID)
		}
		if want := []string{pt.RoadsItem, pt.HydrantsItem}; !slices.Equal(ids, want) {
			t.Errorf("round %d: after the reset jsmith's root holds %v, want the seed's %v", round, ids, want)
		}
	}
}

// waitForState polls db until query answers true: a state of the database
// the test needs before its next step. It fails the test if the state never
// comes (a minute), which is a deadlock, not a slow machine.
func waitForState(t *testing.T, db *sql.DB, what, query string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var ok bool
		if err := db.QueryRowContext(context.Background(), query).Scan(&ok); err != nil {
			t.Fatalf("waiting until %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after a minute", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Writes through both replicas with a generated token race a reset through
// one of them. The reset removes the token: once it has answered, no
// replica accepts the token, and nothing the token wrote survives it (a
// write that decided before the reset cannot land after it).
func TestReplicasResetAgainstConcurrentWrites(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	admin := clientFor(t, procs[1], pt.AdminToken)
	for round := range 3 {
		anon, err := client.New(procs[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := anon.GenerateToken(ctx, pt.Member, "jsmith-password", 0)
		if err != nil {
			t.Fatal(err)
		}
		// phase: 0 before the reset is sent, 1 while it runs, 2 once it
		// has answered.
		var phase atomic.Int32
		var mu sync.Mutex
		ackedBefore := map[string]bool{} // acknowledged before the reset was sent
		unacked := map[string]bool{}     // not acknowledged
		started := make(chan struct{}, 100)
		errs := make(chan error, 1000)
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				c := clientFor(t, procs[w%2], tok.Token)
				for i := 0; ; i++ {
					sent := phase.Load()
					title := fmt.Sprintf("raced %d-%d-%d", round, w, i)
					var err error
					if i%2 == 0 {
						_, err = c.AddItem(ctx, pt.Member, "", client.NewItem{Title: title, Type: "CSV"})
					} else {
						_, err = c.MoveItems(ctx, pt.Member, []string{pt.RoadsItem}, []string{"/", pt.ArchiveFolder}[i%4/2])
					}
					acked := phase.Load()
					mu.Lock()
					if i%2 == 0 && err != nil {
						unacked[title] = true
					} else if i%2 == 0 && acked == 0 {
						ackedBefore[title] = true
					}
					mu.Unlock()
					if raced(w, err, sent == 2, errs, started) {
						return
					}
				}
			})
		}
		// Reset once the writers are under way on both replicas (or, should
		// they all have stopped, at once: the checks below report why).
		underWay(started, &wg, 12)
		phase.Store(1)
		if err := postReset(ctx, procs[0]); err != nil {
			t.Fatal(err)
		}
		phase.Store(2)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, p := range procs {
			_, err := clientFor(t, p, tok.Token).UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 10})
			if !isCode(err, 498) {
				t.Errorf("%s accepts the token removed by the reset: %v", p.Root, err)
			}
		}
		content, err := admin.UserContent(ctx, pt.Member, "", client.Page{Start: 1, Num: 100})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range content.Items {
			switch {
			case ackedBefore[it.Title]:
				t.Errorf("item %q, acknowledged before the reset, survives it", it.Title)
			case unacked[it.Title]:
				t.Errorf("item %q was stored although its request failed", it.Title)
			case !strings.HasPrefix(it.Title, "raced"):
				ids = append(ids, it.ID)
			}
		}
		if want := []string{pt.RoadsItem, pt.HydrantsItem}; !slices.Equal(ids, want) {
			t.Errorf("after the reset jsmith's root holds %v, want the seed's %v", ids, want)
		}
	}
}

// settings/updates of one organization with a generated token, several at
// once on each replica (each one statement that writes only while the token
// exists), race a reset through one of them: once the reset has answered no
// replica accepts the token, and no banner the token wrote survives it.
func TestReplicasResetAgainstSettingsUpdates(t *testing.T) {
	procs := replicas(t, 2)
	ctx := context.Background()
	for round := range 2 {
		anon, err := client.New(procs[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := anon.GenerateToken(ctx, pt.Admin, pt.AdminPassword, 0)
		if err != nil {
			t.Fatal(err)
		}
		var answered atomic.Bool // the reset has answered
		started := make(chan struct{}, 100)
		errs := make(chan error, 100)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				c := clientFor(t, procs[w%2], tok.Token)
				for i := 0; ; i++ {
					after := answered.Load()
					err := c.UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{
						InformationalBanner: &client.Banner{Text: fmt.Sprintf("shared %d-%d-%d", round, w, i), BgColor: "#003366", FontColor: "white", Enabled: true},
					})
					if raced(w, err, after, errs, started) {
						return
					}
				}
			})
		}
		underWay(started, &wg, 24)
		if err := postReset(ctx, procs[0]); err != nil {
			t.Fatal(err)
		}
		answered.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, p := range procs {
			err := clientFor(t, p, tok.Token).UpdateSettings(ctx, pt.OrgID, client.SettingsUpdate{
				InformationalBanner: &client.Banner{Text: "late", BgColor: "#003366", FontColor: "white", Enabled: true},
			})
			if !isCode(err, 498) {
				t.Errorf("%s accepts the token removed by the reset: %v", p.Root, err)
			}
			s, err := clientFor(t, p, pt.AdminToken).Settings(ctx, pt.OrgID)
			if err != nil {
				t.Fatal(err)
			}
			if b := s.InformationalBanner; b != nil && (strings.HasPrefix(b.Text, "shared") || b.Text == "late") {
				t.Errorf("%s: banner %q, written with the removed token, survives the reset", p.Root, b.Text)
			}
		}
	}
}

// raced judges one write of writer w racing a reset (afterReset: sent once
// the reset had answered) and reports whether the writer stops: its token
// is gone, or errs was told what went wrong. A success is counted on
// started.
func raced(w int, err error, afterReset bool, errs chan<- error, started chan<- struct{}) bool {
	switch {
	case err == nil && afterReset:
		errs <- fmt.Errorf("writer %d: a write with the removed token was accepted after the reset answered", w)
		return true
	case isCode(err, 498):
		return true // the token is gone
	case err != nil:
		errs <- fmt.Errorf("writer %d: %w", w, err)
		return true
	}
	select {
	case started <- struct{}{}:
	default:
	}
	return false
}

// underWay returns once n writes of the writers in wg succeeded (started),
// or at once should they all have stopped.
func underWay(started <-chan struct{}, wg *sync.WaitGroup, n int) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for range n {
		select {
		case <-started:
		case <-done:
			return
		}
	}
}
