package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Schema evolution of a streaming table's read_files inputs
// (schemaEvolutionMode addNewColumns), done as Databricks' job with
// retries does it: the source stops at the file bringing new columns and
// records the merged schema (connector/files/evolution.go); after the
// epoch, the runner sees it pending (filesAfterStep) and stops, and
// restartOnFilesSchema makes the new version the table's stored
// definition of that input (catalog.StreamingTable.Files), re-plans the
// table on it and starts it again: its columns gain the new ones (a
// SELECT * table; an explicit column list keeps its columns), the file
// that brought them is read with their values, rows stored before read
// them as NULL (state reads older chunks by name). Streaming tables
// reading that table then restart on its wider columns too.
//
// Crash safety: each step is durable before the next and the next is
// redone from what is durable: the source's log has the pending version
// (the file unread) until the catalog has it; on a restart with the
// catalog still on the old version, the source finds it pending at once
// and the restart happens again; once the catalog has it, the table
// simply starts on it. A streaming table whose stored columns are fewer
// than its plan gives (a crash between the table's and its reader's
// restart) takes the plan's columns as it starts (followPlanColumns).

// filesAfterStep runs after each step of a streaming table's job: the
// notices of its files inputs go to the event log, and when an input has
// a new schema version pending the table restarts on it (the runner
// stops: it reports true).
func (r *runner) filesAfterStep() bool {
	ins := r.eng.filesInputsOf(r.oid)
	if len(ins) == 0 {
		return false
	}
	r.eng.logFilesNotices(r.oid, r.name, ins) // files_events.go
	for _, in := range ins {
		if in.evolves {
			if _, ok := in.src.SchemaChanged(); ok {
				go r.eng.restartOnFilesSchema(r.oid)
				return true
			}
		}
	}
	return false
}

// restartOnFilesSchema restarts streaming table oid on the schema
// versions its files inputs have pending.
func (e *Engine) restartOnFilesSchema(oid uint32) {
	e.filesOpen.evolveMu.Lock()
	defer e.filesOpen.evolveMu.Unlock()
	select {
	case <-e.closing:
		return // shutting down: the next start restarts it
	default:
	}
	if target, ok := e.flows.target(oid); ok && target != oid {
		e.restartFlowOnFilesSchema(target, oid) // files_evolve_flow.go
		return
	}
	defer e.stopIfDropped(oid)
	rel, ok := e.cat.RelationByOID(oid)
	if !ok || rel.Kind != catalog.KindStreamingTable || rel.Streaming == nil || e.runnerFor(oid) == nil {
		return // dropped or stopped meanwhile
	}
	ins := e.filesInputsOf(oid)
	defs := append([]catalog.FilesSource(nil), rel.Streaming.Files...)
	var changes []filesSchemaChange
	for _, in := range ins {
		p, ok := in.src.SchemaChanged()
		if !ok || !in.evolves || in.rel.OID < inlineOIDBase {
			continue // a named source widens itself (files_evolve_source.go)
		}
		for i := range defs {
			if defs[i].Input != in.rel.Source.Files.Input || p.Version <= defs[i].Version {
				continue
			}
			old := defs[i]
			if len(p.Columns) <= len(old.Columns) {
				continue
			}
			d := *defs[i].Clone()
			d.Columns = nil
			for _, c := range p.Columns {
				d.Columns = append(d.Columns, catalog.Column{Name: c.Name, Type: c.Type})
			}
			d.Version = p.Version
			defs[i] = d
			changes = append(changes, filesSchemaChange{input: i + 1, path: d.Path, from: old.Version, to: d.Version, added: d.Columns[len(old.Columns):]})
		}
	}
	e.stopRunner(oid)
	var widened []namedSourceChange // files_evolve_source.go
	if hasPendingNamed(ins) {
		failpoint.Hit("files-evolve-before-catalog")
		var err error
		if widened, err = e.widenNamedSources(ins); err != nil {
			e.failedRunner(rel, sqlerr.From(err).Message)
			return
		}
	}
	if len(changes) == 0 && len(widened) == 0 {
		e.restartPlanned(rel)
		return
	}
	sp, trig, err := e.planStored(rel, defs)
	if err == nil {
		err = distinctColumns(rel.Name, sp.Cols)
	}
	if err != nil {
		e.failedRunner(rel, sqlerr.From(err).Message)
		return
	}
	if len(widened) == 0 {
		failpoint.Hit("files-evolve-before-catalog")
	}
	updated, err := e.cat.UpdateStreamingTable(oid, func(r *catalog.Relation) error {
		r.Streaming.Files = defs
		r.Streaming.StateFingerprint = sp.StateFingerprint()
		return nil
	})
	if err != nil {
		e.failedRunner(rel, sqlerr.From(err).Message)
		return
	}
	for _, c := range changes {
		e.logSchemaChange(updated, c)
	}
	failpoint.Hit("files-evolve-after-catalog") // the table's new definition durable, not running
	// Its columns are stored wider, and its readers restarted on them,
	// before it runs: a reader still on the old columns would read the
	// rows it writes with the new ones, without them.
	updated = e.followPlanColumns(updated, sp)
	failpoint.Hit("files-evolve-before-readers") // its columns wider, not running; its readers not yet widened
	done := map[uint32]bool{oid: true}
	e.restartReadersOf(oid, done)
	e.startRunner(updated, sp, trig)
	e.restartSourceReaders(widened, done)
}

