package connector

import (
	"context"
	"sync"
)

// Prefetch wraps a source so that, once a read returned rows, the next
// read (from its Next, with the same max) runs in the background while the
// caller processes those rows: a generator's or a log's decoding and the
// streaming table's operators then use two cores.
//
// The wrapped source still sees one read at a time (the caller waits for a
// read in flight before reading anything else), in the order of its
// offsets, so its contract holds unchanged; only the moment a read happens
// moves earlier. A prefetched read answers the caller's read of the same
// (from, max) — what it holds is what the source held when it ran, which
// the contract allows (later rows come in later reads) — except an empty
// one, which is read again, since new input may have arrived since. Any
// other read (a re-run epoch reads exactly its logged input) waits for the
// prefetch to finish, drops it, and reads directly.
func Prefetch(src Source) Source { return &prefetching{src: src} }

type prefetching struct {
	src     Source
	mu      sync.Mutex
	pending *prefetched
}

// prefetched is a read in flight (done not closed) or finished.
type prefetched struct {
	from int64
	max  int
	done chan struct{}
	rd   Read
	err  error
}

func (p *prefetching) Read(ctx context.Context, from int64, max int) (Read, error) {
	p.mu.Lock()
	pf := p.pending
	p.pending = nil
	p.mu.Unlock()
	var rd Read
	var err error
	if pf != nil {
		select {
		case <-pf.done:
		case <-ctx.Done():
			p.mu.Lock()
			p.pending = pf // still in flight: keep it for the next read
			p.mu.Unlock()
			return Read{}, ctx.Err()
		}
	}
	if pf != nil && pf.from == from && pf.max == max && pf.err == nil && len(pf.rd.Batches) > 0 {
		rd = pf.rd
	} else {
		if rd, err = p.src.Read(ctx, from, max); err != nil {
			return Read{}, err
		}
	}
	if len(rd.Batches) > 0 {
		next := &prefetched{from: rd.Next, max: max, done: make(chan struct{})}
		p.mu.Lock()
		p.pending = next
		p.mu.Unlock()
		go func() {
			defer close(next.done)
			next.rd, next.err = p.src.Read(context.Background(), next.from, next.max)
		}()
	}
	return rd, nil
}

// Start is the wrapped source's (it may be called from any goroutine).
func (p *prefetching) Start() (int64, error) { return p.src.Start() }
