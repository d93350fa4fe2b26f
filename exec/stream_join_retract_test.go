package exec

import (
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

var rjoinN = flag.Int("rjoin.n", 300, "cases of TestRetractingJoinRandom")

// rjCols is both inputs' columns in the tests: k bigint, v integer, s text.
var rjCols = []planner.Column{{Name: "k", T: types.Int8}, {Name: "v", T: types.Int4}, {Name: "s", T: types.Text}}

// rjRow is one input row; nil fields are NULL.
type rjRow struct {
	k *int64
	v *int32
	s *string
}

func (r rjRow) String() string {
	f := func(p any) string {
		switch x := p.(type) {
		case *int64:
			if x != nil {
				return fmt.Sprint(*x)
			}
		case *int32:
			if x != nil {
				return fmt.Sprint(*x)
			}
		case *string:
			if x != nil {
				return *x
			}
		}
		return "NULL"
	}
	return f(r.k) + " " + f(r.v) + " " + f(r.s)
}

const rjNullRow = "NULL NULL NULL"

func rjBatch(rows []rjRow) arrow.RecordBatch {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	vb := array.NewInt32Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, r := range rows {
		if r.k == nil {
			kb.AppendNull()
		} else {
			kb.Append(*r.k)
		}
		if r.v == nil {
			vb.AppendNull()
		} else {
			vb.Append(*r.v)
		}
		if r.s == nil {
			sb.AppendNull()
		} else {
			sb.Append(*r.s)
		}
	}
	return array.NewRecordBatch(planner.Schema(rjCols), []arrow.Array{kb.NewArray(), vb.NewArray(), sb.NewArray()}, int64(len(rows)))
}

func randomRJRow(rng *rand.Rand) rjRow {
	var r rjRow
	if rng.Intn(10) > 0 {
		k := int64(rng.Intn(4))
		r.k = &k
	}
	if rng.Intn(10) > 0 {
		v := int32(rng.Intn(6))
		r.v = &v
	}
	if rng.Intn(10) > 0 {
		s := string(rune('a' + rng.Intn(3)))
		r.s = &s
	}
	return r
}

// rjShape is a join's condition in the tests: which keys, whether the
// residual l.v < r.v applies.
type rjShape struct {
	name string
	keys []int // columns compared with =
	less bool  // l.v < r.v
}

var rjShapes = []rjShape{
	{"k=k", []int{0}, false},
	{"k=k and l.v<r.v", []int{0}, true},
	{"k=k and s=s", []int{0, 2}, false},
	{"l.v<r.v (theta)", nil, true},
	{"cross", nil, false},
}

func (sh rjShape) op(kind planner.JoinKind) *RetractingJoin {
	j := &RetractingJoin{Kind: kind, LeftCols: rjCols, RightCols: rjCols}
	for _, c := range sh.keys {
		j.LeftKeys = append(j.LeftKeys, col(c, rjCols[c].T))
		j.RightKeys = append(j.RightKeys, col(c, rjCols[c].T))
	}
	if sh.less {
		j.Cond = cmpFunc("<", col(1, types.Int4), col(len(rjCols)+1, types.Int4))
	}
	return j
}

// matches is the reference's ON condition: SQL's =, NULL never equal.
func (sh rjShape) matches(l, r rjRow) bool {
	for _, c := range sh.keys {
		switch c {
		case 0:
			if l.k == nil || r.k == nil || *l.k != *r.k {
				return false
			}
		case 2:
			if l.s == nil || r.s == nil || *l.s != *r.s {
				return false
			}
		}
	}
	if sh.less && (l.v == nil || r.v == nil || !(*l.v < *r.v)) {
		return false
	}
	return true
}

// referenceJoin is a nested-loop join of the two multisets.
func referenceJoin(sh rjShape, kind planner.JoinKind, left, right []rjRow) []string {
	var out []string
	rm := make([]bool, len(right))
	for _, l := range left {
		found := false
		for k, r := range right {
			if sh.matches(l, r) {
				out = append(out, l.String()+" "+r.String())
				found, rm[k] = true, true
			}
		}
		if !found && (kind == planner.LeftJoin || kind == planner.FullJoin) {
			out = append(out, l.String()+" "+rjNullRow)
		}
	}
	if kind == planner.RightJoin || kind == planner.FullJoin {
		for k, r := range right {
			if !rm[k] {
				out = append(out, rjNullRow+" "+r.String())
			}
		}
	}
	slices.Sort(out)
	return out
}

// applyChanges applies a changelog to a multiset of rendered rows.
func applyChanges(t *testing.T, held map[string]int, cs []ChangeBatch) {
	t.Helper()
	for _, c := range cs {
		if c.Diff != nil && len(c.Diff) != int(c.Rows.NumRows()) {
			t.Fatalf("%d kinds for %d rows", len(c.Diff), c.Rows.NumRows())
		}
		for i, r := range format([]arrow.RecordBatch{c.Rows}) {
			d := ChangeInsert
			if c.Diff != nil {
				d = c.Diff[i]
			}
			if d != ChangeInsert && d != ChangeDelete {
				t.Fatalf("change kind %d", d)
			}
			if held[r]+int(d) < 0 {
				t.Fatalf("delete of a row not held: %s", r)
			}
			if held[r] += int(d); held[r] == 0 {
				delete(held, r)
			}
		}
	}
}

func heldRows(t *testing.T, held map[string]int) []string {
	t.Helper()
	var got []string
	for r, n := range held {
		if n < 0 {
			t.Fatalf("row %q deleted %d times more than inserted", r, -n)
		}
		for ; n > 0; n-- {
			got = append(got, r)
		}
	}
	slices.Sort(got)
	return got
}

// rjInput generates one side's changes of an epoch and keeps its current
// multiset.
type rjInput struct{ live []rjRow }

func (in *rjInput) epoch(rng *rand.Rand) [][]change {
	var batches [][]change
	var later []change // inserts of rows deleted ahead of them
	for nb := rng.Intn(4); nb > 0; nb-- {
		var b []change
		for m := rng.Intn(10); m > 0; m-- {
			switch p := rng.Intn(10); {
			case p < 2 && len(in.live) > 0: // delete a held row
				i := rng.Intn(len(in.live))
				b = append(b, change{in.live[i], ChangeDelete})
				in.live = slices.Delete(in.live, i, i+1)
			case p < 4 && len(in.live) > 0: // update: delete and insert in one batch
				i := rng.Intn(len(in.live))
				old := in.live[i]
				nw := old
				v := int32(rng.Intn(6))
				nw.v = &v
				if rng.Intn(3) == 0 {
					k := int64(rng.Intn(4))
					nw.k = &k
				}
				b = append(b, change{old, ChangeDelete}, change{nw, ChangeInsert})
				in.live[i] = nw
			case p < 5 && len(in.live) > 0: // a duplicate
				r := in.live[rng.Intn(len(in.live))]
				b = append(b, change{r, ChangeInsert})
				in.live = append(in.live, r)
			case p < 6: // a delete before its insert, later in the epoch
				r := randomRJRow(rng)
				b = append(b, change{r, ChangeDelete})
				later = append(later, change{r, ChangeInsert})
			default:
				r := randomRJRow(rng)
				b = append(b, change{r, ChangeInsert})
				in.live = append(in.live, r)
			}
		}
		batches = append(batches, b)
	}
	if len(later) > 0 {
		rng.Shuffle(len(later), func(a, b int) { later[a], later[b] = later[b], later[a] })
		batches = append(batches, later)
	}
	return batches
}

type change struct {
	r rjRow
	d int8
}

func changeBatch(cs []change) ChangeBatch {
	rows := make([]rjRow, len(cs))
	diff := make([]int8, len(cs))
	inserts := true
	for i, c := range cs {
		rows[i], diff[i] = c.r, c.d
		inserts = inserts && c.d == ChangeInsert
	}
	cb := ChangeBatch{Rows: rjBatch(rows)}
	if !inserts || len(rows)%2 == 0 { // both forms of all inserts
		cb.Diff = diff
	}
	return cb
}

// TestRetractingJoinRandom drives the join with random changelogs on
// both inputs (inserts, duplicates, deletes, updates as delete+insert,
// deletes ahead of their inserts, NULL keys) over random epochs, for each
// join kind and condition shape, with a snapshot restored into a fresh
// operator at a random epoch, state rebuilds and tiny chunks of
// candidate pairs forced in some cases;
// after every epoch the emitted changes applied to a multiset must be the
// nested-loop join of the inputs' current multisets.
func TestRetractingJoinRandom(t *testing.T) {
	kinds := []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin}
	slack := [3]int{rjSlackEntries, int(rjSlackRows), rjSlackBatches}
	defer func() {
		rjSlackEntries, rjSlackRows, rjSlackBatches = slack[0], int64(slack[1]), slack[2]
		rjChunk = BatchSize
	}()
	for iter := 0; iter < *rjoinN; iter++ {
		rng := rand.New(rand.NewSource(int64(iter)))
		kind := kinds[iter%len(kinds)]
		sh := rjShapes[(iter/len(kinds))%len(rjShapes)]
		rjChunk = BatchSize
		if iter%5 == 1 { // candidate pairs in many chunks
			rjChunk = 1 + iter%4
		}
		if iter%3 == 0 { // rebuild the state at almost every Emit
			rjSlackEntries, rjSlackRows, rjSlackBatches = 0, 0, 0
		} else {
			rjSlackEntries, rjSlackRows, rjSlackBatches = slack[0], int64(slack[1]), slack[2]
		}
		op := sh.op(kind)
		var ins [2]rjInput
		held := map[string]int{}
		epochs := 2 + rng.Intn(8)
		restoreAt := rng.Intn(epochs + 1)
		for e := 1; e <= epochs; e++ {
			sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(e)}
			// Interleave the two inputs' batches.
			var order [][2]int
			var bs [2][][]change
			for s := 0; s < 2; s++ {
				bs[s] = ins[s].epoch(rng)
				for k := range bs[s] {
					order = append(order, [2]int{s, k})
				}
			}
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			// Keep each side's batches in their order (the delayed inserts last).
			next := [2]int{}
			for _, o := range order {
				s := o[0]
				b := bs[s][next[s]]
				next[s]++
				if err := op.Push(sc, s, changeBatch(b)); err != nil {
					t.Fatalf("iter %d: push: %v", iter, err)
				}
			}
			for s := 0; s < 2; s++ {
				if err := op.Advance(sc, s, int64(e)); err != nil {
					t.Fatal(err)
				}
			}
			cs, err := op.Emit(sc)
			if err != nil {
				t.Fatalf("iter %d: emit: %v", iter, err)
			}
			applyChanges(t, held, cs)
			if e == restoreAt {
				snap, err := op.SaveState(sc)
				if err != nil {
					t.Fatal(err)
				}
				rows, _ := op.StateSize()
				op = sh.op(kind)
				if err := op.LoadState(sc, storedState(snap)); err != nil {
					t.Fatalf("iter %d: load: %v", iter, err)
				}
				if r2, _ := op.StateSize(); r2 != rows {
					t.Fatalf("iter %d: %d rows held, %d after a restore", iter, rows, r2)
				}
			}
			got := heldRows(t, held)
			want := referenceJoin(sh, kind, ins[0].live, ins[1].live)
			if !slices.Equal(got, want) {
				t.Fatalf("iter %d (%s, kind %d) epoch %d (restore %d):\n got %q\nwant %q", iter, sh.name, kind, e, restoreAt, got, want)
			}
			rows, _ := op.StateSize()
			if want := int64(len(ins[0].live) + len(ins[1].live)); rows != want {
				t.Fatalf("iter %d epoch %d: state holds %d rows, inputs %d", iter, e, rows, want)
			}
			if m := op.MinEpoch(int64(e + 1)); (rows == 0) != (m == int64(e+1)) || m < 1 {
				t.Fatalf("iter %d epoch %d: MinEpoch %d with %d rows held", iter, e, m, rows)
			}
		}
	}
}

