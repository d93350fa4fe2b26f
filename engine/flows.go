package engine

import (
	"sync"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/checkpoint"
	"github.com/weir-sql/weir/connector/tableout"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Append flows: a streaming table declared without a query (CREATE OR
// REFRESH STREAMING TABLE t;) is filled by any number of flows (CREATE
// FLOW f AS INSERT INTO t BY NAME SELECT ... FROM STREAM src). Each flow
// is a job of its own, run by a runner registered under the flow's OID
// (catalog.Flow.OID), with a checkpoint of its own keyed by that OID: its
// epoch records, offsets, state snapshot and output progress. Its rows go
// into the target's own chunks (tableout.NewFlow), in the same transaction
// as its epoch record. So the target is one stored relation: SELECT,
// SUBSCRIBE, a streaming table reading it, retention and COPY read its
// chunks as they read any append-mode streaming table's — the union of
// its flows — and a crash at any moment leaves each flow's rows exactly
// as its checkpoint says (recovery re-runs a flow's logged epochs whose
// rows its progress record does not count, and only those).
//
// (The other design, each flow a hidden streaming table and the target a
// union view over them, would have made every reader of the target —
// the planner's scans, a downstream table's log offsets, SUBSCRIBE —
// read several logs, and dropping a flow would drop its rows, which
// Databricks keeps.)
//
// A flow created before flows had OIDs (OID 0) keeps the target's
// checkpoint: its runner is registered under the target's OID.

// flowRegistry knows which running jobs are flows, and into which target
// each writes; it holds the lock that keeps a target's flows from
// committing at the same time (see connector/tableout/flow.go).
type flowRegistry struct {
	mu      sync.Mutex
	targets map[uint32]uint32      // flow checkpoint OID → target OID
	locks   map[uint32]*sync.Mutex // target OID → its commit lock
}

func (f *flowRegistry) add(flow, target uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.targets == nil {
		f.targets, f.locks = map[uint32]uint32{}, map[uint32]*sync.Mutex{}
	}
	f.targets[flow] = target
	if f.locks[target] == nil {
		f.locks[target] = &sync.Mutex{}
	}
}

func (f *flowRegistry) remove(flow uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.targets, flow)
}

// target is the target flow writes into (ok false: oid is not a flow's).
func (f *flowRegistry) target(oid uint32) (uint32, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.targets[oid]
	return t, ok
}

// lockTarget takes the commit lock of the target job oid writes into, if
// oid is a flow, and returns its release.
func (f *flowRegistry) lockTarget(oid uint32) func() {
	f.mu.Lock()
	var l *sync.Mutex
	if t, ok := f.targets[oid]; ok {
		l = f.locks[t]
	}
	f.mu.Unlock()
	if l == nil {
		return func() {}
	}
	l.Lock()
	return l.Unlock
}

// outputSink is the stored-output sink of job oid: a flow's writes its
// target's chunks and keeps its own progress; any other streaming table's
// is its own.
func (e *Engine) outputSink(oid uint32) *tableout.Sink {
	if t, ok := e.flows.target(oid); ok && t != oid {
		return tableout.NewFlow(e.store, t, oid)
	}
	return tableout.New(e.store, oid)
}

// flowCheckpoint is the OID flow f's checkpoint and runner are keyed by.
func flowCheckpoint(target *catalog.Relation, f catalog.Flow) uint32 {
	if f.OID == 0 {
		return target.OID
	}
	return f.OID
}

// flowJobRelation is what startRunner runs for flow f: the target as the
// job sees it (its name in messages, its columns, NOT NULL included), but
// with the flow's checkpoint OID.
func flowJobRelation(target *catalog.Relation, f catalog.Flow) *catalog.Relation {
	rel := target.Clone()
	rel.OID = flowCheckpoint(target, f)
	rel.Streaming.LateRows = ""
	return rel
}

// startFlow starts flow f of target with its plan.
func (e *Engine) startFlow(target *catalog.Relation, f catalog.Flow, sp *planner.StreamPlan, trig trigger) *runner {
	e.flows.add(flowCheckpoint(target, f), target.OID)
	return e.startRunner(flowJobRelation(target, f), sp, trig)
}

// planFlowOf plans a stored flow again (at start, REFRESH, a schedule's
// change).
func (s *Session) planFlowOf(target *catalog.Relation, f catalog.Flow) (*planner.StreamPlan, trigger, error) {
	if f.CDC != nil {
		return s.planCDCFlowOf(target, f) // flows_cdc.go
	}
	st, err := parse.ParseStreaming(f.Definition)
	if err != nil {
		return nil, trigger{}, err
	}
	if st == nil || st.Kind != parse.CreateFlow {
		return nil, trigger{}, sqlerr.New(sqlerr.InternalError, "flow \"%s\" has an unreadable definition", f.Name)
	}
	s.storedFiles = f.Files // files_inline.go: the schemas inferred at CREATE FLOW
	defer func() { s.storedFiles = nil }()
	// row_security.go: a stored flow reads as its target's owner.
	s.readsAs = target.Owner
	defer func() { s.readsAs = 0 }()
	return s.planFlow(st, target, f.Name)
}

// startFlows starts every flow of target. One that no longer plans (its
// input was dropped) is started failed, with the reason.
func (e *Engine) startFlows(target *catalog.Relation) {
	sys := e.systemSession()
	for _, f := range target.Streaming.Flows {
		if !f.Once { // a ONCE flow ran when created (flows_once.go)
			e.startFlowOrFail(sys, target, f)
		}
	}
	e.runPendingOnceFlows(target) // flows_once.go
}

func (e *Engine) startFlowOrFail(sys *Session, target *catalog.Relation, f catalog.Flow) *runner {
	sp, trig, err := sys.planFlowOf(target, f)
	if err == nil {
		return e.startFlow(target, f, sp, trig)
	}
	return e.startFailedFlow(target, f, err)
}

// startFailedFlow registers a runner for flow f that failed with err
// before it could run (streaming_progress and DESCRIBE show why; REFRESH
// tries again).
func (e *Engine) startFailedFlow(target *catalog.Relation, f catalog.Flow, err error) *runner {
	oid := flowCheckpoint(target, f)
	e.flows.add(oid, target.OID)
	r := &runner{eng: e, oid: oid, name: target.Name, status: statusFailed, lastError: sqlerr.From(err).Message,
		done: make(chan struct{}), kick: make(chan struct{}, 1), recoveryFailed: make(chan struct{})}
	close(r.done)
	r.cancel = func() {}
	e.mu.Lock()
	e.runners[oid] = r
	e.mu.Unlock()
	return r
}

// stopFlows stops every flow of target.
func (e *Engine) stopFlows(target *catalog.Relation) {
	for _, f := range target.Streaming.Flows {
		oid := flowCheckpoint(target, f)
		e.stopRunner(oid)
		if oid != target.OID {
			e.flows.remove(oid)
		}
	}
}

// namedRunner is a flow's runner with the flow's name.
type namedRunner struct {
	flow string
	once bool
	r    *runner // nil: not running
}

// flowRunners are the runners of target's flows, in the flows' order.
func (e *Engine) flowRunners(target *catalog.Relation) []namedRunner {
	out := make([]namedRunner, 0, len(target.Streaming.Flows))
	for _, f := range target.Streaming.Flows {
		out = append(out, namedRunner{flow: f.Name, once: f.Once, r: e.runnerFor(flowCheckpoint(target, f))})
	}
	return out
}

// jobsOf are the runners that fill streaming table rel: its own, or its
// flows'.
func (e *Engine) jobsOf(rel *catalog.Relation) []*runner {
	if rel.Streaming != nil && rel.Streaming.NoQuery {
		var out []*runner
		for _, nr := range e.flowRunners(rel) {
			if nr.r != nil {
				out = append(out, nr.r)
			}
		}
		return out
	}
	if r := e.runnerFor(rel.OID); r != nil {
		return []*runner{r}
	}
	return nil
}

// jobsOfOID is jobsOf the streaming table with that OID.
func (e *Engine) jobsOfOID(oid uint32) []*runner {
	rel, ok := e.cat.RelationByOID(oid)
	if !ok || rel.Kind != catalog.KindStreamingTable {
		return nil
	}
	return e.jobsOf(rel)
}

// streamingJobIDs are the OIDs the jobs of every streaming table run
// under: a table's own, each flow's. A target without flows runs none.
func (e *Engine) streamingJobIDs() []uint32 {
	var out []uint32
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable {
			continue
		}
		if rel.Streaming == nil || !rel.Streaming.NoQuery {
			out = append(out, rel.OID)
			continue
		}
		for _, f := range rel.Streaming.Flows {
			if !f.Once {
				out = append(out, flowCheckpoint(rel, f))
			}
		}
	}
	return out
}

