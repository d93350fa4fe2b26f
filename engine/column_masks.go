package engine

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// Column masks, as Databricks has them: ALTER TABLE t ALTER COLUMN c SET
// MASK f [USING COLUMNS (…)] makes every reader of c see f(c, …) in its
// place — its owner too; the function decides who sees what, typically
// with is_account_group_member. The mask is applied where the table is
// scanned (planner/scan_security.go), so WHERE, joins, aggregates, views,
// COPY TO, SUBSCRIBE and streaming tables all see the masked value, as
// Databricks documents ("any expressions, predicates, or ordering are
// applied after the masking").

// columnMasks fills sec.Masks with the masks of rel's columns: the SQL
// call of each mask function over the stored columns.
func (v *catalogView) columnMasks(rel *planner.Relation, sec *planner.ScanSecurity) error {
	r, ok := v.s.eng.cat.RelationByOID(rel.OID)
	if !ok {
		return nil
	}
	for _, c := range r.Columns {
		if c.Mask == nil {
			continue
		}
		if sec.Masks == nil {
			sec.Masks = map[string]string{}
		}
		sec.Masks[c.Name] = maskCall(c.Name, c.Mask)
	}
	return nil
}

// maskCall is the SQL text of m applied to column col.
func maskCall(col string, m *catalog.ColumnMask) string {
	var b strings.Builder
	for i, part := range strings.Split(m.Function, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quoteIdentAlways(part))
	}
	b.WriteByte('(')
	b.WriteString(quoteIdentAlways(col))
	for _, u := range m.UsingColumns {
		b.WriteString(", ")
		b.WriteString(u)
	}
	b.WriteByte(')')
	return b.String()
}

func quoteIdentAlways(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// maskText is how DESCRIBE and SHOW CREATE TABLE write a mask: Databricks'
// clause, MASK f [USING COLUMNS (…)].
func maskText(m *catalog.ColumnMask) string {
	s := "MASK " + m.Function
	if len(m.UsingColumns) > 0 {
		s += " USING COLUMNS (" + strings.Join(m.UsingColumns, ", ") + ")"
	}
	return s
}

// runColumnMaskStatement runs ALTER [STREAMING] TABLE … ALTER COLUMN …
// SET MASK / DROP MASK.
func (s *Session) runColumnMaskStatement(ss *parse.StreamingStmt) (wire.Result, error) {
	spec := ss.Mask
	tag := "ALTER TABLE"
	if spec.Streaming {
		tag = "ALTER STREAMING TABLE"
	}
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name)
	if err != nil {
		return nil, err
	}
	switch {
	case spec.Streaming && rel.Kind != catalog.KindStreamingTable:
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", rel.Name)
	case rel.Kind != catalog.KindTable && rel.Kind != catalog.KindStreamingTable:
		return nil, sqlerr.New(sqlerr.WrongObjectType, "column masks apply to tables and streaming tables; \"%s\" is a %s", rel.Name, rel.Kind.Noun()).
			WithHint("Mask the columns of the table it reads.")
	}
	if err := s.requireOwner(rel); err != nil {
		return nil, err
	}
	ci := rel.Column(spec.Column)
	if ci < 0 {
		return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", spec.Column, rel.Name)
	}
	var mask *catalog.ColumnMask
	if ss.Kind == parse.SetColumnMask {
		if mask, err = s.checkMask(rel, ci, spec); err != nil {
			return nil, err
		}
	}
	_, err = s.eng.cat.UpdateRelation(rel.OID, func(r *catalog.Relation) error {
		r.Columns[ci].Mask = mask
		return nil
	})
	if err != nil {
		return nil, err
	}
	return commandResult(tag), nil
}

// checkMask resolves spec's function for column ci of rel and checks it
// as Databricks does: a user SQL function taking the column (then the
// USING items), whose result can be stored in the column.
func (s *Session) checkMask(rel *catalog.Relation, ci int, spec *parse.MaskSpec) (*catalog.ColumnMask, error) {
	typeOf := func(name string) (string, bool) {
		if i := rel.Column(name); i >= 0 {
			return rel.Columns[i].Type.String(), true
		}
		return "", false
	}
	return s.checkMaskCall(rel.Name, typeOf, rel.Columns[ci].Name, spec)
}

