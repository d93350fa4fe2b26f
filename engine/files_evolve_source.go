package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/connector/files"
)

// Schema evolution of a named files source (CREATE SOURCE ... WITH
// (connector = 'files')), read by streaming tables FROM STREAM s. Each
// reader has its own processed-file log, so each meets a file bringing new
// columns on its own; the first to meet it widens the source: the merged
// schema becomes the source's stored definition (catalog.UpdateFilesSource:
// its columns and version), and that reader restarts on it as a
// read_files table does (files_evolve.go). Then every other reader whose
// plan now gives more columns (SELECT *) restarts on them; the others keep
// their columns and run on. A reader that meets the file later finds the
// source at that version already and simply restarts on it (its log's
// pending version is no newer than the source's); one that meets other new
// columns meanwhile widens the source again, from the stored version.
//
// Crash safety is the read_files case's: the reader's log holds the
// pending version until the source's definition has it (a restart before
// that finds it pending again); once stored, every reader plans on it, and
// a SELECT * reader whose stored columns are fewer takes the plan's
// (followPlanColumns).

// namedSourceChange is a named files source's move to a new version.
type namedSourceChange struct {
	oid      uint32
	from, to int
	added    []catalog.Column
}

// namedEvolves reports whether reader's input from the named files
// source src restarts on schema changes: addNewColumns, read by a
// streaming table's own query whose columns are not declared (a flow's
// read, and a declared table, keep their columns; the new fields go to
// the rescued-data column).
func namedEvolves(reader, src *catalog.Relation, o files.Options) bool {
	return o.EvolutionMode == files.EvolveAddNewColumns && src.OID < inlineOIDBase && src.Source != nil && src.Source.Files != nil &&
		reader.Streaming != nil && !reader.Streaming.NoQuery && !reader.Streaming.Declared
}

