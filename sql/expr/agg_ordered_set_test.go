package expr

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// TestOrderedSetAccumulatorsKeepFewRows checks the contract the hash
// aggregation relies on: counted first (CountInput), then fed in batches
// sorted by the ordered value across all groups (groups interleaved), the
// percentile and mode accumulators give what sorting each group's values
// whole gives.
func TestOrderedSetAccumulatorsKeepFewRows(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	mem := memory.NewGoAllocator()
	const ngroups, nrows, batch = 7, 5000, 333
	type row struct {
		g uint32
		v Datum
	}
	rows := make([]row, nrows)
	for i := range rows {
		rows[i].g = uint32(r.Intn(ngroups - 1)) // the last group gets no rows
		if r.Intn(10) > 0 {
			rows[i].v = float64(r.Intn(300)) / 4
		}
	}
	fracs := []Datum{0.0, 0.1, 0.5, 0.77, 1.0, nil}
	f8, f8arr := types.Float8, types.ArrayOf(types.Float8)
	cont := &percentileAcc{cont: true, multi: true, t: f8, ret: f8arr}
	disc := &percentileAcc{multi: true, t: f8, ret: f8arr}
	mode := &modeAcc{t: f8, equal: datumEqual(f8)}
	feed := func(rs []row, update bool) {
		for s := 0; s < len(rs); s += batch {
			part := rs[s:min(s+batch, len(rs))]
			groups := make([]uint32, len(part))
			vals := make([]Datum, len(part))
			fr := make([]Datum, len(part))
			for i, x := range part {
				groups[i], vals[i], fr[i] = x.g, x.v, fracs
			}
			args := []arrow.Array{ArrayFromDatums(mem, f8arr, fr), ArrayFromDatums(mem, f8, vals)}
			for _, a := range []*percentileAcc{cont, disc} {
				if !update {
					a.CountInput(groups, args)
				} else if err := a.Update(&Ctx{}, groups, args); err != nil {
					t.Fatal(err)
				}
			}
			if update {
				if err := mode.Update(&Ctx{}, groups, args[1:]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	feed(rows, false)
	sorted := append([]row(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].v, sorted[j].v
		if a == nil || b == nil {
			return b == nil && a != nil
		}
		return a.(float64) < b.(float64)
	})
	feed(sorted, true)
	outs := map[string]arrow.Array{}
	for name, acc := range map[string]Accumulator{"cont": cont, "disc": disc, "mode": mode} {
		out, err := acc.Finish(&Ctx{}, ngroups)
		if err != nil {
			t.Fatal(err)
		}
		outs[name] = out
	}
	for g := 0; g < ngroups; g++ {
		var vs []float64
		for _, x := range sorted {
			if x.g == uint32(g) && x.v != nil {
				vs = append(vs, x.v.(float64))
			}
		}
		n := float64(len(vs))
		gotCont, gotDisc, gotMode := DatumAt(outs["cont"], g), DatumAt(outs["disc"], g), DatumAt(outs["mode"], g)
		if len(vs) == 0 {
			if gotCont != nil || gotDisc != nil || gotMode != nil {
				t.Errorf("group %d has no values: got %v %v %v", g, gotCont, gotDisc, gotMode)
			}
			continue
		}
		for k, f := range fracs {
			c, d := gotCont.([]Datum)[k], gotDisc.([]Datum)[k]
			if f == nil {
				if c != nil || d != nil {
					t.Errorf("group %d: a NULL fraction gives %v, %v", g, c, d)
				}
				continue
			}
			p := f.(float64)
			lo, hi := math.Floor(p*(n-1)), math.Ceil(p*(n-1))
			want := vs[int(lo)] + (vs[int(hi)]-vs[int(lo)])*(p*(n-1)-lo)
			if c != want {
				t.Errorf("group %d: percentile_cont(%v) = %v, want %v", g, p, c, want)
			}
			wantDisc := vs[max(int(math.Ceil(p*n)), 1)-1]
			if d != wantDisc {
				t.Errorf("group %d: percentile_disc(%v) = %v, want %v", g, p, d, wantDisc)
			}
		}
		best, bestN := 0.0, 0
		for i := 0; i < len(vs); {
			j := i
			for j < len(vs) && vs[j] == vs[i] {
				j++
			}
			if j-i > bestN {
				best, bestN = vs[i], j-i
			}
			i = j
		}
		if gotMode != best {
			t.Errorf("group %d: mode = %v, want %v", g, gotMode, best)
		}
	}
}
