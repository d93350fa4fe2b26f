package exec

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// eventsShape is the columns of a files source of events: an id, a type,
// an amount, the event time and the hidden _metadata struct.
func eventsShape() []planner.Column {
	meta := types.StructOf([]types.StructField{
		{Name: "file_path", Type: types.Text},
		{Name: "file_name", Type: types.Text},
		{Name: "file_size", Type: types.Int8},
		{Name: "file_modification_time", Type: types.TimestampTZ},
	})
	return []planner.Column{
		{Name: "event_id", T: types.Int8},
		{Name: "event_type", T: types.Text},
		{Name: "amount", T: types.Float8},
		{Name: "event_time", T: types.TimestampTZ},
		{Name: "_metadata", T: meta},
	}
}

const eventTimeCol = 3

// eventsBatch is n random rows of eventsShape, event times within an hour
// from a negative and a positive epoch; with nullTimes, some times are NULL.
func eventsBatch(r *rand.Rand, n int, nullTimes bool) arrow.RecordBatch {
	cols := eventsShape()
	base := []int64{-86_400_000_000 * 3, 1_700_000_000_000_000}[r.Intn(2)]
	arrs := make([]arrow.Array, len(cols))
	for c, col := range cols {
		b := expr.NewBuilder(memory.DefaultAllocator, col.T)
		for i := 0; i < n; i++ {
			var d expr.Datum
			switch c {
			case 0:
				d = int64(i)
			case 1:
				d = []string{"click", "view", "purchase"}[r.Intn(3)]
			case 2:
				d = float64(r.Intn(10000)) / 100
			case eventTimeCol:
				d = base + r.Int63n(3_600_000_000)
			case 4:
				d = []expr.Datum{"/in/events/part-0001.json", "part-0001.json", int64(1 << 20), int64(1_700_000_000_000_000)}
			}
			if r.Intn(10) == 0 && (c != eventTimeCol || nullTimes) {
				d = nil
			}
			expr.AppendDatum(b, d)
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(planner.Schema(cols), arrs, int64(n))
}

// sliceBatch is rows [lo, hi) of b as arrays with an offset.
func sliceBatch(b arrow.RecordBatch, lo, hi int) arrow.RecordBatch {
	cols := make([]arrow.Array, b.NumCols())
	for c := range cols {
		cols[c] = array.NewSlice(b.Column(c), int64(lo), int64(hi))
	}
	return array.NewRecordBatch(b.Schema(), cols, int64(hi-lo))
}

func newWindowAssign(kind planner.WindowKind, size, slide, offset int64) *windowAssignOp {
	in := eventsShape()
	p := &planner.WindowAssign{
		Kind: kind, Size: size, Slide: slide, Offset: offset,
		Time: &expr.ColumnRef{Index: eventTimeCol, T: types.TimestampTZ, Name: "event_time"},
		Cols: append(append([]planner.Column{}, in...),
			planner.Column{Name: "window_start", T: types.TimestampTZ},
			planner.Column{Name: "window_end", T: types.TimestampTZ}),
	}
	return &windowAssignOp{env: &Env{}, plan: p, schema: planner.Schema(p.Cols)}
}

// floorDiv is a/b rounded towards minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// expectWindows is the output of window assignment over in computed row
// by row from the definition: each row with a time, once per window
// [s, s+size) with s = offset + k*slide that holds it, in input order.
func expectWindows(in arrow.RecordBatch, size, slide, offset int64) [][]expr.Datum {
	var rows [][]expr.Datum
	ts := in.Column(eventTimeCol)
	for i := 0; i < int(in.NumRows()); i++ {
		d := expr.DatumAt(ts, i)
		if d == nil {
			continue
		}
		t := d.(int64)
		for k := floorDiv(t-offset-size, slide) + 1; k*slide+offset <= t; k++ {
			s := k*slide + offset
			row := make([]expr.Datum, 0, in.NumCols()+2)
			for c := 0; c < int(in.NumCols()); c++ {
				row = append(row, expr.DatumAt(in.Column(c), i))
			}
			rows = append(rows, append(row, s, s+size))
		}
	}
	return rows
}

// TestWindowAssignPassThrough: the tumbling window's shared columns, the
// copying path (NULL event times, hopping windows) and the definition
// agree, over random batches sliced to an offset.
func TestWindowAssignPassThrough(t *testing.T) {
	const min = 60_000_000
	cases := []struct {
		name                string
		kind                planner.WindowKind
		size, slide, offset int64
	}{
		{"tumbling 5m", planner.TumblingWindow, 5 * min, 0, 0},
		{"tumbling 7m offset 2m", planner.TumblingWindow, 7 * min, 0, 2 * min},
		{"hopping 10m by 10m", planner.HoppingWindow, 10 * min, 10 * min, 3 * min},
		{"hopping 12m by 3m", planner.HoppingWindow, 12 * min, 3 * min, min},
	}
	r := rand.New(rand.NewSource(5))
	for _, tc := range cases {
		w := newWindowAssign(tc.kind, tc.size, tc.slide, tc.offset)
		slide := tc.slide
		if slide == 0 {
			slide = tc.size
		}
		for trial := 0; trial < 30; trial++ {
			full := eventsBatch(r, 1+r.Intn(300), trial%3 == 0)
			lo := r.Intn(int(full.NumRows()))
			in := sliceBatch(full, lo, lo+r.Intn(int(full.NumRows())-lo+1))
			out, err := w.assign(in)
			if err != nil {
				t.Fatal(err)
			}
			want := expectWindows(in, tc.size, slide, tc.offset)
			if int(out.NumRows()) != len(want) {
				t.Fatalf("%s: %d rows, want %d", tc.name, out.NumRows(), len(want))
			}
			for k, row := range want {
				for c, wd := range row {
					if got := expr.DatumAt(out.Column(c), k); !reflect.DeepEqual(got, wd) {
						t.Fatalf("%s: row %d column %s: %#v, want %#v", tc.name, k, out.Schema().Field(c).Name, got, wd)
					}
				}
			}
			if w.oneWindowPerRow() && in.Column(eventTimeCol).NullN() == 0 {
				for c := 0; c < int(in.NumCols()); c++ {
					if out.Column(c) != in.Column(c) {
						t.Fatalf("%s: column %d was copied, not passed through", tc.name, c)
					}
				}
			}
		}
	}
}
