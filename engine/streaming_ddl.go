package engine

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// Databricks' streaming-table DDL (sql/parse/streaming_ddl.go reads it):
// a declared column list the query must match, table clauses kept in the
// catalog (catalog.StreamingTable) and shown through pg_class.reloptions
// and pg_description, tables declared without a query that a flow fills,
// and ALTER STREAMING TABLE. Schedules run (schedule.go) and expectations
// are checked (expectations.go).

// tableShape is what a streaming table's query must give — its declared
// columns (nil when the query defines them) — and its schedule, which
// decides the trigger when the query's WITH names none (schedule.go).
type tableShape struct {
	name     string
	cols     []catalog.Column
	schedule *catalog.Schedule
}

// shapeOf is the shape stored for rel.
func shapeOf(rel *catalog.Relation) *tableShape {
	if rel.Streaming == nil {
		return nil
	}
	sh := &tableShape{name: rel.Name, schedule: rel.Streaming.Schedule}
	if rel.Streaming.Declared {
		sh.cols = rel.Columns
	}
	return sh
}

// planStreamingTable plans a streaming table's query (or a flow's) for a
// table of the given shape (nil: as CREATE declares it, or free). The
// query's columns must be the declared ones: a generated column is
// computed in the select list, and columns listed in another order are
// put in the declared one.
func (s *Session) planStreamingTable(st *parse.StreamingStmt, shape *tableShape) (*planner.StreamPlan, trigger, error) {
	sp, trig, err := s.planToShape(st, shape)
	if err == nil && st.Kind != parse.CreateFlow && st.Spec != nil {
		// The table clauses are checked now, before CREATE OR REFRESH
		// drops the table it replaces.
		probe := &catalog.Relation{Name: lastName(st.Name), Kind: catalog.KindStreamingTable, Streaming: &catalog.StreamingTable{}}
		for _, c := range sp.Cols {
			probe.Columns = append(probe.Columns, catalog.Column{Name: c.Name, Type: queryType(c.T)})
		}
		if err := s.applyTableSpec(probe, st, discardNotices{}); err != nil {
			return nil, trig, err
		}
	}
	if err == nil && st.Kind != parse.CreateFlow {
		if err := s.planExpectations(st, sp); err != nil { // expectations.go
			return nil, trig, err
		}
	}
	return sp, trig, err
}

// discardNotices drops notices (for checks whose notices come later).
type discardNotices struct{}

func (discardNotices) Notice(string, string, string) {}

func (s *Session) planToShape(st *parse.StreamingStmt, shape *tableShape) (*planner.StreamPlan, trigger, error) {
	if shape == nil && st.Spec != nil {
		cols, err := declaredColumns(st.Spec)
		if err != nil {
			return nil, trigger{}, err
		}
		shape = &tableShape{name: lastName(st.Name), cols: cols, schedule: catalogSchedule(st.Spec.Schedule, "")}
	}
	sp, trig, err := s.planStreaming(st)
	if err == nil && shape != nil && st.Options["trigger"] == "" {
		trig = scheduledTrigger(shape.schedule, trig)
	}
	if err != nil || shape == nil || len(shape.cols) == 0 {
		return sp, trig, err
	}
	if err := checkDeclared(shape, sp.Cols, false); err != nil {
		return nil, trig, atDeclared(err, st.Spec)
	}
	if sameColumns(shape.cols, sp.Cols) {
		return sp, trig, nil
	}
	q, ok := selectInDeclaredOrder(st.Query, sp.Cols, shape.cols)
	if !ok {
		return nil, trig, sqlerr.New(sqlerr.InvalidColumnReference, "the query of streaming table \"%s\" gives its columns in another order than the table declares them", shape.name).
			WithDetail("Declared: " + catalogColumnNames(shape.cols) + "; the query gives: " + planColumnNames(sp.Cols) + ".").
			WithHint("List the query's columns in the declared order.")
	}
	again := *st
	again.Query = q
	sp, trig, err = s.planStreaming(&again)
	if err != nil {
		return nil, trig, err
	}
	if st.Options["trigger"] == "" {
		trig = scheduledTrigger(shape.schedule, trig)
	}
	if err := checkDeclared(shape, sp.Cols, true); err != nil {
		return nil, trig, atDeclared(err, st.Spec)
	}
	*st = again
	return sp, trig, nil
}

