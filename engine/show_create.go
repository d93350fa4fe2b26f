package engine

import (
	"sort"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// SHOW CREATE TABLE: a statement that, run on a server holding the same
// inputs, creates the same relation. It is built from the catalog's typed
// definition (so ALTER STREAMING TABLE's schedule and properties are the
// current ones), with a streaming table's query as it was written (its
// STREAM and WATERMARK clauses are what make it a streaming query).

func (s *Session) showCreate(rel *catalog.Relation) (string, error) {
	// Qualified unless the relation is in the schema an unqualified
	// CREATE makes it in, as pg_get_viewdef qualifies only names that need
	// it. (A schema-qualified CREATE STREAMING TABLE keeps the dotted name
	// whole today, so the unqualified form is also the one that re-creates
	// a streaming table of the current schema.)
	name := quoteName(rel.Name)
	if sp := s.searchPath(); len(sp) == 0 || sp[0] != rel.Schema {
		name = quoteName(rel.Schema) + "." + name
	}
	switch rel.Kind {
	case catalog.KindView:
		return "CREATE VIEW " + name + " AS " + strings.TrimRight(strings.TrimSpace(rel.ViewSQL), ";"), nil
	case catalog.KindSource:
		return strings.TrimRight(strings.TrimSpace(rel.Source.Definition), "; \t\r\n"), nil
	case catalog.KindStreamingTable:
		return showCreateStreaming(name, rel)
	}
	return showCreateTable(name, rel), nil
}

// showCreateTable is a plain table's CREATE TABLE, in PostgreSQL's type
// names (it goes through PostgreSQL's grammar).
func showCreateTable(name string, rel *catalog.Relation) string {
	var elems []string
	for _, c := range rel.Columns {
		e := quoteName(c.Name) + " " + c.Type.String()
		if c.Default != "" {
			e += " DEFAULT " + c.Default
		}
		if c.NotNull && !inList(rel.PrimaryKey, c.Name) {
			e += " NOT NULL"
		}
		if c.Mask != nil {
			e += " " + maskText(c.Mask) // column_masks.go
		}
		elems = append(elems, e)
	}
	if len(rel.PrimaryKey) > 0 {
		elems = append(elems, "PRIMARY KEY ("+quoteNames(rel.PrimaryKey)+")")
	}
	t := rel.Table
	if t != nil && t.WatermarkColumn != "" {
		elems = append(elems, "WATERMARK FOR "+watermarkClause(t.WatermarkColumn, t.WatermarkDelayUS))
	}
	out := "CREATE TABLE " + name + " (\n  " + strings.Join(elems, ",\n  ") + "\n)"
	if t != nil && t.Retention > 0 {
		out += "\nWITH (retention = '" + durationText(t.Retention.Microseconds()) + "')"
	}
	return out
}

// showCreateStreaming is a streaming table's CREATE OR REFRESH STREAMING
// TABLE: declared columns and expectations, table clauses, weir's WITH
// options, and the query as written.
func showCreateStreaming(name string, rel *catalog.Relation) (string, error) {
	st := rel.Streaming
	query, opts, parsed := writtenQuery(st.Definition)
	if parsed == nil || !st.NoQuery && query == "" {
		return "", sqlerr.New(sqlerr.InternalError, "streaming table \"%s\" has an unreadable definition", rel.Name)
	}
	var b strings.Builder
	b.WriteString("CREATE OR REFRESH STREAMING TABLE " + name)
	var elems []string
	if st.Declared {
		for _, c := range rel.Columns {
			e := quoteName(c.Name) + " " + declaredTypeName(c.Type)
			if c.NotNull && !inList(rel.PrimaryKey, c.Name) {
				e += " NOT NULL"
			}
			if c.Generated != "" {
				e += " GENERATED ALWAYS AS (" + c.Generated + ")"
			}
			if c.Comment != "" {
				e += " COMMENT " + sqlString(c.Comment)
			}
			if c.Mask != nil {
				e += " " + maskText(c.Mask) // column_masks.go
			}
			elems = append(elems, e)
		}
		if len(rel.PrimaryKey) > 0 {
			elems = append(elems, "PRIMARY KEY ("+quoteNames(rel.PrimaryKey)+")")
		}
	}
	for _, e := range st.Expectations {
		elems = append(elems, expectationClause(e))
	}
	if len(elems) > 0 {
		b.WriteString(" (\n  " + strings.Join(elems, ",\n  ") + "\n)")
	}
	if st.HasComment {
		b.WriteString("\nCOMMENT " + sqlString(st.Comment))
	}
	if len(st.Properties) > 0 {
		ps := make([]string, len(st.Properties))
		for i, p := range st.Properties {
			ps[i] = sqlString(p.Key) + " = " + sqlString(p.Value)
		}
		b.WriteString("\nTBLPROPERTIES (" + strings.Join(ps, ", ") + ")")
	}
	if len(st.PartitionedBy) > 0 {
		b.WriteString("\nPARTITIONED BY (" + quoteNames(st.PartitionedBy) + ")")
	}
	switch {
	case len(st.ClusterBy) == 1 && st.ClusterBy[0] == "auto":
		b.WriteString("\nCLUSTER BY AUTO")
	case len(st.ClusterBy) > 0:
		b.WriteString("\nCLUSTER BY (" + quoteNames(st.ClusterBy) + ")")
	}
	if sc := st.Schedule; sc != nil {
		if sc.Kind == "on update" {
			b.WriteString("\n" + sc.Text)
		} else {
			b.WriteString("\nSCHEDULE " + sc.Text)
		}
	}
	if len(opts) > 0 {
		keys := make([]string, 0, len(opts))
		for k := range opts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ws := make([]string, len(keys))
		for i, k := range keys {
			ws[i] = k + " = " + sqlString(opts[k])
		}
		b.WriteString("\nWITH (" + strings.Join(ws, ", ") + ")")
	}
	if !st.NoQuery {
		b.WriteString("\nAS " + query)
	}
	b.WriteString(flowStatements(rel)) // flows_describe.go: a target's flows follow it
	return b.String(), nil
}

// declaredTypeName spells a declared column's type so that CREATE
// STREAMING TABLE reads it back as the same type: Databricks' name where
// weir reads that name as this type, PostgreSQL's otherwise.
func declaredTypeName(t types.T) string {
	switch t.OID {
	case types.OidFloat4:
		return "real" // Spark's FLOAT is PostgreSQL's float8
	case types.OidBpchar:
		return t.String()
	}
	if t.IsArray() {
		return t.String()
	}
	return sparkTypeName(t)
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteName(n)
	}
	return strings.Join(q, ", ")
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// keywordCategory is each PostgreSQL keyword's category.
var keywordCategory = func() map[string]byte {
	m := map[string]byte{}
	for _, k := range parse.Keywords() {
		m[k.Word] = k.Category
	}
	return m
}()

// quoteName quotes an identifier as quote_ident does: unless it is lower
// case letters, digits and _ and not a keyword that cannot be a name.
func quoteName(s string) string {
	safe := s != ""
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '$')) {
			safe = false
			break
		}
	}
	if cat, ok := keywordCategory[s]; safe && (!ok || cat == 'U') {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