// waitFilesRestarts waits for a restart on a new schema under way (Close,
// before stopping every job: one starting later sees the engine closing).
func (e *Engine) waitFilesRestarts() {
	e.filesOpen.evolveMu.Lock()
	e.filesOpen.evolveMu.Unlock()
}

// stopIfDropped stops a job restarted for a table a concurrent DROP (or
// CREATE OR REFRESH, which makes another) removed meanwhile.
func (e *Engine) stopIfDropped(oid uint32) {
	if _, ok := e.cat.RelationByOID(oid); !ok {
		e.stopRunner(oid)
	}
}

// distinctColumns refuses a plan whose columns repeat a name: a new
// column of a files input named like another column of the table (an
// alias in its query).
func distinctColumns(table string, cols []planner.Column) error {
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c.Name] {
			return sqlerr.New(sqlerr.DuplicateColumn, "streaming table \"%s\" cannot take its files input's new column \"%s\": it has a column of that name", table, c.Name).
				WithHint("Rename the column in the query (CREATE OR REFRESH), or read the input with schemaEvolutionMode => 'rescue'.")
		}
		seen[c.Name] = true
	}
	return nil
}

// filesSchemaChange is one input's move to a new schema version.
type filesSchemaChange struct {
	input    int // 1-based, as DESCRIBE numbers files inputs
	path     string
	from, to int
	added    []catalog.Column
}

// logSchemaChange records a schema change in the event log.
func (e *Engine) logSchemaChange(rel *catalog.Relation, c filesSchemaChange) {
	cols, dcols := addedColumns(c.added)
	details, _ := json.Marshal(struct {
		Input       int           `json:"input"`
		Path        string        `json:"path"`
		FromVersion int           `json:"from_version"`
		ToVersion   int           `json:"to_version"`
		Added       []addedColumn `json:"added_columns"`
	}{c.input, c.path, c.from, c.to, dcols})
	ev := eventlog.Event{Object: rel.OID, Name: qualifiedName(rel.Schema, rel.Name), Kind: eventlog.KindSchemaChange, Level: eventlog.LevelInfo,
		Message: fmt.Sprintf("files input %d (%s): schema version %d adds %s; the table restarted on it", c.input, c.path, c.to, strings.Join(cols, ", ")),
		Details: string(details)}
	if err := eventlog.Append(e.store, ev); err != nil {
		e.logger().Warn("could not record the schema change", "table", rel.Name, "err", err)
	}
}

