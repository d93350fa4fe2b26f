package parse

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// changelogTable reads dialect.md's changelog table, CREATE TABLE name
// (columns, PRIMARY KEY (...)) FROM source TABLE 'schema.table': a
// table holding a postgres-cdc source's current rows by primary key. It
// is an AUTO CDC flow of SCD type 1 (KEYS the primary key, SEQUENCE BY
// _lsn, APPLY AS DELETE WHEN _op = 'd') into a streaming table of the
// declared columns, so it parses as CREATE FLOW with Spec.ChangelogTable
// set. ok is false when the statement has another shape (an ordinary
// CREATE TABLE).
func (p *stmtParser) changelogTable(st *StreamingStmt) (ok bool, err error) {
	parts, i, named := p.qualifiedName(2)
	if !named || !p.is(i, tokLParen) {
		return false, nil
	}
	close := p.matchParen(i)
	if close < 0 || !p.is(close+1, pg_query.Token_FROM) {
		return false, nil
	}
	src, j, named := p.qualifiedName(close + 2)
	if !named || !p.is(j, pg_query.Token_TABLE) || p.at(j+1).kind != pg_query.Token_SCONST || j+2 != p.end() {
		return false, nil
	}
	spec := &TableSpec{}
	st.Kind, st.Spec = CreateFlow, spec
	st.Schema, st.Name = qualified(parts).Schema, qualified(parts).Name
	spec.FlowTarget = QualifiedName{Schema: st.Schema, Name: st.Name}
	spec.Flow = st.Name
	if _, err := p.tableSpec(spec, i); err != nil {
		return true, err
	}
	keys := spec.PrimaryKey
	var cols []string
	for _, c := range spec.Columns {
		cols = append(cols, c.Name)
		if c.PrimaryKey && !slices.Contains(keys, c.Name) {
			keys = append(keys, c.Name)
		}
		if c.Generated != "" {
			return true, p.errAtH(sqlerr.FeatureNotSupported, i, "a changelog table has no generated columns: its rows are the source's")
		}
	}
	if len(keys) == 0 {
		return true, p.errAtH(sqlerr.InvalidTableDefinition, 0, "a table FROM a CDC source needs a PRIMARY KEY: its rows are the source's current rows by key")
	}
	spec.PrimaryKey = keys
	spec.ChangelogTable, _ = stringValue(p.at(j + 1).text)
	spec.CDC = &AutoCDC{Source: qualified(src), Keys: keys, Sequence: "_lsn", DeleteWhen: "_op = 'd'", Columns: cols, SCDType: 1}
	return true, nil
}
