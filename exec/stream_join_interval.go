package exec

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// IntervalJoin joins two streams on equal keys and event times within a
// bound of each other (Flink's interval join, Spark's stream-stream join
// with a time-range condition):
//
//	left.k = right.k AND right.t BETWEEN left.t + Lo AND left.t + Hi
//
// Each side keeps its rows until the other side's watermark shows no row
// can match them any more: a left row at time lt waits until the right
// watermark passes lt + Hi, a right row at rt until the left watermark
// passes rt - Lo. A row of a preserved side (LEFT, RIGHT, FULL) that found
// no match by then is emitted once with NULLs for the other side; so the
// output is append-only and every output row is final. A row older than
// its own side's watermark is late: dropped, counted, and kept (as the
// join's output row with the other side NULL) for late_rows.
//
// The hash on the equal keys finds candidates; the join's whole remaining
// condition (the time bounds included) is evaluated over each candidate
// pair, so the bounds only decide when state expires, never which pairs
// match. A side without a bound towards the other keeps its rows forever
// (the planner warns that the state is unbounded).
type IntervalJoin struct {
	Kind JoinKindOf
	// LeftKeys and RightKeys are the equal keys over each input's columns;
	// Cond is the rest of the ON condition over a left row followed by a
	// right row (nil: none).
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	// LeftTime and RightTime are the event-time columns of each input.
	LeftTime, RightTime int
	// Lo and Hi bound right.t - left.t (microseconds); HasLo and HasHi say
	// whether the condition bounds it on that side.
	Lo, Hi       int64
	HasLo, HasHi bool
	// LeftCols and RightCols are the inputs' columns; the output is left
	// columns then right columns.
	LeftCols, RightCols []planner.Column

	sides  [2]*joinSide
	wm     [2]int64
	out    []ChangeBatch
	late   int64
	kept   []arrow.RecordBatch
	schema *arrow.Schema
}

// JoinKindOf is the join kind of an IntervalJoin (planner's kinds: inner,
// left, right, full).
type JoinKindOf = planner.JoinKind

// joinSide is one input's rows waiting for matches: kept batches, and a
// hash table from the equal key to the rows holding it.
type joinSide struct {
	kept   []*keptBatch // by id - base; nil once every row expired
	base   int32
	table  *groupTable
	rows   [][]rowRef // group → rows
	alive  int64
	bytes  int64
	deadIx int64 // references in rows to expired rows (compacted when many)
}

type rowRef struct{ batch, row int32 }

// keptBatch is one pushed batch of rows waiting for matches.
type keptBatch struct {
	rows    arrow.RecordBatch
	times   []int64
	alive   []bool
	matched []bool
	nAlive  int
	// minAlive is the least time of the batch's alive rows: expiry skips
	// a batch it cannot reach, and the join's watermark reads one value a
	// batch instead of every kept row.
	minAlive int64
	epoch    int64
	bytes    int64
}

// refreshMin recomputes minAlive after rows were kept or expired.
func (kb *keptBatch) refreshMin() {
	m := int64(math.MaxInt64)
	for i, alive := range kb.alive {
		if alive && kb.times[i] < m {
			m = kb.times[i]
		}
	}
	kb.minAlive = m
}

// NewIntervalJoin prepares the operator; the fields must be set first.
func (j *IntervalJoin) init(sc *StreamCtx) {
	if j.sides[0] != nil {
		return
	}
	for s := 0; s < 2; s++ {
		keys := j.LeftKeys
		if s == 1 {
			keys = j.RightKeys
		}
		ts := make([]types.T, len(keys))
		for i, k := range keys {
			ts[i] = k.Type()
		}
		j.sides[s] = &joinSide{table: newGroupTable(sc.Expr.Allocator(), ts, false)}
		j.wm[s] = math.MinInt64
	}
	cols := append(append([]planner.Column{}, j.LeftCols...), j.RightCols...)
	j.schema = planner.Schema(cols)
}

// Inputs is 2: left and right.
func (j *IntervalJoin) Inputs() int { return 2 }

// preserves reports whether side s's unmatched rows are emitted.
func (j *IntervalJoin) preserves(s int) bool {
	switch j.Kind {
	case planner.FullJoin:
		return true
	case planner.LeftJoin:
		return s == 0
	case planner.RightJoin:
		return s == 1
	}
	return false
}

