// Package tablelog is the first connector.Source: the log of an input
// table (or of an append-mode streaming table's stored rows), the
// columnar chunks the state store keeps for it in append order. It owns
// input retention too (retention.go): removing a prefix of the log,
// remembered so that offsets keep their meaning.
package tablelog

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// Logs is the table logs of one store. Its lock keeps retention's trims
// from falling between a source's reading of a log's trim count and of
// its chunks, which would shift the chunks under the offsets.
type Logs struct {
	store  *state.Store
	trimMu sync.RWMutex
}

// New returns the table logs of st.
func New(st *state.Store) *Logs { return &Logs{store: st} }

// Source is the log of relation rel as a connector.Source. An offset is
// the number of chunks appended to rel before it (retention's trims
// included), so that offset n is rel's n-th chunk ever.
type Source struct {
	logs   *Logs
	rel    uint32
	schema *arrow.Schema
}

var _ connector.Source = (*Source)(nil)

// Source returns the log of rel, whose rows have the given schema.
func (l *Logs) Source(rel uint32, schema *arrow.Schema) *Source {
	return &Source{logs: l, rel: rel, schema: schema}
}

// Read returns rel's chunks from offset from on (see connector.Source).
// The chunks come from the store's table cache: they are shared, and
// reading the backlog's row counts costs no decoding.
func (s *Source) Read(_ context.Context, from int64, limit int) (connector.Read, error) {
	s.logs.trimMu.RLock()
	defer s.logs.trimMu.RUnlock()
	trimmed, err := s.logs.Trimmed(s.rel)
	if err != nil {
		return connector.Read{}, err
	}
	n, err := s.logs.store.ChunkCount(s.rel)
	if err != nil {
		return connector.Read{}, err
	}
	skip := min(max(from-trimmed, 0), int64(n))
	batches, err := s.logs.store.ScanTableFrom(s.rel, s.schema, int(skip))
	if err != nil {
		return connector.Read{}, err
	}
	take := len(batches)
	if limit > 0 && take > limit {
		take = limit
	}
	rd := connector.Read{Batches: batches[:take], From: trimmed + skip}
	rd.Next = rd.From + int64(take)
	for _, b := range batches[take:] {
		rd.Backlog += b.NumRows()
	}
	return rd, nil
}

// Start is the first offset the log still holds: how many chunks
// retention removed.
func (s *Source) Start() (int64, error) { return s.logs.Trimmed(s.rel) }