func rjr(k int64, v int32, s string) rjRow { return rjRow{k: &k, v: &v, s: &s} }

func rjEmit(t *testing.T, op *RetractingJoin, epoch int64, pushes ...any) []string {
	t.Helper()
	sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: epoch}
	for i := 0; i < len(pushes); i += 2 {
		if err := op.Push(sc, pushes[i].(int), changeBatch(pushes[i+1].([]change))); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := op.Emit(sc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		for i, r := range format([]arrow.RecordBatch{c.Rows}) {
			d := "+"
			if c.Diff != nil && c.Diff[i] == ChangeDelete {
				d = "-"
			}
			out = append(out, d+r)
		}
	}
	slices.Sort(out)
	return out
}

// TestRetractingJoinOuterTransitions follows one left row of a LEFT JOIN:
// padded alone, retracted when its first match arrives, its pairs
// updated, padded again when its last match goes.
func TestRetractingJoinOuterTransitions(t *testing.T) {
	op := rjShapes[0].op(planner.LeftJoin)
	l := rjr(1, 5, "a")
	r1, r2 := rjr(1, 7, "x"), rjr(1, 8, "y")
	expect(t, rjEmit(t, op, 1, 0, []change{{l, ChangeInsert}}), "+1 5 a NULL NULL NULL")
	expect(t, rjEmit(t, op, 2, 1, []change{{r1, ChangeInsert}}), "+1 5 a 1 7 x", "-1 5 a NULL NULL NULL")
	expect(t, rjEmit(t, op, 3, 1, []change{{r2, ChangeInsert}}), "+1 5 a 1 8 y")
	// An update of the left row: its pairs are updated, no padded row.
	l2 := rjr(1, 6, "a")
	expect(t, rjEmit(t, op, 4, 0, []change{{l, ChangeDelete}, {l2, ChangeInsert}}),
		"+1 6 a 1 7 x", "+1 6 a 1 8 y", "-1 5 a 1 7 x", "-1 5 a 1 8 y")
	expect(t, rjEmit(t, op, 5, 1, []change{{r1, ChangeDelete}}), "-1 6 a 1 7 x")
	expect(t, rjEmit(t, op, 6, 1, []change{{r2, ChangeDelete}}), "+1 6 a NULL NULL NULL", "-1 6 a 1 8 y")
	// A row inserted and deleted within an epoch changes nothing.
	expect(t, rjEmit(t, op, 7, 1, []change{{r1, ChangeInsert}}, 1, []change{{r1, ChangeDelete}}))
	// Two copies of the left row: two padded rows, two pairs.
	expect(t, rjEmit(t, op, 8, 0, []change{{l2, ChangeInsert}}), "+1 6 a NULL NULL NULL")
	expect(t, rjEmit(t, op, 9, 1, []change{{r1, ChangeInsert}}),
		"+1 6 a 1 7 x", "+1 6 a 1 7 x", "-1 6 a NULL NULL NULL", "-1 6 a NULL NULL NULL")
}

