package planner

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// StreamGroupAgg is a GROUP BY that is not windowed, or whose input is a
// changelog (rows it later deletes: a non-windowed aggregation's, a Top-N
// outside windows'): exec.RetractingAggregate keeps every group and
// updates a group's row each epoch its input changed, subtracting what a
// deleted row added. Its output is a changelog (update mode).
type StreamGroupAgg struct {
	Agg *Aggregate
	// Changelog is true when the input deletes rows (otherwise it only
	// inserts; the operator is the same).
	Changelog bool
}

// RetractKind is how one aggregate is maintained over a changelog.
type RetractKind int

const (
	RetractCount      RetractKind = iota // count(*), count(x): a count
	RetractSumInt                        // sum/avg of int2/int4/int8: a 128-bit sum and a count
	RetractSumFloat                      // sum/avg of float4/float8: a sum, a count, NaN and infinity counts
	RetractSumNumeric                    // sum/avg of numeric: an exact sum, counts per scale, NaN and infinities
	RetractMinMax                        // min/max: the multiset of values, in order
)

// RetractKindOf says how call is maintained when rows are deleted, or
// refuses it (0A000, naming it): only count, sum, avg, min and max can be
// undone, without DISTINCT or ORDER BY. changelog says whether the input
// deletes rows (for the message: otherwise the aggregation is one without
// a window, kept by the same operator).
func RetractKindOf(call *AggCall, changelog bool) (RetractKind, error) {
	refuseCall := func(form string) (RetractKind, error) {
		where := "in a streaming aggregation not grouped by an event-time window (its groups are never final)"
		if changelog {
			where = "over a changelog (rows later deleted: the output of a GROUP BY without an event-time window, or of a Top-N outside windows)"
		}
		return 0, sqlerr.New(sqlerr.FeatureNotSupported, "%s %s is not supported in a streaming table", form, where).
			WithHint("There count, sum and avg of numbers, min and max are maintained; group by window_start or window_end of TUMBLE/HOP to use other aggregates.")
	}
	if call.Distinct {
		return refuseCall(call.Name + "(DISTINCT ...)")
	}
	if len(call.OrderBy) > 0 {
		return refuseCall(call.Name + "(... ORDER BY ...)")
	}
	switch call.Name {
	case "count":
		if len(call.Args) <= 1 {
			return RetractCount, nil
		}
	case "sum", "avg":
		if len(call.Args) != 1 {
			break
		}
		switch call.Args[0].Type().OID {
		case types.OidInt2, types.OidInt4, types.OidInt8:
			return RetractSumInt, nil
		case types.OidFloat4, types.OidFloat8:
			return RetractSumFloat, nil
		case types.OidNumeric:
			return RetractSumNumeric, nil
		}
		return refuseCall(call.Name + "(" + call.Args[0].Type().String() + ")")
	case "min", "max":
		if len(call.Args) == 1 {
			return RetractMinMax, nil
		}
	}
	return refuseCall(call.Name)
}

// planGroupAgg checks that every aggregate of a can be maintained over a
// changelog and makes the node's plan.
func planGroupAgg(a *Aggregate, changelog bool) (*StreamGroupAgg, error) {
	for i := range a.Aggs {
		if _, err := RetractKindOf(&a.Aggs[i], changelog); err != nil {
			return nil, err
		}
		if a.Aggs[i].Agg == nil {
			return nil, sqlerr.New(sqlerr.UndefinedFunction, "aggregate %s is not available", a.Aggs[i].Name)
		}
	}
	return &StreamGroupAgg{Agg: a, Changelog: changelog}, nil
}

// groupAgg builds a GROUP BY that keeps every group over child (a
// changelog when changelog is true).
func (b *treeBuilder) groupAgg(a *Aggregate, child *StreamNode, changelog bool) (*StreamNode, error) {
	ga, err := planGroupAgg(a, changelog)
	if err != nil {
		return nil, err
	}
	what := "an aggregation not grouped by an event-time window keeps every group forever"
	if changelog {
		what = "an aggregation over a changelog keeps every group until all its rows are deleted"
	}
	for i := range a.Aggs {
		if k, _ := RetractKindOf(&a.Aggs[i], changelog); k == RetractMinMax && changelog {
			what += ", and for " + a.Aggs[i].Name + " every value of the group"
			break
		}
	}
	b.tree.Warnings = append(b.tree.Warnings, "streaming table state is unbounded: "+what+" (group by window_start or window_end of TUMBLE/HOP to bound it)")
	return &StreamNode{Kind: GroupAggNode, GroupAgg: ga, Children: []*StreamNode{child}, Cols: a.Columns(), TimeCol: -1}, nil
}

// PlanChangelogOver plans window functions over a changelog: exec keeps
// every partition, so any call and frame works, but the calls must share
// one PARTITION BY (a change recomputes rows of the partition it falls
// in). Context is how many rows before a row its values read when every
// call reaches a bounded number of earlier rows in one shared ORDER BY (a
// change then recomputes only the rows that many after it), -1 otherwise
// (a change recomputes its partition).
func PlanChangelogOver(w *Window) (*StreamOver, error) {
	first := &w.Calls[0]
	so := &StreamOver{Window: w, TimeCol: -1, Changelog: true}
	for i := range w.Calls {
		c := &w.Calls[i]
		if !sameExprs(c.PartitionBy, first.PartitionBy) {
			return nil, refuse("window functions over a changelog in a streaming table must share one PARTITION BY")
		}
		reach, err := callReach(c)
		if err != nil || len(c.OrderBy) == 0 || !sameSortKeys(c.OrderBy, first.OrderBy) {
			so.Context = -1
		} else if so.Context >= 0 {
			so.Context = max(so.Context, reach)
		}
	}
	return so, nil
}