// checkMaskCall checks spec as a mask of column col of table, whose
// columns' types (as SQL text) typeOf gives: the call is bound over
// typed NULLs, as every reader will bind it over the columns, so the
// overload is resolved and the argument and result types checked before
// the table (or the mask) exists.
func (s *Session) checkMaskCall(table string, typeOf func(string) (string, bool), col string, spec *parse.MaskSpec) (*catalog.ColumnMask, error) {
	parts := strings.Split(spec.Function, ".")
	name := parts[len(parts)-1]
	schema := ""
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	var fns []*catalog.Function
	if schema != "" {
		fns = s.eng.cat.FunctionsNamed(schema, name)
	} else {
		for _, sc := range s.searchPath() {
			if fns = s.eng.cat.FunctionsNamed(sc, name); len(fns) > 0 {
				break
			}
		}
	}
	if len(fns) == 0 {
		return nil, sqlerr.At(sqlerr.UndefinedFunction, spec.FunctionPos, "function %s does not exist", spec.Function).
			WithHint("A column mask is a SQL function created with CREATE FUNCTION, taking the column's type.")
	}
	colType, ok := typeOf(col)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, table)
	}
	args := []string{"CAST(NULL AS " + colType + ")"}
	for _, u := range spec.Using {
		if !strings.HasPrefix(u, `"`) {
			args = append(args, u)
			continue
		}
		other := strings.ReplaceAll(u[1:len(u)-1], `""`, `"`)
		t, ok := typeOf(other)
		if !ok {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", other, table)
		}
		args = append(args, "CAST(NULL AS "+t+")")
	}
	m := &catalog.ColumnMask{Function: fns[0].Schema + "." + name, UsingColumns: spec.Using}
	q := "SELECT " + quoteIdentAlways(fns[0].Schema) + "." + quoteIdentAlways(name) + "(" + strings.Join(args, ", ") + "), " + args[0]
	stmts, err := parse.Parse(q)
	if err != nil {
		return nil, err
	}
	bq, err := planner.BindQuery(s.catalogView(), stmts[0].Node, nil)
	if err != nil {
		if se, ok := err.(*sqlerr.Error); ok {
			cp := *se
			cp.Position = 0
			return nil, &cp
		}
		return nil, err
	}
	got, want := bq.Plan.Columns()[0].T, bq.Plan.Columns()[1].T
	if !maskAssignable(got, want) {
		return nil, sqlerr.New(sqlerr.DatatypeMismatch, "mask function %s returns %s, but column \"%s\" is of type %s", spec.Function, got, col, want).
			WithHint("The mask's result must be assignable to the column's type.")
	}
	return m, nil
}

// checkDeclaredMasks checks the MASK clauses of a CREATE STREAMING
// TABLE's declared columns before the table is created.
func (s *Session) checkDeclaredMasks(ss *parse.StreamingStmt) error {
	if ss.Spec == nil {
		return nil
	}
	typeOf := func(name string) (string, bool) {
		for _, c := range ss.Spec.Columns {
			if c.Name == name {
				return c.Type, true
			}
		}
		return "", false
	}
	for _, c := range ss.Spec.Columns {
		if c.Mask != nil {
			if _, err := s.checkMaskCall(ss.Name, typeOf, c.Name, c.Mask); err != nil {
				return err
			}
		}
	}
	return nil
}

// setDeclaredMasks stores the MASK clauses of the streaming table ss
// created.
func (s *Session) setDeclaredMasks(ss *parse.StreamingStmt) error {
	if ss.Spec == nil {
		return nil
	}
	for _, c := range ss.Spec.Columns {
		if c.Mask == nil {
			continue
		}
		cp := *ss
		cp.Kind, cp.Mask = parse.SetColumnMask, c.Mask
		cp.Mask.Streaming = true
		if _, err := s.runColumnMaskStatement(&cp); err != nil {
			return err
		}
	}
	return nil
}

