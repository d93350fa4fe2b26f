package exec

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Helpers the stream operators share: the tagging of state batches (each
// operator's SaveState says what a batch holds in its schema metadata, so
// a snapshot is a flat list of chunks), their packing, the projection of
// HAVING and the output expressions, and the state's size estimates.

const (
	stateKind       = "weir.state"
	kindWindows     = "windows" // one row per window: start, close, first epoch, groups
	kindWindow      = "window"  // the windows' groups, in the same order
	kindRows        = "rows"
	kindSessions    = "sessions"
	kindSessionRows = "session_rows"
	kindDedup       = "dedup"
)

// stateKindOf is what a state batch holds.
func stateKindOf(b arrow.RecordBatch) string {
	kind, _ := b.Schema().Metadata().GetValue(stateKind)
	return kind
}

func stateSchema(kind string, meta map[string]int64, fields []arrow.Field) *arrow.Schema {
	keys := []string{stateKind}
	vals := []string{kind}
	for k, v := range meta {
		keys = append(keys, k)
		vals = append(vals, strconv.FormatInt(v, 10))
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

func metaInt(s *arrow.Schema, key string) (int64, error) {
	v, ok := s.Metadata().GetValue(key)
	if !ok {
		return 0, corruptSnapshot("missing " + key)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, corruptSnapshot("bad " + key)
	}
	return n, nil
}

func corruptSnapshot(what string) error {
	return sqlerr.New(sqlerr.DataCorrupted, "unreadable state snapshot of a streaming table: %s", what)
}

func unknownStatePart(b arrow.RecordBatch) error {
	return corruptSnapshot("unknown part " + strconv.Quote(stateKindOf(b)))
}

func int64Array(vals []int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

func repeatInt64(v int64, n int) arrow.Array {
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = v
	}
	return int64Array(vals)
}

func int64Column(b arrow.RecordBatch, c int) ([]int64, error) {
	arr, ok := b.Column(c).(*array.Int64)
	if !ok {
		return nil, corruptSnapshot("column " + b.Schema().Field(c).Name + " of another type")
	}
	return arr.Int64Values(), nil
}

func batchRows(bs []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range bs {
		n += b.NumRows()
	}
	return n
}

// packer concatenates batches of one schema into batches of about
// packRows rows, so that a state of many small windows is a few chunks,
// not one per window (each chunk repeats its schema).
type packer struct {
	pending []arrow.RecordBatch
	rows    int64
	out     []arrow.RecordBatch
}

const packRows = 65536

func (p *packer) add(b arrow.RecordBatch) {
	if len(p.pending) > 0 && !p.pending[0].Schema().Equal(b.Schema()) {
		p.pack()
	}
	p.pending = append(p.pending, b)
	p.rows += b.NumRows()
	if p.rows >= packRows {
		p.pack()
	}
}

func (p *packer) pack() {
	switch len(p.pending) {
	case 0:
	case 1:
		p.out = append(p.out, p.pending[0])
	default:
		schema := p.pending[0].Schema()
		cols := make([]arrow.Array, schema.NumFields())
		for c := range cols {
			parts := make([]arrow.Array, len(p.pending))
			for i, b := range p.pending {
				parts[i] = b.Column(c)
			}
			arr, err := array.Concatenate(parts, memory.DefaultAllocator)
			if err != nil {
				// Same schema, so concatenation cannot fail; keep the
				// pieces if it does.
				p.out = append(p.out, p.pending...)
				p.pending, p.rows = nil, 0
				return
			}
			cols[c] = arr
		}
		p.out = append(p.out, array.NewRecordBatch(schema, cols, p.rows))
	}
	p.pending, p.rows = nil, 0
}

func (p *packer) flush() []arrow.RecordBatch {
	p.pack()
	return p.out
}

// streamProjection is the stateless part above a stateful operator:
// HAVING and the table's output expressions.
type streamProjection struct {
	having expr.Expr // nil: none
	output []expr.Expr
	cols   []planner.Column
	schema *arrow.Schema
}

func newStreamProjection(having expr.Expr, output []expr.Expr, cols []planner.Column) *streamProjection {
	return &streamProjection{having: having, output: output, cols: cols, schema: planner.Schema(cols)}
}

// project evaluates HAVING and the output expressions over rows; keep, if
// not nil, receives for each output row the index of its input row.
func (p *streamProjection) project(ectx *expr.Ctx, b arrow.RecordBatch, keep *[]int) (arrow.RecordBatch, error) {
	if p.having != nil {
		arr, err := p.having.Eval(ectx, b)
		if err != nil {
			return nil, err
		}
		pred := arr.(*array.Boolean)
		var idx []int
		for i := 0; i < pred.Len(); i++ {
			if !pred.IsNull(i) && pred.Value(i) {
				idx = append(idx, i)
			}
		}
		if keep != nil {
			*keep = idx
		}
		if len(idx) != int(b.NumRows()) {
			b = expr.TakeRows(b, idx)
		}
	} else if keep != nil {
		*keep = nil
		for i := 0; i < int(b.NumRows()); i++ {
			*keep = append(*keep, i)
		}
	}
	cols, err := evalAll(ectx, p.output, b)
	if err != nil {
		return nil, err
	}
	return array.NewRecordBatch(p.schema, cols, b.NumRows()), nil
}

// rowDatums returns row r of b as values.
func rowDatums(b arrow.RecordBatch, r int) []expr.Datum {
	row := make([]expr.Datum, b.NumCols())
	for c := range row {
		row[c] = expr.DatumAt(b.Column(c), r)
	}
	return row
}

// Per-group memory of the aggregation state besides the key values, as
// measured with the Go heap profiler (weirbench -profile): the hash table's
// hash and slots, the stored key columns, the key's slice header, the dirty
// flag, and about 40 bytes of accumulator state per aggregate.
const (
	groupOverheadBytes   = 56
	perKeyColumnBytes    = 33
	perAggregateBytes    = 40
	perOutputRowBytes    = 64 // update mode: the table's row map entry and slice
	perOutputColumnBytes = 16
)

func datumBytes(d expr.Datum) int64 {
	switch v := d.(type) {
	case string:
		return int64(len(v)) + 16
	case []byte:
		return int64(len(v)) + 24
	case nil:
		return 1
	}
	return 8
}