// Push probes the other side's kept rows with the batch, emits the pairs
// that satisfy the condition, and keeps the batch's rows for the other
// side's later rows.
func (j *IntervalJoin) Push(sc *StreamCtx, input int, c ChangeBatch) error {
	j.init(sc)
	b := c.Rows
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	if !c.AppendOnly() {
		return sqlerr.New(sqlerr.FeatureNotSupported, "a join of two streams reads append-only inputs")
	}
	me, other := j.sides[input], j.sides[1-input]
	keyExprs, timeCol := j.LeftKeys, j.LeftTime
	if input == 1 {
		keyExprs, timeCol = j.RightKeys, j.RightTime
	}
	keys, err := evalAll(sc.Expr, keyExprs, b)
	if err != nil {
		return err
	}
	// Without a watermark on this side (timeCol < 0) its rows have no
	// event time: none is late, and they are kept until the end.
	var tsArr *array.Timestamp
	if timeCol >= 0 {
		var ok bool
		if tsArr, ok = b.Column(timeCol).(*array.Timestamp); !ok {
			return sqlerr.New(sqlerr.InternalError, "join event time is not a timestamp")
		}
	}
	kb := &keptBatch{rows: b, times: make([]int64, n), alive: make([]bool, n), matched: make([]bool, n), epoch: sc.Epoch}
	var lateIdx, loneIdx []int // late rows; rows that can never match
	storable := make([]bool, n)
	nullKey := func(i int) bool {
		for _, k := range keys {
			if k.IsNull(i) {
				return true
			}
		}
		return false
	}
	for i := 0; i < n; i++ {
		if (tsArr != nil && tsArr.IsNull(i)) || nullKey(i) {
			// NULL never satisfies = or a time bound: no match, ever.
			loneIdx = append(loneIdx, i)
			continue
		}
		t := int64(0)
		if tsArr != nil {
			t = int64(tsArr.Value(i))
		}
		kb.times[i] = t
		if t < j.wm[input] {
			lateIdx = append(lateIdx, i)
			continue
		}
		storable[i] = true
	}
	if len(lateIdx) > 0 {
		j.late += int64(len(lateIdx))
		if sc.KeepLate {
			j.kept = append(j.kept, j.padded(input, expr.TakeRows(b, lateIdx)))
		}
	}
	if len(loneIdx) > 0 && j.preserves(input) {
		j.out = append(j.out, Inserts(j.padded(input, expr.TakeRows(b, loneIdx))))
	}
	// Probe: candidates by key, pruned by the time bound, grouped by the
	// kept batch they point into.
	if other.table.n > 0 {
		if len(keys) > 0 {
			other.table.prepare(keys)
		}
		byBatch := map[int32][]pair{}
		var order []int32
		for i := 0; i < n; i++ {
			if !storable[i] {
				continue
			}
			g := 0
			if len(keys) > 0 {
				if g = other.table.find(i); g < 0 {
					continue
				}
			}
			t := kb.times[i]
			for _, ref := range other.rows[g] {
				ob := other.batch(ref.batch)
				if ob == nil || !ob.alive[ref.row] {
					continue
				}
				if !j.withinBound(input, t, ob.times[ref.row]) {
					continue
				}
				if _, seen := byBatch[ref.batch]; !seen {
					order = append(order, ref.batch)
				}
				byBatch[ref.batch] = append(byBatch[ref.batch], pair{mine: i, theirs: int(ref.row)})
			}
		}
		for _, id := range order {
			if err := j.matchPairs(sc, input, kb, other.batch(id), byBatch[id]); err != nil {
				return err
			}
		}
	}
	// Keep the rows for the other side's later rows.
	if len(keys) > 0 {
		me.table.prepare(keys)
	} else if me.table.n == 0 {
		me.rows = append(me.rows, nil)
		me.table.n = 1
	}
	id := me.base + int32(len(me.kept))
	for i := 0; i < n; i++ {
		if !storable[i] {
			continue
		}
		g := 0
		if len(keys) > 0 {
			var isNew bool
			g, isNew = me.table.insert(i)
			if isNew {
				me.rows = append(me.rows, nil)
			}
		}
		me.rows[g] = append(me.rows[g], rowRef{batch: id, row: int32(i)})
		kb.alive[i] = true
		kb.nAlive++
	}
	if kb.nAlive > 0 {
		kb.refreshMin()
		kb.bytes = batchBytes(b) * int64(kb.nAlive) / int64(n)
		me.kept = append(me.kept, kb)
		me.alive += int64(kb.nAlive)
		me.bytes += kb.bytes
	}
	// A row kept now may already be past the other side's bound (it came
	// in behind the other side's watermark, but not its own).
	j.expire(input, 1-input)
	return nil
}