// addedColumn is a column a schema change added, as its event's details
// give it.
type addedColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// addedColumns are the columns a schema change added: as SQL ("name
// type", for the event's message) and as the details' added_columns.
func addedColumns(added []catalog.Column) ([]string, []addedColumn) {
	text := make([]string, len(added))
	details := make([]addedColumn, len(added))
	for i, a := range added {
		text[i] = quoteIdentIfNeeded(a.Name) + " " + a.Type.String()
		details[i] = addedColumn{a.Name, a.Type.String()}
	}
	return text, details
}

// planStored plans a stored streaming table again, with files inputs
// defs (nil: its stored ones).
func (e *Engine) planStored(rel *catalog.Relation, defs []catalog.FilesSource) (*planner.StreamPlan, trigger, error) {
	st, err := parse.ParseStreaming(rel.Streaming.PlanText())
	if err != nil {
		return nil, trigger{}, err
	}
	if st == nil {
		return nil, trigger{}, sqlerr.New(sqlerr.InternalError, "streaming table \"%s\" has an unreadable definition", rel.Name)
	}
	if defs == nil {
		defs = rel.Streaming.Files
	}
	sys := e.systemSession()
	sys.storedFiles = defs
	sys.readsAs = rel.Owner // row_security.go: it reads as its owner
	return sys.planStreamingTable(st, shapeOf(rel))
}

// restartPlanned starts rel's job again on a fresh plan, or failed with
// the reason.
func (e *Engine) restartPlanned(rel *catalog.Relation) {
	sp, trig, err := e.planStored(rel, nil)
	if err != nil {
		e.failedRunner(rel, sqlerr.From(err).Message)
		return
	}
	e.startRunner(rel, sp, trig)
}

// failedRunner registers a stopped job failed with msg (REFRESH, or
// CREATE OR REFRESH, starts it again).
func (e *Engine) failedRunner(rel *catalog.Relation, msg string) {
	e.logger().Warn(msg, "table", rel.Name)
	e.registerFailed(rel, msg)
}

// registerFailed registers a stopped job of rel, failed with msg.
func (e *Engine) registerFailed(rel *catalog.Relation, msg string) {
	r := &runner{eng: e, oid: rel.OID, name: rel.Name, status: statusFailed, lastError: msg, done: make(chan struct{}), kick: make(chan struct{}, 1)}
	close(r.done)
	r.cancel = func() {}
	e.mu.Lock()
	e.runners[rel.OID] = r
	e.mu.Unlock()
}

// restartReadersOf restarts the streaming tables reading table oid (its
// columns changed) whose plans now give more columns than they store:
// a SELECT * reader takes the new columns; one with its own column list
// is left running. done guards against cycles.
func (e *Engine) restartReadersOf(oid uint32, done map[uint32]bool) {
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable || rel.Streaming == nil || rel.Streaming.NoQuery || rel.Streaming.Declared || done[rel.OID] {
			continue
		}
		r := e.runnerFor(rel.OID)
		if r == nil || r.plan == nil || !planReads(r.plan, oid) {
			continue
		}
		sp, _, err := e.planStored(rel, nil)
		if err != nil || !widens(rel.Columns, sp.Cols) {
			continue
		}
		done[rel.OID] = true
		e.stopRunner(rel.OID)
		e.restartPlanned(rel)
		e.restartReadersOf(rel.OID, done)
	}
}

// planReads reports whether a streaming plan reads relation oid.
func planReads(sp *planner.StreamPlan, oid uint32) bool {
	if sp.Input != nil && sp.Input.OID == oid {
		return true
	}
	if sp.Tree != nil {
		for _, leaf := range sp.Tree.Sources {
			if leaf.Input != nil && leaf.Input.OID == oid {
				return true
			}
		}
	}
	return false
}

