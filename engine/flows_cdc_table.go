package engine

import (
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// createChangelogTable runs dialect.md's changelog table, CREATE TABLE t
// (columns, PRIMARY KEY (k)) FROM source TABLE 'schema.table', over a
// postgres-cdc source: a streaming table of the declared columns and an
// AUTO CDC flow into it of SCD type 1, named after the table, KEYS the
// primary key, SEQUENCE BY _lsn, APPLY AS DELETE WHEN _op = 'd'
// (sql/parse/changelog_table.go). SELECT shows the source table's
// current rows.
func (s *Session) createChangelogTable(st *parse.StreamingStmt, text string, io noticer) (wire.Result, error) {
	spec := st.Spec
	src, err := s.eng.cat.LookupRelation(s.searchPath(), spec.CDC.Source.Schema, spec.CDC.Source.Name)
	if err != nil {
		return nil, err
	}
	if src.Kind != catalog.KindSource || src.Source == nil || src.Source.PgCDC == nil {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a postgres-cdc source", src.Name).
			WithHint("CREATE TABLE ... FROM source TABLE 'schema.table' reads a source of connector postgres-cdc; over another feed, use CREATE FLOW ... AS AUTO CDC INTO.")
	}
	want := spec.ChangelogTable
	if !strings.Contains(want, ".") {
		want = "public." + want
	}
	if got := pgcdcTable(src); got != want { // pgcdc_source.go
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "source \"%s\" captures table %s, not %s: a postgres-cdc source captures one table", src.Name, got, want).
			WithHint("CREATE SOURCE another source WITH (connector = 'postgres-cdc', table.name = '" + want + "', ...).")
	}
	if _, err := s.cdcDefinition(spec.CDC); err != nil { // the columns are the source's
		return nil, err
	}
	// The flow's definition is the CREATE FLOW it amounts to, so that SHOW
	// CREATE TABLE (the table, then its flows) replays.
	c := spec.CDC
	names := func(ns []string) string {
		q := make([]string, len(ns))
		for i, n := range ns {
			q[i] = quoteIdentAlways(n)
		}
		return strings.Join(q, ", ")
	}
	source := quoteIdentAlways(c.Source.Name)
	if c.Source.Schema != "" {
		source = quoteIdentAlways(c.Source.Schema) + "." + source
	}
	target := quoteIdentAlways(st.Name)
	if st.Schema != "" {
		target = quoteIdentAlways(st.Schema) + "." + target
	}
	flowText := "CREATE FLOW " + quoteIdentAlways(spec.Flow) + " AS AUTO CDC INTO " + target + " FROM STREAM(" + source + ") KEYS (" + names(c.Keys) +
		") APPLY AS DELETE WHEN " + c.DeleteWhen + " SEQUENCE BY " + c.Sequence + " COLUMNS " + names(c.Columns) + " STORED AS SCD TYPE 1"
	return s.createTargetAndCDCFlow(st, text, flowText, "CREATE TABLE", io)
}

// createTargetAndCDCFlow creates st's streaming table and its own AUTO CDC
// flow (a changelog table; CREATE STREAMING TABLE t FLOW AUTO CDC ...,
// st.Spec.TableFlow); a flow that fails takes a table it created with it.
func (s *Session) createTargetAndCDCFlow(st *parse.StreamingStmt, text, flowText, tag string, io noticer) (wire.Result, error) {
	spec := st.Spec
	existed := false
	if _, err := s.eng.cat.LookupRelation(s.searchPath(), st.Schema, st.Name); err == nil {
		existed = true
	}
	decl := *st
	declSpec := *spec
	declSpec.CDC, declSpec.ChangelogTable, declSpec.TableFlow, declSpec.NoQuery, declSpec.Flow = nil, "", false, true, ""
	decl.Kind, decl.Spec = parse.CreateStreamingTable, &declSpec
	if !spec.TableFlow {
		decl.OrReplace = false // CREATE TABLE: a new table
	}
	if _, err := s.createDeclaredStreamingTable(&decl, text, io); err != nil { // streaming_ddl.go
		return nil, err
	}
	target, err := s.eng.cat.LookupRelation(s.searchPath(), st.Schema, st.Name)
	if err == nil {
		_, err = s.createCDCFlow(st, target, flowText, io)
	}
	if err != nil {
		// Nothing is left half made: the table (no flow ran into it, it
		// holds nothing) goes with its failed flow.
		if target != nil && !existed {
			s.eng.cat.DropRelation(nil, target.Schema, target.Name, catalog.KindStreamingTable, false)
		}
		return nil, err
	}
	return commandResult(tag), nil
}