// pair is a candidate match: a row of the pushed batch and one of a kept
// batch of the other side.
type pair struct{ mine, theirs int }

// withinBound reports whether right.t - left.t can be in [Lo, Hi] for a
// row of side `input` at t and one of the other side at o.
func (j *IntervalJoin) withinBound(input int, t, o int64) bool {
	lt, rt := t, o
	if input == 1 {
		lt, rt = o, t
	}
	d := rt - lt
	return (!j.HasLo || d >= j.Lo) && (!j.HasHi || d <= j.Hi)
}

// matchPairs evaluates the condition over candidate pairs of the pushed
// batch and one kept batch, emits those that hold and marks both rows
// matched.
func (j *IntervalJoin) matchPairs(sc *StreamCtx, input int, mine, theirs *keptBatch, pairs []pair) error {
	mi := make([]int, len(pairs))
	ti := make([]int, len(pairs))
	for k, p := range pairs {
		mi[k], ti[k] = p.mine, p.theirs
	}
	mrows, trows := expr.TakeRows(mine.rows, mi), expr.TakeRows(theirs.rows, ti)
	left, right := mrows, trows
	if input == 1 {
		left, right = trows, mrows
	}
	joined := j.concat(left, right)
	keep := make([]int, 0, len(pairs))
	if j.Cond == nil {
		for k := range pairs {
			keep = append(keep, k)
		}
	} else {
		arr, err := j.Cond.Eval(sc.Expr, joined)
		if err != nil {
			return err
		}
		pred := arr.(*array.Boolean)
		for k := 0; k < pred.Len(); k++ {
			if !pred.IsNull(k) && pred.Value(k) {
				keep = append(keep, k)
			}
		}
	}
	if len(keep) == 0 {
		return nil
	}
	for _, k := range keep {
		mine.matched[pairs[k].mine] = true
		theirs.matched[pairs[k].theirs] = true
	}
	if len(keep) != len(pairs) {
		joined = expr.TakeRows(joined, keep)
	}
	j.out = append(j.out, Inserts(joined))
	return nil
}

// concat puts a left and a right batch of the same length side by side.
func (j *IntervalJoin) concat(left, right arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, 0, left.NumCols()+right.NumCols())
	cols = append(cols, left.Columns()...)
	cols = append(cols, right.Columns()...)
	return array.NewRecordBatch(j.schema, cols, left.NumRows())
}

// padded is rows of side s with NULLs for the other side's columns.
func (j *IntervalJoin) padded(s int, rows arrow.RecordBatch) arrow.RecordBatch {
	otherCols := j.RightCols
	if s == 1 {
		otherCols = j.LeftCols
	}
	n := int(rows.NumRows())
	nulls := make([]arrow.Array, len(otherCols))
	for i, c := range otherCols {
		nulls[i] = array.MakeArrayOfNull(memory.DefaultAllocator, c.T.Arrow(), n)
	}
	nb := array.NewRecordBatch(planner.Schema(otherCols), nulls, int64(n))
	if s == 0 {
		return j.concat(rows, nb)
	}
	return j.concat(nb, rows)
}

// Advance raises input's watermark and expires the other side's rows that
// no later row of input can match.
func (j *IntervalJoin) Advance(sc *StreamCtx, input int, watermark int64) error {
	j.init(sc)
	if watermark <= j.wm[input] {
		return nil
	}
	j.wm[input] = watermark
	j.expire(1-input, input)
	return nil
}

// expire drops the rows of side s that rows of side by (whose watermark
// bounds their event times from below) can no longer match, emitting the
// unmatched ones of a preserved side.
func (j *IntervalJoin) expire(s, by int) {
	wm := j.wm[by]
	if wm == math.MinInt64 {
		return
	}
	// A row of side s at t can match a row of side by at o >= wm only if
	// o <= t + Hi (s left) or o <= t - Lo... i.e. t >= wm - Hi (s left),
	// t >= wm + Lo (s right).
	var threshold int64
	switch {
	case s == 0 && j.HasHi:
		threshold = sat(wm, -j.Hi)
	case s == 1 && j.HasLo:
		threshold = sat(wm, j.Lo)
	default:
		return // unbounded towards the other side: kept forever
	}
	side := j.sides[s]
	var lone []arrow.RecordBatch
	for k, kb := range side.kept {
		if kb == nil || kb.minAlive >= threshold {
			continue
		}
		var unmatched []int
		for i, alive := range kb.alive {
			if !alive || kb.times[i] >= threshold {
				continue
			}
			kb.alive[i] = false
			kb.nAlive--
			side.alive--
			side.deadIx++
			if !kb.matched[i] && j.preserves(s) {
				unmatched = append(unmatched, i)
			}
		}
		if len(unmatched) > 0 {
			lone = append(lone, j.padded(s, expr.TakeRows(kb.rows, unmatched)))
		}
		if kb.nAlive == 0 {
			side.bytes -= kb.bytes
			side.kept[k] = nil
		} else {
			kb.refreshMin()
		}
	}
	for _, b := range lone {
		j.out = append(j.out, Inserts(b))
	}
	side.compact()
}