// widens reports whether the planned columns are the stored ones (by
// name, with the same types) plus more.
func widens(stored []catalog.Column, planned []planner.Column) bool {
	if len(planned) <= len(stored) {
		return false
	}
	for _, c := range stored {
		found := false
		for _, p := range planned {
			if p.Name == c.Name {
				found = p.T.OID == c.Type.OID || p.T.OID == types.OidUnknown
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// followPlanColumns gives a streaming table (columns not declared) whose
// plan gives its stored columns plus more the plan's columns, stored: its
// input's columns grew (a files input's schema evolved, or the table it
// reads did). startRunner calls it; it returns the relation to run.
func (e *Engine) followPlanColumns(rel *catalog.Relation, sp *planner.StreamPlan) *catalog.Relation {
	if rel.Streaming == nil || rel.Streaming.Declared || rel.Streaming.NoQuery || !widens(rel.Columns, sp.Cols) {
		return rel
	}
	if _, ok := e.cat.RelationByOID(rel.OID); !ok {
		return rel
	}
	updated, err := e.cat.UpdateStreamingTable(rel.OID, func(r *catalog.Relation) error {
		cols := make([]catalog.Column, 0, len(sp.Cols))
		for _, c := range sp.Cols {
			col := catalog.Column{Name: c.Name, Type: c.T}
			if col.Type.OID == types.OidUnknown {
				col.Type = types.Text
			}
			for _, old := range r.Columns {
				if old.Name == c.Name {
					col = old // its constraints and comment stay
				}
			}
			cols = append(cols, col)
		}
		r.Columns = cols
		return nil
	})
	if err != nil {
		e.logger().Warn("could not store the new columns", "table", rel.Name, "err", err)
		return rel
	}
	return updated
}

// evolvingInput reports whether a files input of reader is restarted on
// schema changes (filesAfterStep): a read_files call of a streaming
// table's own query, or a named files source it reads (the source
// widens, files_evolve_source.go). A flow's read_files, and the input of
// a table whose columns are declared (they cannot grow) keep the schema
// they have (new fields go to the rescued-data column; the version is
// recorded).
func evolvingInput(reader, src *catalog.Relation, o files.Options) bool {
	if namedEvolves(reader, src, o) || flowEvolves(reader, src, o) { // files_evolve_source.go, files_evolve_flow.go
		return true
	}
	return o.EvolutionMode == files.EvolveAddNewColumns && src.OID >= inlineOIDBase &&
		reader.Streaming != nil && !reader.Streaming.NoQuery && !reader.Streaming.Declared && len(reader.Streaming.Files) > 0
}

// comparableFingerprints are the state fingerprints of a streaming table
// being replaced and of its new plan, as CREATE OR REFRESH compares them:
// a read_files input whose new definition is the old one with columns
// added (the files there now have more fields: after failOnNewColumns
// stopped the table, or to take new columns under rescue) reads the same
// files into the same state, though its inline relation (whose OID is a
// hash of the definition) is another; both fingerprints name such an
// input by its position instead.
func (e *Engine) comparableFingerprints(existing *catalog.Relation, sp *planner.StreamPlan) (stored, current string) {
	stored, current = existing.Streaming.StateFingerprint, sp.StateFingerprint()
	if stored == current {
		return stored, current
	}
	for _, nd := range e.storedFilesInputs(sp) {
		for _, od := range existing.Streaming.Files {
			if od.Input != nd.Input || od.Path != nd.Path || od.Format != nd.Format || !extendsColumns(od.Columns, nd.Columns) {
				continue
			}
			token := fmt.Sprintf("files#%d", nd.Input)
			oo, no := inlineFilesOID(&od), inlineFilesOID(&nd)
			stored = strings.ReplaceAll(strings.ReplaceAll(stored, fmt.Sprint(oo), token), fmt.Sprintf("files$%08x", oo), token)
			current = strings.ReplaceAll(strings.ReplaceAll(current, fmt.Sprint(no), token), fmt.Sprintf("files$%08x", no), token)
		}
	}
	return stored, current
}

// extendsColumns reports whether cols are base (by name and type, in
// any order) plus perhaps more.
func extendsColumns(base, cols []catalog.Column) bool {
	for _, b := range base {
		found := false
		for _, c := range cols {
			if strings.EqualFold(b.Name, c.Name) && b.Type.OID == c.Type.OID {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
