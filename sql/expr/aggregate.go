package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// Accumulator folds rows into per-group aggregate states. Groups are dense
// integers 0..n-1 assigned by the hash aggregation; a group seen for the
// first time has an index equal to the previous group count, so an
// accumulator grows its state slices as group indexes appear.
//
// The accumulator's state is exactly what a streaming aggregation
// checkpoints, which is why it is a value separate from the (immutable)
// aggregate description.
type Accumulator interface {
	// Update folds row i of args into group groups[i], for every row.
	Update(ctx *Ctx, groups []uint32, args []arrow.Array) error
	// Finish returns one result per group, in group order, for ngroups groups
	// (groups that never received a row — possible for the empty input of a
	// global aggregate — get the aggregate's value over no rows).
	Finish(ctx *Ctx, ngroups int) (arrow.Array, error)
}

// FinalAppender is an optional interface of an Accumulator for callers that
// read a group's result after every Update — a window call whose frame grows
// row by row — where Finish would build a one-row array per row.
//
// AppendFinal appends group g's current result to b without finishing the
// accumulator: the accumulator may keep folding rows afterwards, and the
// value appended is the one Finish would return for g at this point (a group
// that never received a row gets the value over no rows). b is a builder of
// the aggregate's result type; an implementation appends through AppendDatum
// when b is another builder, as a caller copying Finish's result would. An
// error is the one Finish would return.
type FinalAppender interface {
	AppendFinal(ctx *Ctx, g int, b array.Builder) error
}

// AggOverload is one signature of an aggregate function.
type AggOverload struct {
	Args  []types.T
	Ret   types.T
	RetFn func(args []types.T) types.T
	// New returns a fresh accumulator for the resolved argument types.
	New func(args []types.T, ret types.T) Accumulator
}

var aggregates = map[string][]AggOverload{}

// RegisterAggregate adds overloads of an aggregate function.
func RegisterAggregate(name string, ovs ...AggOverload) {
	aggregates[name] = append(aggregates[name], ovs...)
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool {
	_, ok := aggregates[name]
	// rank, dense_rank, ... are window functions but for WITHIN GROUP.
	return ok || IsOrderedSetAggregate(name) && !IsHypotheticalSetAggregate(name)
}

// ResolvedAgg is a chosen aggregate overload.
type ResolvedAgg struct {
	Overload *AggOverload
	ArgTypes []types.T
	Ret      types.T
}

// ResolveAggregate picks the overload of an aggregate for the argument types.
func ResolveAggregate(name string, args []types.T) (*ResolvedAgg, error) {
	return resolveAggOverload(name, aggregates[name], args)
}

// resolveAggOverload picks the cheapest-matching overload of ovs for the
// argument types.
func resolveAggOverload(name string, ovs []AggOverload, args []types.T) (*ResolvedAgg, error) {
	best, bestCost := -1, 1<<30
	var bestArgs []types.T
	for i := range ovs {
		ov := Overload{Args: ovs[i].Args}
		targets, cost, ok := match(&ov, args)
		if ok && cost < bestCost {
			best, bestCost, bestArgs = i, cost, targets
		}
	}
	if best < 0 {
		return nil, undefinedFunction(name, args)
	}
	ov := &ovs[best]
	ret := ov.Ret
	if ov.RetFn != nil {
		ret = ov.RetFn(bestArgs)
		if ret.OID == 0 {
			return nil, NoArrayTypeFor(bestArgs)
		}
	}
	return &ResolvedAgg{Overload: ov, ArgTypes: bestArgs, Ret: ret}, nil
}