// sat adds d to wm, saturating at the int64 range.
func sat(wm, d int64) int64 {
	r := wm + d
	if d > 0 && r < wm {
		return math.MaxInt64
	}
	if d < 0 && r > wm {
		return math.MinInt64
	}
	return r
}

// batch returns kept batch id (nil once expired).
func (s *joinSide) batch(id int32) *keptBatch {
	k := int(id - s.base)
	if k < 0 || k >= len(s.kept) {
		return nil
	}
	return s.kept[k]
}

// compact drops expired batches from the front and, when most index
// references point at expired rows, rebuilds the row lists, so that the
// state stays proportional to the rows alive.
func (s *joinSide) compact() {
	drop := 0
	for drop < len(s.kept) && s.kept[drop] == nil {
		drop++
	}
	if drop > 0 {
		s.kept = append(s.kept[:0], s.kept[drop:]...)
		s.base += int32(drop)
	}
	if s.deadIx < 1024 || s.deadIx < s.alive {
		return
	}
	for g, refs := range s.rows {
		live := refs[:0]
		for _, r := range refs {
			if b := s.batch(r.batch); b != nil && b.alive[r.row] {
				live = append(live, r)
			}
		}
		s.rows[g] = live
	}
	s.deadIx = 0
}

// Emit returns the pairs and outer rows produced since the last Emit.
func (j *IntervalJoin) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	out := j.out
	j.out = nil
	return out, nil
}

// Watermark bounds the event times of later output rows, in either
// side's time column: new rows come at or after their side's watermark,
// and kept rows (matched later or emitted unmatched) at their own time.
func (j *IntervalJoin) Watermark() int64 {
	if j.sides[0] == nil {
		return math.MinInt64
	}
	wm := min(j.wm[0], j.wm[1])
	for _, side := range j.sides {
		for _, kb := range side.kept {
			if kb != nil && kb.minAlive < wm {
				wm = kb.minAlive
			}
		}
	}
	return wm
}

// Late is the number of late rows dropped.
func (j *IntervalJoin) Late() int64 { return j.late }

// LateRows returns the late rows kept since the last call, as output rows
// with the other side NULL.
func (j *IntervalJoin) LateRows() []arrow.RecordBatch {
	k := j.kept
	j.kept = nil
	return k
}

// MinEpoch is the oldest epoch whose rows are still kept.
func (j *IntervalJoin) MinEpoch(next int64) int64 {
	m := next
	for _, side := range j.sides {
		if side == nil {
			continue
		}
		for _, kb := range side.kept {
			if kb != nil {
				m = min(m, kb.epoch)
			}
		}
	}
	return m
}

// StateSize counts the rows kept on both sides and the bytes of their
// batches (in proportion to the rows alive) and index.
func (j *IntervalJoin) StateSize() (rows, bytes int64) {
	for _, side := range j.sides {
		if side == nil {
			continue
		}
		rows += side.alive
		bytes += side.bytes + side.alive*(8+8+2) + side.table.bytes()
	}
	return rows, bytes
}

// Snapshot layout: a batch whose metadata holds the watermarks and the
// late count, and one batch per side with rows alive (the side's
// columns) followed by three columns: the row's event time, whether it
// matched, and the epoch it arrived in.
const (
	kindIntervalJoin     = "interval_join"
	kindIntervalJoinMeta = "interval_join_meta"
)