// TestRetractingJoinDeleteAhead: within an epoch a delete may come before
// the insert it cancels; across epochs a delete of a row never inserted
// is owed (as changelogTable's): it emits nothing, and the next insert of
// an equal row cancels it instead of adding a row.
func TestRetractingJoinDeleteAhead(t *testing.T) {
	// Rebuild the state at every Emit: the owed delete survives it too.
	slack := [3]int{rjSlackEntries, int(rjSlackRows), rjSlackBatches}
	defer func() { rjSlackEntries, rjSlackRows, rjSlackBatches = slack[0], int64(slack[1]), slack[2] }()
	rjSlackEntries, rjSlackRows, rjSlackBatches = 0, 0, 0
	op := rjShapes[0].op(planner.FullJoin)
	a, b := rjr(1, 1, "a"), rjr(1, 2, "b")
	expect(t, rjEmit(t, op, 1, 0, []change{{a, ChangeDelete}}, 1, []change{{b, ChangeInsert}}, 0, []change{{a, ChangeInsert}}),
		"+NULL NULL NULL 1 2 b")
	// A delete of a row never inserted: owed, nothing emitted.
	expect(t, rjEmit(t, op, 2, 0, []change{{a, ChangeDelete}}))
	if rows, _ := op.StateSize(); rows != 2 {
		t.Fatalf("%d rows held, want 2 (a row and an owed delete)", rows)
	}
	// It survives a snapshot.
	sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: 2}
	snap, err := op.SaveState(sc)
	if err != nil {
		t.Fatal(err)
	}
	op = rjShapes[0].op(planner.FullJoin)
	if err := op.LoadState(sc, storedState(snap)); err != nil {
		t.Fatal(err)
	}
	expect(t, rjEmit(t, op, 3, 0, []change{{a, ChangeInsert}}))
	expect(t, rjEmit(t, op, 4, 0, []change{{a, ChangeInsert}}), "+1 1 a 1 2 b", "-NULL NULL NULL 1 2 b")
	if got := op.MinEpoch(5); got != 1 {
		t.Fatalf("MinEpoch %d, want 1", got)
	}
	expect(t, rjEmit(t, op, 5, 0, []change{{a, ChangeDelete}}, 1, []change{{b, ChangeDelete}}), "-1 1 a 1 2 b")
	if got := op.MinEpoch(6); got != 6 {
		t.Fatalf("MinEpoch %d of an empty state, want 6", got)
	}
}

