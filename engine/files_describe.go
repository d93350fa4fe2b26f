package engine

import (
	"fmt"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/files"
)

// What DESCRIBE EXTENDED shows of files inputs: for a files source and for
// each files input of a streaming table, the path, the format and the
// schema's versions — the one stored at CREATE, and the one the running
// source has now when evolution has changed it.

// filesDetails are the detailed-section rows of one files definition;
// label prefixes them ("Files" for a source, "Files input 1" for a
// streaming table's first), versions are the running source's recorded
// schema versions (evolution adds them; nil when not running).
func filesDetails(label string, def *catalog.FilesSource, versions []files.Schema) [][2]string {
	out := [][2]string{
		{label + " Path", def.Path},
		{label + " Format", def.Format},
		{label + " Schema", fmt.Sprintf("version %d: %s", def.Version, storedSchemaText(def))},
	}
	for _, v := range versions {
		if v.Version != def.Version {
			out = append(out, [2]string{fmt.Sprintf("%s Schema Version %d", label, v.Version), schemaText(v)})
		}
	}
	return out
}

func storedSchemaText(def *catalog.FilesSource) string {
	return schemaText(filesSchema(def))
}

// schemaText spells a files schema as schemaHints are written.
func schemaText(s files.Schema) string {
	parts := make([]string, 0, len(s.Columns)+1)
	for _, c := range s.Columns {
		parts = append(parts, quoteIdentIfNeeded(c.Name)+" "+c.Type.String())
	}
	if s.Rescued != "" {
		parts = append(parts, quoteIdentIfNeeded(s.Rescued)+" jsonb")
	}
	return strings.Join(parts, ", ")
}

// filesSourceDetails are a files source's rows (nil for other sources).
func (s *Session) filesSourceDetails(rel *catalog.Relation) [][2]string {
	if rel.Source == nil || rel.Source.Files == nil {
		return nil
	}
	return filesDetails("Files", rel.Source.Files, nil)
}

// filesStreamingDetails are the rows of a streaming table's files inputs:
// the stored definitions, each with its running source's schema and
// backlog.
func (s *Session) filesStreamingDetails(rel *catalog.Relation) [][2]string {
	open := s.eng.filesInputsOf(rel.OID)
	var out [][2]string
	n := 0
	show := func(def *catalog.FilesSource, match func(*filesInput) bool) {
		n++
		label := fmt.Sprintf("Files Input %d", n)
		var versions []files.Schema
		var backlog string
		for _, in := range open {
			if match(in) {
				versions = in.src.SchemaVersions()
				f, b := in.src.Backlog()
				backlog = fmt.Sprintf("%d files, %d bytes", f, b)
			}
		}
		out = append(out, filesDetails(label, def, versions)...)
		if backlog != "" {
			out = append(out, [2]string{label + " Backlog", backlog})
		}
	}
	for i := range rel.Streaming.Files {
		def := &rel.Streaming.Files[i]
		show(def, func(in *filesInput) bool {
			return in.rel.OID >= inlineOIDBase && in.rel.Source.Files.Input == def.Input
		})
	}
	seen := map[uint32]bool{}
	for _, in := range open {
		if in.rel.OID < inlineOIDBase && !seen[in.rel.OID] {
			seen[in.rel.OID] = true
			oid := in.rel.OID
			show(in.rel.Source.Files, func(x *filesInput) bool { return x.rel.OID == oid })
		}
	}
	return out
}