// SaveState returns both sides' alive rows.
func (j *IntervalJoin) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	j.init(sc)
	out := []arrow.RecordBatch{emptyState(kindIntervalJoinMeta, map[string]int64{"wm0": j.wm[0], "wm1": j.wm[1], "late": j.late})}
	for s, side := range j.sides {
		cols := j.LeftCols
		if s == 1 {
			cols = j.RightCols
		}
		fields := planner.Schema(cols).Fields()
		fields = append(fields,
			arrow.Field{Name: "weir_time", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "weir_matched", Type: arrow.FixedWidthTypes.Boolean},
			arrow.Field{Name: "weir_epoch", Type: arrow.PrimitiveTypes.Int64})
		schema := stateSchema(kindIntervalJoin, map[string]int64{"side": int64(s)}, fields)
		var parts []arrow.RecordBatch
		var times, epochs []int64
		var matched []bool
		for _, kb := range side.kept {
			if kb == nil {
				continue
			}
			var idx []int
			for i, alive := range kb.alive {
				if alive {
					idx = append(idx, i)
					times = append(times, kb.times[i])
					matched = append(matched, kb.matched[i])
					epochs = append(epochs, kb.epoch)
				}
			}
			parts = append(parts, expr.TakeRows(kb.rows, idx))
		}
		rows, err := concatBatches(sc.Expr.Allocator(), planner.Schema(cols), parts)
		if err != nil {
			return nil, err
		}
		if len(times) == 0 {
			continue // the store keeps no empty batch
		}
		mb := array.NewBooleanBuilder(sc.Expr.Allocator())
		mb.AppendValues(matched, nil)
		all := append(append([]arrow.Array{}, rows.Columns()...), int64Array(times), mb.NewArray(), int64Array(epochs))
		out = append(out, array.NewRecordBatch(schema, all, int64(len(times))))
	}
	return out, nil
}

// LoadState replaces the state with a snapshot SaveState returned.
func (j *IntervalJoin) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	j.sides = [2]*joinSide{}
	j.init(sc)
	j.out, j.kept, j.late = nil, nil, 0
	var wm [2]int64
	wm[0], wm[1] = math.MinInt64, math.MinInt64
	for _, b := range state {
		if v, _ := b.Schema().Metadata().GetValue(stateKind); v == kindIntervalJoinMeta {
			var err error
			if wm[0], err = metaInt(b.Schema(), "wm0"); err != nil {
				return err
			}
			if wm[1], err = metaInt(b.Schema(), "wm1"); err != nil {
				return err
			}
			if j.late, err = metaInt(b.Schema(), "late"); err != nil {
				return err
			}
		}
	}
	late := j.late
	for _, b := range state {
		if v, _ := b.Schema().Metadata().GetValue(stateKind); v != kindIntervalJoin {
			continue
		}
		s, err := metaInt(b.Schema(), "side")
		if err != nil || s < 0 || s > 1 {
			return corruptSnapshot("interval join side")
		}
		cols := j.LeftCols
		if s == 1 {
			cols = j.RightCols
		}
		nc := len(cols)
		if int(b.NumCols()) != nc+3 {
			return corruptSnapshot("interval join columns")
		}
		times, err := int64Column(b, nc)
		if err != nil {
			return err
		}
		epochs, err := int64Column(b, nc+2)
		if err != nil {
			return err
		}
		matched, ok := b.Column(nc + 1).(*array.Boolean)
		if !ok {
			return corruptSnapshot("interval join matched flags")
		}
		rows := array.NewRecordBatch(planner.Schema(cols), b.Columns()[:nc], b.NumRows())
		// Rows go back in epoch order, one kept batch per epoch.
		for start := 0; start < len(times); {
			end := start
			for end < len(times) && epochs[end] == epochs[start] {
				end++
			}
			idx := make([]int, end-start)
			for k := range idx {
				idx[k] = start + k
			}
			part := expr.TakeRows(rows, idx)
			ctx := &StreamCtx{Expr: sc.Expr, Epoch: epochs[start]}
			// Restored rows are not late, and the other side's watermark is
			// not applied yet (they were alive at the snapshot).
			if err := j.Push(ctx, int(s), Inserts(part)); err != nil {
				return err
			}
			kb := j.sides[s].batch(j.sides[s].base + int32(len(j.sides[s].kept)) - 1)
			if kb != nil {
				for k := range idx {
					kb.matched[k] = kb.matched[k] || matched.Value(start+k)
				}
			}
			start = end
		}
	}
	// Pushing restored rows into each other matched nothing new that was
	// not matched before, but it did emit those pairs again: drop them.
	j.out = nil
	j.wm, j.late = wm, late
	return nil
}

func (j *IntervalJoin) String() string {
	return "interval join lo=" + strconv.FormatInt(j.Lo, 10) + " hi=" + strconv.FormatInt(j.Hi, 10)
}