// maskAssignable reports whether a mask's result of type from can stand
// for a column of type to: the same type, an implicit cast, or one of
// PostgreSQL's assignment casts (numeric to numeric, anything to text).
func maskAssignable(from, to types.T) bool {
	if from.OID == to.OID || from.OID == types.OidUnknown {
		return true
	}
	if _, ok := expr.ImplicitCastCost(from, to); ok {
		return true
	}
	switch to.OID {
	case types.OidText, types.OidVarchar, types.OidBpchar:
		return true
	}
	return isNumericType(from) && isNumericType(to)
}

func isNumericType(t types.T) bool {
	switch t.OID {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidFloat4, types.OidFloat8, types.OidNumeric:
		return true
	}
	return false
}

// refuseDropMaskFunction refuses to drop f while a column mask uses it,
// as PostgreSQL refuses to drop an object others depend on (2BP01).
func (e *Engine) refuseDropMaskFunction(f *catalog.Function) error {
	qualified := f.Schema + "." + f.Name
	for _, r := range e.cat.Relations() {
		for _, c := range r.Columns {
			if c.Mask != nil && c.Mask.Function == qualified {
				sig := functionSignature(f)
				return sqlerr.New(codeDependentObjects, "cannot drop function %s because other objects depend on it", sig).
					WithDetail("column mask of column " + c.Name + " of " + r.Kind.Noun() + " " + r.Name + " depends on function " + sig).
					WithHint("Drop the mask first: ALTER TABLE " + r.Name + " ALTER COLUMN " + c.Name + " DROP MASK.")
			}
		}
	}
	return nil
}

// functionSignature is name(argtypes), as PostgreSQL names a function in
// messages.
func functionSignature(f *catalog.Function) string {
	ts := make([]string, len(f.Args))
	for i, a := range f.Args {
		ts[i] = a.Type.String()
	}
	return f.Name + "(" + strings.Join(ts, ", ") + ")"
}

// auditMaskedScans records one masked_read audit event for each masked
// column a query reads (accs: what it references, as the privilege
// checks have it), once per relation and column however often it is
// scanned. A query that reads a masked table without naming its masked
// columns (count(*), other columns) records none.
func (s *Session) auditMaskedScans(accs []planner.Access) {
	type maskedColumn struct {
		rel  uint32
		name string
	}
	seen := map[maskedColumn]bool{}
	for _, a := range accs {
		if a.Privs&planner.AccessSelect == 0 {
			continue
		}
		r, ok := s.eng.cat.RelationByOID(a.OID)
		if !ok {
			continue
		}
		for _, name := range a.Columns {
			i := r.Column(name)
			if i < 0 || r.Columns[i].Mask == nil {
				continue
			}
			key := maskedColumn{r.OID, name}
			if seen[key] {
				continue
			}
			seen[key] = true
			s.audit(AuditEvent{Kind: AuditMaskedRead, Object: r.Schema + "." + r.Name, Success: true,
				Detail: "column " + name + " masked by " + r.Columns[i].Mask.Function})
		}
	}
}

// The catalog view answers is_account_group_member (expr.RolePrivileges).
var _ expr.RolePrivileges = (*catalogView)(nil)

// (HasPrivsOfRole is in role_privileges.go.)

// runAsOwner makes a streaming table's job evaluate as the table's owner
// (current_user, is_account_group_member): the masks of what it reads are
// computed for the owner, so that a streaming table never holds values
// its owner could not read itself. (PostgreSQL refreshes a materialized
// view as its owner the same way.)
func (e *Engine) runAsOwner(ctx *expr.Ctx, rel *catalog.Relation) {
	if r, ok := e.cat.RoleByOID(rel.Owner); ok {
		ctx.User, ctx.SessionUser = r.Name, r.Name
	}
}

