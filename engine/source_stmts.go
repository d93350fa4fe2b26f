package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// CREATE SOURCE, DROP SOURCE and SHOW SOURCES (dialect.md, Sources). A
// source is a catalog relation of kind KindSource whose typed definition
// (catalog.Source) says which connector reads it with which options, all
// checked here so that a stored source always opens.

// isSourceStatement reports whether ss is one of the source statements.
func isSourceStatement(ss *parse.StreamingStmt) bool {
	switch ss.Kind {
	case parse.CreateSource, parse.DropSource, parse.ShowSources:
		return true
	}
	return false
}

// showSourcesColumns is SHOW SOURCES' result shape.
// path and format are a files source's (NULL for other connectors):
// where it reads, resolved under the files root, and what; options that
// could hold a secret are not shown.
var showSourcesColumns = []wire.Column{{Name: "name", Type: types.Text}, {Name: "connector", Type: types.Text},
	{Name: "path", Type: types.Text}, {Name: "format", Type: types.Text},
	{Name: "table", Type: types.Text}, {Name: "max_events", Type: types.Int8}, {Name: "events_per_second", Type: types.Int8},
	{Name: "seed", Type: types.Int8}, {Name: "paced", Type: types.Bool}, {Name: "watermark", Type: types.Text},
	{Name: "read_by", Type: types.Text}}

func (s *Session) runSourceStatement(st *statement, io wire.ExecIO) (wire.Result, error) {
	ss := st.stream
	if s.tx.open && ss.Kind != parse.ShowSources {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "source statements cannot run inside a transaction block")
	}
	switch ss.Kind {
	case parse.CreateSource:
		return s.createSource(ss, st.parsed.Text, io)
	case parse.DropSource:
		return s.dropSource(ss, io)
	}
	return s.showSources(st)
}

// knownConnectors are dialect.md's source connectors; nexmark and files run.
var knownConnectors = []string{"nexmark", "files", "kafka", "postgres-cdc"}

func (s *Session) createSource(ss *parse.StreamingStmt, text string, io wire.ExecIO) (wire.Result, error) {
	conn, ok := ss.Options["connector"]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "option \"connector\" is required").
			WithHint("For example WITH (connector = 'nexmark', table = 'bid', max_events = 1000000).")
	}
	if err := s.requireSecretUsage(ss.Options); err != nil { // secret_usage.go
		return nil, err
	}
	switch strings.ToLower(conn) {
	case "nexmark":
	case "files":
		return s.createFilesSource(ss, text, io) // files_source_stmt.go
	case "kafka":
		return s.createKafkaSource(ss, text, io) // kafka_source.go
	case "postgres-cdc":
		return s.createPgCDCSource(ss, text, io) // pgcdc_source.go
	default:
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"connector\": \"%s\"", conn).
			WithHint("Connectors: " + strings.Join(knownConnectors, ", ") + ".")
	}
	names := make([]string, 0, len(ss.Options))
	for k := range ss.Options {
		names = append(names, k)
	}
	sort.Strings(names)
	settings := make([]connector.Setting, 0, len(names))
	for _, k := range names {
		v := ss.Options[k]
		if k == "connector" {
			v = strings.ToLower(v)
		}
		settings = append(settings, connector.Setting{Name: k, Value: v})
	}
	o, err := nexmark.ParseSourceOptions(settings)
	if err != nil {
		return nil, err
	}
	if _, err := nexmark.NewGenerator(o.Config); err != nil {
		return nil, err
	}
	rel := &catalog.Relation{Schema: ss.Schema, Name: ss.Name, Kind: catalog.KindSource, ViewSQL: nexmarkQuery(o),
		Source: &catalog.Source{Connector: "nexmark", Nexmark: catalogNexmark(o), Definition: text}}
	for _, c := range nexmark.Columns[o.Table] {
		rel.Columns = append(rel.Columns, catalog.Column{Name: c.Name, Type: c.T})
	}
	if ss.SourceColumns != "" {
		if err := checkSourceColumns(ss, o.Table, rel.Columns); err != nil {
			return nil, err
		}
	}
	return s.storeSource(ss, rel, io) // source_stmts.go
}

