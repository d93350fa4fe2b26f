package expr

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// bool_and/bool_or/every, string_agg, array_agg, json_agg, jsonb_agg.

type boolAcc struct {
	vals []bool
	seen []bool
	and  bool
}

func (a *boolAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0].(*array.Boolean)
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		a.seen = growTo(a.seen, g)
		if col.IsNull(i) {
			continue
		}
		v := col.Value(i)
		if !a.seen[g] {
			a.vals[g], a.seen[g] = v, true
		} else if a.and {
			a.vals[g] = a.vals[g] && v
		} else {
			a.vals[g] = a.vals[g] || v
		}
	}
	return nil
}

func (a *boolAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	vals := make([]bool, ngroups)
	nulls := make([]bool, ngroups)
	for g := range vals {
		if g < len(a.seen) && a.seen[g] {
			vals[g] = a.vals[g]
		} else {
			nulls[g] = true
		}
	}
	return boolArray(ctx, vals, nulls), nil
}

type stringAggAcc struct {
	bufs []*strings.Builder
}

func (a *stringAggAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	delim := args[1]
	for i, g := range groups {
		a.bufs = growTo(a.bufs, g)
		if col.IsNull(i) {
			continue
		}
		b := a.bufs[g]
		if b == nil {
			b = &strings.Builder{}
			a.bufs[g] = b
		} else if !delim.IsNull(i) {
			b.Write(stringOrBytes(delim, i))
		}
		b.Write(stringOrBytes(col, i))
	}
	return nil
}

func stringOrBytes(a arrow.Array, i int) []byte {
	switch x := a.(type) {
	case *array.String:
		return []byte(x.Value(i))
	case *array.Binary:
		return x.Value(i)
	}
	return nil
}

func (a *stringAggAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		if g < len(a.bufs) && a.bufs[g] != nil {
			out[g] = a.bufs[g].String()
		}
	}
	return ArrayFromDatums(ctx.Allocator(), types.Text, out), nil
}

type arrayAggAcc struct {
	vals [][]Datum
	seen []bool
	ret  types.T
}

func (a *arrayAggAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		a.seen = growTo(a.seen, g)
		a.vals[g] = append(a.vals[g], DatumAt(col, i))
		a.seen[g] = true
	}
	return nil
}

func (a *arrayAggAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		if g < len(a.seen) && a.seen[g] {
			out[g] = a.vals[g]
		}
	}
	return ArrayFromDatums(ctx.Allocator(), a.ret, out), nil
}

type jsonAggAcc struct {
	vals  [][]any
	seen  []bool
	t     types.T
	jsonb bool
}

func (a *jsonAggAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		a.seen = growTo(a.seen, g)
		a.vals[g] = append(a.vals[g], jsonFromValue(ctx, a.t, col, i, a.jsonb))
		a.seen[g] = true
	}
	return nil
}

func (a *jsonAggAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		if g >= len(a.seen) || !a.seen[g] {
			continue
		}
		if a.jsonb {
			out[g] = jsonbText(canonicalJSONB(a.vals[g]))
		} else {
			var buf bytes.Buffer
			writeJSONStyled(&buf, a.vals[g], ", ", ": ")
			out[g] = buf.String()
		}
	}
	rt := types.JSON
	if a.jsonb {
		rt = types.JSONB
	}
	return ArrayFromDatums(ctx.Allocator(), rt, out), nil
}

func init() {
	for _, name := range []string{"bool_and", "every", "bool_or"} {
		and := name != "bool_or"
		RegisterAggregate(name, AggOverload{Args: []types.T{types.Bool}, Ret: types.Bool, New: func([]types.T, types.T) Accumulator { return &boolAcc{and: and} }})
	}
	RegisterAggregate("string_agg",
		AggOverload{Args: []types.T{types.Text, types.Text}, Ret: types.Text, New: func([]types.T, types.T) Accumulator { return &stringAggAcc{} }},
	)
	RegisterAggregate("array_agg", AggOverload{Args: []types.T{AnyElement}, RetFn: func(args []types.T) types.T { return types.ArrayOf(args[0]) },
		New: func(args []types.T, ret types.T) Accumulator { return &arrayAggAcc{ret: ret} }})
	RegisterAggregate("json_agg", AggOverload{Args: []types.T{AnyElement}, Ret: types.JSON,
		New: func(args []types.T, ret types.T) Accumulator { return &jsonAggAcc{t: args[0]} }})
	RegisterAggregate("jsonb_agg", AggOverload{Args: []types.T{AnyElement}, Ret: types.JSONB,
		New: func(args []types.T, ret types.T) Accumulator { return &jsonAggAcc{t: args[0], jsonb: true} }})
}
