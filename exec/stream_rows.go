package exec

import (
	"bytes"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// currentRows holds the rows of an update- or complete-mode streaming
// table: one per (window, group), the window being a window start or a
// session id. Rows are kept in segments of segmentRows consecutive groups,
// each with the Arrow batch last built from it, so that publishing an epoch
// rebuilds only the segments the epoch changed: with a million groups and
// a few changed keys per epoch, publication costs the changed segments,
// not the table (it used to sort and rebuild every row each epoch).
type currentRows struct {
	windows map[int64]*windowRows
	n       int // rows present
}

const segmentRows = 4096

type windowRows struct {
	segs []*rowSegment
}

type rowSegment struct {
	rows    [][]expr.Datum // by group - segment start; nil: no row
	present int
	batch   arrow.RecordBatch // built from rows; nil when out of date
}

func newCurrentRows() *currentRows {
	return &currentRows{windows: map[int64]*windowRows{}}
}

func (c *currentRows) len() int { return c.n }

// set makes row the current row of (window, group).
func (c *currentRows) set(window int64, group int, row []expr.Datum) {
	w := c.windows[window]
	if w == nil {
		w = &windowRows{}
		c.windows[window] = w
	}
	si, gi := group/segmentRows, group%segmentRows
	for len(w.segs) <= si {
		w.segs = append(w.segs, nil)
	}
	s := w.segs[si]
	if s == nil {
		s = &rowSegment{}
		w.segs[si] = s
	}
	if len(s.rows) <= gi {
		s.rows = slices.Grow(s.rows, gi+1-len(s.rows))[:gi+1]
	}
	if s.rows[gi] == nil {
		s.present++
		c.n++
	}
	s.rows[gi] = row
	s.batch = nil
}

// get returns the row of (window, group) (nil: none).
func (c *currentRows) get(window int64, group int) []expr.Datum {
	w := c.windows[window]
	if w == nil {
		return nil
	}
	si, gi := group/segmentRows, group%segmentRows
	if si >= len(w.segs) || w.segs[si] == nil || gi >= len(w.segs[si].rows) {
		return nil
	}
	return w.segs[si].rows[gi]
}

// remove drops the row of (window, group), if any.
func (c *currentRows) remove(window int64, group int) {
	w := c.windows[window]
	if w == nil {
		return
	}
	si, gi := group/segmentRows, group%segmentRows
	if si >= len(w.segs) || w.segs[si] == nil || gi >= len(w.segs[si].rows) || w.segs[si].rows[gi] == nil {
		return
	}
	s := w.segs[si]
	s.rows[gi] = nil
	s.present--
	c.n--
	s.batch = nil
	if s.present == 0 {
		w.segs[si] = nil
	}
}

// removeWindow drops every row of a window (a session that merged away).
func (c *currentRows) removeWindow(window int64) {
	w := c.windows[window]
	if w == nil {
		return
	}
	for _, s := range w.segs {
		if s != nil {
			c.n -= s.present
		}
	}
	delete(c.windows, window)
}

// batches returns the table in (window, group) order, rebuilding only the
// segments changed since the last call.
func (c *currentRows) batches(schema *arrow.Schema, cols []planner.Column) []arrow.RecordBatch {
	starts := make([]int64, 0, len(c.windows))
	for s := range c.windows {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	var out []arrow.RecordBatch
	for _, start := range starts {
		for _, s := range c.windows[start].segs {
			if s == nil || s.present == 0 {
				continue
			}
			if s.batch == nil {
				s.batch = s.build(schema, cols)
			}
			out = append(out, s.batch)
		}
	}
	return out
}

func (s *rowSegment) build(schema *arrow.Schema, cols []planner.Column) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(cols))
	for c, col := range cols {
		b := expr.NewBuilder(nil, col.T)
		b.Reserve(s.present)
		for _, r := range s.rows {
			if r != nil {
				expr.AppendDatum(b, r[c])
			}
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(schema, arrs, int64(s.present))
}

// emittedRows is what an update- or complete-mode operator emitted: the
// current output row of each (window, group), which it must retract when
// the group's value changes. Setting or removing a row records the change
// (delete of the previous row, insert of the new one) for the operator's
// next Emit.
type emittedRows struct {
	rows    *currentRows
	cols    []planner.Column
	schema  *arrow.Schema
	changed [][]expr.Datum // since the last changes()
	diff    []int8
}

func newEmittedRows(cols []planner.Column) *emittedRows {
	return &emittedRows{rows: newCurrentRows(), cols: cols, schema: planner.Schema(cols)}
}

// set makes row the output row of (window, group).
func (e *emittedRows) set(window int64, group int, row []expr.Datum) {
	if prev := e.rows.get(window, group); prev != nil {
		if datumsIdentical(prev, row) {
			return // unchanged: no change to emit
		}
		e.changed, e.diff = append(e.changed, prev), append(e.diff, ChangeDelete)
	}
	e.changed, e.diff = append(e.changed, row), append(e.diff, ChangeInsert)
	e.rows.set(window, group, row)
}

// remove drops the output row of (window, group), if any.
func (e *emittedRows) remove(window int64, group int) {
	if prev := e.rows.get(window, group); prev != nil {
		e.changed, e.diff = append(e.changed, prev), append(e.diff, ChangeDelete)
		e.rows.remove(window, group)
	}
}

// removeWindow drops every output row of a window.
func (e *emittedRows) removeWindow(window int64) {
	w := e.rows.windows[window]
	if w == nil {
		return
	}
	for _, s := range w.segs {
		if s == nil {
			continue
		}
		for _, r := range s.rows {
			if r != nil {
				e.changed, e.diff = append(e.changed, r), append(e.diff, ChangeDelete)
			}
		}
	}
	e.rows.removeWindow(window)
}

// changes returns the changes recorded since the last call, as one batch
// (none when nothing changed), and forgets them.
func (e *emittedRows) changes() []ChangeBatch {
	if len(e.changed) == 0 {
		return nil
	}
	arrs := make([]arrow.Array, len(e.cols))
	for c, col := range e.cols {
		b := expr.NewBuilder(nil, col.T)
		b.Reserve(len(e.changed))
		for _, r := range e.changed {
			expr.AppendDatum(b, r[c])
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	out := ChangeBatch{Rows: array.NewRecordBatch(e.schema, arrs, int64(len(e.changed))), Diff: e.diff}
	e.changed, e.diff = nil, nil
	return []ChangeBatch{out}
}

// stateSize estimates the rows' memory.
func (e *emittedRows) stateBytes() int64 {
	return int64(e.rows.len()) * (perOutputRowBytes + int64(len(e.cols))*perOutputColumnBytes)
}

// save returns the rows, each with its window and group, built from the
// segments' cached batches.
func (e *emittedRows) save() []arrow.RecordBatch {
	starts := make([]int64, 0, len(e.rows.windows))
	for s := range e.rows.windows {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	i64 := arrow.PrimitiveTypes.Int64
	fields := append([]arrow.Field{{Name: "window", Type: i64}, {Name: "g", Type: i64}}, e.schema.Fields()...)
	schema := stateSchema(kindRows, nil, fields)
	var rows packer
	for _, start := range starts {
		for si, s := range e.rows.windows[start].segs {
			if s == nil || s.present == 0 {
				continue
			}
			if s.batch == nil {
				s.batch = s.build(e.schema, e.cols)
			}
			groups := make([]int64, 0, s.present)
			for gi, r := range s.rows {
				if r != nil {
					groups = append(groups, int64(si*segmentRows+gi))
				}
			}
			cols := append([]arrow.Array{repeatInt64(start, s.present), int64Array(groups)}, s.batch.Columns()...)
			rows.add(array.NewRecordBatch(schema, cols, int64(s.present)))
		}
	}
	return rows.flush()
}

// load adds the rows of a batch that save returned. Loading records no
// change: the rows were emitted before the snapshot.
func (e *emittedRows) load(b arrow.RecordBatch) error {
	if int(b.NumCols()) != 2+len(e.cols) {
		return corruptSnapshot("table rows of another shape")
	}
	windows, err := int64Column(b, 0)
	if err != nil {
		return err
	}
	groups, err := int64Column(b, 1)
	if err != nil {
		return err
	}
	for i := range groups {
		row := make([]expr.Datum, len(e.cols))
		for c := range row {
			row[c] = expr.DatumAt(b.Column(2+c), i)
		}
		e.rows.set(windows[i], int(groups[i]), row)
	}
	return nil
}

// datumsIdentical reports whether two rows hold the same values (the same
// Go values: a group whose result did not change).
func datumsIdentical(a, b []expr.Datum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !datumIdentical(a[i], b[i]) {
			return false
		}
	}
	return true
}

func datumIdentical(a, b expr.Datum) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) // -0 is not 0 in the output
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []expr.Datum:
		y, ok := b.([]expr.Datum)
		return ok && datumsIdentical(x, y)
	case bool, int64, string, arrow.MonthDayNanoInterval:
		return a == b
	}
	return false
}