// TestRetractingJoinCopies: 100 copies of a row on each side are 10000
// copies of their pair, emitted in batches of at most BatchSize rows, and
// retracted as many times.
func TestRetractingJoinCopies(t *testing.T) {
	op := rjShapes[0].op(planner.InnerJoin)
	var l, r []change
	for i := 0; i < 100; i++ {
		l, r = append(l, change{rjr(1, 1, "a"), ChangeInsert}), append(r, change{rjr(1, 2, "b"), ChangeInsert})
	}
	for e, d := range []int8{ChangeInsert, ChangeDelete} {
		sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(e + 1)}
		for s, cs := range [][]change{l, r} {
			if d == ChangeDelete && s == 1 {
				break // deleting the left copies retracts every pair
			}
			for i := range cs {
				cs[i].d = d
			}
			if err := op.Push(sc, s, changeBatch(cs)); err != nil {
				t.Fatal(err)
			}
		}
		out, err := op.Emit(sc)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range out {
			if c.Rows.NumRows() > BatchSize {
				t.Fatalf("a batch of %d rows", c.Rows.NumRows())
			}
			for i := 0; i < int(c.Rows.NumRows()); i++ {
				if c.Diff == nil && d != ChangeInsert || c.Diff != nil && c.Diff[i] != d {
					t.Fatalf("epoch %d: a change of another kind", e+1)
				}
			}
			n += int(c.Rows.NumRows())
		}
		if n != 10000 {
			t.Fatalf("epoch %d: %d changes, want 10000", e+1, n)
		}
	}
}

