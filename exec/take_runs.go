package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherArrays builds one array of element rows[k] of arrs[from[k]] for
// each k: how a merge assembles its output from the batches of several
// runs in one typed loop per column instead of one builder call per
// value. All arrays share one Arrow type.
func gatherArrays(mem memory.Allocator, dt arrow.DataType, arrs []arrow.Array, from, rows []int32) arrow.Array {
	n := len(rows)
	nulls := false
	for _, a := range arrs {
		if a.NullN() > 0 {
			nulls = true
			break
		}
	}
	switch dt.ID() {
	case arrow.INT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.DATE64, arrow.TIME64:
		// Eight-byte values: copied as uint64 words straight into the
		// output buffer, without a builder call per value.
		vals := make([][]uint64, len(arrs))
		for i, a := range arrs {
			d := a.Data()
			if d.Len() == 0 {
				continue
			}
			vals[i] = arrow.Uint64Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
		}
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(n * 8)
		out := arrow.Uint64Traits.CastFromBytes(buf.Bytes())
		for k, r := range rows {
			out[k] = vals[from[k]][r]
		}
		var bitmap *memory.Buffer
		nullCount := 0
		if nulls {
			bitmap = memory.NewResizableBuffer(mem)
			bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
			bits := bitmap.Bytes()
			clear(bits)
			for k, r := range rows {
				if arrs[from[k]].IsValid(int(r)) {
					bitutil.SetBit(bits, k)
				} else {
					nullCount++
				}
			}
		}
		d := array.NewData(dt, n, []*memory.Buffer{bitmap, buf}, nil, nullCount, 0)
		buf.Release()
		if bitmap != nil {
			bitmap.Release()
		}
		defer d.Release()
		return array.MakeFromData(d)
	case arrow.INT32:
		vals := make([][]int32, len(arrs))
		for i, a := range arrs {
			vals[i] = a.(*array.Int32).Int32Values()
		}
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for k, r := range rows {
			src := from[k]
			if nulls && arrs[src].IsNull(int(r)) {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			b.UnsafeAppend(vals[src][r])
		}
		return b.NewArray()
	case arrow.STRING:
		strs := make([]*array.String, len(arrs))
		size := 0
		for i, a := range arrs {
			strs[i] = a.(*array.String)
			if offs := strs[i].ValueOffsets(); len(offs) > 1 {
				size += int(offs[len(offs)-1] - offs[0])
			}
		}
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		// The gathered bytes are at most all the batches' bytes; a
		// generous reservation avoids regrowing, an exact one would need
		// a pass of its own.
		b.ReserveData(min(size, n*64))
		for k, r := range rows {
			s := strs[from[k]]
			if nulls && s.IsNull(int(r)) {
				b.AppendNull()
				continue
			}
			b.Append(s.Value(int(r)))
		}
		return b.NewArray()
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(n)
	for k, r := range rows {
		appendValue(b, arrs[from[k]], int(r))
	}
	return b.NewArray()
}

// gatherBatch is takeBatch through gatherArrays' typed loops: rows idx of
// in, all valid positions.
func gatherBatch(mem memory.Allocator, schema *arrow.Schema, in arrow.RecordBatch, idx []int32) arrow.RecordBatch {
	from := make([]int32, len(idx))
	cols := make([]arrow.Array, in.NumCols())
	for c := range cols {
		cols[c] = gatherArrays(mem, schema.Field(c).Type, []arrow.Array{in.Column(c)}, from, idx)
	}
	return array.NewRecordBatch(schema, cols, int64(len(idx)))
}