// subscribeMask returns what SUBSCRIBE applies to the rows it sends of
// streaming table rel (weir_epoch and weir_diff first, then the table's
// columns): the masks of its columns, bound as a scan of rel binds them;
// nil when none is masked. SUBSCRIBE reads the job's published rows, not
// a scan, so the masks are applied here.
func (s *Session) subscribeMask(rel *catalog.Relation) (func(arrow.RecordBatch) (arrow.RecordBatch, error), error) {
	masked := false
	for _, c := range rel.Columns {
		masked = masked || c.Mask != nil
	}
	if !masked {
		return nil, nil
	}
	all := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		all[i] = c.Name
	}
	s.auditMaskedScans([]planner.Access{{OID: rel.OID, Privs: planner.AccessSelect, Columns: all}}) // SUBSCRIBE sends every column
	stmts, err := parse.Parse("SELECT * FROM " + quoteIdentAlways(rel.Schema) + "." + quoteIdentAlways(rel.Name))
	if err != nil {
		return nil, err
	}
	q, err := planner.BindQuery(s.catalogView(), stmts[0].Node, nil)
	if err != nil {
		return nil, err
	}
	var proj *planner.Project
	for n := q.Plan; n != nil && proj == nil; {
		if p, ok := n.(*planner.Project); ok {
			if scanBelowFilters(p.Input) { // row_security_rows.go: row filters sit between
				proj = p
				break
			}
		}
		ch := n.Children()
		if len(ch) != 1 {
			break
		}
		n = ch[0]
	}
	if proj == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "column masks of %s could not be bound", rel.Name)
	}
	ctx := s.exprCtx(nil)
	if ctx.Mem == nil {
		ctx.Mem = memory.DefaultAllocator
	}
	return func(b arrow.RecordBatch) (arrow.RecordBatch, error) {
		const lead = 2 // weir_epoch, weir_diff
		if int(b.NumCols()) != lead+len(proj.Exprs) {
			return b, nil
		}
		fields := b.Schema().Fields()
		in := array.NewRecordBatch(arrow.NewSchema(fields[lead:], nil), b.Columns()[lead:], b.NumRows())
		defer in.Release()
		cols := append([]arrow.Array(nil), b.Columns()[:lead]...)
		outFields := append([]arrow.Field(nil), fields[:lead]...)
		for i, e := range proj.Exprs {
			a, err := e.Eval(ctx, in)
			if err != nil {
				return nil, err
			}
			cols = append(cols, a)
			f := fields[lead+i]
			f.Type = a.DataType()
			outFields = append(outFields, f)
		}
		return array.NewRecordBatch(arrow.NewSchema(outFields, nil), cols, b.NumRows()), nil
	}, nil
}

// maskSection is DESCRIBE TABLE EXTENDED's "# Column Masks" block: each
// masked column and its mask clause (none: no block).
func maskSection(rel *catalog.Relation) [][]any {
	var rows [][]any
	for _, c := range rel.Columns {
		if c.Mask != nil {
			if rows == nil {
				rows = [][]any{{"", "", ""}, {"# Column Masks", "", ""}, {"# col_name", "mask", ""}}
			}
			rows = append(rows, []any{c.Name, maskText(c.Mask), ""})
		}
	}
	return rows
}

// createTableWithMasks is CREATE TABLE with column MASK clauses: the
// table is created, then each mask set as ALTER TABLE … SET MASK would
// (a mask that does not fit drops the table again, so the statement
// leaves nothing behind).
func (s *Session) createTableWithMasks(c *pg_query.CreateStmt, st *statement, io wire.ExecIO) (wire.Result, error) {
	if s.tx.open {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "CREATE TABLE with column masks cannot run inside a transaction block")
	}
	res, err := s.createTable(c, st.watermark, io)
	if err != nil {
		return nil, err
	}
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), c.Relation.Schemaname, c.Relation.Relname)
	if err != nil {
		return nil, err
	}
	for _, m := range st.masks {
		ss := &parse.StreamingStmt{Kind: parse.SetColumnMask, Schema: rel.Schema, Name: rel.Name,
			Mask: &parse.MaskSpec{Column: m.Column, Function: m.Function, Using: m.Using, FunctionPos: m.Pos}}
		if _, err := s.runColumnMaskStatement(ss); err != nil {
			if derr := s.eng.cat.DropRelation(nil, rel.Schema, rel.Name, catalog.KindTable, true); derr != nil {
				return nil, derr
			}
			return nil, err
		}
	}
	return res, nil
}