// TestRetractingJoinErrors: inputs of the wrong shape and conditions that
// are not boolean are errors, not panics.
func TestRetractingJoinErrors(t *testing.T) {
	sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: 1}
	op := rjShapes[0].op(planner.InnerJoin)
	other := mkBatch(cols("k", types.Text), row("x"))
	if err := op.Push(sc, 0, Inserts(other)); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("a batch of other columns: %v", err)
	}
	if err := op.Push(sc, 2, Inserts(rjBatch([]rjRow{rjr(1, 1, "a")}))); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("input 2: %v", err)
	}
	if err := op.Push(sc, 0, ChangeBatch{Rows: rjBatch([]rjRow{rjr(1, 1, "a")}), Diff: []int8{1, 1}}); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("kinds of another length: %v", err)
	}
	bad := &RetractingJoin{Kind: planner.InnerJoin, LeftCols: rjCols, RightCols: rjCols,
		LeftKeys: []expr.Expr{col(0, types.Int8)}, RightKeys: []expr.Expr{col(2, types.Text)}}
	if err := bad.Push(sc, 0, Inserts(rjBatch([]rjRow{rjr(1, 1, "a")}))); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("keys of other types: %v", err)
	}
	nb := &RetractingJoin{Kind: planner.InnerJoin, LeftCols: rjCols, RightCols: rjCols, Cond: col(0, types.Int8)}
	if err := nb.Push(sc, 0, Inserts(rjBatch([]rjRow{rjr(1, 1, "a")}))); err != nil {
		t.Fatal(err)
	}
	if err := nb.Push(sc, 1, Inserts(rjBatch([]rjRow{rjr(1, 1, "a")}))); err != nil {
		t.Fatal(err)
	}
	if _, err := nb.Emit(sc); sqlerr.Code(err) != sqlerr.DatatypeMismatch {
		t.Fatalf("a condition of type bigint: %v", err)
	}
	if err := op.LoadState(sc, []arrow.RecordBatch{emptyState("other", nil)}); sqlerr.Code(err) != sqlerr.DataCorrupted {
		t.Fatalf("a foreign snapshot: %v", err)
	}
}

