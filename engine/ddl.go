package engine

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/tablelog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// noticeOr sends an IF [NOT] EXISTS notice from the catalog, or passes a
// real error through.
func noticeOr(err error, io wire.ExecIO, tag string) (wire.Result, error) {
	if err == nil {
		return commandResult(tag), nil
	}
	if catalog.IsNotice(err) {
		e := sqlerr.From(err)
		io.Notice("NOTICE", e.Code, e.Message)
		return commandResult(tag), nil
	}
	return nil, err
}

func (s *Session) createTable(c *pg_query.CreateStmt, wm *parse.WatermarkSpec, io wire.ExecIO) (wire.Result, error) {
	if len(c.InhRelations) > 0 || c.Partspec != nil || c.OfTypename != nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "table inheritance, partitioning and typed tables are not supported")
	}
	rel := &catalog.Relation{Schema: c.Relation.Schemaname, Name: c.Relation.Relname, Kind: catalog.KindTable}
	if c.Relation.Relpersistence == "t" {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "temporary tables are not supported")
	}
	var pk []string
	for _, el := range c.TableElts {
		switch x := el.GetNode().(type) {
		case *pg_query.Node_ColumnDef:
			col, colPK, err := s.columnDef(x.ColumnDef)
			if err != nil {
				return nil, err
			}
			if colPK {
				if pk != nil {
					return nil, sqlerr.New(sqlerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", rel.Name)
				}
				pk = []string{col.Name}
			}
			rel.Columns = append(rel.Columns, col)
		case *pg_query.Node_Constraint:
			con := x.Constraint
			if con.Contype != pg_query.ConstrType_CONSTR_PRIMARY {
				return nil, unsupportedConstraint(con)
			}
			if pk != nil {
				return nil, sqlerr.New(sqlerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", rel.Name)
			}
			pk = stringNames(con.Keys)
		default:
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "this table element is not supported")
		}
	}
	for _, k := range pk {
		i := rel.Column(k)
		if i < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" named in key does not exist", k)
		}
		rel.Columns[i].NotNull = true
	}
	rel.PrimaryKey = pk
	var opts catalog.TableOptions
	var settings []connector.Setting
	for _, o := range c.Options {
		d := o.GetDefElem()
		v, err := defElemString(d)
		if err != nil {
			return nil, err
		}
		settings = append(settings, connector.Setting{Name: d.Defname, Value: v})
	}
	// The table's log is a streaming source: its options are the
	// table-log source's.
	logOpts, err := tablelog.ParseOptions(settings)
	if err != nil {
		return nil, err
	}
	opts.Retention = logOpts.Retention
	if wm != nil {
		i := rel.Column(wm.Column)
		if i < 0 {
			return nil, sqlerr.At(sqlerr.UndefinedColumn, wm.Pos, "column \"%s\" named in WATERMARK FOR does not exist", wm.Column)
		}
		switch rel.Columns[i].Type.OID {
		case types.OidTimestamp, types.OidTimestampTZ:
		default:
			return nil, sqlerr.At(sqlerr.DatatypeMismatch, wm.Pos, "WATERMARK FOR column \"%s\" must be a timestamp or timestamptz, not %s", wm.Column, rel.Columns[i].Type)
		}
		opts.WatermarkColumn = wm.Column
		opts.WatermarkDelayUS = wm.Delay.Microseconds()
	}
	if opts != (catalog.TableOptions{}) {
		rel.Table = &opts
	}
	if rel.Schema == "" {
		sp := s.searchPath()
		if len(sp) == 0 {
			return nil, sqlerr.New(sqlerr.InvalidSchemaName, "no schema has been selected to create in")
		}
		rel.Schema = sp[0]
	}
	if err := s.requireCreateIn(rel.Schema); err != nil { // owner.go
		return nil, err
	}
	rel.Owner = s.ownerOfNew(rel) // owner.go
	_, err = s.eng.cat.CreateRelation(rel, c.IfNotExists)
	return noticeOr(err, io, "CREATE TABLE")
}

