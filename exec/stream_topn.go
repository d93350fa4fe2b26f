package exec

import (
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// TopN keeps the first N rows of each partition in an order (a streaming
// table's `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) <= N`, Flink's and
// RisingWave's Top-N):
//
//   - Over a window (the partition holds a window's start or end, and the
//     input a watermark), a partition is final once the watermark passes
//     its window's end: its rows are emitted then, once, in append mode,
//     and the partition is freed. A row of a window already emitted is
//     late.
//   - Otherwise rows are emitted as they enter the top N and retracted as
//     they leave it (a delete), and, when the row number is an output
//     column, rows whose number changes are updated (a delete and an
//     insert): the output is a changelog, for update mode.
//
// Ties keep the row that arrived first, which PostgreSQL leaves
// unspecified. The input must be append-only (rows that left the top N are
// not kept, so a retracted row could not be replaced).
type TopN struct {
	PartitionBy []expr.Expr
	OrderBy     []planner.SortKey
	N           int64
	// RankCol puts the row number (bigint) after the input columns.
	RankCol bool
	Cols    []planner.Column // the input's columns
	// CloseCol >= 0 makes partitions windows: the partition of a row is
	// final when the watermark reaches the row's column CloseCol plus
	// CloseOffset (window_end, or window_start plus the size). -1: one
	// partition set that never closes.
	CloseCol    int
	CloseOffset int64

	windows map[int64]*topWindow
	wm      int64
	out     []ChangeBatch
	late    int64
	kept    []arrow.RecordBatch
	schema  *arrow.Schema
	keyT    []types.T
	sortT   []types.T
	keyVecs []colVec
}

// topWindow is the partitions of one window (all of them without windows).
type topWindow struct {
	closeAt int64
	table   *groupTable
	parts   [][]*topEntry // group → entries, best first
	rows    int
}

// topEntry is one row in a partition's top N: its sort key and its values.
type topEntry struct {
	key   []sortVal
	row   []expr.Datum
	epoch int64
}

// sortVal is one sort key value in the typed form of colVec.
type sortVal struct {
	null bool
	i    int64
	f    float64
	s    string
	d    apd.Decimal
	x    expr.Datum
}

func (t *TopN) init(sc *StreamCtx) {
	if t.windows != nil {
		return
	}
	t.windows = map[int64]*topWindow{}
	t.wm = math.MinInt64
	cols := append([]planner.Column{}, t.Cols...)
	if t.RankCol {
		cols = append(cols, planner.Column{Name: "row_number", T: types.Int8})
	}
	t.schema = planner.Schema(cols)
	for _, p := range t.PartitionBy {
		t.keyT = append(t.keyT, p.Type())
	}
	for _, k := range t.OrderBy {
		t.sortT = append(t.sortT, k.Expr.Type())
	}
	t.keyVecs = make([]colVec, len(t.OrderBy))
}

// Inputs is 1.
func (t *TopN) Inputs() int { return 1 }

func (t *TopN) window(sc *StreamCtx, closeAt int64) *topWindow {
	w, ok := t.windows[closeAt]
	if !ok {
		w = &topWindow{closeAt: closeAt, table: newGroupTable(sc.Expr.Allocator(), t.keyT, false)}
		if len(t.keyT) == 0 {
			w.parts = [][]*topEntry{nil}
		}
		t.windows[closeAt] = w
	}
	return w
}

// Push offers each row to its partition's top N.
func (t *TopN) Push(sc *StreamCtx, input int, c ChangeBatch) error {
	t.init(sc)
	b := c.Rows
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	if !c.AppendOnly() {
		return sqlerr.New(sqlerr.FeatureNotSupported, "Top-N in a streaming table reads an append-only input")
	}
	parts, err := evalAll(sc.Expr, t.PartitionBy, b)
	if err != nil {
		return err
	}
	for k, key := range t.OrderBy {
		arr, err := key.Expr.Eval(sc.Expr, b)
		if err != nil {
			return err
		}
		t.keyVecs[k].load(arr, t.sortT[k], true)
	}
	var closes *array.Timestamp
	if t.CloseCol >= 0 {
		closes, _ = b.Column(t.CloseCol).(*array.Timestamp)
		if closes == nil {
			return sqlerr.New(sqlerr.InternalError, "Top-N window column is not a timestamp")
		}
	}
	// Rows by window, so that each window's hash table is loaded once.
	byWindow := map[int64][]int{}
	var order []int64
	var lateIdx []int
	for i := 0; i < n; i++ {
		at := int64(math.MaxInt64)
		if closes != nil {
			if closes.IsNull(i) {
				continue // no window: in no partition
			}
			at = sat(int64(closes.Value(i)), t.CloseOffset)
			if at <= t.wm {
				lateIdx = append(lateIdx, i)
				continue
			}
		}
		if _, ok := byWindow[at]; !ok {
			order = append(order, at)
		}
		byWindow[at] = append(byWindow[at], i)
	}
	if len(lateIdx) > 0 {
		t.late += int64(len(lateIdx))
		if sc.KeepLate {
			t.kept = append(t.kept, expr.TakeRows(b, lateIdx))
		}
	}
	var ob *changeBuilder
	if t.CloseCol < 0 {
		ob = newChangeBuilder(sc, t.schema)
	}
	for _, at := range order {
		w := t.window(sc, at)
		rows := byWindow[at]
		if len(parts) > 0 {
			w.table.prepare(parts)
		}
		for _, i := range rows {
			g := 0
			if len(parts) > 0 {
				var isNew bool
				g, isNew = w.table.insert(i)
				if isNew {
					w.parts = append(w.parts, nil)
				}
			}
			t.offer(sc, w, g, b, i, ob)
		}
	}
	if ob != nil {
		if cb, ok := ob.finish(); ok {
			t.out = append(t.out, cb)
		}
	}
	return nil
}

// offer puts row i of b into partition g of w if it belongs in the top N,
// recording the changes in ob (nil: windows, emitted when they close).
func (t *TopN) offer(sc *StreamCtx, w *topWindow, g int, b arrow.RecordBatch, i int, ob *changeBuilder) {
	if t.N <= 0 {
		return // row_number <= 0 keeps nothing
	}
	es := w.parts[g]
	k := len(es)
	if int64(k) >= t.N && t.compare(i, es[k-1].key) >= 0 {
		return // not better than the last of a full top N
	}
	p := k
	for p > 0 && t.compare(i, es[p-1].key) < 0 {
		p--
	}
	e := &topEntry{key: make([]sortVal, len(t.OrderBy)), row: make([]expr.Datum, b.NumCols()), epoch: sc.Epoch}
	for c := range e.key {
		e.key[c] = t.keyVecs[c].sortValAt(i)
	}
	for c := range e.row {
		e.row[c] = expr.DatumAt(b.Column(c), i)
	}
	full := int64(k) >= t.N
	if ob != nil {
		if t.RankCol {
			for q := k - 1; q >= p; q-- {
				ob.add(ChangeDelete, es[q].row, int64(q+1))
				if int64(q+2) <= t.N {
					ob.add(ChangeInsert, es[q].row, int64(q+2))
				}
			}
		} else if full {
			ob.add(ChangeDelete, es[k-1].row, 0)
		}
		ob.add(ChangeInsert, e.row, int64(p+1))
	}
	es = append(es, nil)
	copy(es[p+1:], es[p:])
	es[p] = e
	if int64(len(es)) > t.N {
		es = es[:t.N]
	} else {
		w.rows++
	}
	w.parts[g] = es
}

// compare orders row i of the loaded sort keys against a kept key: < 0
// when the row comes first.
func (t *TopN) compare(i int, key []sortVal) int {
	for c, sk := range t.OrderBy {
		v, s := &t.keyVecs[c], &key[c]
		vn := v.isNull(i)
		if vn || s.null {
			switch {
			case vn && s.null:
				continue
			case vn == sk.NullsFirst:
				return -1
			default:
				return 1
			}
		}
		r := v.compareVal(i, s)
		if sk.Desc {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// sortValAt copies value i of v (strings cloned: the batch is not kept).
func (v *colVec) sortValAt(i int) sortVal {
	if v.isNull(i) {
		return sortVal{null: true}
	}
	switch v.kind {
	case kindInt:
		return sortVal{i: v.ints[i]}
	case kindFloat:
		return sortVal{f: v.floats[i]}
	case kindString, kindEncoded:
		return sortVal{s: strings.Clone(v.strs[i])}
	case kindNumeric:
		var s sortVal
		s.d.Set(&v.decs[i])
		return s
	}
	return sortVal{x: v.datums[i]}
}

// compareVal orders non-null value i of v against s.
func (v *colVec) compareVal(i int, s *sortVal) int {
	switch v.kind {
	case kindInt:
		switch a := v.ints[i]; {
		case a < s.i:
			return -1
		case a > s.i:
			return 1
		}
		return 0
	case kindFloat:
		return compareFloat(v.floats[i], s.f)
	case kindString, kindEncoded:
		return strings.Compare(v.strs[i], s.s)
	case kindNumeric:
		return v.decs[i].Cmp(&s.d)
	}
	return compareDatum(v.datums[i], s.x)
}

// Advance closes the windows the watermark passed, emitting their rows.
func (t *TopN) Advance(sc *StreamCtx, input int, watermark int64) error {
	t.init(sc)
	if watermark <= t.wm {
		return nil
	}
	t.wm = watermark
	if t.CloseCol < 0 {
		return nil
	}
	var closing []int64
	for at := range t.windows {
		if at <= watermark {
			closing = append(closing, at)
		}
	}
	slices.Sort(closing)
	for _, at := range closing {
		w := t.windows[at]
		ob := newChangeBuilder(sc, t.schema)
		for _, es := range w.parts {
			for q, e := range es {
				ob.add(ChangeInsert, e.row, int64(q+1))
			}
		}
		if cb, ok := ob.finish(); ok {
			t.out = append(t.out, cb)
		}
		delete(t.windows, at)
	}
	return nil
}

// Emit returns the changes since the last Emit.
func (t *TopN) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	out := t.out
	t.out = nil
	return out, nil
}

// Watermark passes the input's watermark on: closed windows' rows carry
// their window, which the watermark passed.
func (t *TopN) Watermark() int64 {
	if t.windows == nil {
		return math.MinInt64
	}
	return t.wm
}

// Late is the number of rows of windows already emitted.
func (t *TopN) Late() int64 { return t.late }

// LateRows returns the late rows kept since the last call.
func (t *TopN) LateRows() []arrow.RecordBatch {
	k := t.kept
	t.kept = nil
	return k
}

// MinEpoch is the oldest epoch of a row in a top N.
func (t *TopN) MinEpoch(next int64) int64 {
	m := next
	for _, w := range t.windows {
		for _, es := range w.parts {
			for _, e := range es {
				m = min(m, e.epoch)
			}
		}
	}
	return m
}

// StateSize counts the rows held and estimates their bytes.
func (t *TopN) StateSize() (rows, bytes int64) {
	for _, w := range t.windows {
		rows += int64(w.rows)
		bytes += w.table.bytes() + int64(len(w.parts))*24
		for _, es := range w.parts {
			for _, e := range es {
				bytes += 64 + int64(len(e.key))*48
				for _, d := range e.row {
					bytes += datumBytes(d)
				}
			}
		}
	}
	return rows, bytes
}

// Snapshot layout: the rows of every top N in rank order, as the input's
// columns followed by the epoch each arrived in, and a batch whose
// metadata holds the watermark and the late count. Loading pushes them again in that order,
// which rebuilds the same partitions with the same ties.
const (
	kindTopN     = "topn"
	kindTopNMeta = "topn_meta"
)

// SaveState returns the rows held.
func (t *TopN) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	t.init(sc)
	fields := append(planner.Schema(t.Cols).Fields(), arrow.Field{Name: "weir_epoch", Type: arrow.PrimitiveTypes.Int64})
	schema := stateSchema(kindTopN, nil, fields)
	builders := make([]array.Builder, len(fields))
	for c, f := range fields {
		builders[c] = array.NewBuilder(sc.Expr.Allocator(), f.Type)
	}
	n := 0
	ats := make([]int64, 0, len(t.windows))
	for at := range t.windows {
		ats = append(ats, at)
	}
	slices.Sort(ats)
	for _, at := range ats {
		for _, es := range t.windows[at].parts {
			for _, e := range es {
				for c, d := range e.row {
					expr.AppendDatum(builders[c], d)
				}
				builders[len(fields)-1].(*array.Int64Builder).Append(e.epoch)
				n++
			}
		}
	}
	cols := make([]arrow.Array, len(builders))
	for c, b := range builders {
		cols[c] = b.NewArray()
		b.Release()
	}
	out := []arrow.RecordBatch{emptyState(kindTopNMeta, map[string]int64{"wm": t.wm, "late": t.late})}
	if n > 0 { // the store keeps no empty batch
		out = append(out, array.NewRecordBatch(schema, cols, int64(n)))
	}
	return out, nil
}

// LoadState replaces the state with a snapshot SaveState returned.
func (t *TopN) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	t.windows = nil
	t.init(sc)
	t.out, t.kept, t.late = nil, nil, 0
	wm, late := int64(math.MinInt64), int64(0)
	for _, b := range state {
		if v, _ := b.Schema().Metadata().GetValue(stateKind); v == kindTopNMeta {
			var err error
			if wm, err = metaInt(b.Schema(), "wm"); err != nil {
				return err
			}
			if late, err = metaInt(b.Schema(), "late"); err != nil {
				return err
			}
		}
	}
	for _, b := range state {
		if v, _ := b.Schema().Metadata().GetValue(stateKind); v != kindTopN {
			continue
		}
		nc := len(t.Cols)
		if int(b.NumCols()) != nc+1 {
			return corruptSnapshot("top-N columns")
		}
		epochs, err := int64Column(b, nc)
		if err != nil {
			return err
		}
		rows := array.NewRecordBatch(planner.Schema(t.Cols), b.Columns()[:nc], b.NumRows())
		t.wm = math.MinInt64 // restored rows are not late
		for start := 0; start < len(epochs); {
			end := start
			for end < len(epochs) && epochs[end] == epochs[start] {
				end++
			}
			idx := make([]int, end-start)
			for k := range idx {
				idx[k] = start + k
			}
			if err := t.Push(&StreamCtx{Expr: sc.Expr, Epoch: epochs[start]}, 0, Inserts(expr.TakeRows(rows, idx))); err != nil {
				return err
			}
			start = end
		}
	}
	t.wm, t.late = wm, late
	t.out = nil // the restored rows were emitted before the snapshot
	return nil
}

// changeBuilder collects changelog rows given as values.
type changeBuilder struct {
	schema   *arrow.Schema
	builders []array.Builder
	diff     []int8
}

func newChangeBuilder(sc *StreamCtx, schema *arrow.Schema) *changeBuilder {
	cb := &changeBuilder{schema: schema}
	for _, f := range schema.Fields() {
		cb.builders = append(cb.builders, array.NewBuilder(sc.Expr.Allocator(), f.Type))
	}
	return cb
}

// add appends a row; rank fills the column after the row's values, if
// the schema has one.
func (cb *changeBuilder) add(kind int8, row []expr.Datum, rank int64) {
	for c, d := range row {
		expr.AppendDatum(cb.builders[c], d)
	}
	if len(cb.builders) > len(row) {
		cb.builders[len(row)].(*array.Int64Builder).Append(rank)
	}
	cb.diff = append(cb.diff, kind)
}

// finish returns the rows added (false: none).
func (cb *changeBuilder) finish() (ChangeBatch, bool) {
	n := len(cb.diff)
	cols := make([]arrow.Array, len(cb.builders))
	for c, b := range cb.builders {
		cols[c] = b.NewArray()
		b.Release()
	}
	if n == 0 {
		return ChangeBatch{}, false
	}
	c := ChangeBatch{Rows: array.NewRecordBatch(cb.schema, cols, int64(n))}
	for _, d := range cb.diff {
		if d != ChangeInsert {
			c.Diff = cb.diff
			break
		}
	}
	return c, true
}
