package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// changelogInputColumns is how many columns a change log's rows carry
// after the table's own: _change_type and _commit_version
// (connector/changelog).
const changelogInputColumns = 2

// changesFromLog turns rows read from an update-mode table's change log
// into changes of the table's columns: _change_type 'delete' is a delete,
// anything else an insert. The log's batches are shared; the result's
// columns are theirs, not copies.
func changesFromLog(b arrow.RecordBatch) (ChangeBatch, error) {
	n := int(b.NumCols()) - changelogInputColumns
	if n < 0 {
		return ChangeBatch{}, sqlerr.New(sqlerr.DataCorrupted, "a change log chunk has %d columns", b.NumCols())
	}
	kind, ok := b.Column(n).(interface {
		Value(int) string
		IsNull(int) bool
	})
	if !ok {
		return ChangeBatch{}, sqlerr.New(sqlerr.DataCorrupted, "a change log chunk's _change_type is %s, not text", b.Column(n).DataType())
	}
	rows := int(b.NumRows())
	diff := make([]int8, rows)
	for i := 0; i < rows; i++ {
		diff[i] = ChangeInsert
		if !kind.IsNull(i) && kind.Value(i) == "delete" {
			diff[i] = ChangeDelete
		}
	}
	fields := b.Schema().Fields()[:n]
	return ChangeBatch{Rows: array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns()[:n], b.NumRows()), Diff: diff}, nil
}

// FoldChangeLog is the rows a change log's rows (the table's columns
// then the change columns) leave when applied in order: what a reader
// that consumed the whole log holds.
func FoldChangeLog(cols []planner.Column, log []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	t := newChangelogTable(cols)
	for _, b := range log {
		c, err := changesFromLog(b)
		if err != nil {
			return nil, err
		}
		t.apply([]ChangeBatch{c})
	}
	return t.e.rows.batches(planner.Schema(cols), cols), nil
}

// ConsolidateChanges nets an epoch's changes: an insert and a delete of
// equal rows cancel, so that what is left deletes only rows held before
// the epoch and inserts only rows held after it. A change log is written
// consolidated: its readers' stages may pass a batch's deletes before its
// inserts (StatelessStage), which is right only when no delete in it is of
// a row the same batch inserts.
func ConsolidateChanges(changes []ChangeBatch) []ChangeBatch {
	type pos struct{ batch, row int32 }
	// The deletes by row, then each insert cancels one delete of its row:
	// only deleted rows are keyed (an append-only epoch costs nothing).
	var dels map[string][]pos
	var buf []byte
	for bi, c := range changes {
		if c.Diff == nil {
			continue
		}
		cols := c.Rows.Columns()
		for i, d := range c.Diff {
			if d != ChangeDelete {
				continue
			}
			if dels == nil {
				dels = map[string][]pos{}
			}
			buf = appendRowKey(buf[:0], cols, i)
			dels[string(buf)] = append(dels[string(buf)], pos{int32(bi), int32(i)})
		}
	}
	if len(dels) == 0 {
		return changes
	}
	drop := make([][]bool, len(changes))
	mark := func(p pos) {
		if drop[p.batch] == nil {
			drop[p.batch] = make([]bool, changes[p.batch].Rows.NumRows())
		}
		drop[p.batch][p.row] = true
	}
	cancelled := false
	for bi, c := range changes {
		cols := c.Rows.Columns()
		for i := 0; i < int(c.Rows.NumRows()); i++ {
			if c.Diff != nil && c.Diff[i] == ChangeDelete {
				continue
			}
			buf = appendRowKey(buf[:0], cols, i)
			ps, ok := dels[string(buf)]
			if !ok || len(ps) == 0 {
				continue
			}
			mark(ps[len(ps)-1])
			mark(pos{int32(bi), int32(i)})
			dels[string(buf)] = ps[:len(ps)-1]
			cancelled = true
		}
	}
	if !cancelled {
		return changes
	}
	out := make([]ChangeBatch, 0, len(changes))
	for bi, c := range changes {
		if drop[bi] == nil {
			out = append(out, c)
			continue
		}
		var keep []int32
		var diff []int8
		for i := 0; i < int(c.Rows.NumRows()); i++ {
			if !drop[bi][i] {
				keep = append(keep, int32(i))
				d := ChangeInsert
				if c.Diff != nil {
					d = c.Diff[i]
				}
				diff = append(diff, d)
			}
		}
		if len(keep) == 0 {
			continue
		}
		out = append(out, ChangeBatch{Rows: takeBatch(memory.DefaultAllocator, c.Rows.Schema(), c.Rows, keep), Diff: diff})
	}
	return out
}
