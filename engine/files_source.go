package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Files sources (dialect.md: read_files, CREATE SOURCE ... WITH
// (connector = 'files')) as the engine sees them: a definition
// (catalog.FilesSource) made once from the options and the files there
// then, and relations built from it. connector/files reads the files;
// here are the options' checks that need the server (who may read, where
// the path resolves), schema inference at definition time, and the
// relation's columns: the data columns, the rescued-data column, and the
// hidden _metadata struct.

// Inference samples at most this much of what is there.
const (
	inferSampleFiles = 1000
	inferSampleBytes = 64 << 20
)

// newFilesDefinition checks a files source's options (as written) and
// makes its definition: the path resolved under the files roots, the
// schema given (declared: CREATE SOURCE's column list; or the schema
// option) or inferred from the files there now.
func (s *Session) newFilesDefinition(opts []catalog.FilesOption, declared []catalog.Column) (*catalog.FilesSource, error) {
	settings := make([]connector.Setting, len(opts))
	for i, o := range opts {
		settings[i] = connector.Setting{Name: o.Name, Value: o.Value}
		if strings.EqualFold(o.Name, "path") && strings.HasPrefix(o.Value, "/Volumes/") {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "Unity Catalog volumes are not supported: weir has no file system at %s", o.Value).
				WithHint("Give a path on the server's file system under its files root (weir serve --files-root DIR).")
		}
	}
	o, err := files.ParseOptions(settings)
	if err != nil {
		return nil, err
	}
	given := o.Path
	resolved, err := s.resolveServerPath(o.Path, readFiles) // files_access.go
	if err != nil {
		return nil, err
	}
	if err := checkPathExists(given, resolved); err != nil {
		return nil, err
	}
	o.Path = resolved
	if s.filesMemo != nil && len(s.filesMemo) == 0 {
		s.filesNotices = nil // the statement's first files input
	}
	if declared != nil {
		if list, err := files.List(o); err == nil && len(list) == 0 {
			s.noFilesYet(given)
		}
		for _, c := range declared {
			if o.RescuedColumn != "" && c.Name == o.RescuedColumn {
				return nil, sqlerr.New(sqlerr.DuplicateColumn, "column \"%s\" is the source's rescued-data column", c.Name).
					WithHint("Leave it out of the column list: it is added, as jsonb (rescuedDataColumn names it).")
			}
		}
		def := &catalog.FilesSource{Path: resolved, Format: o.Format, Rescued: o.RescuedColumn, Version: 1,
			Options: withPath(opts, resolved), Columns: declared}
		return def, nil
	}
	memoKey := ""
	if s.filesMemo != nil {
		var b strings.Builder
		for _, op := range opts {
			b.WriteString(strings.ToLower(op.Name))
			b.WriteByte(0)
			b.WriteString(op.Value)
			b.WriteByte(0)
		}
		memoKey = b.String()
		if def, ok := s.filesMemo[memoKey]; ok {
			return def.Clone(), nil
		}
	}
	list, err := files.List(o)
	if err != nil {
		return nil, err
	}
	for _, f := range list {
		if err := s.eng.checkListedFile(f.Path); err != nil {
			return nil, err
		}
	}
	if len(list) == 0 && o.Schema == "" {
		return nil, sqlerr.New(sqlerr.IndeterminateDatatype, "cannot infer the schema of %s: no files match \"%s\"", o.Format, given).
			WithDetail("Databricks calls this CF_EMPTY_DIR_FOR_SCHEMA_INFERENCE: the columns are inferred from the files there when the query is planned.").
			WithHint("Give the columns with schema => 'a INT, b STRING' (or a column list in CREATE SOURCE), or add files first.")
	}
	if len(list) == 0 {
		s.noFilesYet(given)
	}
	sch, err := files.Infer(list, o, inferSampleFiles, inferSampleBytes)
	if err != nil {
		return nil, err
	}
	def := &catalog.FilesSource{Path: resolved, Format: o.Format, Rescued: sch.Rescued, Version: max(sch.Version, 1),
		Options: withPath(opts, resolved)}
	for _, c := range sch.Columns {
		def.Columns = append(def.Columns, catalog.Column{Name: c.Name, Type: c.Type})
	}
	if s.filesMemo != nil {
		s.filesMemo[memoKey] = def.Clone()
	}
	return def, nil
}