// dropFlowCheckpoint forgets flow f's checkpoint in tx: its epoch records,
// snapshot and output progress; the rows it wrote stay the target's.
func dropFlowCheckpoint(tx *state.Txn, st *state.Store, target *catalog.Relation, f catalog.Flow) error {
	oid := flowCheckpoint(target, f)
	if err := checkpoint.Drop(tx, oid); err != nil {
		return err
	}
	// Its files logs (keyed by its job's OID) go with the offsets into them.
	if err := dropFilesLogs(tx, oid); err != nil { // files_input.go
		return err
	}
	if err := dropBatchRows(tx, oid); err != nil { // batches.go
		return err
	}
	if oid == target.OID {
		return tx.Delete(state.OutputProgressKey(oid))
	}
	return tableout.NewFlow(st, target.OID, oid).Drop(tx)
}

// dropTargetData forgets, in one commit, every flow's checkpoint and the
// target's rows (DROP STREAMING TABLE, REFRESH ... FULL): a crash leaves
// all or none of them.
func (e *Engine) dropTargetData(target *catalog.Relation) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	for _, f := range target.Streaming.Flows {
		if err := dropFlowCheckpoint(tx, e.store, target, f); err != nil {
			return err
		}
	}
	if err := checkpoint.Drop(tx, target.OID); err != nil {
		return err
	}
	if err := tableout.New(e.store, target.OID).Drop(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// findFlow finds the flow called name among the streaming tables of
// schema ("" : the search path's), with its target.
func (s *Session) findFlow(schema, name string) (*catalog.Relation, catalog.Flow, bool) {
	schemas := s.searchPath()
	if schema != "" {
		schemas = []string{schema}
	}
	for _, sc := range schemas {
		for _, rel := range s.eng.cat.Relations() {
			if rel.Kind != catalog.KindStreamingTable || rel.Schema != sc || rel.Streaming == nil {
				continue
			}
			for _, f := range rel.Streaming.Flows {
				if f.Name == name {
					return rel, f, true
				}
			}
		}
	}
	return nil, catalog.Flow{}, false
}
