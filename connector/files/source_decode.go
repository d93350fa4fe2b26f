package files

import (
	"os"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// The decoded files a Source holds: the file it is serving, and the next
// few decoded ahead, concurrently (two at a time: the decoding can use the
// second core while the table's operators use the first). A decode is
// keyed by the file's path, size, modification time and the schema
// version, so a file that changed is never served from an older decode.

const (
	cachedFiles    = 4 // decodes kept (done or running)
	decodeParallel = 2 // decodes running at once
)

type decodeKey struct {
	path    string
	size    int64
	mtime   int64
	version int
}

type decoded struct {
	done    chan struct{}
	batches []arrow.RecordBatch
	stats   DecodeStats
	err     error
	// statErr: the file could not be looked at (vanished, ...);
	// changed: it is not (or was not throughout the decode) the size and
	// modification time it was asked for. Either way batches are not its.
	statErr error
	changed bool
}

// ok reports whether the decode is of the file asked for.
func (d *decoded) ok() bool { return d.statErr == nil && !d.changed }

type decodeCache struct {
	cfg   config
	sem   chan struct{}
	mu    sync.Mutex
	items map[decodeKey]*decoded
	order []decodeKey // oldest use first
}

func newDecodeCache(cfg config) *decodeCache {
	return &decodeCache{cfg: cfg, sem: make(chan struct{}, decodeParallel), items: map[decodeKey]*decoded{}}
}

// get returns the decode of f under schema sc, starting it if needed.
func (c *decodeCache) get(f FileInfo, o Options, sc Schema) *decoded {
	k := decodeKey{f.Path, f.Size, f.Modified.UnixNano(), sc.Version}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.items[k]; ok {
		c.touch(k)
		return d
	}
	d := &decoded{done: make(chan struct{})}
	c.items[k] = d
	c.order = append(c.order, k)
	for len(c.order) > cachedFiles {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
	go func() {
		c.sem <- struct{}{}
		defer func() { <-c.sem }()
		defer close(d.done)
		defer func() {
			// A decoder bug must not take the server down with it.
			if r := recover(); r != nil {
				d.batches, d.err = nil, sqlerr.New(sqlerr.InternalError, "decoding %s failed: %v", f.Path, r)
			}
		}()
		d.batches, d.stats, d.err = c.cfg.decode(f, o, sc, c.cfg.batchRows)
		// Looked at after the decode (one stat a file): a file changed
		// before or during it is not f any more.
		if d.changed, d.statErr = sameFile(f); !d.ok() {
			d.batches, d.stats, d.err = nil, DecodeStats{}, nil
		}
	}()
	return d
}

// drop forgets a decode (it failed, or its file changed).
func (c *decodeCache) drop(f FileInfo, sc Schema) {
	k := decodeKey{f.Path, f.Size, f.Modified.UnixNano(), sc.Version}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.items, k)
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

func (c *decodeCache) touch(k decodeKey) {
	for i, o := range c.order {
		if o == k {
			copy(c.order[i:], c.order[i+1:])
			c.order[len(c.order)-1] = k
			return
		}
	}
}

// sameFile looks at f's path again: is it still f?
func sameFile(f FileInfo) (changed bool, err error) {
	fi, err := os.Stat(f.Path)
	if err != nil {
		return false, err
	}
	return fi.Size() != f.Size || !fi.ModTime().Equal(f.Modified), nil
}
