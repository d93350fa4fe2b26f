package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Catalog helpers that psql's \d family calls for objects weir does not
// have (triggers, rules, statistics objects, partitions, publications):
// each answers as PostgreSQL does when no such object exists.
func init() {
	nullOf := func(ret types.T) ScalarImpl {
		return NonStrict(ret, func(ctx *Ctx, a []Datum) (Datum, error) { return nil, nil })
	}
	falseFn := NonStrict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return false, nil })
	trueFn := NonStrict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return true, nil })
	RegisterScalar("pg_get_triggerdef",
		Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: nullOf(types.Text)},
		Overload{Args: []types.T{types.Oid, types.Bool}, Ret: types.Text, Impl: nullOf(types.Text)})
	RegisterScalar("pg_get_ruledef",
		Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: nullOf(types.Text)},
		Overload{Args: []types.T{types.Oid, types.Bool}, Ret: types.Text, Impl: nullOf(types.Text)})
	RegisterScalar("pg_get_partkeydef", Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: nullOf(types.Text)})
	RegisterScalar("pg_relation_is_publishable", Overload{Args: []types.T{types.Regclass}, Ret: types.Bool, Impl: falseFn})
	RegisterScalar("pg_is_other_temp_schema", Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: falseFn})
	RegisterScalar("pg_collation_is_visible", Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: trueFn})
	RegisterScalar("pg_opclass_is_visible", Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: trueFn})
	RegisterScalar("pg_conversion_is_visible", Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: trueFn})
	RegisterScalar("pg_operator_is_visible", Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: trueFn})
	RegisterScalar("pg_ts_config_is_visible", Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: trueFn})
}

// More helpers: functions weir has no user-defined counterpart for, and
// the partition tree of a relation, which for weir's unpartitioned tables
// is the relation itself.
func init() {
	RegisterScalar("pg_get_functiondef", Overload{Args: []types.T{types.Oid}, Ret: types.Text,
		Impl: NonStrict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return userFunctionDef(ctx, a[0]), nil })})
	RegisterScalar("pg_partition_ancestors", Overload{Args: []types.T{types.Regclass}, Ret: types.Regclass,
		Impl: Strict(types.Regclass, func(ctx *Ctx, a []Datum) (Datum, error) { return a[0], nil })})
	RegisterScalar("pg_opfamily_is_visible", Overload{Args: []types.T{types.Oid}, Ret: types.Bool,
		Impl: NonStrict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return true, nil })})
}

// pg_sleep waits, as PostgreSQL's does; scripts use it to let time pass.
func init() {
	RegisterScalar("pg_sleep", Overload{Args: []types.T{types.Float8}, Ret: types.Void, Volatile: true,
		Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			secs := args[0].(*array.Float64)
			for i := 0; i < n; i++ {
				if secs.IsNull(i) || secs.Value(i) <= 0 {
					continue
				}
				select {
				case <-time.After(time.Duration(secs.Value(i) * float64(time.Second))):
				case <-ctx.Done:
					return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
				}
			}
			return array.MakeArrayOfNull(ctx.Allocator(), types.Void.Arrow(), n), nil
		}})
}
