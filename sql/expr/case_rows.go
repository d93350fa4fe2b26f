package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// What CASE needs to hand each branch only its rows cheaply: the columns
// a branch reads (the others are not copied into the branch's batch),
// and appending a branch's result to the output without boxing a Datum
// per row.

// columnsRead marks in used the input columns e reads; it returns false
// when e holds a node whose reads it cannot tell (a subquery, which sees
// the whole row as its outer row), and then every column must be kept.
func columnsRead(e Expr, used []bool) bool {
	switch x := e.(type) {
	case nil:
		return true
	case *ColumnRef:
		if x.Index < 0 || x.Index >= len(used) {
			return false
		}
		used[x.Index] = true
		return true
	case *Const, *Param, *OuterRef:
		return true
	case *FuncCall:
		return allRead(x.Args, used)
	case *Cast:
		return columnsRead(x.Arg, used)
	case *BoolOp:
		return allRead(x.Args, used)
	case *Not:
		return columnsRead(x.Arg, used)
	case *IsNull:
		return columnsRead(x.Arg, used)
	case *BoolTest:
		return columnsRead(x.Arg, used)
	case *Coalesce:
		return allRead(x.Args, used)
	case *InList:
		return columnsRead(x.Arg, used) && allRead(x.List, used)
	case *Case:
		return allRead(x.Whens, used) && allRead(x.Thens, used) && columnsRead(x.Else, used)
	case *DistinctFrom:
		return columnsRead(x.Left, used) && columnsRead(x.Right, used)
	case *ArrayCompare:
		return columnsRead(x.Left, used) && columnsRead(x.Array, used)
	case *ArraySubscript:
		return columnsRead(x.Array, used) && columnsRead(x.Index, used)
	case *ArrayConstructor:
		return allRead(x.Elems, used)
	}
	return false
}

func allRead(es []Expr, used []bool) bool {
	for _, e := range es {
		if !columnsRead(e, used) {
			return false
		}
	}
	return true
}

// takeRowsOf is TakeRows copying only the columns marked in used (nil:
// all); the others become all-NULL columns of their type, which the
// branch never reads.
func takeRowsOf(in arrow.RecordBatch, idx []int, used []bool) arrow.RecordBatch {
	if used == nil {
		return TakeRows(in, idx)
	}
	cols := make([]arrow.Array, in.NumCols())
	for c := range cols {
		if used[c] {
			cols[c] = TakeArray(in.Column(c), idx)
		} else {
			cols[c] = array.MakeArrayOfNull(defaultMem(), in.Column(c).DataType(), len(idx))
		}
	}
	return array.NewRecordBatch(in.Schema(), cols, int64(len(idx)))
}

// appendValueAt appends element j of src to b (src of b's type): the
// common column types by a typed copy, others through a Datum.
func appendValueAt(b array.Builder, src arrow.Array, j int) {
	if src.IsNull(j) {
		b.AppendNull()
		return
	}
	switch s := src.(type) {
	case *array.String:
		if bb, ok := b.(*array.StringBuilder); ok {
			bb.Append(s.Value(j))
			return
		}
	case *array.Int64:
		if bb, ok := b.(*array.Int64Builder); ok {
			bb.Append(s.Value(j))
			return
		}
	case *array.Int32:
		if bb, ok := b.(*array.Int32Builder); ok {
			bb.Append(s.Value(j))
			return
		}
	case *array.Float64:
		if bb, ok := b.(*array.Float64Builder); ok {
			bb.Append(s.Value(j))
			return
		}
	case *array.Boolean:
		if bb, ok := b.(*array.BooleanBuilder); ok {
			bb.Append(s.Value(j))
			return
		}
	case *array.Timestamp:
		if bb, ok := b.(*array.TimestampBuilder); ok {
			bb.Append(s.Value(j))
			return
		}
	case *array.Date32:
		if bb, ok := b.(*array.Date32Builder); ok {
			bb.Append(s.Value(j))
			return
		}
	}
	AppendDatum(b, DatumAt(src, j))
}
