package expr

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Session, system-information and catalog helper functions.

// Version is what version() returns.
const Version = "PostgreSQL 15.0 (weir 0.1.0) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"

func constFn(ret types.T, fn func(ctx *Ctx) Datum) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		return Broadcast(ctx.Allocator(), ret, fn(ctx), n)
	}
}

func searchPath(ctx *Ctx) []string {
	if ctx.Catalog == nil {
		return []string{"public"}
	}
	return ctx.Catalog.SearchPath()
}

// prettySize is pg_size_pretty(int8).
func prettySize(size int64) string {
	abs := size
	if abs < 0 {
		abs = -abs
	}
	if abs < 10*1024 {
		return fmt.Sprintf("%d bytes", size)
	}
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	// Each step halves with rounding, as PostgreSQL's half_rounded.
	half := func(x int64) int64 {
		if x < 0 {
			return (x - 1) / 2
		}
		return (x + 1) / 2
	}
	v := size >> 9 // size / 512
	if size < 0 {
		v = -((-size) >> 9)
	}
	for i, u := range units {
		av := v
		if av < 0 {
			av = -av
		}
		if av < 20*1024 || i == len(units)-1 {
			return fmt.Sprintf("%d %s", half(v), u)
		}
		if v < 0 {
			v = -((-v) >> 10)
		} else {
			v >>= 10
		}
	}
	return ""
}