// atDeclared gives an error about a declared column the position of its
// definition in the statement, when the statement declares it (CREATE
// STREAMING TABLE; a flow's target was declared elsewhere).
func atDeclared(err error, spec *parse.TableSpec) error {
	e, ok := err.(*sqlerr.Error)
	if !ok || spec == nil || e.Position != 0 {
		return err
	}
	for _, c := range spec.Columns {
		if strings.HasPrefix(e.Message, "column \""+c.Name+"\" of streaming table") {
			c2 := *e
			c2.Position = c.Pos
			return &c2
		}
	}
	return err
}

// declaredColumns resolves a column list's types. Spark's type names that
// PostgreSQL does not have (STRING, LONG, DOUBLE, ...) are taken as
// PostgreSQL's equivalents.
func declaredColumns(spec *parse.TableSpec) ([]catalog.Column, error) {
	cols := make([]catalog.Column, 0, len(spec.Columns))
	for _, c := range spec.Columns {
		t, err := resolveDeclaredType(c.Type)
		if err != nil {
			e := sqlerr.From(err)
			return nil, &sqlerr.Error{Code: e.Code, Message: e.Message, Position: c.Pos, Hint: e.Hint}
		}
		cols = append(cols, catalog.Column{Name: c.Name, Type: t, NotNull: c.NotNull, Comment: c.Comment, Generated: c.Generated})
	}
	return cols, nil
}

// sparkTypes are Spark SQL type names with the PostgreSQL type weir keeps
// them as.
var sparkTypes = map[string]string{
	"string": "text", "long": "bigint", "double": "double precision", "float": "real",
	"short": "smallint", "byte": "smallint", "tinyint": "smallint", "binary": "bytea",
	"timestamp_ntz": "timestamp", "timestamp_ltz": "timestamptz",
}

func resolveDeclaredType(text string) (types.T, error) {
	parseType := func(text string) (types.T, error) {
		// weir's Parse: Spark's STRUCT<...>, ARRAY<...> and type names too.
		stmts, err := parse.Parse("SELECT NULL::" + text)
		if err != nil || len(stmts) != 1 {
			return types.T{}, sqlerr.New(sqlerr.SyntaxError, "syntax error in type \"%s\"", text)
		}
		sel := stmts[0].Node.GetSelectStmt()
		if sel == nil || len(sel.TargetList) != 1 {
			return types.T{}, sqlerr.New(sqlerr.SyntaxError, "syntax error in type \"%s\"", text)
		}
		tc := sel.TargetList[0].GetResTarget().GetVal().GetTypeCast()
		if tc == nil || tc.TypeName == nil {
			return types.T{}, sqlerr.New(sqlerr.SyntaxError, "syntax error in type \"%s\"", text)
		}
		return planner.ResolveTypeName(tc.TypeName)
	}
	t, err := parseType(text)
	if err != nil {
		if pg, ok := sparkTypes[strings.ToLower(strings.TrimSpace(text))]; ok {
			return parseType(pg)
		}
		e := sqlerr.From(err)
		return types.T{}, &sqlerr.Error{Code: e.Code, Message: e.Message}
	}
	return t, nil
}

// checkDeclared compares a query's columns with the declared ones, by
// name: every declared column the query must give (all but the generated
// ones), none more, each of the declared type. inOrder also requires the
// declared order (after the select list was rewritten into it).
func checkDeclared(shape *tableShape, got []planner.Column, inOrder bool) error {
	byName := make(map[string]planner.Column, len(got))
	for _, c := range got {
		byName[c.Name] = c
	}
	declared := make(map[string]catalog.Column, len(shape.cols))
	for _, d := range shape.cols {
		declared[d.Name] = d
	}
	for _, c := range got {
		d, ok := declared[c.Name]
		switch {
		case !ok:
			return sqlerr.New(sqlerr.InvalidColumnReference, "column \"%s\" of the query is not a column of streaming table \"%s\"", c.Name, shape.name).
				WithDetail("The table declares: " + catalogColumnNames(shape.cols) + ".").
				WithHint("Add the column to the table's column list, or leave it out of the query.")
		case d.Generated != "" && !inOrder:
			return sqlerr.New(sqlerr.InvalidColumnReference, "column \"%s\" of streaming table \"%s\" is generated: the query must not give it", c.Name, shape.name)
		}
	}
	for _, d := range shape.cols {
		c, ok := byName[d.Name]
		if !ok {
			if d.Generated != "" && !inOrder {
				continue
			}
			return sqlerr.New(sqlerr.InvalidColumnReference, "column \"%s\" of streaming table \"%s\" is not in the query", d.Name, shape.name).
				WithDetail("The query gives: " + planColumnNames(got) + ".").
				WithHint("Give it in the query's select list (SELECT ... AS " + d.Name + ").")
		}
		if !sameType(d.Type, c.T) {
			return sqlerr.New(sqlerr.DatatypeMismatch, "column \"%s\" of streaming table \"%s\" is of type %s but the query gives %s", d.Name, shape.name, d.Type, queryType(c.T)).
				WithHint(fmt.Sprintf("Cast it in the query: CAST(... AS %s) AS %s.", d.Type, d.Name))
		}
	}
	return nil
}

