package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Schema evolution of a flow's read_files (CREATE FLOW f AS INSERT INTO
// target BY NAME SELECT * FROM STREAM read_files(...)), as Databricks
// evolves an append flow's target: the flow's input stops at the file
// bringing new columns and records the merged schema, as a streaming
// table's does (files_evolve.go); then, in one catalog update, the flow's
// stored input takes the new version and the target (whose columns are
// its first flow's) gains the columns it lacks; every flow of the target
// restarts (the others give NULL for the new columns: planFlow fills
// them), and the target's SELECT * readers restart on its wider columns.
// A target with declared columns keeps them: its flows' inputs do not
// evolve (the new fields go to the rescued-data column).
//
// Crash safety is the streaming table's: the flow's processed-file log
// holds the pending version until the catalog has it; after that, every
// flow plans on the stored definitions.

// flowEvolves reports whether the files input src of a flow's job (reader
// is flowJobRelation: the target with the flow's OID) restarts on schema
// changes: addNewColumns, a read_files call of the flow's own query, into
// a target whose columns are not declared.
func flowEvolves(reader, src *catalog.Relation, o files.Options) bool {
	if o.EvolutionMode != files.EvolveAddNewColumns || src.OID < inlineOIDBase || reader.Streaming == nil ||
		!reader.Streaming.NoQuery || reader.Streaming.Declared {
		return false
	}
	for _, f := range reader.Streaming.Flows {
		if f.OID != 0 && f.OID == reader.OID && !f.Once && len(f.Files) > 0 {
			return true
		}
	}
	return false
}

// restartFlowOnFilesSchema restarts flow job flowOID of target targetOID
// on the schema versions its files inputs have pending (evolveMu held).
func (e *Engine) restartFlowOnFilesSchema(targetOID, flowOID uint32) {
	target, ok := e.cat.RelationByOID(targetOID)
	if !ok || target.Kind != catalog.KindStreamingTable || target.Streaming == nil || !target.Streaming.NoQuery || e.runnerFor(flowOID) == nil {
		return // dropped or stopped meanwhile
	}
	fi := -1
	for i, f := range target.Streaming.Flows {
		if f.OID == flowOID {
			fi = i
		}
	}
	if fi < 0 {
		return
	}
	flow := target.Streaming.Flows[fi]
	defs, changes := pendingFilesDefs(e.filesInputsOf(flowOID), flow.Files)
	e.stopRunner(flowOID)
	sys := e.systemSession()
	if len(changes) == 0 {
		e.startFlowOrFail(sys, target, flow)
		return
	}
	// The columns the flow's query gives now (planned as a target without
	// columns takes them) that the target lacks: a SELECT * flow's new
	// ones; none for a flow listing its columns.
	wider := target.Clone()
	wider.Streaming.Flows[fi].Files = defs
	wider.Columns = nil
	own, _, err := sys.planFlowOf(wider, wider.Streaming.Flows[fi])
	if err != nil {
		e.startFailedFlow(target, flow, err)
		return
	}
	var added []catalog.Column
	for _, c := range own.Cols {
		if !hasColumn(target.Columns, c.Name) {
			added = append(added, catalog.Column{Name: c.Name, Type: queryType(c.T)})
		}
	}
	// Planned on the target as it will be, before anything is stored: a
	// flow that cannot take the columns (one the target has with another
	// type) fails, and nothing changes.
	wider.Columns = append(append([]catalog.Column(nil), target.Columns...), added...)
	sp, _, err := sys.planFlowOf(wider, wider.Streaming.Flows[fi])
	if err != nil {
		e.startFailedFlow(target, flow, err)
		return
	}
	failpoint.Hit("files-evolve-before-catalog")
	updated, err := e.cat.UpdateStreamingTable(targetOID, func(r *catalog.Relation) error {
		for _, col := range added {
			if !hasColumn(r.Columns, col.Name) {
				r.Columns = append(r.Columns, col)
			}
		}
		for i := range r.Streaming.Flows {
			if r.Streaming.Flows[i].OID == flowOID {
				r.Streaming.Flows[i].Files = defs
				r.Streaming.Flows[i].StateFingerprint = sp.StateFingerprint()
			}
		}
		return nil
	})
	if err != nil {
		e.startFailedFlow(target, flow, sqlerr.From(err))
		return
	}
	for _, c := range changes {
		e.logSchemaChange(updated, c)
	}
	failpoint.Hit("files-evolve-after-catalog") // the target's new definition durable, its other flows running on the old
	e.stopFlows(updated)
	failpoint.Hit("files-evolve-before-readers")
	// The readers first: one still on the old columns would read the
	// rows the flows write with the new ones, without them.
	e.restartReadersOf(targetOID, map[uint32]bool{targetOID: true})
	e.startFlows(updated)
}

// pendingFilesDefs are defs (a flow's stored read_files inputs) with each
// input that has a newer schema version pending, with more columns, moved
// to it, and the moves.
func pendingFilesDefs(ins []*filesInput, stored []catalog.FilesSource) ([]catalog.FilesSource, []filesSchemaChange) {
	defs := append([]catalog.FilesSource(nil), stored...)
	var changes []filesSchemaChange
	for _, in := range ins {
		p, ok := in.src.SchemaChanged()
		if !ok || !in.evolves || in.rel.OID < inlineOIDBase {
			continue
		}
		for i := range defs {
			old := defs[i]
			if old.Input != in.rel.Source.Files.Input || p.Version <= old.Version || len(p.Columns) <= len(old.Columns) {
				continue
			}
			d := *old.Clone()
			d.Columns = filesCatalogColumns(p)
			d.Version = p.Version
			defs[i] = d
			changes = append(changes, filesSchemaChange{input: i + 1, path: d.Path, from: old.Version, to: d.Version, added: d.Columns[len(old.Columns):]})
		}
	}
	return defs, changes
}
