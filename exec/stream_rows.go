package exec

import (
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