func unsupportedConstraint(con *pg_query.Constraint) error {
	what := map[pg_query.ConstrType]string{
		pg_query.ConstrType_CONSTR_CHECK:     "CHECK",
		pg_query.ConstrType_CONSTR_UNIQUE:    "UNIQUE",
		pg_query.ConstrType_CONSTR_FOREIGN:   "FOREIGN KEY",
		pg_query.ConstrType_CONSTR_EXCLUSION: "EXCLUDE",
	}[con.Contype]
	if what == "" {
		what = "this"
	}
	return &sqlerr.Error{Code: sqlerr.FeatureNotSupported, Message: what + " constraints are not supported", Position: int(con.Location) + 1,
		Hint: "weir tables are append-only inputs; check data quality with streaming-table expectations."}
}

func (s *Session) columnDef(cd *pg_query.ColumnDef) (catalog.Column, bool, error) {
	t, err := planner.ResolveTypeName(cd.TypeName)
	if err != nil {
		return catalog.Column{}, false, err
	}
	col := catalog.Column{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull}
	pk := false
	for _, cn := range cd.Constraints {
		con := cn.GetConstraint()
		switch con.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL:
			col.NotNull = true
		case pg_query.ConstrType_CONSTR_NULL:
		case pg_query.ConstrType_CONSTR_DEFAULT:
			if err := planner.BindDefault(s.catalogView(), con.RawExpr, planner.RelColumn{Name: col.Name, T: t}); err != nil {
				return col, false, err
			}
			text, err := deparseExpr(con.RawExpr)
			if err != nil {
				return col, false, err
			}
			col.Default = text
		case pg_query.ConstrType_CONSTR_PRIMARY:
			pk = true
			col.NotNull = true
		default:
			return col, false, unsupportedConstraint(con)
		}
	}
	return col, pk, nil
}

// deparseExpr turns an expression tree back into SQL text (for DEFAULT).
func deparseExpr(n *pg_query.Node) (string, error) {
	out, err := deparse(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: n}}}},
	}}})
	if err != nil {
		return "", sqlerr.New(sqlerr.InternalError, "cannot store expression: %v", err)
	}
	return strings.TrimPrefix(out, "SELECT "), nil
}

// deparse prints one statement tree as SQL. The tree carries the parser's
// version, which Deparse checks, so it is taken from a real parse.
func deparse(stmt *pg_query.Node) (string, error) {
	tree, err := pg_query.Parse("SELECT 1")
	if err != nil {
		return "", err
	}
	tree.Stmts[0].Stmt = stmt
	return pg_query.Deparse(tree)
}

func defElemString(d *pg_query.DefElem) (string, error) {
	if d.Arg == nil {
		return "true", nil
	}
	if sv := d.Arg.GetString_(); sv != nil {
		return sv.Sval, nil
	}
	if iv := d.Arg.GetInteger(); iv != nil {
		return fmt.Sprint(iv.Ival), nil
	}
	if c := d.Arg.GetAConst(); c != nil {
		switch {
		case c.GetSval() != nil:
			return c.GetSval().Sval, nil
		case c.GetIval() != nil:
			return fmt.Sprint(c.GetIval().Ival), nil
		}
	}
	if tn := d.Arg.GetTypeName(); tn != nil {
		return strings.Join(stringNames(tn.Names), "."), nil
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\"", d.Defname)
}

func stringNames(ns []*pg_query.Node) []string {
	var out []string
	for _, n := range ns {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

func (s *Session) createView(v *pg_query.ViewStmt, text string) (wire.Result, error) {
	if err := refuseSecurityInvoker(v.Options); err != nil { // row_security_ddl.go
		return nil, err
	}
	q, err := planner.BindQuery(s.catalogView(), v.Query, nil)
	if err != nil {
		return nil, err
	}
	if len(q.ParamTypes) > 0 {
		return nil, sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $1")
	}
	sqlText, err := deparse(v.Query)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InternalError, "cannot store view: %v", err)
	}
	aliases := stringNames(v.Aliases)
	rel := &catalog.Relation{Schema: v.View.Schemaname, Name: v.View.Relname, Kind: catalog.KindView, ViewSQL: sqlText}
	for i, c := range q.Plan.Columns() {
		name := c.Name
		if i < len(aliases) {
			name = aliases[i]
		}
		t := c.T
		if t.OID == types.OidUnknown {
			t = types.Text
		}
		rel.Columns = append(rel.Columns, catalog.Column{Name: name, Type: t})
	}
	if rel.Schema == "" {
		if sp := s.searchPath(); len(sp) > 0 {
			rel.Schema = sp[0]
		}
	}
	if err := s.requireCreateIn(rel.Schema); err != nil { // owner.go
		return nil, err
	}
	if v.Replace {
		if old, err := s.eng.cat.LookupRelation(nil, rel.Schema, rel.Name); err == nil && old.Kind == catalog.KindView {
			if err := s.requireOwner(old); err != nil {
				return nil, err
			}
			rel.Owner, rel.ACL = old.Owner, old.ACL
			if err := s.eng.cat.DropRelation(nil, rel.Schema, rel.Name, catalog.KindView, false); err != nil {
				return nil, err
			}
		}
	}
	rel.Owner = s.ownerOfNew(rel) // owner.go
	if _, err := s.eng.cat.CreateRelation(rel, false); err != nil {
		return nil, err
	}
	return commandResult("CREATE VIEW"), nil
}