// widenNamedSources stores, for each named files source of ins with a
// newer schema version pending than its stored one, that version as its
// definition; the changes are returned. A pending version no newer than
// the stored one (another reader widened the source first) changes
// nothing: the reader restarts on the stored one.
func (e *Engine) widenNamedSources(ins []*filesInput) ([]namedSourceChange, error) {
	var out []namedSourceChange
	for _, in := range ins {
		if !in.evolves || in.rel.OID >= inlineOIDBase {
			continue
		}
		p, ok := in.src.SchemaChanged()
		if !ok {
			continue
		}
		cur, ok := e.cat.RelationByOID(in.rel.OID)
		if !ok || cur.Source == nil || cur.Source.Files == nil {
			continue // dropped meanwhile: the reader's re-plan says so
		}
		def := cur.Source.Files
		if p.Version <= def.Version || len(p.Columns) <= len(def.Columns) || !extendsColumns(def.Columns, filesCatalogColumns(p)) {
			continue
		}
		if by := e.keptBy(cur.OID); by != "" {
			if !e.schemaKept(cur.OID) {
				e.keepSchema(cur.OID)
				e.logSourceKept(cur, p, by)
			}
			continue // the reader restarts on the stored version, not evolving
		}
		var change namedSourceChange
		updated, err := e.cat.UpdateFilesSource(cur.OID, func(d *catalog.FilesSource) error {
			change = namedSourceChange{oid: cur.OID, from: d.Version, to: p.Version}
			old := d.Columns
			d.Columns = filesCatalogColumns(p)
			d.Version = p.Version
			for _, c := range d.Columns {
				if !hasColumn(old, c.Name) {
					change.added = append(change.added, c)
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		e.logSourceSchemaChange(updated, change)
		out = append(out, change)
	}
	return out, nil
}

// filesCatalogColumns are a files schema's data columns as catalog
// columns.
func filesCatalogColumns(s files.Schema) []catalog.Column {
	cols := make([]catalog.Column, len(s.Columns))
	for i, c := range s.Columns {
		cols[i] = catalog.Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

func hasColumn(cols []catalog.Column, name string) bool {
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// restartSourceReaders restarts the SELECT * readers of the widened
// sources (restartReadersOf: those whose plans now give more columns).
func (e *Engine) restartSourceReaders(changes []namedSourceChange, done map[uint32]bool) {
	for _, c := range changes {
		e.restartReadersOf(c.oid, done)
	}
}

// logSourceSchemaChange records a named source's schema change in the
// event log, as the source's event.
func (e *Engine) logSourceSchemaChange(src *catalog.Relation, c namedSourceChange) {
	cols, dcols := addedColumns(c.added)
	details, _ := json.Marshal(struct {
		Path        string        `json:"path"`
		FromVersion int           `json:"from_version"`
		ToVersion   int           `json:"to_version"`
		Added       []addedColumn `json:"added_columns"`
		Applied     bool          `json:"applied"`
	}{src.Source.Files.Path, c.from, c.to, dcols, true})
	ev := eventlog.Event{Object: src.OID, Name: qualifiedName(src.Schema, src.Name), Kind: eventlog.KindSchemaChange, Level: eventlog.LevelInfo,
		Message: fmt.Sprintf("files source %s: schema version %d adds %s; its SELECT * readers restarted on it", src.Name, c.to, strings.Join(cols, ", ")),
		Details: string(details)}
	if err := eventlog.Append(e.store, ev); err != nil {
		e.logger().Warn("could not record the schema change", "source", src.Name, "err", err)
	}
}

// hasPendingNamed reports whether a named files source of ins has a
// schema version pending.
func hasPendingNamed(ins []*filesInput) bool {
	for _, in := range ins {
		if in.evolves && in.rel.OID < inlineOIDBase {
			if _, ok := in.src.SchemaChanged(); ok {
				return true
			}
		}
	}
	return false
}

// keptBy names a streaming table reading the named files source src that
// cannot take new columns: one whose columns are declared, or a flow (its
// target's columns are its first flow's). Its stored definition is
// planned, not its job's plan, so that the answer holds while jobs start
// (at server start a reader may widen the source before the others run).
// "" when there is none.
func (e *Engine) keptBy(src uint32) string {
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable || rel.Streaming == nil {
			continue
		}
		switch {
		case rel.Streaming.NoQuery:
			for _, f := range rel.Streaming.Flows {
				if sp, _, err := e.systemSession().planFlowOf(rel, f); err == nil && planReads(sp, src) {
					return "flow " + f.Name
				}
			}
		case rel.Streaming.Declared:
			if sp, _, err := e.planStored(rel, nil); err == nil && planReads(sp, src) {
				return "streaming table " + rel.Name
			}
		}
	}
	return ""
}

// keepSchema marks the named files source src as keeping its schema
// (keptBy found a reader that cannot take new columns): its readers open
// it without evolving, the new fields in the rescued-data column. The mark
// lasts until the server stops; at the next start the first reader to
// meet the pending version asks keptBy again.
func (e *Engine) keepSchema(src uint32) {
	e.filesOpen.mu.Lock()
	defer e.filesOpen.mu.Unlock()
	if e.filesOpen.kept == nil {
		e.filesOpen.kept = map[uint32]bool{}
	}
	e.filesOpen.kept[src] = true
}

// schemaKept reports whether keepSchema marked src.
func (e *Engine) schemaKept(src uint32) bool {
	e.filesOpen.mu.Lock()
	defer e.filesOpen.mu.Unlock()
	return e.filesOpen.kept[src]
}

// logSourceKept records that a named source's new version was not
// applied, and why.
func (e *Engine) logSourceKept(src *catalog.Relation, p files.Schema, by string) {
	details, _ := json.Marshal(struct {
		Path      string `json:"path"`
		ToVersion int    `json:"to_version"`
		Applied   bool   `json:"applied"`
		KeptBy    string `json:"kept_by"`
	}{src.Source.Files.Path, p.Version, false, by})
	ev := eventlog.Event{Object: src.OID, Name: qualifiedName(src.Schema, src.Name), Kind: eventlog.KindSchemaChange, Level: eventlog.LevelInfo,
		Message: fmt.Sprintf("files source %s: schema version %d not applied: %s reads it and cannot take new columns; the new fields are in the rescued-data column", src.Name, p.Version, by),
		Details: string(details)}
	if err := eventlog.Append(e.store, ev); err != nil {
		e.logger().Warn("could not record the schema change", "source", src.Name, "err", err)
	}
}
