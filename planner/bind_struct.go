package planner

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Struct values in expressions: ROW(...), Spark's struct(...) and
// named_struct(...), from_json(text, schema), field access (w.start,
// (w).start) and window_time(w).

// structFieldType is the type a struct field takes from its expression:
// an untyped literal becomes text, as PostgreSQL resolves ROW('a').
func (b *binder) structField(e expr.Expr) (expr.Expr, error) {
	if e.Type().OID == types.OidUnknown {
		return b.coerce(e, types.Text, false, -1)
	}
	return e, nil
}

// makeStruct builds a struct of the named fields from bound expressions;
// untyped literals become text (Spark's string).
func (b *binder) makeStruct(names []string, vals []expr.Expr) (expr.Expr, error) {
	return b.makeStructOf(names, vals, true)
}

// makeStructOf is makeStruct; with typeUnknown false an untyped literal
// stays of type unknown, as PostgreSQL's ROW('a') sends it.
func (b *binder) makeStructOf(names []string, vals []expr.Expr, typeUnknown bool) (expr.Expr, error) {
	fields := make([]types.StructField, len(vals))
	out := make([]expr.Expr, len(vals))
	for i, v := range vals {
		var err error
		if typeUnknown {
			if v, err = b.structField(v); err != nil {
				return nil, err
			}
		}
		out[i] = v
		fields[i] = types.StructField{Name: names[i], Type: v.Type()}
	}
	return &expr.MakeStruct{Fields: out, T: types.StructOf(fields)}, nil
}

// bindRowExpr is ROW(a, b) or (a, b): fields f1, f2, ... as PostgreSQL
// names an anonymous record's columns, an untyped literal left unknown as
// PostgreSQL leaves it (its binary form says so).
func (b *binder) bindRowExpr(r *pg_query.RowExpr, ec *exprCtx) (expr.Expr, error) {
	names := make([]string, len(r.Args))
	vals := make([]expr.Expr, len(r.Args))
	for i, a := range r.Args {
		e, err := b.bindExpr(a, ec)
		if err != nil {
			return nil, err
		}
		names[i] = fmt.Sprintf("f%d", i+1)
		vals[i] = e
	}
	return b.makeStructOf(names, vals, false)
}

// bindStructFunc binds the struct-valued Spark functions; ok is false for
// any other name.
func (b *binder) bindStructFunc(name string, f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, bool, error) {
	pos := int(f.Location) + 1
	switch name {
	case "struct":
		// Spark: a column reference names its field, anything else is colN.
		names := make([]string, len(f.Args))
		vals := make([]expr.Expr, len(f.Args))
		for i, a := range f.Args {
			names[i] = fmt.Sprintf("col%d", i+1)
			// struct(2 AS two), which the parser wrote weir_struct_field(2, 'two').
			if fc := a.GetFuncCall(); fc != nil && funcName(fc.Funcname) == parse.StructFieldAliasFunc && len(fc.Args) == 2 {
				if c := fc.Args[1].GetAConst(); c != nil && c.GetSval() != nil {
					a, names[i] = fc.Args[0], c.GetSval().Sval
				}
			} else if cr := a.GetColumnRef(); cr != nil {
				if fs := stringList(cr.Fields); len(fs) > 0 {
					names[i] = fs[len(fs)-1]
				}
			}
			e, err := b.bindExpr(a, ec)
			if err != nil {
				return nil, true, err
			}
			vals[i] = e
		}
		e, err := b.makeStruct(names, vals)
		return e, true, err
	case "named_struct":
		if len(f.Args)%2 != 0 || len(f.Args) == 0 {
			return nil, true, sqlerr.At(sqlerr.UndefinedFunction, pos, "named_struct takes pairs of a field name and a value")
		}
		var names []string
		var vals []expr.Expr
		for i := 0; i < len(f.Args); i += 2 {
			c := f.Args[i].GetAConst()
			if c == nil || c.GetSval() == nil {
				return nil, true, sqlerr.At(sqlerr.InvalidParameterValue, pos, "named_struct field names must be string literals")
			}
			e, err := b.bindExpr(f.Args[i+1], ec)
			if err != nil {
				return nil, true, err
			}
			names = append(names, c.GetSval().Sval)
			vals = append(vals, e)
		}
		e, err := b.makeStruct(names, vals)
		return e, true, err
	case "from_json":
		e, err := b.bindFromJSON(f, ec)
		return e, true, err
	case "window_time":
		e, err := b.bindWindowTime(f, ec)
		return e, true, err
	case "window", "session_window":
		e, err := b.bindSparkWindowCall(name, f, ec)
		return e, true, err
	}
	return nil, false, nil
}

