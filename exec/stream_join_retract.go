package exec

import (
	"bytes"
	"hash/maphash"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// RetractingJoin joins two changelogs: every row of both inputs is kept,
// and its output is the changelog of the join of the two inputs' current
// multisets, as a batch join of them computes it (PostgreSQL's semantics:
// NULL keys never match; Cond is evaluated per candidate pair, NULL or
// false is no match; a preserved side's row without a match is present
// once per copy, padded with NULLs).
//
// Each side holds its distinct rows, each with a signed count (an equal
// row inserted twice is one entry of count 2) and, for outer joins, the
// number of the other side's row copies matching it. Pushes only update
// counts; Emit computes the epoch's change of the join from the entries
// whose count changed (δ), as the delta rule of a bilinear product:
//
//	Δ(L ⋈ R) = ΔL ⋈ R_new + L_old ⋈ ΔR
//
// so a row inserted and deleted within one epoch costs nothing, and an
// update emits the old pairs' deletes and the new pairs' inserts. A
// preserved row's padded copy is a function of its count and its match
// count; Emit emits its change when either changed: the padded row is
// retracted when its first match arrives and re-inserted when its last
// match goes. All of it is O(the changed rows' matches).
//
// A delete of a row not held is owed, as changelogTable's: within an
// epoch the changes are a multiset whose delete may come before the
// insert it cancels, and a delete that finds no row by the end of the
// epoch (an input that deleted a row it never inserted) keeps waiting for
// the insert that cancels it, while the row contributes nothing. The
// state is not corrupted and no error stops the table.
//
// Rows are identified by their values' key (appendRowKey: -0 and 0 are
// one float, as are all NaNs, so the copy first seen stands for both).
// The state is bounded only by the inputs' rows.
type RetractingJoin struct {
	Kind JoinKindOf // inner, left, right, full (cross: inner without keys)
	// LeftKeys and RightKeys are the equal keys over each input's columns
	// (none: every pair of rows is a candidate); Cond is the rest of the
	// ON condition over a left row followed by a right row (nil: none).
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	// LeftCols and RightCols are the inputs' columns; the output is left
	// columns then right columns.
	LeftCols, RightCols []planner.Column

	started  bool
	sides    [2]*rjSide
	keys     *groupTable // join key → key group; nil without keys
	schema   *arrow.Schema
	preserve [2]bool
	wm       [2]int64
	since    int64 // first epoch whose rows the state holds (0: it holds none)
	pairs    rjPairs
	out      []ChangeBatch
	keyBuf   []byte
	cmpBuf   []byte
	outIdx   []int32
	outDiff  []int8
	scratch  [2]rjGather
}

var _ StreamOperator = (*RetractingJoin)(nil)

// rjEntry is one distinct row of a side.
type rjEntry struct {
	hash       uint64 // of the row's values' key
	batch, row int32  // where its values are: a kept batch's row
	key        int32  // key group (0 without keys); -1: a NULL key, no match
	next       int32  // the next entry of the same key group, -1 at the end
	count      int64  // copies held; < 0: deletes owed
	old        int64  // while dirty: the copies counted at the last Emit
	matches    int64  // copies of the other side's rows matching it (outer sides)
	acc        int64  // during Emit: the new match count (dirty) or its change (touched)
	dirty      bool   // its count changed since the last Emit
	touched    bool   // during Emit: its match count changed, its count did not
}

// held is the copies of an entry that take part in the join.
func (e *rjEntry) held() int64 { return max(e.count, 0) }

// rjSide is one input's rows: the kept batches their values live in, the
// entries, a hash table from a row's values to its entry, and per key
// group the chain of its entries.
type rjSide struct {
	cols     []planner.Column
	schema   *arrow.Schema
	keyExprs []expr.Expr
	batches  []arrow.RecordBatch
	rows     int64       // rows of the kept batches
	bytes    int64       // bytes of the kept batches
	pages    [][]rjEntry // the entries, rjPage a page (a page never moves)
	n        int         // entries
	slots    []uint64    // open addressing: hash's high half << 32 | entry + 1, 0 when empty
	mask     uint64
	heads    []int32 // key group → its first entry, -1 when none
	dirty    []int32
	touched  []int32
	copies   int64 // Σ |count|: the rows held, owed deletes included
	live     int   // entries whose count is not 0
	remap    []int32
}

func newRJSide(cols []planner.Column, keyExprs []expr.Expr, keyed bool) *rjSide {
	s := &rjSide{cols: cols, schema: planner.Schema(cols), keyExprs: keyExprs, slots: make([]uint64, 1024), mask: 1023}
	if !keyed {
		s.heads = []int32{-1} // one group: every row is a candidate
	}
	return s
}

// check rejects a batch whose columns are not the side's: the gathers
// below read them as the side's types.
func (s *rjSide) check(b arrow.RecordBatch) error {
	if int(b.NumCols()) != len(s.cols) {
		return sqlerr.New(sqlerr.InternalError, "streaming join: an input batch of %d columns, %d expected", b.NumCols(), len(s.cols))
	}
	for c := range s.cols {
		if !arrow.TypeEqual(b.Column(c).DataType(), s.schema.Field(c).Type) {
			return sqlerr.New(sqlerr.InternalError, "streaming join: input column %q of type %s, %s expected", s.cols[c].Name, b.Column(c).DataType(), s.schema.Field(c).Type)
		}
	}
	return nil
}

const (
	rjPageBits = 10
	rjPage     = 1 << rjPageBits
)

// ent is entry id.
func (s *rjSide) ent(id int32) *rjEntry { return &s.pages[id>>rjPageBits][id&(rjPage-1)] }

// find returns the entry whose values' key is key (hash h), or -1.
func (s *rjSide) find(h uint64, key []byte, buf *[]byte) int32 {
	tag := h >> 32
	for pos := h & s.mask; ; pos = (pos + 1) & s.mask {
		v := s.slots[pos]
		if v == 0 {
			return -1
		}
		if v>>32 != tag {
			continue
		}
		id := int32(uint32(v) - 1)
		if e := s.ent(id); e.hash == h {
			*buf = appendRowKey((*buf)[:0], s.batches[e.batch].Columns(), int(e.row))
			if bytes.Equal(*buf, key) {
				return id
			}
		}
	}
}

// add appends an entry, links it into its key group and the hash table.
func (s *rjSide) add(e rjEntry) int32 {
	id := int32(s.n)
	e.next = -1
	if e.key >= 0 {
		e.next = s.heads[e.key]
		s.heads[e.key] = id
	}
	if s.n&(rjPage-1) == 0 {
		s.pages = append(s.pages, make([]rjEntry, 0, rjPage))
	}
	p := &s.pages[len(s.pages)-1]
	*p = append(*p, e)
	s.n++
	s.place(e.hash, id)
	if uint64(s.n)*2 > s.mask {
		size := (s.mask + 1) * 2
		s.slots = make([]uint64, size)
		s.mask = size - 1
		for i := 0; i < s.n; i++ {
			s.place(s.ent(int32(i)).hash, int32(i))
		}
	}
	return id
}

func (s *rjSide) place(h uint64, id int32) {
	pos := h & s.mask
	for s.slots[pos] != 0 {
		pos = (pos + 1) & s.mask
	}
	s.slots[pos] = h>>32<<32 | uint64(uint32(id)+1)
}

// change adds d copies to entry id.
func (s *rjSide) change(id int32, d int64) {
	e := s.ent(id)
	if !e.dirty {
		e.dirty = true
		e.old = e.held()
		s.dirty = append(s.dirty, id)
	}
	before := e.count
	e.count += d
	s.copies += abs64(e.count) - abs64(before)
	switch {
	case before == 0 && e.count != 0:
		s.live++
	case before != 0 && e.count == 0:
		s.live--
	}
}

// touch marks a clean entry whose match count changes in this Emit.
func (s *rjSide) touch(id int32) {
	e := s.ent(id)
	if !e.touched {
		e.touched = true
		e.acc = 0
		s.touched = append(s.touched, id)
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (j *RetractingJoin) init() error {
	if j.started {
		return nil
	}
	switch j.Kind {
	case planner.InnerJoin, planner.CrossJoin:
	case planner.LeftJoin:
		j.preserve[0] = true
	case planner.RightJoin:
		j.preserve[1] = true
	case planner.FullJoin:
		j.preserve = [2]bool{true, true}
	default:
		return sqlerr.New(sqlerr.FeatureNotSupported, "this join kind of two changelog streams is not supported")
	}
	if len(j.LeftKeys) != len(j.RightKeys) {
		return sqlerr.New(sqlerr.InternalError, "streaming join has %d left keys and %d right keys", len(j.LeftKeys), len(j.RightKeys))
	}
	for i := range j.LeftKeys {
		// One hash table holds both sides' keys (coerced to a common type
		// by the planner), so both must hash alike.
		if kindOf(j.LeftKeys[i].Type(), false) != kindOf(j.RightKeys[i].Type(), false) {
			return sqlerr.New(sqlerr.InternalError, "streaming join key %d compares %s with %s", i+1, j.LeftKeys[i].Type(), j.RightKeys[i].Type())
		}
	}
	j.schema = planner.Schema(append(append([]planner.Column{}, j.LeftCols...), j.RightCols...))
	j.wm = [2]int64{math.MinInt64, math.MinInt64}
	j.reset()
	j.started = true
	return nil
}

// reset empties the rows of both sides.
func (j *RetractingJoin) reset() {
	keyed := len(j.RightKeys) > 0
	j.keys = nil
	if keyed {
		ts := make([]types.T, len(j.RightKeys))
		for i, k := range j.RightKeys {
			ts[i] = k.Type()
		}
		j.keys = newGroupTable(memory.DefaultAllocator, ts, false)
	}
	j.sides[0] = newRJSide(j.LeftCols, j.LeftKeys, keyed)
	j.sides[1] = newRJSide(j.RightCols, j.RightKeys, keyed)
}

// Inputs is 2: left and right.
func (j *RetractingJoin) Inputs() int { return 2 }

// Push counts the changes into their rows' entries.
func (j *RetractingJoin) Push(sc *StreamCtx, input int, c ChangeBatch) error {
	if err := j.init(); err != nil {
		return err
	}
	if input != 0 && input != 1 {
		return sqlerr.New(sqlerr.InternalError, "streaming join has no input %d", input)
	}
	if c.Rows == nil || c.Rows.NumRows() == 0 {
		return nil
	}
	b := c.Rows
	n := int(b.NumRows())
	if c.Diff != nil && len(c.Diff) != n {
		return sqlerr.New(sqlerr.InternalError, "streaming join: %d change kinds for %d rows", len(c.Diff), n)
	}
	s := j.sides[input]
	if err := s.check(b); err != nil {
		return err
	}
	if err := j.count(sc, input, b, c.Diff, nil, nil); err != nil {
		return err
	}
	return nil
}

// count adds the rows of b to side input: one copy each, or diff[i]
// copies; a restore gives counts and match counts instead.
func (j *RetractingJoin) count(sc *StreamCtx, input int, b arrow.RecordBatch, diff []int8, counts, matches []int64) error {
	s := j.sides[input]
	n := int(b.NumRows())
	if j.keys != nil {
		keyCols, err := evalAll(sc.Expr, s.keyExprs, b)
		if err != nil {
			return err
		}
		j.keys.prepare(keyCols)
	}
	id := int32(len(s.batches))
	s.batches = append(s.batches, b)
	used := false
	cols := b.Columns()
	for i := 0; i < n; i++ {
		d := int64(ChangeInsert)
		switch {
		case counts != nil:
			d = counts[i]
		case diff != nil:
			d = int64(diff[i])
		}
		if d == 0 {
			continue
		}
		j.keyBuf = appendRowKey(j.keyBuf[:0], cols, i)
		h := maphash.Bytes(hashSeed, j.keyBuf)
		e := int32(-1)
		if counts == nil { // a snapshot's rows are distinct
			e = s.find(h, j.keyBuf, &j.cmpBuf)
		}
		if e < 0 {
			key := int32(0)
			if j.keys != nil {
				if j.keys.rowHasNull(i) {
					key = -1
				} else {
					g, isNew := j.keys.insert(i)
					if isNew {
						j.sides[0].heads = append(j.sides[0].heads, -1)
						j.sides[1].heads = append(j.sides[1].heads, -1)
					}
					key = int32(g)
				}
			}
			e = s.add(rjEntry{hash: h, batch: id, row: int32(i), key: key})
			used = true
		}
		if counts != nil {
			ent := s.ent(e)
			ent.count, ent.matches = d, matches[i]
			s.copies += abs64(d)
			s.live++
			continue
		}
		s.change(e, d)
	}
	if !used {
		s.batches = s.batches[:id]
		return nil
	}
	s.rows += int64(n)
	s.bytes += batchBytes(b)
	return nil
}

// Advance records the watermark: a join of changelogs holds every row,
// nothing expires.
func (j *RetractingJoin) Advance(sc *StreamCtx, input int, watermark int64) error {
	if err := j.init(); err != nil {
		return err
	}
	if input == 0 || input == 1 {
		j.wm[input] = max(j.wm[input], watermark)
	}
	return nil
}

// rjPairs is a chunk of candidate pairs waiting for the condition: a left
// and a right entry, and which half of the delta rule found them (1: a
// changed left row with the right rows as they are now; 2: a changed
// right row with the left rows as they were at the last Emit).
type rjPairs struct {
	l, r  []int32
	phase []uint8
}

// rjChunk is the candidate pairs evaluated at once (a variable: tests
// lower it).
var rjChunk = BatchSize

func (p *rjPairs) add(l, r int32, phase uint8) {
	p.l, p.r, p.phase = append(p.l, l), append(p.r, r), append(p.phase, phase)
}

// Emit computes the join's change since the last Emit.
func (j *RetractingJoin) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	if err := j.init(); err != nil {
		return nil, err
	}
	L, R := j.sides[0], j.sides[1]
	for _, s := range j.sides {
		// A row whose count came back to what it was is unchanged: it joins
		// as a clean row (its match count may still change).
		kept := s.dirty[:0]
		for _, id := range s.dirty {
			e := s.ent(id)
			if e.held() == e.old {
				e.dirty = false
				continue
			}
			e.acc = 0
			kept = append(kept, id)
		}
		s.dirty = kept
	}
	// ΔL ⋈ R_new: the right rows held now.
	for _, e := range L.dirty {
		key := L.ent(e).key
		if key < 0 {
			continue
		}
		for f := R.heads[key]; f >= 0; f = R.ent(f).next {
			if R.ent(f).count <= 0 {
				continue
			}
			j.pairs.add(e, f, 1)
			if len(j.pairs.l) >= rjChunk {
				if err := j.flush(sc); err != nil {
					return nil, err
				}
			}
		}
	}
	// L_old ⋈ ΔR: the left rows held at the last Emit, and those held now
	// for the changed right row's new match count.
	for _, f := range R.dirty {
		key := R.ent(f).key
		if key < 0 {
			continue
		}
		for e := L.heads[key]; e >= 0; e = L.ent(e).next {
			le := L.ent(e)
			before := le.held()
			if le.dirty {
				before = le.old
			}
			// A left row held neither before nor now adds nothing; one held
			// only now adds to the right row's match count, needed only
			// when the right side is preserved.
			if before == 0 && (le.count <= 0 || !j.preserve[1]) {
				continue
			}
			j.pairs.add(e, f, 2)
			if len(j.pairs.l) >= rjChunk {
				if err := j.flush(sc); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := j.flush(sc); err != nil {
		return nil, err
	}
	for s := 0; s < 2; s++ {
		j.settle(sc, s)
	}
	// The delta rule's two terms may emit a pair's delete before its
	// insert (a left row deleted as a right row matching it arrives): net
	// to zero, but a consumer applying them in order would delete a row it
	// does not hold. Netted, every delete is of a row emitted before.
	out := ConsolidateChanges(j.out)
	j.out = nil
	if L.copies+R.copies == 0 {
		j.since = 0
	} else if j.since == 0 {
		j.since = max(sc.Epoch, 1)
	}
	if j.wasteful() {
		if err := j.rebuild(sc); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// flush evaluates the condition over the chunk of candidate pairs,
// updates the match counts of the pairs that hold, and emits their
// change: δ(left) × right copies now, or left copies before × δ(right).
func (j *RetractingJoin) flush(sc *StreamCtx) error {
	p := &j.pairs
	n := len(p.l)
	if n == 0 {
		return nil
	}
	defer func() { p.l, p.r, p.phase = p.l[:0], p.r[:0], p.phase[:0] }()
	L, R := j.sides[0], j.sides[1]
	mem := sc.Expr.Allocator()
	var joined arrow.RecordBatch
	var pred *array.Boolean
	if j.Cond != nil {
		joined = j.gatherPairs(mem, p.l, p.r)
		arr, err := j.Cond.Eval(sc.Expr, joined)
		if err != nil {
			return err
		}
		var ok bool
		if pred, ok = arr.(*array.Boolean); !ok || pred.Len() != n {
			return sqlerr.New(sqlerr.DatatypeMismatch, "argument of JOIN/ON must be type boolean")
		}
	}
	j.outIdx, j.outDiff = j.outIdx[:0], j.outDiff[:0]
	inserts := true
	identity := true // every pair holds once: the output is joined
	for k := 0; k < n; k++ {
		if pred != nil && (pred.IsNull(k) || !pred.Value(k)) {
			identity = false
			continue
		}
		le, re := L.ent(p.l[k]), R.ent(p.r[k])
		var mult int64
		if p.phase[k] == 1 {
			d := le.held() - le.old
			mult = d * re.count
			le.acc += re.count
			if !re.dirty && j.preserve[1] {
				R.touch(p.r[k])
				re.acc += d
			}
		} else {
			d := re.held() - re.old
			before := le.held()
			if le.dirty {
				before = le.old
			}
			mult = before * d
			re.acc += le.held()
			if !le.dirty && j.preserve[0] {
				L.touch(p.l[k])
				le.acc += d
			}
		}
		kind := ChangeInsert
		if mult < 0 {
			kind, mult, inserts = ChangeDelete, -mult, false
		}
		identity = identity && mult == 1
		for ; mult > 0; mult-- {
			j.outIdx = append(j.outIdx, int32(k))
			j.outDiff = append(j.outDiff, kind)
		}
	}
	if len(j.outIdx) == 0 {
		return nil
	}
	var rows arrow.RecordBatch
	switch {
	case joined == nil:
		// No condition: gather the output rows straight from the sides.
		li, ri := j.scratch[0].ids[:0], j.scratch[1].ids[:0]
		for _, k := range j.outIdx {
			li, ri = append(li, p.l[k]), append(ri, p.r[k])
		}
		j.scratch[0].ids, j.scratch[1].ids = li, ri
		rows = j.gatherPairs(mem, li, ri)
	case identity:
		rows = joined
	default:
		rows = gatherBatch(mem, j.schema, joined, j.outIdx)
	}
	j.emit(rows, inserts)
	return nil
}

// emit appends rows with the kinds in outDiff (all inserts: no Diff), in
// batches of at most BatchSize rows (a pair of rows with many copies each
// is many output rows).
func (j *RetractingJoin) emit(rows arrow.RecordBatch, inserts bool) {
	var diff []int8
	if !inserts {
		diff = append([]int8(nil), j.outDiff...)
	}
	n := rows.NumRows()
	if n <= BatchSize {
		j.out = append(j.out, ChangeBatch{Rows: rows, Diff: diff})
		return
	}
	for lo := int64(0); lo < n; lo += BatchSize {
		hi := min(lo+BatchSize, n)
		c := ChangeBatch{Rows: rows.NewSlice(lo, hi)}
		if diff != nil {
			c.Diff = diff[lo:hi]
		}
		j.out = append(j.out, c)
	}
}

// rjGather is scratch space of a side's gathers.
type rjGather struct {
	ids, from, rows []int32
	used            []int32
	arrs            []arrow.Array
}

// gatherSide returns the values of entries ids of side s, one array per
// column, gathered from the kept batches they live in.
func (j *RetractingJoin) gatherSide(mem memory.Allocator, s int, ids []int32) []arrow.Array {
	side, g := j.sides[s], &j.scratch[s]
	if len(side.remap) < len(side.batches) {
		side.remap = make([]int32, len(side.batches)+len(side.batches)/2)
		for i := range side.remap {
			side.remap[i] = -1
		}
	}
	g.from, g.rows, g.used = g.from[:0], g.rows[:0], g.used[:0]
	for _, id := range ids {
		e := side.ent(id)
		at := side.remap[e.batch]
		if at < 0 {
			at = int32(len(g.used))
			side.remap[e.batch] = at
			g.used = append(g.used, e.batch)
		}
		g.from, g.rows = append(g.from, at), append(g.rows, e.row)
	}
	g.arrs = g.arrs[:0]
	for range g.used {
		g.arrs = append(g.arrs, nil)
	}
	cols := make([]arrow.Array, len(side.cols))
	for c := range cols {
		for k, b := range g.used {
			g.arrs[k] = side.batches[b].Column(c)
		}
		cols[c] = gatherArrays(mem, side.schema.Field(c).Type, g.arrs, g.from, g.rows)
	}
	for _, b := range g.used {
		side.remap[b] = -1
	}
	return cols
}

// gatherPairs is the output rows of pairs of left and right entries.
func (j *RetractingJoin) gatherPairs(mem memory.Allocator, l, r []int32) arrow.RecordBatch {
	cols := append(j.gatherSide(mem, 0, l), j.gatherSide(mem, 1, r)...)
	return array.NewRecordBatch(j.schema, cols, int64(len(l)))
}

// settle emits the change of side s's NULL-padded rows (a preserved
// side's copies without a match) and commits the side's counts: the
// changed rows' and those whose match count changed.
func (j *RetractingJoin) settle(sc *StreamCtx, s int) {
	side := j.sides[s]
	if j.preserve[s] {
		ids := j.scratch[s].ids[:0]
		j.outDiff = j.outDiff[:0]
		inserts := true
		pad := func(copies, matches int64) int64 {
			if matches == 0 {
				return copies
			}
			return 0
		}
		emitRow := func(id int32, d int64) {
			kind := ChangeInsert
			if d < 0 {
				kind, d = ChangeDelete, -d
			}
			for ; d > 0; d-- {
				ids = append(ids, id)
				j.outDiff = append(j.outDiff, kind)
				inserts = inserts && kind == ChangeInsert
				if len(ids) >= rjChunk {
					j.emit(j.padded(sc, s, ids), inserts)
					ids, j.outDiff, inserts = ids[:0], j.outDiff[:0], true
				}
			}
		}
		for _, id := range side.dirty {
			e := side.ent(id)
			if d := pad(e.held(), e.acc) - pad(e.old, e.matches); d != 0 {
				emitRow(id, d)
			}
		}
		for _, id := range side.touched {
			e := side.ent(id)
			if d := pad(e.held(), e.matches+e.acc) - pad(e.held(), e.matches); d != 0 {
				emitRow(id, d)
			}
		}
		if len(ids) > 0 {
			j.emit(j.padded(sc, s, ids), inserts)
		}
		j.scratch[s].ids = ids
	}
	for _, id := range side.dirty {
		e := side.ent(id)
		e.dirty, e.matches, e.acc = false, e.acc, 0
	}
	for _, id := range side.touched {
		e := side.ent(id)
		e.touched, e.matches, e.acc = false, e.matches+e.acc, 0
	}
	side.dirty, side.touched = side.dirty[:0], side.touched[:0]
}

// padded is entries ids of side s with NULLs for the other side.
func (j *RetractingJoin) padded(sc *StreamCtx, s int, ids []int32) arrow.RecordBatch {
	mem := sc.Expr.Allocator()
	mine := j.gatherSide(mem, s, ids)
	other := j.sides[1-s]
	nulls := make([]arrow.Array, len(other.cols))
	for c := range nulls {
		nulls[c] = array.MakeArrayOfNull(mem, other.schema.Field(c).Type, len(ids))
	}
	cols := append(mine, nulls...)
	if s == 1 {
		cols = append(nulls, mine...)
	}
	return array.NewRecordBatch(j.schema, cols, int64(len(ids)))
}

// wasteful reports whether the entries of rows no longer held, or the
// kept batches' rows no entry needs, outweigh the rows held: then the
// state is rebuilt from the live entries (amortized over the deletes that
// made the waste).
func (j *RetractingJoin) wasteful() bool {
	for _, s := range j.sides {
		if s.n > 2*s.live+rjSlackEntries || s.rows > 2*int64(s.live)+rjSlackRows || len(s.batches) > rjSlackBatches+s.live/1024 {
			return true
		}
	}
	return false
}

// The waste tolerated before a rebuild (variables: tests lower them).
var (
	rjSlackEntries = 4096
	rjSlackRows    = int64(65536)
	rjSlackBatches = 256
)

// liveRows returns side s's entries whose count is not 0 as batches of
// at most packRows rows, with their counts and match counts.
func (j *RetractingJoin) liveRows(mem memory.Allocator, s int) (parts []arrow.RecordBatch, counts, matches []int64) {
	side := j.sides[s]
	var ids []int32
	flush := func() {
		if len(ids) == 0 {
			return
		}
		parts = append(parts, array.NewRecordBatch(side.schema, j.gatherSide(mem, s, ids), int64(len(ids))))
		ids = ids[:0]
	}
	for id := 0; id < side.n; id++ {
		e := side.ent(int32(id))
		if e.count == 0 {
			continue
		}
		ids = append(ids, int32(id))
		counts, matches = append(counts, e.count), append(matches, e.matches)
		if len(ids) >= packRows {
			flush()
		}
	}
	flush()
	return parts, counts, matches
}

// rebuild replaces the state with one of the live entries only, in
// compact batches (the clean state after an Emit).
func (j *RetractingJoin) rebuild(sc *StreamCtx) error {
	mem := sc.Expr.Allocator()
	var parts [2][]arrow.RecordBatch
	var counts, matches [2][]int64
	for s := 0; s < 2; s++ {
		parts[s], counts[s], matches[s] = j.liveRows(mem, s)
	}
	j.reset()
	for s := 0; s < 2; s++ {
		if err := j.restore(sc, s, parts[s], counts[s], matches[s]); err != nil {
			return err
		}
	}
	return nil
}

// restore adds saved rows (distinct) with their counts and match counts.
func (j *RetractingJoin) restore(sc *StreamCtx, s int, parts []arrow.RecordBatch, counts, matches []int64) error {
	at := 0
	for _, b := range parts {
		n := int(b.NumRows())
		if at+n > len(counts) || at+n > len(matches) {
			return corruptSnapshot("streaming join counts")
		}
		if err := j.count(sc, s, b, nil, counts[at:at+n], matches[at:at+n]); err != nil {
			return err
		}
		at += n
	}
	return nil
}

// Watermark is none: a changelog join's output deletes and inserts rows
// of any age (a new row matches old ones), so it promises no event time.
func (j *RetractingJoin) Watermark() int64 { return math.MinInt64 }

// Late is 0: no row is late for a join that never expires rows.
func (j *RetractingJoin) Late() int64 { return 0 }

// LateRows is nothing.
func (j *RetractingJoin) LateRows() []arrow.RecordBatch { return nil }

// MinEpoch is the first epoch whose rows the state holds: since the
// state was last empty every row may still be held.
func (j *RetractingJoin) MinEpoch(next int64) int64 {
	if j.since == 0 {
		return next
	}
	return min(j.since, next)
}

// StateSize counts the rows held (owed deletes included) and estimates
// the bytes of the kept batches, entries, hash tables and key table.
func (j *RetractingJoin) StateSize() (rows, bytes int64) {
	if !j.started {
		return 0, 0
	}
	for _, s := range j.sides {
		rows += s.copies
		bytes += s.bytes + int64(len(s.pages))*rjPage*int64(unsafe.Sizeof(rjEntry{})) + int64(len(s.slots))*8 + int64(len(s.heads))*4
	}
	if j.keys != nil {
		bytes += j.keys.bytes()
	}
	return rows, bytes
}

// Snapshot layout: a meta batch (the watermarks, the epoch since which
// rows are held) and per side batches of its rows with a count that is
// not 0: the side's columns, then the row's count (negative: deletes
// owed) and its match count.
const (
	kindRetractJoinMeta = "retract_join_meta"
	kindRetractJoinRows = "retract_join_rows"
)

// SaveState returns the rows of both sides. It must follow an Emit: the
// counts changed since are not committed.
func (j *RetractingJoin) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	if err := j.init(); err != nil {
		return nil, err
	}
	for _, s := range j.sides {
		if len(s.dirty) > 0 {
			return nil, sqlerr.New(sqlerr.InternalError, "streaming join: a snapshot before the changes pushed were emitted")
		}
	}
	out := []arrow.RecordBatch{emptyState(kindRetractJoinMeta, map[string]int64{"wm0": j.wm[0], "wm1": j.wm[1], "since": j.since})}
	mem := sc.Expr.Allocator()
	for s := 0; s < 2; s++ {
		parts, counts, matches := j.liveRows(mem, s)
		fields := append(j.sides[s].schema.Fields(),
			arrow.Field{Name: "weir_count", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "weir_matches", Type: arrow.PrimitiveTypes.Int64})
		schema := stateSchema(kindRetractJoinRows, map[string]int64{"side": int64(s)}, fields)
		at := 0
		for _, b := range parts {
			n := int(b.NumRows())
			cols := append(append([]arrow.Array{}, b.Columns()...), int64Array(counts[at:at+n]), int64Array(matches[at:at+n]))
			out = append(out, array.NewRecordBatch(schema, cols, int64(n)))
			at += n
		}
	}
	return out, nil
}

// LoadState replaces the state with a snapshot SaveState returned.
func (j *RetractingJoin) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	j.started = false
	j.preserve = [2]bool{}
	if err := j.init(); err != nil {
		return err
	}
	j.out, j.since = nil, 0
	meta := false
	for _, b := range state {
		switch stateKindOf(b) {
		case kindRetractJoinMeta:
			var err error
			if j.wm[0], err = metaInt(b.Schema(), "wm0"); err != nil {
				return err
			}
			if j.wm[1], err = metaInt(b.Schema(), "wm1"); err != nil {
				return err
			}
			if j.since, err = metaInt(b.Schema(), "since"); err != nil {
				return err
			}
			meta = true
		case kindRetractJoinRows:
			s, err := metaInt(b.Schema(), "side")
			if err != nil {
				return err
			}
			if s != 0 && s != 1 {
				return corruptSnapshot("streaming join side")
			}
			side := j.sides[s]
			nc := len(side.cols)
			if int(b.NumCols()) != nc+2 {
				return corruptSnapshot("streaming join rows of another shape")
			}
			counts, err := int64Column(b, nc)
			if err != nil {
				return err
			}
			matches, err := int64Column(b, nc+1)
			if err != nil {
				return err
			}
			rows := array.NewRecordBatch(side.schema, b.Columns()[:nc], b.NumRows())
			if err := side.check(rows); err != nil {
				return corruptSnapshot("streaming join columns")
			}
			for _, c := range counts {
				if c == 0 {
					return corruptSnapshot("streaming join row count")
				}
			}
			if err := j.restore(sc, int(s), []arrow.RecordBatch{rows}, counts, matches); err != nil {
				return err
			}
		default:
			return unknownStatePart(b)
		}
	}
	if !meta && len(state) > 0 {
		return corruptSnapshot("streaming join without its meta part")
	}
	return nil
}

func (j *RetractingJoin) String() string { return "retracting join" }