// BenchmarkRetractingJoin joins 100k rows a side (keys over 50k values:
// about two matches a row), then updates 10% of each side's rows, against
// a plain Go map-based hash join of the same rows (the build of a map of
// the right keys and a probe of every left row, the output as index
// pairs): the physical limit of an in-memory equi-join. rows/s is all the
// changes pushed (200k inserts, then 40k: a delete and an insert for 10%
// of each side) over the time of both epochs; update_rows/s is the
// second epoch's alone (the steady state of a changelog); map_join_rows/s
// is the 200k rows over the map join's time.
func BenchmarkRetractingJoin(b *testing.B) {
	const n, keys, batch = 100000, 50000, BatchSize
	rng := rand.New(rand.NewSource(1))
	mk := func() ([]int64, []arrow.RecordBatch) {
		ks := make([]int64, n)
		var bs []arrow.RecordBatch
		for lo := 0; lo < n; lo += batch {
			hi := min(lo+batch, n)
			kb := array.NewInt64Builder(memory.DefaultAllocator)
			vb := array.NewInt32Builder(memory.DefaultAllocator)
			sb := array.NewStringBuilder(memory.DefaultAllocator)
			for i := lo; i < hi; i++ {
				ks[i] = int64(rng.Intn(keys))
				kb.Append(ks[i])
				vb.Append(int32(i))
				sb.Append("row")
			}
			bs = append(bs, array.NewRecordBatch(planner.Schema(rjCols), []arrow.Array{kb.NewArray(), vb.NewArray(), sb.NewArray()}, int64(hi-lo)))
		}
		return ks, bs
	}
	lk, lb := mk()
	rk, rb := mk()
	// Updates: a delete of every tenth row and an insert of it with a new
	// value, in one batch.
	updates := func(bs []arrow.RecordBatch) []ChangeBatch {
		var out []ChangeBatch
		for _, src := range bs {
			var idx []int32
			for i := 0; i < int(src.NumRows()); i += 10 {
				idx = append(idx, int32(i))
			}
			old := takeBatch(memory.DefaultAllocator, src.Schema(), src, idx)
			vb := array.NewInt32Builder(memory.DefaultAllocator)
			for i := 0; i < len(idx); i++ {
				vb.Append(int32(n + i))
			}
			nw := array.NewRecordBatch(src.Schema(), []arrow.Array{old.Column(0), vb.NewArray(), old.Column(2)}, old.NumRows())
			both, _ := concatBatches(memory.DefaultAllocator, src.Schema(), []arrow.RecordBatch{old, nw})
			diff := make([]int8, both.NumRows())
			for i := range diff {
				diff[i] = ChangeInsert
				if i < len(idx) {
					diff[i] = ChangeDelete
				}
			}
			out = append(out, ChangeBatch{Rows: both, Diff: diff})
		}
		return out
	}
	lu, ru := updates(lb), updates(rb)
	var changes int64
	for _, cs := range [][]ChangeBatch{lu, ru} {
		for _, c := range cs {
			changes += c.Rows.NumRows()
		}
	}
	inputRows := int64(2*n) + changes
	var joinTime, mapTime, updTime time.Duration
	var outRows int64
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		start := time.Now()
		op := rjShapes[0].op(planner.InnerJoin)
		for e, pushes := range [][2][]ChangeBatch{{batchesAsInserts(lb), batchesAsInserts(rb)}, {lu, ru}} {
			sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(e + 1)}
			epochStart := time.Now()
			for s := 0; s < 2; s++ {
				for _, c := range pushes[s] {
					if err := op.Push(sc, s, c); err != nil {
						b.Fatal(err)
					}
				}
			}
			cs, err := op.Emit(sc)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cs {
				outRows += c.Rows.NumRows()
			}
			if e == 1 {
				updTime += time.Since(epochStart)
			}
		}
		joinTime += time.Since(start)

		start = time.Now()
		build := make(map[int64][]int32, keys)
		for i, k := range rk {
			build[k] = append(build[k], int32(i))
		}
		var li, ri []int32
		for i, k := range lk {
			for _, r := range build[k] {
				li, ri = append(li, int32(i)), append(ri, r)
			}
		}
		mapTime += time.Since(start)
		if len(li) == 0 {
			b.Fatal("no pairs")
		}
	}
	b.ReportMetric(float64(inputRows)*float64(b.N)/joinTime.Seconds(), "rows/s")
	b.ReportMetric(float64(2*n)*float64(b.N)/mapTime.Seconds(), "map_join_rows/s")
	b.ReportMetric(float64(changes)*float64(b.N)/updTime.Seconds(), "update_rows/s")
	b.ReportMetric(float64(outRows)/float64(b.N), "out_rows/op")
}

func batchesAsInserts(bs []arrow.RecordBatch) []ChangeBatch {
	out := make([]ChangeBatch, len(bs))
	for i, b := range bs {
		out[i] = Inserts(b)
	}
	return out
}