func (s *Session) createSchema(c *pg_query.CreateSchemaStmt, io wire.ExecIO) (wire.Result, error) {
	if len(c.SchemaElts) > 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "CREATE SCHEMA with elements is not supported")
	}
	name := c.Schemaname
	if name == "" && c.Authrole != nil {
		name = c.Authrole.Rolename
	}
	owner, err := s.schemaOwner(c.Authrole) // owner.go
	if err != nil {
		return nil, err
	}
	_, err = s.eng.cat.CreateSchemaOwned(name, owner, c.IfNotExists)
	return noticeOr(err, io, "CREATE SCHEMA")
}

func (s *Session) drop(d *pg_query.DropStmt, io wire.ExecIO) (wire.Result, error) {
	var kind catalog.RelKind
	tag := ""
	switch d.RemoveType {
	case pg_query.ObjectType_OBJECT_POLICY:
		return s.dropPolicy(d, io) // row_security_ddl.go
	case pg_query.ObjectType_OBJECT_TABLE:
		kind, tag = catalog.KindTable, "DROP TABLE"
	case pg_query.ObjectType_OBJECT_VIEW:
		kind, tag = catalog.KindView, "DROP VIEW"
	case pg_query.ObjectType_OBJECT_SCHEMA:
		if err := s.checkDropSchemas(d); err != nil { // owner.go
			return nil, err
		}
		for _, o := range d.Objects {
			name := o.GetString_().GetSval()
			if err := s.eng.cat.DropSchema(name, d.MissingOk, d.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
				if _, err := noticeOr(err, io, ""); err != nil {
					return nil, err
				}
			}
		}
		return commandResult("DROP SCHEMA"), nil
	case pg_query.ObjectType_OBJECT_FUNCTION:
		return s.dropFunctions(d, io) // functions.go
	default:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "DROP of this object type is not supported")
	}
	if err := s.checkDropRelations(d, kind); err != nil { // owner.go
		return nil, err
	}
	for _, o := range d.Objects {
		names := stringNames(o.GetList().GetItems())
		schema, name := "", names[len(names)-1]
		if len(names) > 1 {
			schema = names[len(names)-2]
		}
		if rel, err := s.eng.cat.LookupRelation(s.searchPath(), schema, name); err == nil {
			if reader := s.eng.streamingReaderOf(rel.OID); reader != "" {
				return nil, sqlerr.New("2BP01", "cannot drop %s %s because streaming table %s reads it", rel.Kind.Noun(), rel.Name, reader).
					WithHint("Drop the streaming table first (DROP STREAMING TABLE " + reader + ").")
			}
			if err := s.eng.refuseDropQuarantine(rel); err != nil { // expectations.go
				return nil, err
			}
			if err := s.dropPolicyDependents(rel, d.Behavior == pg_query.DropBehavior_DROP_CASCADE, io); err != nil { // row_security_ddl.go
				return nil, err
			}
		}
		if err := s.eng.cat.DropRelation(s.searchPath(), schema, name, kind, d.MissingOk); err != nil {
			if _, err := noticeOr(err, io, ""); err != nil {
				return nil, err
			}
		}
	}
	return commandResult(tag), nil
}