func sameType(declared, got types.T) bool {
	if got.OID == types.OidUnknown {
		got = types.Text
	}
	if declared.IsStruct() || got.IsStruct() {
		return declared == got // a struct's shape is in its typmod: the same fields, of the same types
	}
	return declared.OID == got.OID
}

func queryType(t types.T) types.T {
	if t.OID == types.OidUnknown {
		return types.Text
	}
	return t
}

func sameColumns(declared []catalog.Column, got []planner.Column) bool {
	if len(declared) != len(got) {
		return false
	}
	for i := range declared {
		if declared[i].Name != got[i].Name || declared[i].Generated != "" {
			return false
		}
	}
	return true
}

func catalogColumnNames(cols []catalog.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func planColumnNames(cols []planner.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// selectInDeclaredOrder rewrites a query's select list into the declared
// columns' order, adding the generated ones (their expressions are read
// over the query's FROM). got is what the query gives now. ok is false
// when the select list cannot be rewritten (a set operation, several *).
func selectInDeclaredOrder(query string, got []planner.Column, declared []catalog.Column) (string, bool) {
	tree, err := pg_query.Parse(query)
	if err != nil || len(tree.Stmts) != 1 {
		return "", false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.TargetList) == 0 {
		return "", false
	}
	stars := 0
	for _, t := range sel.TargetList {
		if starTarget(t) != nil {
			stars++
		}
	}
	if stars > 1 {
		return "", false
	}
	// What each output column is: its target's expression, or for those
	// a * stands for, a reference to the column by name.
	outputs := make([]*pg_query.Node, 0, len(got))
	fromStar := len(got) - (len(sel.TargetList) - stars)
	for _, t := range sel.TargetList {
		if qual := starTarget(t); qual != nil {
			for k := 0; k < fromStar && len(outputs) < len(got); k++ {
				fields := append(append([]*pg_query.Node(nil), qual...), pg_query.MakeStrNode(got[len(outputs)].Name))
				outputs = append(outputs, pg_query.MakeColumnRefNode(fields, -1))
			}
			continue
		}
		outputs = append(outputs, t.GetResTarget().GetVal())
	}
	if len(outputs) != len(got) {
		return "", false
	}
	index := make(map[string]int, len(got))
	for i, c := range got {
		index[c.Name] = i
	}
	targets := make([]*pg_query.Node, 0, len(declared))
	for _, d := range declared {
		var val *pg_query.Node
		if d.Generated != "" {
			e, err := pg_query.Parse("SELECT (" + d.Generated + ")")
			if err != nil || len(e.Stmts) != 1 {
				return "", false
			}
			val = e.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal()
		} else {
			i, ok := index[d.Name]
			if !ok {
				return "", false
			}
			val = outputs[i]
		}
		if cr := val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetString_().GetSval() == d.Name {
			targets = append(targets, pg_query.MakeResTargetNodeWithVal(val, -1)) // already its name
			continue
		}
		targets = append(targets, pg_query.MakeResTargetNodeWithNameAndVal(d.Name, val, -1))
	}
	sel.TargetList = targets
	out, err := pg_query.Deparse(tree)
	if err != nil {
		return "", false
	}
	return out, true
}

// starTarget returns the qualifier of a * or t.* target (empty for *), or
// nil when t is not one.
func starTarget(t *pg_query.Node) []*pg_query.Node {
	cr := t.GetResTarget().GetVal().GetColumnRef()
	if cr == nil || len(cr.Fields) == 0 || cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
		return nil
	}
	return append([]*pg_query.Node{}, cr.Fields[:len(cr.Fields)-1]...)
}

// applyTableSpec puts what CREATE STREAMING TABLE declared beyond the
// query into rel before it is stored: the declared columns' properties
// and key, and the table clauses.
func (s *Session) applyTableSpec(rel *catalog.Relation, st *parse.StreamingStmt, io noticer) error {
	spec := st.Spec
	if spec == nil {
		return nil
	}
	if len(spec.Columns) > 0 {
		cols, err := declaredColumns(spec)
		if err != nil {
			return err
		}
		// The stored types are the query's (the same types, with the
		// query's typmods: they describe the rows as the job writes them).
		for i := range cols {
			if j := rel.Column(cols[i].Name); j >= 0 {
				cols[i].Type = rel.Columns[j].Type
			}
		}
		rel.Columns = cols
		rel.Streaming.Declared = true
	}
	return fillStreamingSpec(rel, spec, s.settings["timezone"], io)
}

// fillStreamingSpec checks the table clauses against rel's columns and
// stores them in rel.Streaming.
func fillStreamingSpec(rel *catalog.Relation, spec *parse.TableSpec, tz string, io noticer) error {
	st := rel.Streaming
	if spec.Private {
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("streaming table %s: PRIVATE has no effect: weir has no pipelines, every table is in its schema for all to see", rel.Name))
	}
	for _, k := range spec.PrimaryKey {
		i := rel.Column(k)
		if i < 0 {
			return sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" named in key does not exist", k)
		}
		rel.Columns[i].NotNull = true
	}
	rel.PrimaryKey = spec.PrimaryKey
	for _, clause := range []struct {
		name string
		cols []string
	}{{"PARTITIONED BY", spec.PartitionedBy}, {"CLUSTER BY", spec.ClusterBy}} {
		for _, c := range clause.cols {
			if clause.name == "CLUSTER BY" && c == "auto" && len(clause.cols) == 1 {
				continue
			}
			if rel.Column(c) < 0 {
				return sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" named in %s does not exist", c, clause.name)
			}
		}
	}
	st.PartitionedBy, st.ClusterBy = spec.PartitionedBy, spec.ClusterBy
	if spec.Comment != nil {
		st.Comment, st.HasComment = *spec.Comment, true
	}
	st.Properties = catalogProperties(spec.Properties)
	if err := setSchedule(st, spec.Schedule, rel.Name, tz, io); err != nil {
		return err
	}
	st.Expectations = nil
	for _, e := range spec.Expectations {
		st.Expectations = append(st.Expectations, catalog.Expectation{Name: e.Name, Expr: e.Expr, OnViolation: e.OnViolation})
	}
	return nil
}