// checkSourceColumns checks a column list given in CREATE SOURCE against
// the columns the connector produces: a nexmark table's columns are fixed,
// so the list must name them all, in order, with their types (varchar for
// text is accepted, as RisingWave's examples write it).
func checkSourceColumns(ss *parse.StreamingStmt, t nexmark.Table, want []catalog.Column) error {
	names := make([]string, len(want))
	for i, c := range want {
		names[i] = c.Name + " " + c.Type.String()
	}
	hint := "The columns of nexmark table " + t.String() + " are: " + strings.Join(names, ", ") + ". Leave the column list out to get them."
	res, err := pg_query.Parse("CREATE TABLE x (" + ss.SourceColumns + ")")
	if err != nil || len(res.Stmts) != 1 || res.Stmts[0].Stmt.GetCreateStmt() == nil {
		return sqlerr.At(sqlerr.SyntaxError, ss.SourceColumnsPos, "syntax error in the column list of CREATE SOURCE").WithHint(hint)
	}
	var got []*pg_query.ColumnDef
	for _, el := range res.Stmts[0].Stmt.GetCreateStmt().TableElts {
		cd := el.GetColumnDef()
		if cd == nil {
			return sqlerr.At(sqlerr.FeatureNotSupported, ss.SourceColumnsPos, "a source's column list takes only columns and WATERMARK FOR").WithHint(hint)
		}
		got = append(got, cd)
	}
	for i, cd := range got {
		if i >= len(want) || cd.Colname != want[i].Name {
			if i < len(want) {
				for _, w := range want {
					if w.Name == cd.Colname {
						return sqlerr.At("42611", ss.SourceColumnsPos, "column \"%s\" is column %d of nexmark table %s, not %d", cd.Colname, slicesIndex(want, cd.Colname)+1, t, i+1).WithHint(hint)
					}
				}
			}
			return sqlerr.At(sqlerr.UndefinedColumn, ss.SourceColumnsPos, "nexmark table %s has no column \"%s\"", t, cd.Colname).WithHint(hint)
		}
		ty, err := planner.ResolveTypeName(cd.TypeName)
		if err != nil {
			return err
		}
		if ty.OID != want[i].Type.OID && !(want[i].Type.OID == types.OidText && ty.OID == types.OidVarchar) {
			return sqlerr.At(sqlerr.DatatypeMismatch, ss.SourceColumnsPos, "column \"%s\" of nexmark table %s is %s, not %s", cd.Colname, t, want[i].Type, ty).WithHint(hint)
		}
	}
	if len(got) != len(want) {
		return sqlerr.At("42611", ss.SourceColumnsPos, "the column list names %d of the %d columns of nexmark table %s", len(got), len(want), t).WithHint(hint)
	}
	return nil
}

func slicesIndex(cols []catalog.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// nexmarkQuery is the batch query reading the rows of a nexmark source
// (what pg_get_viewdef shows for it).
func nexmarkQuery(o nexmark.Options) string {
	var b strings.Builder
	cols := nexmark.Columns[o.Table]
	b.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
	}
	fmt.Fprintf(&b, " FROM nexmark('%s', max_events => %d, seed => %d, events_per_second => %d", o.Table, o.Config.MaxEvents, o.Config.Seed, o.Config.EventsPerSecond)
	if o.Config.Disorder > 0 {
		fmt.Fprintf(&b, ", disorder => '%d microseconds'", o.Config.Disorder.Microseconds())
	}
	if o.Config.LateFraction > 0 {
		fmt.Fprintf(&b, ", late_fraction => '%s', late_by => '%d microseconds'", strconv.FormatFloat(o.Config.LateFraction, 'g', -1, 64), o.Config.LateBy.Microseconds())
	}
	b.WriteString(")")
	return b.String()
}

// readersOf lists the streaming tables that read the relation oid as
// their stream input, and those reading them, in turn: the objects DROP
// ... CASCADE removes, readers of readers first.
func (e *Engine) readersOf(oid uint32) []*catalog.Relation {
	var out []*catalog.Relation
	seen := map[uint32]bool{}
	var visit func(oid uint32)
	visit = func(oid uint32) {
		for _, rel := range e.cat.Relations() {
			if rel.Kind != catalog.KindStreamingTable || seen[rel.OID] {
				continue
			}
			// A target's flows are its readers too: each flow is a job.
			for _, r := range e.jobsOf(rel) {
				if r.plan != nil && r.plan.Input.OID == oid {
					seen[rel.OID] = true
					visit(rel.OID)
					out = append(out, rel)
					break
				}
			}
		}
	}
	visit(oid)
	return out
}