func init() {
	textConst := func(name string, fn func(ctx *Ctx) Datum) {
		RegisterScalar(name, Overload{Args: nil, Ret: types.Text, Impl: constFn(types.Text, fn)})
	}
	nameConst := func(name string, fn func(ctx *Ctx) Datum) {
		RegisterScalar(name, Overload{Args: nil, Ret: types.Name, Impl: constFn(types.Name, fn)})
	}
	textConst("version", func(*Ctx) Datum { return Version })
	for _, n := range []string{"current_user", "user", "current_role"} {
		nameConst(n, func(ctx *Ctx) Datum { return ctx.User })
	}
	nameConst("session_user", func(ctx *Ctx) Datum {
		if ctx.SessionUser != "" {
			return ctx.SessionUser
		}
		return ctx.User
	})
	for _, n := range []string{"current_database", "current_catalog"} {
		nameConst(n, func(ctx *Ctx) Datum { return ctx.Database })
	}
	nameConst("current_schema", func(ctx *Ctx) Datum {
		for _, s := range searchPath(ctx) {
			if s != "pg_catalog" && s != "$user" {
				return s
			}
		}
		return nil
	})
	nameArr := types.ArrayOf(types.Name)
	RegisterScalar("current_schemas", Overload{Args: []types.T{types.Bool}, Ret: nameArr, Impl: Strict(nameArr, func(ctx *Ctx, a []Datum) (Datum, error) {
		var out []Datum
		if a[0].(bool) {
			out = append(out, "pg_catalog")
		}
		for _, s := range searchPath(ctx) {
			if s == "pg_catalog" || s == "$user" {
				continue
			}
			out = append(out, s)
		}
		return out, nil
	})})
	RegisterScalar("pg_backend_pid", Overload{Args: nil, Ret: types.Int4, Impl: constFn(types.Int4, func(ctx *Ctx) Datum { return int64(ctx.BackendPID) })})
	RegisterScalar("pg_is_in_recovery", Overload{Args: nil, Ret: types.Bool, Impl: constFn(types.Bool, func(*Ctx) Datum { return false })})
	setting := func(ctx *Ctx, name string, missingOK bool) (Datum, error) {
		if ctx.Settings != nil {
			if v, ok := ctx.Settings(strings.ToLower(name)); ok {
				return v, nil
			}
		}
		if missingOK {
			return nil, nil
		}
		return nil, sqlerr.New(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	RegisterScalar("current_setting",
		Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return setting(ctx, s0(a, 0), false) })},
		Overload{Args: []types.T{types.Text, types.Bool}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return setting(ctx, s0(a, 0), a[1].(bool)) })},
	)
	RegisterScalar("gen_random_uuid", Overload{Args: nil, Ret: types.UUID, Volatile: true, Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		out := make([]Datum, n)
		for i := range out {
			u := make([]byte, 16)
			rand.Read(u)
			u[6] = u[6]&0x0f | 0x40
			u[8] = u[8]&0x3f | 0x80
			out[i] = u
		}
		return ArrayFromDatums(ctx.Allocator(), types.UUID, out), nil
	}})

	// catalog helpers
	RegisterScalar("format_type", Overload{Args: []types.T{types.Oid, types.Int4}, Ret: types.Text, Impl: NonStrict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
		if a[0] == nil {
			return nil, nil
		}
		mod := int64(-1)
		if a[1] != nil {
			mod = a[1].(int64)
		}
		oid := uint32(a[0].(int64))
		if _, ok := types.Lookup(oid); !ok {
			if ctx.Catalog != nil {
				if s, ok := ctx.Catalog.TypeName(oid); ok {
					return s, nil
				}
			}
			return "???", nil
		}
		return types.FormatType(oid, int32(mod)), nil
	})})
	RegisterScalar("pg_get_userbyid", Overload{Args: []types.T{types.Oid}, Ret: types.Name, Impl: Strict(types.Name, func(ctx *Ctx, a []Datum) (Datum, error) {
		oid := uint32(a[0].(int64))
		if ctx.Catalog != nil {
			if s, ok := ctx.Catalog.RoleName(oid); ok {
				return s, nil
			}
		}
		return fmt.Sprintf("unknown (OID=%d)", oid), nil
	})})
	boolOid := func(name string, fn func(ctx *Ctx, oid uint32) bool) {
		RegisterScalar(name, Overload{Args: []types.T{types.Oid}, Ret: types.Bool, Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
			return fn(ctx, uint32(a[0].(int64))), nil
		})})
	}
	boolOid("pg_table_is_visible", func(ctx *Ctx, oid uint32) bool { return ctx.Catalog != nil && ctx.Catalog.RelationVisible(oid) })
	boolOid("pg_type_is_visible", func(ctx *Ctx, oid uint32) bool { _, ok := types.Lookup(oid); return ok })
	boolOid("pg_function_is_visible", func(*Ctx, uint32) bool { return true })
	RegisterScalar("pg_get_expr",
		Overload{Args: []types.T{types.PgNodeTree, types.Oid}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return a[0], nil })},
		Overload{Args: []types.T{types.PgNodeTree, types.Oid, types.Bool}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return a[0], nil })},
		Overload{Args: []types.T{types.Text, types.Oid}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return a[0], nil })},
		Overload{Args: []types.T{types.Text, types.Oid, types.Bool}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return a[0], nil })},
	)
	viewdef := func(ctx *Ctx, a []Datum) (Datum, error) {
		if ctx.Catalog != nil {
			pretty := len(a) > 1 && a[1].(bool)
			if s, ok := ctx.Catalog.ViewDefinition(uint32(a[0].(int64)), pretty); ok {
				return s, nil
			}
		}
		return nil, nil
	}
	RegisterScalar("pg_get_viewdef",
		Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: Strict(types.Text, viewdef)},
		Overload{Args: []types.T{types.Oid, types.Bool}, Ret: types.Text, Impl: Strict(types.Text, viewdef)},
	)
	nullText := func(n int) ScalarImpl {
		return func(ctx *Ctx, args []arrow.Array, rows int) (arrow.Array, error) {
			return Broadcast(ctx.Allocator(), types.Text, nil, rows)
		}
	}
	RegisterScalar("obj_description",
		Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: nullText(1)},
		Overload{Args: []types.T{types.Oid, types.Name}, Ret: types.Text, Impl: Strict(types.Text, objDescription)})
	RegisterScalar("col_description", Overload{Args: []types.T{types.Oid, types.Int4}, Ret: types.Text, Impl: nullText(2)})
	RegisterScalar("shobj_description", Overload{Args: []types.T{types.Oid, types.Name}, Ret: types.Text, Impl: nullText(2)})
	// The only indexes and constraints weir has are primary keys; their
	// definitions come from the catalog.
	indexDef := Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
		if ctx.Catalog == nil {
			return nil, nil
		}
		col := 0
		if len(a) > 1 {
			col = int(a[1].(int64))
		}
		if d, ok := ctx.Catalog.IndexDef(uint32(a[0].(int64)), col); ok {
			return d, nil
		}
		return nil, nil
	})
	RegisterScalar("pg_get_indexdef",
		Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: indexDef},
		Overload{Args: []types.T{types.Oid, types.Int4, types.Bool}, Ret: types.Text, Impl: indexDef})
	constraintDef := Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
		if ctx.Catalog == nil {
			return nil, nil
		}
		if d, ok := ctx.Catalog.ConstraintDef(uint32(a[0].(int64))); ok {
			return d, nil
		}
		return nil, nil
	})
	RegisterScalar("pg_get_constraintdef",
		Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: constraintDef},
		Overload{Args: []types.T{types.Oid, types.Bool}, Ret: types.Text, Impl: constraintDef})
	// pg_typeof(any) is the argument's resolved type (psycopg 3 sends a
	// small Python int as int2, which pg_typeof shows as smallint).
	RegisterScalar("pg_typeof", Overload{Args: []types.T{Any}, Ret: types.Regtype,
		Specialize: func(args []types.T, ret types.T) ScalarImpl {
			oid := int64(0)
			if len(args) == 1 {
				oid = int64(args[0].OID)
			}
			return constFn(types.Regtype, func(*Ctx) Datum { return oid })
		},
		Impl: constFn(types.Regtype, func(*Ctx) Datum { return int64(types.OidUnknown) })})
	// weir has no extended statistics objects (pg_statistic_ext is empty).
	RegisterScalar("pg_get_statisticsobjdef_columns", Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: nullText(1)})
	RegisterScalar("pg_get_serial_sequence", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text, Impl: nullText(2)})
	emptyText := Strict(types.Text, func(*Ctx, []Datum) (Datum, error) { return "", nil })
	RegisterScalar("pg_tablespace_location", Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: emptyText})
	RegisterScalar("pg_encoding_to_char", Overload{Args: []types.T{types.Int4}, Ret: types.Name, Impl: Strict(types.Name, func(ctx *Ctx, a []Datum) (Datum, error) {
		switch a[0].(int64) {
		case 6:
			return "UTF8", nil
		case 0:
			return "SQL_ASCII", nil
		}
		return "", nil
	})})
	RegisterScalar("pg_size_pretty", Overload{Args: []types.T{types.Int8}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
		return prettySize(a[0].(int64)), nil
	})})
	zero := Strict(types.Int8, func(*Ctx, []Datum) (Datum, error) { return int64(0), nil })
	for _, name := range []string{"pg_relation_size", "pg_table_size", "pg_total_relation_size", "pg_indexes_size"} {
		RegisterScalar(name, Overload{Args: []types.T{types.Regclass}, Ret: types.Int8, Impl: zero})
	}
	RegisterScalar("pg_database_size", Overload{Args: []types.T{types.Name}, Ret: types.Int8, Impl: zero}, Overload{Args: []types.T{types.Oid}, Ret: types.Int8, Impl: zero})
	toReg := func(name string, to types.T) {
		RegisterScalar(name, Overload{Args: []types.T{types.Text}, Ret: to, Impl: Strict(to, func(ctx *Ctx, a []Datum) (Datum, error) {
			v, err := regFromText(ctx, a[0], types.Text, to)
			if err != nil {
				return nil, nil
			}
			return v, nil
		})})
	}
	toReg("to_regclass", types.Regclass)
	toReg("to_regtype", types.Regtype)
	toReg("to_regnamespace", types.Regnamespace)
	toReg("to_regproc", types.Regproc)
}