func catalogProperties(ps []parse.Property) []catalog.Property {
	if len(ps) == 0 {
		return nil
	}
	out := make([]catalog.Property, len(ps))
	for i, p := range ps {
		out[i] = catalog.Property{Key: p.Key, Value: p.Value}
	}
	return out
}

// catalogSchedule is a schedule as the catalog keeps it; a CRON without
// AT TIME ZONE runs in tz (the session's).
func catalogSchedule(sc *parse.Schedule, tz string) *catalog.Schedule {
	if sc == nil {
		return nil
	}
	c := &catalog.Schedule{Kind: sc.Kind, Every: sc.Every, Unit: sc.Unit, Cron: sc.Cron, TimeZone: sc.TimeZone,
		AtMostEveryUS: sc.AtMostEvery.Microseconds(), Text: sc.String()}
	if c.Kind == "cron" && c.TimeZone == "" {
		c.TimeZone = tz
	}
	return c
}

// setSchedule stores a schedule (nil: none), checking its time zone.
func setSchedule(st *catalog.StreamingTable, sc *parse.Schedule, table, tz string, io noticer) error {
	if sc == nil {
		st.Schedule = nil
		return nil
	}
	if sc.TimeZone != "" {
		if _, ok := types.LoadLocation(sc.TimeZone); !ok || strings.EqualFold(sc.TimeZone, "local") {
			return sqlerr.At(sqlerr.InvalidParameterValue, sc.Pos, "time zone \"%s\" not recognized", sc.TimeZone).
				WithHint("A time zone name such as 'America/Los_Angeles' or 'UTC' (AT TIME ZONE LOCAL is not accepted, as in Databricks).")
		}
	}
	st.Schedule = catalogSchedule(sc, tz)
	if sc.Kind != "on update" || sc.AtMostEvery > 0 {
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("streaming table %s refreshes on schedule %s (trigger available_now in between, unless WITH (trigger = ...) names another)", table, sc.String()))
	}
	return nil
}

