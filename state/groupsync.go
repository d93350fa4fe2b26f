package state

import "sync"

// groupSyncer shares one fsync among concurrent committers. Each committer
// takes a ticket after its write reached Badger (written) and waits until a
// sync that started after that ticket has finished (wait). A sync started
// when the written count was W makes every ticket <= W durable.
type groupSyncer struct {
	mu      sync.Mutex
	cond    sync.Cond
	tickets uint64 // writes that have returned from Badger
	synced  uint64 // every ticket <= synced is durable
	syncing bool
	sync    func() error
}

func (g *groupSyncer) init(sync func() error) {
	g.cond.L = &g.mu
	g.sync = sync
}

func (g *groupSyncer) written() uint64 {
	g.mu.Lock()
	g.tickets++
	t := g.tickets
	g.mu.Unlock()
	return t
}

func (g *groupSyncer) wait(ticket uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.synced < ticket {
		if g.syncing {
			g.cond.Wait()
			continue
		}
		g.syncing = true
		target := g.tickets
		g.mu.Unlock()
		err := g.sync()
		g.mu.Lock()
		g.syncing = false
		if err == nil && target > g.synced {
			g.synced = target
		}
		g.cond.Broadcast()
		if err != nil {
			return err
		}
	}
	return nil
}