// bindFromJSON is Spark's from_json(jsonStr, schema): the schema is a
// constant DDL field list; a malformed document gives a struct of NULLs.
func (b *binder) bindFromJSON(f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	pos := int(f.Location) + 1
	if len(f.Args) == 3 {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "from_json options are not supported").
			WithHint("Call from_json(jsonStr, schema) with two arguments; the defaults are Spark's.")
	}
	if len(f.Args) != 2 {
		return nil, sqlerr.At(sqlerr.UndefinedFunction, pos, "from_json takes a JSON string and a schema")
	}
	c := f.Args[1].GetAConst()
	if c == nil || c.GetSval() == nil {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "the schema of from_json must be a string literal")
	}
	schema := c.GetSval().Sval
	fields, err := types.ParseSparkSchema(schema)
	if err != nil {
		return nil, err
	}
	arg, err := b.bindExpr(f.Args[0], ec)
	if err != nil {
		return nil, err
	}
	if arg, err = b.coerce(arg, types.Text, false, -1); err != nil {
		return nil, err
	}
	t := types.StructOf(fields)
	return &expr.FuncCall{Name: "from_json", Args: []expr.Expr{arg, &expr.Const{Val: schema, T: types.Text}},
		Impl: expr.FromJSONImpl(t), T: t}, nil
}

// bindWindowTime is window_time(w): the window's end less a microsecond,
// the last instant inside it.
func (b *binder) bindWindowTime(f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	pos := int(f.Location) + 1
	if len(f.Args) != 1 {
		return nil, sqlerr.At(sqlerr.UndefinedFunction, pos, "window_time takes a window column")
	}
	w, err := b.bindExpr(f.Args[0], ec)
	if err != nil {
		return nil, err
	}
	end, err := selectField(w, "end", pos)
	if err != nil {
		return nil, sqlerr.At(sqlerr.DatatypeMismatch, pos, "window_time needs a window column, a struct with an end field, not %s", w.Type())
	}
	if o := end.Type().OID; o != types.OidTimestamp && o != types.OidTimestampTZ {
		return nil, sqlerr.At(sqlerr.DatatypeMismatch, pos, "window_time needs a window whose end is a timestamp, not %s", end.Type())
	}
	us := &expr.Const{Val: arrow.MonthDayNanoInterval{Nanoseconds: 1000}, T: types.Interval}
	return b.opOver("-", []expr.Expr{end, us}, pos-1)
}

// selectField reads a field of a struct-valued expression.
func selectField(e expr.Expr, field string, pos int) (expr.Expr, error) {
	t := e.Type()
	if !t.IsStruct() {
		return nil, sqlerr.At(sqlerr.WrongObjectType, pos, "column notation .%s applied to type %s, which is not a composite type", field, t)
	}
	i := t.FieldIndex(field)
	if i < 0 {
		return nil, sqlerr.At(sqlerr.UndefinedColumn, pos, "column \"%s\" not found in data type %s", field, describeStruct(t))
	}
	ft := t.Fields()[i].Type
	if ft.OID == types.OidUnknown {
		// ROW('y') keeps its literal untyped, as PostgreSQL does; read out,
		// it is the text it holds (same Arrow representation).
		ft = types.Text
	}
	return &expr.FieldSelect{Arg: e, Index: i, Name: t.Fields()[i].Name, T: ft}, nil
}