// createDeclaredStreamingTable runs CREATE [OR REFRESH] STREAMING TABLE
// name [(columns)] [clauses] without a query: a target that flows fill.
// Without a column list its columns are the first flow's.
func (s *Session) createDeclaredStreamingTable(st *parse.StreamingStmt, text string, io noticer) (wire.Result, error) {
	schema, name := st.Schema, lastName(st.Name)
	if schema == "" {
		if sp := s.searchPath(); len(sp) > 0 {
			schema = sp[0]
		}
	}
	cols, err := declaredColumns(st.Spec)
	if err != nil {
		return nil, err
	}
	rel := &catalog.Relation{Schema: schema, Name: name, Kind: catalog.KindStreamingTable, Columns: cols, Owner: s.currentRoleOID(),
		Streaming: &catalog.StreamingTable{Definition: text, NoQuery: true, Declared: len(cols) > 0, Trigger: "continuous", OutputMode: planner.AppendMode}}
	for _, c := range cols {
		if c.Generated != "" {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "generated column \"%s\" needs the table's query: a table that flows fill cannot compute it", c.Name).
				WithHint("Compute the value in each flow's query.")
		}
	}
	if err := s.requireCreateIn(schema); err != nil { // owner.go
		return nil, err
	}
	if existing, err := s.eng.cat.LookupRelation(nil, schema, name); err == nil {
		switch {
		case st.IfNotExists:
			io.Notice("NOTICE", sqlerr.DuplicateTable, fmt.Sprintf("relation \"%s\" already exists, skipping", name))
			return commandResult("CREATE STREAMING TABLE"), nil
		case st.OrReplace && existing.Kind == catalog.KindStreamingTable && s.requireOwner(existing) != nil:
			return nil, s.requireOwner(existing) // privileges.go
		case st.OrReplace && existing.Kind == catalog.KindStreamingTable && existing.Streaming.NoQuery:
			// CREATE OR REFRESH of the same target: its clauses are
			// replaced, its flows and rows kept; its columns cannot change.
			if rel.Streaming.Declared && !sameDeclared(existing.Columns, cols) {
				return nil, sqlerr.New(sqlerr.FeatureNotSupported, "CREATE OR REFRESH cannot change the columns of streaming table \"%s\"", name).
					WithHint("DROP STREAMING TABLE " + name + " first, then create it with the new columns.")
			}
			probe := existing.Clone()
			probe.Streaming.Definition = text
			if err := fillStreamingSpec(probe, st.Spec, s.settings["timezone"], io); err != nil {
				return nil, err
			}
			_, err := s.eng.cat.UpdateStreamingTable(existing.OID, func(r *catalog.Relation) error {
				flows := r.Streaming.Flows
				r.Streaming = probe.Streaming
				r.Streaming.Flows = flows
				r.PrimaryKey = probe.PrimaryKey
				return nil
			})
			if err != nil {
				return nil, err
			}
			if err := s.rescheduled(existing.OID); err != nil { // its flows take the new schedule's trigger
				return nil, err
			}
			return commandResult("CREATE STREAMING TABLE"), nil
		case st.OrReplace && existing.Kind == catalog.KindStreamingTable:
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "streaming table \"%s\" has a query: CREATE OR REFRESH without one would drop it", name).
				WithHint("DROP STREAMING TABLE " + name + " first to make it a target of flows.")
		}
		return nil, sqlerr.New(sqlerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if err := fillStreamingSpec(rel, st.Spec, s.settings["timezone"], io); err != nil {
		return nil, err
	}
	if err := s.checkDeclaredExpectations(rel); err != nil { // expectations.go
		return nil, err
	}
	rel.Streaming.Trigger = scheduledTrigger(rel.Streaming.Schedule, trigger{kind: "continuous"}).kind
	rel.Owner = s.ownerOfNew(rel) // owner.go
	created, err := s.eng.cat.CreateRelation(rel, false)
	if err != nil {
		return nil, err
	}
	s.eng.tableCreated(created, false) // event_log.go
	return commandResult("CREATE STREAMING TABLE"), nil
}

func sameDeclared(a, b []catalog.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Type.OID != b[i].Type.OID {
			return false
		}
	}
	return true
}

// createFlow is in flows_ddl.go.