// withPath is opts with the path option's value replaced by the
// resolved path.
func withPath(opts []catalog.FilesOption, resolved string) []catalog.FilesOption {
	out := make([]catalog.FilesOption, 0, len(opts))
	for _, op := range opts {
		if strings.EqualFold(op.Name, "path") {
			op.Value = resolved
		}
		out = append(out, op)
	}
	return out
}

// checkPathExists refuses a path whose fixed part (before any glob
// character) does not exist or cannot be looked at, with 58P01 as
// PostgreSQL's COPY FROM gives for a missing file.
func checkPathExists(given, resolved string) error {
	fixed := resolved
	if i := strings.IndexAny(fixed, "*?[{"); i >= 0 {
		fixed = filepath.Dir(fixed[:i+1])
	}
	_, err := os.Stat(fixed)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return sqlerr.New("58P01", "could not read \"%s\": No such file or directory", given).
			WithHint("A relative path is taken under the server's first files root (weir serve --files-root DIR).")
	case errors.Is(err, syscall.ENOTDIR):
		return sqlerr.New("58P01", "could not read \"%s\": Not a directory", given)
	case errors.Is(err, fs.ErrPermission):
		return sqlerr.New(sqlerr.InsufficientPrivilege, "could not read \"%s\": Permission denied", given)
	}
	return sqlerr.New(sqlerr.IOError, "could not read \"%s\": %v", given, err)
}

// filesOptions is the connector's form of a stored definition.
func filesOptions(def *catalog.FilesSource) (files.Options, error) {
	settings := make([]connector.Setting, len(def.Options))
	for i, o := range def.Options {
		settings[i] = connector.Setting{Name: o.Name, Value: o.Value}
	}
	o, err := files.ParseOptions(settings)
	if err != nil {
		return o, err
	}
	o.Path = def.Path
	return o, nil
}

// filesSchema is the connector's form of a stored schema.
func filesSchema(def *catalog.FilesSource) files.Schema {
	s := files.Schema{Rescued: def.Rescued, Version: def.Version}
	for _, c := range def.Columns {
		s.Columns = append(s.Columns, files.Column{Name: c.Name, Type: c.Type})
	}
	return s
}

// filesColumns are the stored columns of a files relation: the data
// columns and the rescued-data column (_metadata is added for the planner
// by filesPlannerColumns, hidden).
func filesColumns(def *catalog.FilesSource) []catalog.Column {
	cols := append([]catalog.Column(nil), def.Columns...)
	if def.Rescued != "" {
		cols = append(cols, catalog.Column{Name: def.Rescued, Type: types.JSONB})
	}
	return cols
}

// filesPlannerColumns adds the hidden _metadata column to a files
// source's planner relation (plannerRelation calls it for every source).
func filesPlannerColumns(rel *catalog.Relation, r *planner.Relation) {
	if rel.Source == nil || rel.Source.Files == nil {
		return
	}
	r.Cols = append(r.Cols, planner.RelColumn{Name: files.MetadataColumn, T: files.MetadataType, Hidden: true})
}

// inlineFilesRelation is the inline source relation of a read_files call
// with that definition (registered with the nexmark ones, source_inline.go):
// its OID is a hash of the definition, so re-planning the same stored
// definition after a restart finds the same input.
func (e *Engine) inlineFilesRelation(def *catalog.FilesSource, text string) *catalog.Relation {
	oid := inlineFilesOID(def)
	rel := &catalog.Relation{OID: oid, Schema: inlineSchema, Name: fmt.Sprintf("files$%08x", oid), Kind: catalog.KindSource,
		ViewSQL: "SELECT * FROM " + text, Columns: filesColumns(def),
		Source: &catalog.Source{Connector: "files", Files: def, Definition: text}}
	e.inline.Store(oid, rel)
	return rel
}

