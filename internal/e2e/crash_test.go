package e2e

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// crashRounds is how many times each crash test kills portald.
const crashRounds = 20

// Writers are killed mid-stream on an SQLite file: every write acknowledged
// before the kill is there after a restart on the same file, and no request
// is visible by halves.
func TestCrashSQLite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "portal.db")
	testCrash(t, func(int) string { return file }, func(*testing.T, int) {})
}

// The same on PostgreSQL: the killed process's open transactions are rolled
// back, its committed ones stay.
//
// A killed client's backends outlive it: each ends only when it finds the
// connection closed, once done with what it had received, which may be the
// COMMIT of the write in flight. Until then that write may still commit, and
// a restarted portald could read the state before it and then after it (an
// item in none of the folders, read one after another). So each portald
// names its connections, and after the kill the test waits until none of
// them is left: then the killed process's writes are settled.
func TestCrashPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	app := func(round int) string { return fmt.Sprintf("portald-crash-%x-%d", b, round) }
	lingered, busy := 0, 0
	testCrash(t, func(round int) string {
		return dsn + "&application_name=" + app(round)
	}, func(t *testing.T, round int) {
		settled := false
		for i := 0; !settled; i++ {
			var n, working int
			if err := db.QueryRow("SELECT count(*), count(*) FILTER (WHERE state <> 'idle') FROM pg_stat_activity WHERE application_name = $1",
				app(round)).Scan(&n, &working); err != nil {
				t.Fatal(err)
			}
			settled = n == 0
			if i == 0 && !settled {
				lingered++
			}
			if i == 0 && working > 0 {
				busy++
			}
			if i == 6000 {
				t.Fatalf("%d backends of the portald killed in round %d still run after a minute", n, round)
			}
			if !settled {
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
	t.Logf("the killed portald's backends were still there after %d of %d kills, some of them in a statement or a transaction after %d",
		lingered, crashRounds, busy)
}

// crashWriter is one client that writes in a loop until portald dies. It
// knows which of its writes were acknowledged (the client got the success
// answer) and which one was in flight when the connection broke: after a
// restart, the store must show the last acknowledged write or the one in
// flight, whole.
type crashWriter interface {
	// setup prepares the writer's fixtures on the first portald.
	setup(ctx context.Context, p *process) error
	// run writes until a request fails without an answer (portald died),
	// calling acked after each acknowledged write. An answer that is an
	// error, or that the writer's model does not expect, is returned.
	run(ctx context.Context, p *process, acked func()) error
	// verify reads the store through a restarted portald, checks what it
	// shows against the acknowledged and in-flight writes, and adopts it as
	// the state the next round starts from.
	verify(ctx context.Context, p *process) error
	// summary reports, for the log, what the writer did.
	summary() string
}

// maxKillAfter bounds how many writes are acknowledged in a round, after
// every writer's first, before the kill.
const maxKillAfter = 60

// testCrash kills portald crashRounds times. dsn(n) is the store of the
// portald started after n kills; settle(n) returns once what the portald
// killed the n-th time (from 0) had sent the store is done.
func testCrash(t *testing.T, dsn func(n int) string, settle func(t *testing.T, n int)) {
	ctx := context.Background()
	writers := []crashWriter{
		newSettingsWriter(pt.OrgID, pt.AdminToken),
		newSettingsWriter(pt.OtherOrgID, pt.OtherAdminToken),
		newMover(pt.Member, pt.MemberToken, 12),
		newFolderMaker("jdoe", pt.PublisherToken),
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points from seed %d", seed)
	rng := mathrand.New(mathrand.NewPCG(seed, 1))
	p := startPortald(t, "-db", dsn(0))
	for _, w := range writers {
		if err := w.setup(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for round := range crashRounds {
		var wg sync.WaitGroup
		errs := make(chan error, len(writers))
		first := make(chan struct{}, len(writers))
		// acks counts the writes acknowledged in the round; more holds a
		// token after each.
		var acks atomic.Int64
		more := make(chan struct{}, 1)
		for _, w := range writers {
			var once sync.Once
			wg.Go(func() {
				if err := w.run(ctx, p, func() {
					once.Do(func() { first <- struct{}{} })
					acks.Add(1)
					select {
					case more <- struct{}{}:
					default:
					}
				}); err != nil {
					errs <- err
				}
			})
		}
		// Once every writer has had a write acknowledged in this round, the
		// kill lands at a random point of the stream: after a random number
		// of further acknowledged writes, counted rather than timed, so
		// that the point does not depend on the machine's speed.
		var stuck error
		for range writers {
			select {
			case <-first:
				continue
			case err := <-errs:
				stuck = err
			case <-time.After(30 * time.Second):
				stuck = errors.New("a writer had nothing acknowledged in 30 s")
			}
			break
		}
		if stuck == nil {
			for target := acks.Load() + int64(rng.IntN(maxKillAfter+1)); acks.Load() < target && stuck == nil; {
				select {
				case <-more:
				case err := <-errs:
					stuck = err
				}
			}
		}
		p.kill(t)
		wg.Wait()
		close(errs)
		if stuck != nil {
			t.Fatalf("round %d: %v", round, stuck)
		}
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}

		settle(t, round)
		p = startPortald(t, "-db", dsn(round+1))
		for _, w := range writers {
			if err := w.verify(ctx, p); err != nil {
				t.Fatalf("after kill %d: %v", round+1, err)
			}
		}
	}
	for _, w := range writers {
		t.Log(w.summary())
	}
}

// crashClient is a client of p that does not reuse connections across
// portald processes.
func crashClient(p *process, token string) (*client.Client, error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	return client.New(p.URL, client.WithToken(token), client.WithHTTPClient(hc))
}

// answered tells an answer (an error envelope) from a request that got none:
// only the latter may be a casualty of the kill.
func answered(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce)
}

// settingsWriter updates one organization's banner, authenticated notice
// and two portal configuration properties, all carrying the same stamp, one
// update at a time so that stamps increase in commit order.
type settingsWriter struct {
	org, token string
	next       int // the next stamp to send
	acked      int // the stamp the store must show, 0 before any
	inflight   int // the stamp sent without an answer when portald died, 0 if none
	writes     int
	sawFlight  int // restarts that showed the write in flight
}

func newSettingsWriter(org, token string) *settingsWriter {
	return &settingsWriter{org: org, token: token, next: 1}
}

var stampColors = []string{"red", "navy", "teal", "olive", "maroon", "purple", "black", "gray", "green"}

func stampedSettings(n int) client.SettingsUpdate {
	s := fmt.Sprintf("stamp %d", n)
	return client.SettingsUpdate{
		InformationalBanner: &client.Banner{Text: s, BgColor: stampColors[n%len(stampColors)],
			FontColor: stampColors[(n+4)%len(stampColors)], Enabled: true},
		AuthenticatedAccessNotice: &client.AccessNotice{Title: s, Text: "Crash test " + s, Buttons: client.ButtonsOKOnly, Enabled: true},
		PortalConfigProperties:    map[string]any{"crashStamp": float64(n), "crashStampCopy": float64(n)},
	}
}

func (w *settingsWriter) setup(context.Context, *process) error { return nil }

func (w *settingsWriter) run(ctx context.Context, p *process, acked func()) error {
	c, err := crashClient(p, w.token)
	if err != nil {
		return err
	}
	for {
		n := w.next
		w.next++
		w.inflight = n
		if err := c.UpdateSettings(ctx, w.org, stampedSettings(n)); err != nil {
			if answered(err) {
				return fmt.Errorf("settings of %s, stamp %d: %w", w.org, n, err)
			}
			return nil
		}
		w.acked, w.inflight = n, 0
		w.writes++
		acked()
	}
}

func (w *settingsWriter) verify(ctx context.Context, p *process) error {
	c, err := crashClient(p, w.token)
	if err != nil {
		return err
	}
	s, err := c.Settings(ctx, w.org)
	if err != nil {
		return err
	}
	if s.InformationalBanner == nil {
		return fmt.Errorf("settings of %s: no banner; stamp %d was acknowledged", w.org, w.acked)
	}
	var n int
	if _, err := fmt.Sscanf(s.InformationalBanner.Text, "stamp %d", &n); err != nil {
		return fmt.Errorf("settings of %s: banner text %q", w.org, s.InformationalBanner.Text)
	}
	want := stampedSettings(n)
	props := s.PortalConfigProperties
	if *s.InformationalBanner != *want.InformationalBanner || s.AuthenticatedAccessNotice == nil ||
		*s.AuthenticatedAccessNotice != *want.AuthenticatedAccessNotice ||
		props["crashStamp"] != float64(n) || props["crashStampCopy"] != float64(n) {
		return fmt.Errorf("settings of %s mix writes: banner %+v, notice %+v, properties crashStamp %v crashStampCopy %v; the write of stamp %d had %+v and %+v",
			w.org, *s.InformationalBanner, s.AuthenticatedAccessNotice, props["crashStamp"], props["crashStampCopy"], n, *want.InformationalBanner, *want.AuthenticatedAccessNotice)
	}
	switch {
	case n == w.acked:
	case n == w.inflight && w.inflight != 0:
		w.sawFlight++
	default:
		return fmt.Errorf("settings of %s show stamp %d; acknowledged %d, in flight %d (0: none)", w.org, n, w.acked, w.inflight)
	}
	w.acked, w.inflight = n, 0
	return nil
}

func (w *settingsWriter) summary() string {
	return fmt.Sprintf("settings of %s: %d updates acknowledged; the update in flight at the kill was found committed after %d of %d restarts",
		w.org, w.writes, w.sawFlight, crashRounds)
}

// mover moves a batch of items between three folders in turn, one moveItems
// request per step: after a restart all of them are in the same folder, the
// destination of the last acknowledged move or of the move in flight.
type mover struct {
	user, token string
	n           int
	items       []string
	folders     [3]string
	cur         int // index of the folder holding the items
	inflight    int // destination of the move without an answer, -1 if none
	moves       int
	sawFlight   int
}

func newMover(user, token string, n int) *mover {
	return &mover{user: user, token: token, n: n, inflight: -1}
}

func (m *mover) setup(ctx context.Context, p *process) error {
	c, err := crashClient(p, m.token)
	if err != nil {
		return err
	}
	for i := range m.folders {
		f, err := c.CreateFolder(ctx, m.user, fmt.Sprintf("crash move %d", i))
		if err != nil {
			return err
		}
		m.folders[i] = f.ID
	}
	for i := range m.n {
		id, err := c.AddItem(ctx, m.user, m.folders[0], client.NewItem{Title: fmt.Sprintf("crash item %d", i), Type: "CSV"})
		if err != nil {
			return err
		}
		m.items = append(m.items, id)
	}
	return nil
}

func (m *mover) run(ctx context.Context, p *process, acked func()) error {
	c, err := crashClient(p, m.token)
	if err != nil {
		return err
	}
	for {
		dest := (m.cur + 1) % len(m.folders)
		m.inflight = dest
		res, err := c.MoveItems(ctx, m.user, m.items, m.folders[dest])
		if err != nil {
			if answered(err) {
				return fmt.Errorf("moveItems to folder %d: %w", dest, err)
			}
			return nil
		}
		for i, r := range res {
			if !r.Success || r.ItemID != m.items[i] {
				return fmt.Errorf("moveItems to folder %d: result %d is %+v (error %v); every item should move", dest, i, r, r.Err)
			}
		}
		if len(res) != len(m.items) {
			return fmt.Errorf("moveItems: %d results for %d items", len(res), len(m.items))
		}
		m.cur, m.inflight = dest, -1
		m.moves++
		acked()
	}
}

func (m *mover) verify(ctx context.Context, p *process) error {
	c, err := crashClient(p, m.token)
	if err != nil {
		return err
	}
	where := map[string]int{}
	for i, f := range m.folders {
		content, err := c.UserContent(ctx, m.user, f, client.Page{Start: 1, Num: 100})
		if err != nil {
			return err
		}
		for _, it := range content.Items {
			where[it.ID] = i
		}
	}
	counts := make([]int, len(m.folders))
	for _, id := range m.items {
		i, ok := where[id]
		if !ok {
			return fmt.Errorf("item %s is in none of the three folders", id)
		}
		counts[i]++
	}
	at := -1
	for i, n := range counts {
		switch n {
		case 0:
		case len(m.items):
			at = i
		default:
			return fmt.Errorf("a move is visible by halves: items per folder %v", counts)
		}
	}
	switch {
	case at == m.cur:
	case at == m.inflight:
		m.sawFlight++
	default:
		return fmt.Errorf("items are in folder %d; the last acknowledged move was to %d, the one in flight to %d (-1: none)", at, m.cur, m.inflight)
	}
	m.cur, m.inflight = at, -1
	return nil
}

func (m *mover) summary() string {
	return fmt.Sprintf("moveItems of %d items: %d moves acknowledged; the move in flight at the kill was found committed after %d of %d restarts",
		len(m.items), m.moves, m.sawFlight, crashRounds)
}

// folderMaker creates folders with titles it never repeats: after a restart
// every acknowledged folder is there with the id its answer gave, and the
// only other new folder may be the one in flight.
type folderMaker struct {
	user, token string
	next        int
	made        map[string]string // title -> id
	inflight    string
	sawFlight   int
}

func newFolderMaker(user, token string) *folderMaker {
	return &folderMaker{user: user, token: token, made: map[string]string{}}
}

func (f *folderMaker) setup(context.Context, *process) error { return nil }

func (f *folderMaker) run(ctx context.Context, p *process, acked func()) error {
	c, err := crashClient(p, f.token)
	if err != nil {
		return err
	}
	for {
		title := fmt.Sprintf("crash folder %d", f.next)
		f.next++
		f.inflight = title
		got, err := c.CreateFolder(ctx, f.user, title)
		if err != nil {
			if answered(err) {
				return fmt.Errorf("createFolder %q: %w", title, err)
			}
			return nil
		}
		f.made[title], f.inflight = got.ID, ""
		acked()
	}
}

func (f *folderMaker) verify(ctx context.Context, p *process) error {
	c, err := crashClient(p, f.token)
	if err != nil {
		return err
	}
	content, err := c.UserContent(ctx, f.user, "", client.Page{Start: 1, Num: 1})
	if err != nil {
		return err
	}
	found := map[string]string{}
	for _, x := range content.Folders {
		if strings.HasPrefix(x.Title, "crash folder ") {
			found[x.Title] = x.ID
		}
	}
	for title, id := range f.made {
		if found[title] != id {
			return fmt.Errorf("acknowledged folder %q (%s) is missing; found %q", title, id, found[title])
		}
	}
	for title, id := range found {
		if _, ok := f.made[title]; ok {
			continue
		}
		if title != f.inflight {
			return fmt.Errorf("folder %q (%s) was never asked for (in flight: %q)", title, id, f.inflight)
		}
		f.made[title] = id
		f.sawFlight++
	}
	f.inflight = ""
	return nil
}

func (f *folderMaker) summary() string {
	return fmt.Sprintf("createFolder: %d folders exist, the folder in flight at the kill was found created after %d of %d restarts",
		len(f.made), f.sawFlight, crashRounds)
}
