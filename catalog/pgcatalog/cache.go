package pgcatalog

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
)

// The catalogs that clients join most (pg_class and pg_attribute above
// all: pgjdbc's getImportedKeys reads each twice or three times) list
// every relation, and with 1,000 tables building them took most of a
// catalog query's time. Their rows depend on weir's catalog alone, not on
// the session, so they are built once per catalog version and shared.
var catalogOnly = map[string]bool{
	"pg_class": true, "pg_attribute": true, "pg_index": true, "pg_constraint": true,
	"pg_attrdef": true, "pg_namespace": true, "pg_type": true,
}

type cachedRows struct {
	cat     *catalog.Catalog
	version uint64
	batch   arrow.RecordBatch
}

var (
	rowCacheMu sync.Mutex
	rowCache   = map[uint32]cachedRows{}
)

// CachedRows is t.Rows(snapshot()), from a cache for the relations that
// depend on the catalog cat only (those get a snapshot of cat alone, not
// the session's). The caller owns one reference to the batch.
func CachedRows(t *Table, cat *catalog.Catalog, snapshot func() *Snapshot) (arrow.RecordBatch, error) {
	if cat == nil || t.Schema != "pg_catalog" || !catalogOnly[t.Name] {
		return t.Rows(snapshot())
	}
	// Read the version before the rows: a change committed meanwhile
	// bumps it after the rows changed, so these rows are never cached
	// under a version newer than what they show.
	v := cat.Version()
	rowCacheMu.Lock()
	c, ok := rowCache[t.OID]
	rowCacheMu.Unlock()
	if ok && c.cat == cat && c.version == v {
		c.batch.Retain()
		return c.batch, nil
	}
	// The rows of these relations depend on the catalog alone (and on the
	// engine relations, which never change), not on the session.
	b, err := t.Rows(snapshot())
	if err != nil {
		return nil, err
	}
	b.Retain() // the cache's reference
	rowCacheMu.Lock()
	old, had := rowCache[t.OID]
	rowCache[t.OID] = cachedRows{cat: cat, version: v, batch: b}
	rowCacheMu.Unlock()
	if had {
		old.batch.Release()
	}
	return b, nil
}