// inlineFilesOID is the OID of the inline relation of a read_files
// definition: a hash of all of it.
func inlineFilesOID(def *catalog.FilesSource) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d|%s|%s|%s|%d", def.Input, def.Path, def.Format, def.Rescued, def.Version)
	for _, o := range def.Options {
		fmt.Fprintf(h, "|%s=%s", strings.ToLower(o.Name), o.Value)
	}
	for _, c := range def.Columns {
		fmt.Fprintf(h, "|%s %d %d", c.Name, c.Type.OID, c.Type.Typmod)
	}
	return inlineOIDBase | h.Sum32()&0x0FFFFFFF
}

// FilesRelation implements planner.FilesCatalog: a batch read_files(...)
// is a fresh definition (inferred from what is there now) as an inline
// source relation.
func (v *catalogView) FilesRelation(options []planner.FileOption) (*planner.Relation, error) {
	opts := make([]catalog.FilesOption, len(options))
	for i, o := range options {
		opts[i] = catalog.FilesOption{Name: o.Name, Value: o.Value}
	}
	def, err := v.s.newFilesDefinition(opts, nil)
	if err != nil {
		return nil, err
	}
	rel := v.s.eng.inlineFilesRelation(def, "read_files("+quoteLiteral(def.Path)+", format => "+quoteLiteral(def.Format)+")")
	return plannerRelation(rel), nil
}

// quoteLiteral is s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readFilesNow is a batch SELECT's read of a files source: every file
// there now, decoded in the source's stored schema.
func (e *Engine) readFilesNow(ctx context.Context, rel *catalog.Relation, schema *arrow.Schema) ([]arrow.RecordBatch, error) {
	def := rel.Source.Files
	o, err := filesOptions(def)
	if err != nil {
		return nil, err
	}
	batches, err := files.ReadNow(ctx, o, filesSchema(def))
	if err != nil {
		return nil, err
	}
	out := make([]arrow.RecordBatch, 0, len(batches))
	checked := map[string]bool{}
	for _, b := range batches {
		// Each file read is checked where it really is (a link to a file
		// outside the roots is refused, whenever it appeared).
		if err := e.checkBatchFiles(b, checked); err != nil {
			return nil, err
		}
		nb, err := fitBatch(b, schema)
		if err != nil {
			return nil, err
		}
		out = append(out, nb)
	}
	return out, nil
}

// fitBatch gives a files batch the plan's schema: the columns by name (a
// column the schema gained since, by evolution, is left out; one the
// batch lacks is NULL), checked to have the plan's Arrow types.
func fitBatch(b arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	bs := b.Schema()
	if int(b.NumCols()) == schema.NumFields() {
		same := true
		for i := 0; i < schema.NumFields() && same; i++ {
			same = bs.Field(i).Name == schema.Field(i).Name && arrow.TypeEqual(bs.Field(i).Type, schema.Field(i).Type)
		}
		if same {
			return array.NewRecordBatch(schema, b.Columns(), b.NumRows()), nil
		}
	}
	cols := make([]arrow.Array, schema.NumFields())
	for i := 0; i < schema.NumFields(); i++ {
		f := schema.Field(i)
		idx := bs.FieldIndices(f.Name)
		if len(idx) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, int(b.NumRows()))
			continue
		}
		c := b.Column(idx[0])
		if !arrow.TypeEqual(c.DataType(), f.Type) {
			return nil, sqlerr.New(sqlerr.InternalError, "files column \"%s\" is %s in the files read, %s in the plan", f.Name, c.DataType(), f.Type)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, b.NumRows()), nil
}

// noFilesYet notes, for the client, that a files input's path matches no
// file yet (the schema was given): the table starts empty and reads the
// files as they arrive (the source reports it in the event log too).
func (s *Session) noFilesYet(given string) {
	if s.filesMemo == nil {
		return
	}
	s.filesNotices = append(s.filesNotices, fmt.Sprintf("no files match \"%s\" yet: files arriving there later are read", given))
}

// flushFilesNotices sends the statement's files notices to the client.
func (s *Session) flushFilesNotices(io noticer) {
	for _, n := range s.filesNotices {
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, n)
	}
	s.filesNotices = nil
}