func (s *Session) dropSource(ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	var drop []*catalog.Relation
	for _, n := range ss.Names {
		if err := s.requireNamedSchemaUsage(n.Schema); err != nil { // owner.go
			return nil, err
		}
		rel, err := s.eng.cat.LookupRelation(s.searchPath(), n.Schema, n.Name)
		if err != nil {
			if sqlerr.Code(err) == sqlerr.UndefinedTable {
				if ss.IfExists {
					io.Notice("NOTICE", sqlerr.UndefinedTable, fmt.Sprintf("source \"%s\" does not exist, skipping", n.Name))
					continue
				}
				return nil, sqlerr.New(sqlerr.UndefinedTable, "source \"%s\" does not exist", n.Name)
			}
			return nil, err
		}
		if rel.Kind != catalog.KindSource {
			return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a source", n.Name).
				WithHint("Use " + dropCommandOf(rel.Kind) + " to remove a " + rel.Kind.Noun() + ".")
		}
		if err := s.requireDropOwner(rel); err != nil { // owner.go
			return nil, err
		}
		drop = append(drop, rel)
	}
	// Like PostgreSQL's dependent objects: refused (2BP01) unless CASCADE,
	// which drops the streaming tables reading the sources first.
	var dependents []*catalog.Relation
	for _, rel := range drop {
		readers := s.eng.readersOf(rel.OID)
		if len(readers) > 0 && !ss.Cascade {
			var detail []string
			for _, r := range readers {
				detail = append(detail, "streaming table "+r.Name+" depends on source "+rel.Name)
			}
			return nil, sqlerr.New("2BP01", "cannot drop source %s because other objects depend on it", rel.Name).
				WithDetail(strings.Join(detail, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		dependents = append(dependents, readers...)
	}
	for _, d := range dependents {
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "drop cascades to streaming table "+d.Name)
		s.eng.stopRunner(d.OID)
		if err := s.eng.cat.DropRelation(nil, d.Schema, d.Name, catalog.KindStreamingTable, false); err != nil {
			return nil, err
		}
		if err := s.eng.dropEpochs(d.OID); err != nil {
			return nil, err
		}
		if err := s.eng.dropChangeLog(d.OID); err != nil { // change_log.go
			return nil, err
		}
	}
	for _, rel := range drop {
		if err := s.eng.cat.DropRelation(nil, rel.Schema, rel.Name, catalog.KindSource, false); err != nil {
			return nil, err
		}
		if rel.Source.PgCDC != nil {
			s.eng.dropPgCDC(rel, io) // pgcdc_source.go
		}
	}
	return commandResult("DROP SOURCE"), nil
}

// dropCommandOf is the statement that drops a relation of kind k.
func dropCommandOf(k catalog.RelKind) string {
	switch k {
	case catalog.KindView:
		return "DROP VIEW"
	case catalog.KindStreamingTable:
		return "DROP STREAMING TABLE"
	case catalog.KindSource:
		return "DROP SOURCE"
	}
	return "DROP TABLE"
}

func (s *Session) showSources(st *statement) (wire.Result, error) {
	cols := make([][]any, len(showSourcesColumns))
	for _, rel := range s.eng.cat.Relations() {
		if rel.Kind != catalog.KindSource || rel.Source == nil {
			continue
		}
		var table, wm, readBy, path, format any
		var maxEvents, eps, seed, paced any
		if f := rel.Source.Files; f != nil {
			path, format = f.Path, f.Format
		}
		if k := rel.Source.Kafka; k != nil {
			path, format = kafkaSubscription(k), k.Format // kafka_source.go
		}
		if rel.Source.PgCDC != nil {
			table = pgcdcTable(rel) // pgcdc_source.go
		}
		if n := rel.Source.Nexmark; n != nil {
			table, eps, seed, paced = n.Table, n.EventsPerSecond, n.Seed, n.Paced
			if n.MaxEvents > 0 {
				maxEvents = n.MaxEvents
			}
		}
		if c := rel.Source.WatermarkColumn; c != "" {
			wm = fmt.Sprintf("%s - %s", c, types.FormatInterval(arrow.MonthDayNanoInterval{Nanoseconds: rel.Source.WatermarkDelayUS * 1000}))
		}
		var readers []string
		for _, r := range s.eng.readersOf(rel.OID) {
			readers = append(readers, r.Name)
		}
		if len(readers) > 0 {
			sort.Strings(readers)
			readBy = strings.Join(readers, ", ")
		}
		vals := []any{rel.Name, rel.Source.Connector, path, format, table, maxEvents, eps, seed, paced, wm, readBy}
		for i, v := range vals {
			cols[i] = append(cols[i], v)
		}
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{anyBatch(st.cols, cols)}, tag: "SHOW"}, nil
}

// storeSource finishes CREATE SOURCE for any connector: the WATERMARK FOR
// clause checked against the source's columns, the schema from the
// search path, and the relation stored.
func (s *Session) storeSource(ss *parse.StreamingStmt, rel *catalog.Relation, io wire.ExecIO) (wire.Result, error) {
	if wm := ss.Watermark; wm != nil {
		i := rel.Column(wm.Column)
		if i < 0 {
			return nil, sqlerr.At(sqlerr.UndefinedColumn, wm.Pos, "column \"%s\" named in WATERMARK FOR does not exist", wm.Column)
		}
		switch rel.Columns[i].Type.OID {
		case types.OidTimestamp, types.OidTimestampTZ:
		default:
			return nil, sqlerr.At(sqlerr.DatatypeMismatch, wm.Pos, "WATERMARK FOR column \"%s\" must be a timestamp or timestamptz, not %s", wm.Column, rel.Columns[i].Type)
		}
		rel.Source.WatermarkColumn = wm.Column
		rel.Source.WatermarkDelayUS = wm.Delay.Microseconds()
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
	_, err := s.eng.cat.CreateRelation(rel, ss.IfNotExists)
	return noticeOr(err, io, "CREATE SOURCE")
}