// describeStruct spells a struct type for messages: record, with its
// fields as Spark writes them.
func describeStruct(t types.T) string {
	var sb strings.Builder
	sb.WriteString("record (")
	for i, f := range t.Fields() {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(f.Name + " " + f.Type.String())
	}
	sb.WriteString(")")
	return sb.String()
}

// structColumnRef resolves a.b[.c...] as field access into a struct
// column when no table a has a column b: the longest prefix that names a
// struct column, then its fields. ok is false when no prefix does.
func (b *binder) structColumnRef(fields []string, c *pg_query.ColumnRef, ec *exprCtx) (expr.Expr, bool, error) {
	pos := int(c.Location) + 1
	for k := len(fields) - 1; k >= 1; k-- {
		prefix := fields[:k]
		if len(prefix) > 2 {
			continue
		}
		qual, name := splitColumnRef(prefix)
		_, col, _, err := ec.sc.resolve(qual, name, pos)
		if err != nil || !col.T.IsStruct() {
			continue
		}
		// The column itself is bound as a reference of its own, so that above
		// an aggregation it is matched against the GROUP BY keys.
		base, err := b.bindExpr(&pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{
			Fields: stringNodes(prefix), Location: c.Location}}}, ec)
		if err != nil {
			return nil, true, err
		}
		for _, f := range fields[k:] {
			if base, err = selectField(base, f, pos); err != nil {
				return nil, true, err
			}
		}
		return base, true, nil
	}
	return nil, false, nil
}

// bindStructFieldSelect is (expr).field for a struct-valued expression.
func (b *binder) bindStructFieldSelect(arg *pg_query.Node, field string, ec *exprCtx) (expr.Expr, error) {
	e, err := b.bindExpr(arg, ec)
	if err != nil {
		return nil, err
	}
	if !e.Type().IsStruct() {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "field selection from this expression is not supported")
	}
	return selectField(e, field, 0)
}

func stringNodes(ss []string) []*pg_query.Node {
	out := make([]*pg_query.Node, len(ss))
	for i, s := range ss {
		out[i] = pg_query.MakeStrNode(s)
	}
	return out
}

// structStar expands w.* (no table w has a column list) and (expr).* of a
// struct value into one target per field, named after the field, as
// PostgreSQL expands (composite).* and Spark w.*. ok is false for any
// other target.
func (b *binder) structStar(n *pg_query.Node, ec *exprCtx) ([]target, bool, error) {
	var base *pg_query.Node
	if cr := n.GetColumnRef(); cr != nil && isStar(cr) && len(cr.Fields) >= 2 {
		prefix := stringList(cr.Fields[:len(cr.Fields)-1])
		if len(prefix) != len(cr.Fields)-1 || ec.sc == nil || (len(prefix) == 1 && ec.sc.hasTable(prefix[0])) {
			return nil, false, nil
		}
		if len(prefix) == 2 && ec.sc.hasTable(prefix[1]) {
			return nil, false, nil // schema.table.*
		}
		base = &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: stringNodes(prefix), Location: cr.Location}}}
		qual, name := splitColumnRef(prefix)
		if _, col, _, err := ec.sc.resolve(qual, name, 0); err != nil || !col.T.IsStruct() {
			return nil, false, nil
		}
	} else if ind := n.GetAIndirection(); ind != nil && len(ind.Indirection) == 1 && ind.Indirection[0].GetAStar() != nil {
		base = ind.Arg
	} else {
		return nil, false, nil
	}
	e, err := b.bindExpr(base, ec)
	if err != nil {
		return nil, true, err
	}
	if !e.Type().IsStruct() {
		return nil, true, sqlerr.New(sqlerr.WrongObjectType, "type %s is not composite", e.Type())
	}
	var out []target
	vals := structFields(e)
	for i, f := range e.Type().Fields() {
		out = append(out, target{e: vals[i], name: f.Name, col: Column{Name: f.Name, T: f.Type}})
	}
	return out, true, nil
}
