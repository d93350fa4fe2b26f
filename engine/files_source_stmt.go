package engine

import (
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// CREATE SOURCE name [(columns)] WITH (connector = 'files', path = ...,
// format = ..., option = value ...): a named files source. Its options are
// read_files' (Databricks' names); the columns are the list given or
// inferred from the files there now, and stored either way, so that every
// reader, and every restart, sees the same columns. Each streaming table
// reading it keeps its own processed-file log (files_input.go).

func (s *Session) createFilesSource(ss *parse.StreamingStmt, text string, io wire.ExecIO) (wire.Result, error) {
	names := make([]string, 0, len(ss.Options))
	for k := range ss.Options {
		if k != "connector" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	opts := make([]catalog.FilesOption, 0, len(names))
	for _, k := range names {
		opts = append(opts, catalog.FilesOption{Name: k, Value: ss.Options[k]})
	}
	opts, err := s.eng.resolveFilesSecrets(s.currentRoleOID(), opts) // secrets.go
	if err != nil {
		return nil, err
	}
	var declared []catalog.Column
	if ss.SourceColumns != "" {
		cols, err := sourceColumnList(ss)
		if err != nil {
			return nil, err
		}
		declared = cols
	}
	def, err := s.newFilesDefinition(opts, declared) // files_source.go
	if err != nil {
		return nil, err
	}
	s.flushFilesNotices(io)
	rel := &catalog.Relation{Schema: ss.Schema, Name: ss.Name, Kind: catalog.KindSource, ViewSQL: readFilesQuery(def),
		Columns: filesColumns(def), Source: &catalog.Source{Connector: "files", Files: def, Definition: text}}
	return s.storeSource(ss, rel, io) // source_stmts.go
}

// sourceColumnList reads CREATE SOURCE's column list as columns.
func sourceColumnList(ss *parse.StreamingStmt) ([]catalog.Column, error) {
	res, err := pg_query.Parse("CREATE TABLE x (" + ss.SourceColumns + ")")
	if err != nil || len(res.Stmts) != 1 || res.Stmts[0].Stmt.GetCreateStmt() == nil {
		return nil, sqlerr.At(sqlerr.SyntaxError, ss.SourceColumnsPos, "syntax error in the column list of CREATE SOURCE")
	}
	var cols []catalog.Column
	seen := map[string]bool{}
	for _, el := range res.Stmts[0].Stmt.GetCreateStmt().TableElts {
		cd := el.GetColumnDef()
		if cd == nil {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, ss.SourceColumnsPos, "a source's column list takes only columns and WATERMARK FOR")
		}
		if seen[cd.Colname] {
			return nil, sqlerr.At(sqlerr.DuplicateColumn, ss.SourceColumnsPos, "column \"%s\" specified more than once", cd.Colname)
		}
		if cd.Colname == files.MetadataColumn {
			return nil, sqlerr.At(sqlerr.DuplicateColumn, ss.SourceColumnsPos, "column \"%s\" is every files source's hidden file information", cd.Colname).
				WithHint("Leave it out of the list: SELECT _metadata.file_path reads it.")
		}
		seen[cd.Colname] = true
		t, err := planner.ResolveTypeName(cd.TypeName)
		if err != nil {
			return nil, err
		}
		cols = append(cols, catalog.Column{Name: cd.Colname, Type: t})
	}
	return cols, nil
}

// readFilesQuery is the batch query reading a files source's rows (what
// pg_get_viewdef and \d+ show for it).
func readFilesQuery(def *catalog.FilesSource) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM read_files(")
	b.WriteString(quoteLiteral(def.Path))
	for _, o := range def.Options {
		if strings.EqualFold(o.Name, "path") {
			continue
		}
		b.WriteString(", " + o.Name + " => " + quoteLiteral(o.Value))
	}
	b.WriteString(")")
	return b.String()
}
