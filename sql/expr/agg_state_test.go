package expr

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// randomDatum is a value of type t for the state round trip (NULL one time
// in eight).
func randomDatum(r *rand.Rand, t types.T) Datum {
	if r.Intn(8) == 0 {
		return nil
	}
	switch t.OID {
	case types.OidBool:
		return r.Intn(2) == 0
	case types.OidInt2:
		return int64(r.Intn(2000) - 1000)
	case types.OidInt4, types.OidDate:
		return int64(r.Intn(2_000_000) - 1_000_000)
	case types.OidInt8, types.OidTime, types.OidTimestamp, types.OidTimestampTZ, types.OidOid:
		if r.Intn(4) == 0 {
			return int64(r.Uint64() >> 2) // large sums: the 128-bit path
		}
		return int64(r.Intn(1_000_000))
	case types.OidFloat4, types.OidFloat8:
		return r.NormFloat64() * 1000
	case types.OidNumeric:
		switch r.Intn(3) {
		case 0:
			return fmt.Sprintf("%d.%02d", r.Intn(100000)-50000, r.Intn(100))
		case 1:
			return fmt.Sprintf("%d", r.Intn(1000))
		default:
			return fmt.Sprintf("%d.%06d", r.Int63(), r.Intn(1000000)) // leaves the fast path
		}
	case types.OidInterval:
		return arrow.MonthDayNanoInterval{Months: int32(r.Intn(5)), Days: int32(r.Intn(40)), Nanoseconds: int64(r.Intn(1e6)) * 1000}
	case types.OidText, types.OidBpchar, types.OidVarchar:
		return fmt.Sprintf("v%d", r.Intn(500))
	}
	return nil
}

// concreteArgs replaces polymorphic argument types by int4.
func concreteArgs(args []types.T) ([]types.T, bool) {
	out := make([]types.T, len(args))
	for i, t := range args {
		switch {
		case t.OID == Any.OID || t.OID == AnyElement.OID:
			out[i] = types.Int4
		case t.OID == types.OidJSON || t.OID == types.OidJSONB || t.OID == types.OidBytea:
			return nil, false
		default:
			out[i] = t
		}
	}
	return out, true
}

// TestAccumulatorStateRoundTrip folds rows into one accumulator, and the
// same rows into a second one that is saved, loaded into a fresh third
// one half way, which then folds the rest: the results must be equal, for
// every registered aggregate whose accumulator snapshots.
func TestAccumulatorStateRoundTrip(t *testing.T) {
	ctx := &Ctx{}
	mem := memory.DefaultAllocator
	r := rand.New(rand.NewSource(7))
	tested := 0
	for name, ovs := range aggregates {
		for oi, ov := range ovs {
			args, ok := concreteArgs(ov.Args)
			if !ok {
				continue
			}
			ret := ov.Ret
			if ov.RetFn != nil {
				ret = ov.RetFn(args)
			}
			if _, ok := ov.New(args, ret).(StateAccumulator); !ok {
				continue
			}
			tested++
			const ngroups, rows = 37, 400
			whole := ov.New(args, ret)
			first := ov.New(args, ret).(StateAccumulator)
			var second StateAccumulator
			for half := 0; half < 2; half++ {
				groups := make([]uint32, rows)
				for i := range groups {
					// The first half sees only some groups; the second all.
					groups[i] = uint32(r.Intn(ngroups/(2-half) + half))
				}
				cols := make([]arrow.Array, len(args))
				for c, at := range args {
					vals := make([]Datum, rows)
					for i := range vals {
						vals[i] = randomDatum(r, at)
					}
					cols[c] = ArrayFromDatums(mem, at, vals)
				}
				if err := whole.Update(ctx, groups, cols); err != nil {
					t.Fatalf("%s#%d: %v", name, oi, err)
				}
				if half == 0 {
					if err := first.Update(ctx, groups, cols); err != nil {
						t.Fatal(err)
					}
					saved := first.SaveState(mem, ngroups)
					for _, c := range saved {
						if c.Len() != ngroups {
							t.Fatalf("%s#%d: state column of %d rows for %d groups", name, oi, c.Len(), ngroups)
						}
					}
					second = ov.New(args, ret).(StateAccumulator)
					if err := second.LoadState(saved); err != nil {
						t.Fatalf("%s#%d: load: %v", name, oi, err)
					}
				} else if err := second.Update(ctx, groups, cols); err != nil {
					t.Fatal(err)
				}
			}
			want, err := whole.Finish(ctx, ngroups)
			if err != nil {
				t.Fatal(err)
			}
			got, err := second.Finish(ctx, ngroups)
			if err != nil {
				t.Fatal(err)
			}
			for g := 0; g < ngroups; g++ {
				w, gv := fmt.Sprintf("%#v", DatumAt(want, g)), fmt.Sprintf("%#v", DatumAt(got, g))
				if w != gv {
					t.Fatalf("%s(%v) group %d: restored state gives %s, uninterrupted %s", name, args, g, gv, w)
				}
			}
		}
	}
	if tested < 40 {
		t.Fatalf("only %d aggregate overloads tested", tested)
	}
	t.Logf("%d aggregate overloads restore their state exactly", tested)
}
