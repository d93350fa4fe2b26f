package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// changelogTable is an update-mode table's current rows when its plan's
// root emits a changelog of whole rows (a stream tree: a Top-N outside
// windows): an insert adds a row, a delete removes one equal row. The rows
// live in an emittedRows (window 0, one group number per row), which the
// job publishes and snapshots like an aggregation's.
type changelogTable struct {
	e    *emittedRows
	ids  map[string][]int // row's key → the groups holding an equal row
	free []int
	next int
	// owed counts deletes of rows not held yet: an epoch's changes are a
	// multiset, whose delete of a row may come before its insert (a
	// stateless stage passes deletes first); the insert then cancels it.
	owed map[string]int
}

func newChangelogTable(cols []planner.Column) *changelogTable {
	return &changelogTable{e: newEmittedRows(cols), ids: map[string][]int{}, owed: map[string]int{}}
}

// apply applies changes in order. A row is known by its values' key
// (appendRowKey, built from the columns without boxing); only the rows
// inserted are boxed, for the emittedRows that hold them.
func (t *changelogTable) apply(changes []ChangeBatch) {
	var buf []byte
	for _, c := range changes {
		b := c.Rows
		cols := b.Columns()
		for i := 0; i < int(b.NumRows()); i++ {
			buf = appendRowKey(buf[:0], cols, i)
			key := string(buf)
			if c.Diff != nil && c.Diff[i] == ChangeDelete {
				gs := t.ids[key]
				if len(gs) == 0 {
					t.owed[key]++ // its insert comes later in the epoch
					continue
				}
				g := gs[len(gs)-1]
				if len(gs) == 1 {
					delete(t.ids, key)
				} else {
					t.ids[key] = gs[:len(gs)-1]
				}
				t.e.rows.remove(0, g)
				t.free = append(t.free, g)
				continue
			}
			if t.owed[key] > 0 {
				if t.owed[key]--; t.owed[key] == 0 {
					delete(t.owed, key)
				}
				continue
			}
			row := make([]expr.Datum, len(cols))
			for k := range row {
				row[k] = expr.DatumAt(cols[k], i)
			}
			g := t.next
			if n := len(t.free); n > 0 {
				g, t.free = t.free[n-1], t.free[:n-1]
			} else {
				t.next++
			}
			t.e.rows.set(0, g, row)
			t.ids[key] = append(t.ids[key], g)
		}
	}
}

// save returns the rows (emittedRows' snapshot layout).
func (t *changelogTable) save() []arrow.RecordBatch { return t.e.save() }

// load adds saved rows.
func (t *changelogTable) load(b arrow.RecordBatch) error {
	groups, err := int64Column(b, 1)
	if err != nil {
		return err
	}
	if err := t.e.load(b); err != nil {
		return err
	}
	vals := b.Columns()[2:]
	var buf []byte
	for i, g := range groups {
		if t.e.rows.get(0, int(g)) == nil {
			continue
		}
		buf = appendRowKey(buf[:0], vals, i)
		key := string(buf)
		t.ids[key] = append(t.ids[key], int(g))
		t.next = max(t.next, int(g)+1)
	}
	// Group numbers below next that hold no row are free again.
	held := map[int]bool{}
	for _, gs := range t.ids {
		for _, g := range gs {
			held[g] = true
		}
	}
	t.free = t.free[:0]
	for g := 0; g < t.next; g++ {
		if !held[g] {
			t.free = append(t.free, g)
		}
	}
	return nil
}
