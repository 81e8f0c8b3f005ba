package sqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// writeGroups is PostgreSQL's group commit for the transactions made of
// pending writes alone (pgTx.end) to one row (pendingWrite.key):
// a settings/update is one such. Under load they queue on the row's lock,
// one commit (one WAL flush) each. Here, while one is in flight, those
// arriving for the same row wait for the next flight and share it: one
// pipeline, their writes in arrival order, one implicit transaction, one
// commit. They never join a flight already sent.
//
// The group commits or fails whole. When it fails because a statement did
// (a token removed, an organization gone), nothing of it was written and
// each member is sent again alone, so each gets the outcome it would have
// had: one request's failure is not another's. When the connection fails
// with the pipeline sent, whether it committed is unknown, for each member
// as for a transaction alone (errCommit).
//
// Grouping orders nothing that was ordered: the members are requests under
// way at once, none answered, and a serial order of them (arrival) is what
// the one transaction applies. Only one row's writes are grouped, so a
// group locks what one of its members would have, and groups on two
// replicas wait for each other as the members would.
type writeGroups struct {
	mu    sync.Mutex
	queue map[string]*writeQueue // by pendingWrite.key
	// hook, set by tests (under mu), is told the size of each group sent.
	hook func(n int)
}

// writeQueue is one row's, in writeGroups.queue while a flight of it is in
// the air: the members waiting for the next.
type writeQueue struct {
	waiting []*groupMember
}

type groupMember struct {
	p   *pgTx
	ctx context.Context
	// told receives, once, what the member is to do: lead the group given
	// (it flies it), run alone, or take err as its outcome.
	told chan groupWord
}

type groupWord struct {
	lead  []*groupMember
	alone bool
	err   error
}

// key is the row every pending write of p goes to, "" when they do not
// all name the same one.
func (p *pgTx) key() string {
	k := p.pending[0].key
	for _, w := range p.pending[1:] {
		if w.key != k {
			return ""
		}
	}
	return k
}

// commit runs p's pending writes, in a group when others wait at once for
// the same row.
func (g *writeGroups) commit(ctx context.Context, p *pgTx) error {
	key := p.key()
	if key == "" {
		return p.commitAlone(ctx)
	}
	g.mu.Lock()
	q, flying := g.queue[key]
	if !flying {
		if g.queue == nil {
			g.queue = make(map[string]*writeQueue)
		}
		g.queue[key] = &writeQueue{}
		g.mu.Unlock()
		return g.fly(ctx, key, []*groupMember{{p: p, ctx: ctx}})
	}
	m := &groupMember{p: p, ctx: ctx, told: make(chan groupWord, 1)}
	q.waiting = append(q.waiting, m)
	g.mu.Unlock()

	var w groupWord
	select {
	case w = <-m.told:
	case <-ctx.Done():
		g.mu.Lock()
		gone := false
		if q := g.queue[key]; q != nil {
			for i, o := range q.waiting {
				if o == m {
					q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
					gone = true
					break
				}
			}
		}
		g.mu.Unlock()
		if gone {
			return ctx.Err() // nothing was sent
		}
		w = <-m.told // taken into a flight: its outcome comes
	}
	switch {
	case w.lead != nil:
		return g.fly(ctx, key, w.lead)
	case w.alone:
		return p.commitAlone(ctx)
	}
	return w.err
}

// fly sends the group whose first member is the caller's, on its
// connection, then hands the next flight to the first member waiting for
// it, tells the others their outcome and returns the caller's.
func (g *writeGroups) fly(ctx context.Context, key string, group []*groupMember) error {
	var words []groupWord
	defer func() {
		if words == nil {
			// Sending panicked: the members and the queue must not wait
			// for a flight that will never land.
			g.land(key, group, nil)
		}
	}()
	if len(group) == 1 {
		words = []groupWord{{err: group[0].p.commitAlone(ctx)}}
	} else {
		fctx, end := flightContext(ctx, group)
		defer end()
		words = g.send(fctx, group)
	}
	g.land(key, group, words)
	w := words[0]
	if w.alone {
		return group[0].p.commitAlone(ctx)
	}
	return w.err
}

// errFlightLost is a group member's outcome when sending its group panicked.
var errFlightLost = &errCommit{errors.New("sqlstore: the group's flight failed")}

// land ends a flight: the next goes to the first member waiting for it, and
// the members after the first are told their words (errFlightLost when
// words is nil).
func (g *writeGroups) land(key string, group []*groupMember, words []groupWord) {
	g.mu.Lock()
	q := g.queue[key]
	next := q.waiting
	q.waiting = nil
	if len(next) == 0 {
		delete(g.queue, key)
	}
	g.mu.Unlock()
	if len(next) > 0 {
		next[0].told <- groupWord{lead: next}
	}
	for i, m := range group[1:] {
		w := groupWord{err: errFlightLost}
		if words != nil {
			w = words[i+1]
		}
		m.told <- w
	}
}

// flightContext is a group's: ended once every member's context is, not
// before (each waits for the group), its values the caller's.
func flightContext(ctx context.Context, group []*groupMember) (context.Context, func()) {
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var left atomic.Int32
	left.Store(int32(len(group)))
	stops := make([]func() bool, len(group))
	for i, m := range group {
		stops[i] = context.AfterFunc(m.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return fctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// send runs the members' pending writes as one pipeline on the first one's
// connection, and returns what each is to do.
func (g *writeGroups) send(ctx context.Context, group []*groupMember) []groupWord {
	g.mu.Lock()
	hook := g.hook
	g.mu.Unlock()
	if hook != nil {
		hook(len(group))
	}
	// readStart consumes the pending writes: kept to send them again alone.
	kept := make([][]pendingWrite, len(group))
	var b pgx.Batch
	for i, m := range group {
		kept[i] = m.p.pending
		m.p.queueStart(&b, false)
	}
	br := group[0].p.conn.SendBatch(ctx, &b)
	var err error
	for _, m := range group {
		if err = m.p.readStart(br, false); err != nil {
			break
		}
	}
	cerr := br.Close()
	words := make([]groupWord, len(group))
	switch {
	case err == nil && cerr == nil:
		for _, m := range group {
			m.p.begun = true
		}
	case err != nil && !group[0].p.conn.IsClosed():
		// A statement failed and the server answered up to the
		// pipeline's end: it rolled the group back.
		for i, m := range group {
			m.p.pending, m.p.tokenGone = kept[i], false
			words[i].alone = true
		}
	default:
		// The connection failed with the pipeline sent (or at its end).
		e := &errCommit{errors.Join(err, cerr)}
		for i, m := range group {
			m.p.begun = true
			words[i].err = e
		}
	}
	return words
}
