package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/expr"
)

// appendValue appends element i of arr to b (same Arrow type).
func appendValue(b array.Builder, arr arrow.Array, i int) {
	if arr.IsNull(i) {
		b.AppendNull()
		return
	}
	switch a := arr.(type) {
	case *array.Int64:
		b.(*array.Int64Builder).Append(a.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(a.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(a.Value(i))
	case *array.String:
		b.(*array.StringBuilder).Append(a.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(a.Value(i))
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(a.Value(i))
	default:
		expr.AppendDatum(b, expr.DatumAt(arr, i))
	}
}

// takeArray gathers elements idx of arr; a negative index gives NULL.
func takeArray(mem memory.Allocator, arr arrow.Array, idx []int32) arrow.Array {
	b := array.NewBuilder(mem, arr.DataType())
	defer b.Release()
	b.Reserve(len(idx))
	switch a := arr.(type) {
	case *array.Int64:
		bb := b.(*array.Int64Builder)
		vals := a.Int64Values()
		for _, i := range idx {
			if i < 0 || a.IsNull(int(i)) {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(vals[i])
			}
		}
	case *array.Int32:
		bb := b.(*array.Int32Builder)
		vals := a.Int32Values()
		for _, i := range idx {
			if i < 0 || a.IsNull(int(i)) {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(vals[i])
			}
		}
	case *array.Float64:
		bb := b.(*array.Float64Builder)
		vals := a.Float64Values()
		for _, i := range idx {
			if i < 0 || a.IsNull(int(i)) {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(vals[i])
			}
		}
	case *array.Timestamp:
		bb := b.(*array.TimestampBuilder)
		vals := a.TimestampValues()
		for _, i := range idx {
			if i < 0 || a.IsNull(int(i)) {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(vals[i])
			}
		}
	case *array.String:
		bb := b.(*array.StringBuilder)
		for _, i := range idx {
			if i < 0 || a.IsNull(int(i)) {
				bb.AppendNull()
			} else {
				bb.Append(a.Value(int(i)))
			}
		}
	default:
		for _, i := range idx {
			if i < 0 {
				b.AppendNull()
			} else {
				appendValue(b, arr, int(i))
			}
		}
	}
	return b.NewArray()
}

// takeBatch gathers rows idx of in into a batch with the given schema.
func takeBatch(mem memory.Allocator, schema *arrow.Schema, in arrow.RecordBatch, idx []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, in.NumCols())
	for c := range cols {
		cols[c] = takeArray(mem, in.Column(c), idx)
	}
	return array.NewRecordBatch(schema, cols, int64(len(idx)))
}

// concatBatches joins batches of one schema into a single batch.
func concatBatches(mem memory.Allocator, schema *arrow.Schema, batches []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(batches) == 1 && batches[0].Schema().Equal(schema) {
		batches[0].Retain()
		return batches[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	var rows int64
	for _, b := range batches {
		rows += b.NumRows()
	}
	for c := range cols {
		if len(batches) == 0 {
			cols[c] = emptyArray(schema.Field(c).Type)
			continue
		}
		parts := make([]arrow.Array, len(batches))
		for i, b := range batches {
			parts[i] = b.Column(c)
		}
		arr, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, err
		}
		cols[c] = arr
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// sliceBatches cuts a batch into batches of at most BatchSize rows.
func sliceBatches(b arrow.RecordBatch) []arrow.RecordBatch {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	if n <= BatchSize {
		return []arrow.RecordBatch{b}
	}
	var out []arrow.RecordBatch
	for s := int64(0); s < n; s += BatchSize {
		e := min(s+BatchSize, n)
		out = append(out, b.NewSlice(s, e))
	}
	return out
}

// withSchema relabels a batch's columns with the operator's schema.
func withSchema(schema *arrow.Schema, b arrow.RecordBatch) arrow.RecordBatch {
	if b.Schema().Equal(schema) {
		return b
	}
	return array.NewRecordBatch(schema, b.Columns(), b.NumRows())
}

// oneRow is a batch of one row and no columns, to evaluate constant
// expressions.
func oneRow() arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
}

// evalAll evaluates exprs over in.
func evalAll(ctx *expr.Ctx, exprs []expr.Expr, in arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		a, err := e.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// queue is a FIFO of output batches shared by operators that produce
// several batches at once.
type queue struct{ batches []arrow.RecordBatch }

func (q *queue) push(bs ...arrow.RecordBatch) {
	for _, b := range bs {
		if b != nil && b.NumRows() > 0 {
			q.batches = append(q.batches, b)
		}
	}
}

func (q *queue) pop() arrow.RecordBatch {
	if len(q.batches) == 0 {
		return nil
	}
	b := q.batches[0]
	q.batches[0] = nil
	q.batches = q.batches[1:]
	return b
}