// alterStreamingTable runs ALTER STREAMING TABLE name {ADD | ALTER | DROP}
// SCHEDULE ... | SET | UNSET TBLPROPERTIES.
func (s *Session) alterStreamingTable(st *parse.StreamingStmt, io noticer) (wire.Result, error) {
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), st.Schema, lastName(st.Name))
	if err != nil {
		return nil, err
	}
	if rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", rel.Name)
	}
	spec := st.Spec
	if strings.HasSuffix(spec.Alter, "row level security") {
		return s.alterStreamingRowSecurity(rel, spec.Alter) // row_security_ddl.go
	}
	_, err = s.eng.cat.UpdateStreamingTable(rel.OID, func(r *catalog.Relation) error {
		t := r.Streaming
		switch spec.Alter {
		case "add schedule":
			if t.Schedule != nil {
				return sqlerr.New(sqlerr.DuplicateObject, "streaming table \"%s\" already has a schedule (%s)", rel.Name, t.Schedule.Text).
					WithHint("Use ALTER STREAMING TABLE " + rel.Name + " ALTER SCHEDULE ... to change it.")
			}
			return setSchedule(t, spec.Schedule, rel.Name, s.settings["timezone"], io)
		case "alter schedule":
			if t.Schedule == nil {
				return sqlerr.New(sqlerr.UndefinedObject, "streaming table \"%s\" has no schedule", rel.Name).
					WithHint("Use ALTER STREAMING TABLE " + rel.Name + " ADD SCHEDULE ... to add one.")
			}
			return setSchedule(t, spec.Schedule, rel.Name, s.settings["timezone"], io)
		case "drop schedule":
			if t.Schedule == nil {
				return sqlerr.New(sqlerr.UndefinedObject, "streaming table \"%s\" has no schedule", rel.Name)
			}
			t.Schedule = nil
		case "set tblproperties":
			for _, p := range spec.Properties {
				found := false
				for i := range t.Properties {
					if t.Properties[i].Key == p.Key {
						t.Properties[i].Value, found = p.Value, true
					}
				}
				if !found {
					t.Properties = append(t.Properties, catalog.Property{Key: p.Key, Value: p.Value})
				}
			}
		case "unset tblproperties":
			for _, p := range spec.Properties {
				kept := t.Properties[:0]
				found := false
				for _, old := range t.Properties {
					if old.Key == p.Key {
						found = true
						continue
					}
					kept = append(kept, old)
				}
				if !found && !spec.AlterIfExists {
					return sqlerr.New(sqlerr.UndefinedObject, "property \"%s\" of streaming table \"%s\" does not exist", p.Key, rel.Name).
						WithHint("UNSET TBLPROPERTIES IF EXISTS (...) skips missing keys.")
				}
				t.Properties = kept
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(spec.Alter, "schedule") {
		if err := s.rescheduled(rel.OID); err != nil {
			return nil, err
		}
	}
	return commandResult("ALTER STREAMING TABLE"), nil
}

// rescheduled restarts a running streaming table whose schedule changed,
// so that it runs with the trigger the new schedule gives.
func (s *Session) rescheduled(oid uint32) error {
	s.eng.forgetSchedule(oid)
	rel, ok := s.eng.cat.RelationByOID(oid)
	if ok && rel.Streaming.NoQuery {
		return s.eng.restartFlows(rel) // flows_ddl.go
	}
	if !ok || rel.Streaming.PlanText() == "" {
		return nil
	}
	r := s.eng.runnerFor(oid)
	if r == nil || r.plan == nil {
		return nil
	}
	st, err := parse.ParseStreaming(rel.Streaming.PlanText())
	if err != nil || st == nil {
		return sqlerr.New(sqlerr.InternalError, "streaming table \"%s\" has an unreadable definition", rel.Name)
	}
	sp, trig, err := s.planStreamingTable(st, shapeOf(rel))
	if err != nil {
		return err
	}
	if trig.kind == r.trigger.kind {
		return nil
	}
	updated, err := s.eng.cat.UpdateStreamingTable(oid, func(r *catalog.Relation) error {
		r.Streaming.Trigger = trig.kind
		return nil
	})
	if err != nil {
		return err
	}
	s.eng.stopRunner(oid)
	s.eng.startRunner(updated, sp, trig)
	return nil
}

// lastName is the unqualified part of a name as the streaming statements
// keep it ("s.t" → "t").
func lastName(n string) string {
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}
