package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/checkpoint"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Streaming tables: each is a job (exec.StreamJob) run by a runner
// goroutine according to its trigger. The catalog keeps the CREATE
// statement; on start every streaming table is planned again and replays
// its input from the beginning, which recomputes exactly the contents it
// had (the computation is deterministic over the retained input).

// Job status values shown by SHOW STREAMING TABLES and streaming_progress.
const (
	statusRunning = "running"
	statusIdle    = "idle" // available_now: caught up, waiting for REFRESH
	statusFailed  = "failed"
	statusStopped = "stopped"
	statusPaused  = "paused" // the store cannot write; retried every second
)

// storageTrouble tells errors of the store's disk (53xxx, 58030) from
// errors of the query: the former pause a streaming table, the latter
// fail it.
func storageTrouble(err error) bool {
	code := sqlerr.Code(err)
	if code == sqlerr.OutOfMemory {
		return false // the table's own state limit: it fails, it does not wait
	}
	return strings.HasPrefix(code, "53") || code == sqlerr.IOError
}

// waitAndReset waits a second, reloads the epoch log and rewinds the job to
// it. It reports false when the runner is stopping.
func (r *runner) waitAndReset(ctx context.Context) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
		r.job.Reset(nil)
		_, restore, err := r.eng.recoverJob(r.job, r.guard, r.oid, r.name, r.plan.Mode)
		if err == nil && restore != nil {
			err = restore()
		}
		if err != nil {
			r.setStatus(statusPaused, sqlerr.From(err).Message)
			continue
		}
		r.setStatus(statusRunning, "")
		return true
	}
}

// runner drives one streaming table's job.
type runner struct {
	eng  *Engine
	oid  uint32
	name string
	plan *planner.StreamPlan
	job  *exec.StreamJob
	// guard knows the input offsets a restart would re-read from, which
	// retention must keep.
	guard   *checkpoint.ResumeGuard
	trigger trigger
	cancel  context.CancelFunc
	done    chan struct{}
	kick    chan struct{} // REFRESH: run now

	mu        sync.Mutex
	status    string
	lastError string
	// outputStored is set for an append-mode table whose stored rows were
	// complete at start: readers need not wait for the epochs' re-run.
	outputStored bool
	// restore loads the state snapshot before the first epoch (nil: none).
	restore func() error
	// stateDropped: the job let its state go after failing over the state
	// limit, and is recovered from its epoch log before it runs again.
	stateDropped bool
	// recoveryFailed is closed when restoring the state or re-running the
	// logged epochs failed (recoveryErr, e.g. XX001 for damaged input or a
	// damaged snapshot): readers then get that error instead of waiting
	// for a recovery that will not come.
	recoveryFailed chan struct{}
	recoveryOnce   sync.Once
	recoveryErr    error
	// privs is when the owner's privileges were last checked (privilege_checks_stream.go).
	privs privWatch
}

// recoverDropped rewinds a job whose state was dropped to its epoch log,
// restoring the snapshot, before a REFRESH runs it again. It reports false
// (the table stays failed, with the reason) when that fails.
func (r *runner) recoverDropped() bool {
	r.mu.Lock()
	dropped := r.stateDropped
	r.stateDropped = false
	r.mu.Unlock()
	if !dropped {
		return true
	}
	r.job.Reset(nil)
	_, restore, err := r.eng.recoverJob(r.job, r.guard, r.oid, r.name, r.plan.Mode)
	if err == nil && restore != nil {
		err = restore()
	}
	if err != nil {
		r.eng.jobFailed(r, err) // event_log.go
		r.setStatus(statusFailed, sqlerr.From(err).Message)
		return false
	}
	return true
}

// failRecovery records err as the reason the job cannot recover, if it
// has not recovered yet.
func (r *runner) failRecovery(err error) {
	if r.job != nil {
		select {
		case <-r.job.Recovered():
			return
		default:
		}
	}
	r.recoveryOnce.Do(func() {
		r.recoveryErr = err
		close(r.recoveryFailed)
	})
}

// trigger is when micro-batches run.
type trigger struct {
	kind     string // continuous, processing_time, available_now
	interval time.Duration
	// stateLimit is the table's state_memory_limit option (bytes; 0: the
	// server's), carried with the trigger as the other way the table's
	// options say how it runs.
	stateLimit int64
}

func parseTrigger(v string) (trigger, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	switch {
	case s == "" || s == "continuous":
		return trigger{kind: "continuous"}, nil
	case s == "available_now" || s == "availablenow" || s == "once":
		return trigger{kind: "available_now"}, nil
	case strings.HasPrefix(s, "processing_time"):
		iv, err := types.ParseInterval(strings.TrimSpace(strings.TrimPrefix(s, "processing_time")))
		if err != nil {
			return trigger{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid trigger \"%s\": expected 'processing_time <interval>'", v)
		}
		d := time.Duration(int64(iv.Days)*types.MicrosPerDay+iv.Nanoseconds/1000) * time.Microsecond
		if d <= 0 || iv.Months != 0 {
			return trigger{}, sqlerr.New(sqlerr.InvalidParameterValue, "trigger interval must be positive")
		}
		return trigger{kind: "processing_time", interval: d}, nil
	}
	return trigger{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid trigger \"%s\"", v).
		WithHint("Use continuous, 'processing_time <interval>' or available_now.")
}

func (r *runner) setStatus(s, errText string) {
	r.mu.Lock()
	r.status, r.lastError = s, errText
	r.mu.Unlock()
}

func (r *runner) state() (string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.lastError
}

// run is the runner goroutine: micro-batches as the trigger says, until
// the context ends. A failing epoch stops the job with status failed;
// REFRESH STREAMING TABLE starts it again.
func (r *runner) run(ctx context.Context) {
	defer close(r.done)
	if r.restore != nil {
		if err := r.restoreState(); err != nil {
			r.eng.jobFailed(r, err) // event_log.go
			r.setStatus(statusFailed, sqlerr.From(err).Message)
			r.failRecovery(err)
		}
	}
	var tick <-chan time.Time
	if r.trigger.kind == "processing_time" {
		t := time.NewTicker(r.trigger.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		status, _ := r.state()
		if status == statusRunning {
			for {
				processed, err := r.step(ctx)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					if storageTrouble(err) {
						// The store cannot write (disk full, I/O): pause,
						// then resume from the durable epoch log once it can.
						r.setStatus(statusPaused, sqlerr.From(err).Message)
						r.eng.jobPaused(r, err) // event_log.go
						if !r.waitAndReset(ctx) {
							return
						}
						r.eng.jobResumed(r) // event_log.go
						continue
					}
					if sqlerr.Code(err) == sqlerr.OutOfMemory || exec.IsExpectationViolation(err) {
						// Over the state limit: let the memory go now; the
						// state is rebuilt from the epoch log if the table
						// is refreshed. (A FAIL UPDATE expectation too: a
						// REFRESH re-runs the failed epoch from the log.)
						r.job.DropState()
						r.mu.Lock()
						r.stateDropped = true
						r.mu.Unlock()
					}
					r.eng.jobFailed(r, err) // event_log.go
					r.setStatus(statusFailed, sqlerr.From(err).Message)
					r.failRecovery(err)
					break
				}
				if r.filesAfterStep() { // files_evolve.go: restarting on a new files schema
					return
				}
				r.kafkaAfterStep() // kafka_input.go
				if !processed {
					if r.trigger.kind == "available_now" {
						r.setStatus(statusIdle, "")
					}
					break
				}
				if r.trigger.kind == "processing_time" && !r.job.Replaying() {
					break // one micro-batch per interval (recovery runs at once)
				}
			}
		}
		wake := r.eng.commitSignal()
		if r.trigger.kind != "continuous" {
			wake = nil
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-tick:
		case <-r.kick:
			if s, _ := r.state(); s == statusFailed || s == statusIdle {
				if !r.recoverDropped() {
					continue
				}
				r.setStatus(statusRunning, "")
			}
		case <-time.After(r.eng.pollInterval(r.plan)): // source_input.go
			// A safety net: inputs that do not signal (a streaming table's
			// output) are polled.
		}
	}
}

// restoreState loads the snapshot, failing the table (not the server) if
// it cannot.
func (r *runner) restoreState() (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.eng.logger().Error("streaming table "+r.name+": panic restoring its state", "table", r.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = sqlerr.New(sqlerr.InternalError, "streaming table %s could not restore its state: %v", r.name, p)
		}
	}()
	return r.restore()
}

// step runs one epoch, turning a panic in user-driven code into the job's
// error: a failing streaming table fails alone.
func (r *runner) step(ctx context.Context) (processed bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			// A bug, not bad input: fail this table alone, and keep the
			// stack in the server's log for the report.
			r.eng.logger().Error("streaming table "+r.name+": panic", "table", r.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = sqlerr.New(sqlerr.InternalError, "streaming table %s failed: %v", r.name, p)
		}
	}()
	if err := r.checkOwnerPrivileges(); err != nil { // privilege_checks_stream.go
		return false, err
	}
	return r.job.Step(ctx)
}

// commitSignal returns a channel closed at the next commit of any table.
func (e *Engine) commitSignal() <-chan struct{} {
	e.sigMu.Lock()
	defer e.sigMu.Unlock()
	if e.sig == nil {
		e.sig = make(chan struct{})
	}
	return e.sig
}

// notifyCommit wakes streaming tables after rows were committed.
func (e *Engine) notifyCommit() {
	e.sigMu.Lock()
	if e.sig != nil {
		close(e.sig)
		e.sig = nil
	}
	e.sigMu.Unlock()
}

// streamingTable plans a streaming table from its CREATE statement.
func (s *Session) planStreaming(st *parse.StreamingStmt) (*planner.StreamPlan, trigger, error) {
	opts := planner.StreamOptions{Emit: st.Emit}
	trig := trigger{kind: "continuous"}
	var stateLimit int64
	for k, v := range st.Options {
		switch k {
		case "output_mode":
			opts.OutputMode = v
		case "trigger":
			t, err := parseTrigger(v)
			if err != nil {
				return nil, trig, err
			}
			trig = t
		case "state_memory_limit":
			n, ok := ParseMemorySize(v)
			if !ok {
				return nil, trig, sqlerr.New(sqlerr.InvalidParameterValue, "invalid state_memory_limit \"%s\"", v).
					WithHint("A size such as '256MB' or '2GB'.")
			}
			stateLimit = n
		case "late_rows":
			// Late rows go to this table (created if needed) as well as
			// being counted in streaming_progress.
		case "quarantine":
			// Rows dropped by expectations go to this table (created if
			// needed; expectations.go).
		default:
			return nil, trig, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized streaming table option \"%s\"", k).
				WithHint("Options: output_mode, trigger, late_rows, quarantine, state_memory_limit.")
		}
	}
	trig.stateLimit = stateLimit
	st, err := s.eng.inlineNexmark(st) // source_inline.go: nexmark() in FROM is a source
	if err != nil {
		return nil, trig, err
	}
	if st, err = s.inlineReadFiles(st, s.storedFiles); err != nil { // files_inline.go
		return nil, trig, err
	}
	if st, err = s.inlineReadKafka(st); err != nil { // kafka_inline.go
		return nil, trig, err
	}
	sp, err := planner.PlanStreaming(s.catalogView(), st, opts)
	if err != nil {
		return nil, trig, err
	}
	return sp, trig, nil
}

func (s *Session) createStreamingTable(st *parse.StreamingStmt, text string, io noticer) (string, error) {
	sp, trig, err := s.planStreamingTable(st, nil) // streaming_ddl.go: declared columns
	if err != nil {
		return "", err
	}
	schema, name := st.Schema, st.Name
	var keepEpochsOf uint32
	var kept *catalog.Relation // the table replaced: its owner and ACL stay (owner.go)
	if schema == "" {
		if sp := s.searchPath(); len(sp) > 0 {
			schema = sp[0]
		}
	}
	if err := s.requireCreateIn(schema); err != nil { // owner.go
		return "", err
	}
	if existing, err := s.eng.cat.LookupRelation(nil, schema, name); err == nil {
		switch {
		case st.IfNotExists:
			io.Notice("NOTICE", sqlerr.DuplicateTable, fmt.Sprintf("relation \"%s\" already exists, skipping", name))
			return "CREATE STREAMING TABLE", nil
		case st.OrReplace && existing.Kind == catalog.KindStreamingTable:
			if err := s.requireOwner(existing); err != nil { // privileges.go
				return "", err
			}
			if err := s.checkAccesses(sp.Accesses); err != nil { // privilege_checks.go: it runs at once as its creator
				return "", err
			}
			if reader := s.eng.changeLogReaderOf(existing.OID); reader != "" {
				// The reader reads this table's change log, by OID, which
				// the replacement does not keep (change_log.go).
				return "", sqlerr.New("2BP01", "cannot replace streaming table %s because streaming table %s reads it", name, reader).
					WithHint("Drop the streaming tables that read it first, or REFRESH STREAMING TABLE " + name + " FULL to recompute it under the same definition.")
			}
			kept = existing
			// The checkpoint (epoch log) is kept only when the new plan's
			// state is compatible with it, and re-run from the first epoch
			// under the new query, which needs every input row they read.
			if err := s.refuseReplaceWithSinks(existing); err != nil { // sink_stmts.go
				return "", err
			}
			stored, current := s.eng.comparableFingerprints(existing, sp) // files_evolve.go
			if err := checkpoint.CheckIdentity(name, stored, current); err != nil {
				return "", err
			}
			if recs, err := checkpoint.LoadEpochs(s.eng.store, existing.OID); err != nil {
				return "", err
			} else if trimmed, err := s.eng.logs.Trimmed(sp.Input.OID); err != nil {
				return "", err
			} else if err := checkpoint.CheckRerunnable(name, len(recs), trimmed); err != nil {
				return "", err
			}
			s.eng.stopRunner(existing.OID)
			if err := s.eng.cat.DropRelation(nil, schema, name, catalog.KindStreamingTable, false); err != nil {
				return "", err
			}
			keepEpochsOf = existing.OID
		}
	}
	if kept == nil {
		if err := s.checkAccesses(sp.Accesses); err != nil { // privilege_checks.go: it runs at once as its creator
			return "", err
		}
	}
	rel := &catalog.Relation{Schema: schema, Name: name, Kind: catalog.KindStreamingTable, ViewSQL: st.Query, Owner: s.currentRoleOID(),
		Streaming: &catalog.StreamingTable{Definition: text, OutputMode: sp.Mode, Trigger: trig.kind,
			StateFingerprint: sp.StateFingerprint(), Files: s.eng.storedFilesInputs(sp)}}
	if lateName := st.Options["late_rows"]; lateName != "" {
		if err := s.ensureLateRowsTable(schema, lateName, sp, io); err != nil {
			return "", err
		}
		rel.Streaming.LateRows = lateName
	}
	if err := s.ensureQuarantineTable(schema, sp, rel, io); err != nil { // expectations.go
		return "", err
	}
	for _, c := range sp.Cols {
		t := c.T
		if t.OID == types.OidUnknown {
			t = types.Text
		}
		rel.Columns = append(rel.Columns, catalog.Column{Name: c.Name, Type: t})
	}
	if err := s.applyTableSpec(rel, st, io); err != nil { // streaming_ddl.go
		return "", err
	}
	if kept != nil {
		rel.Owner, rel.ACL = kept.Owner, kept.ACL
	}
	rel.Owner = s.ownerOfNew(rel) // owner.go
	created, err := s.eng.cat.CreateRelation(rel, false)
	if err != nil {
		return "", err
	}
	if keepEpochsOf != 0 {
		if err := s.eng.moveEpochs(keepEpochsOf, created.OID); err != nil {
			return "", err
		}
	}
	s.flushFilesNotices(io) // files_source.go: a path matching nothing yet
	for _, w := range sp.Warnings {
		io.Notice("WARNING", sqlerr.Warning, w)
	}
	s.eng.tableCreated(created, keepEpochsOf != 0) // event_log.go
	s.eng.startRunner(created, sp, trig)
	return "CREATE STREAMING TABLE", nil
}

// noticer is the part of wire.ExecIO streaming statements use.
type noticer interface {
	Notice(severity, code, message string)
}

// startRunner starts a streaming table's job.
func (e *Engine) startRunner(rel *catalog.Relation, sp *planner.StreamPlan, trig trigger) *runner {
	rel = e.followPlanColumns(rel, sp) // files_evolve.go: its input's columns grew
	sys := e.systemSession()
	env := &exec.Env{Tables: sys.catalogView(), Ctx: sys.exprCtx(nil)}
	e.runAsOwner(env.Ctx, rel) // column_masks.go: masks are computed as the table's owner
	input := sp.Input
	inputSchema := planner.Schema(relColumns(input))
	// A table's chunks, or an append-mode streaming table's stored rows:
	// both are append-only logs, minus what retention removed from their
	// start.
	// Each source reads ahead (connector.Prefetch): the next micro-batch's
	// rows are read or generated while this one's operators run.
	if err := e.ensureChangeLogs(sp); err != nil { // change_log.go: the update-mode tables it reads log their changes
		e.logger().Error("streaming table "+rel.Name+": could not start the change log of its input", "error", err.Error())
	}
	source := connector.Prefetch(e.inputSource(input, inputSchema, rel)) // source_input.go
	job := exec.NewStreamJob(sp, env, source)
	if sp.Tree != nil {
		// A stream tree's further sources, each its relation's log.
		for _, leaf := range sp.Tree.Sources[1:] {
			job.More = append(job.More, connector.Prefetch(e.inputSource(leaf.Input, planner.Schema(relColumns(leaf.Input)), rel)))
		}
	}
	oid := rel.OID
	var lateOID uint32
	var lateSchema *arrow.Schema
	if name := rel.Streaming.LateRows; name != "" {
		if lr, err := e.cat.LookupRelation(sys.searchPath(), "", name); err == nil {
			lateOID = lr.OID
			cols := make([]planner.Column, len(lr.Columns))
			for i, c := range lr.Columns {
				cols[i] = planner.Column{Name: c.Name, T: c.Type}
			}
			lateSchema = planner.Schema(cols)
			job.KeepLate = true
		}
	}
	e.attachExpectations(rel, sp, job) // expectations.go
	guard := checkpoint.NewResumeGuard()
	if notNull := notNullColumns(rel); len(notNull) > 0 { // column_constraints.go
		job.CheckOutput = func(epoch int64, rows []arrow.RecordBatch) error {
			return checkEpochNotNull(rel.Name, notNull, epoch, rows)
		}
	}
	job.CommitEpoch = func(epoch int64, rec exec.EpochRecord, late, output, snap []arrow.RecordBatch) error {
		for i, b := range late {
			late[i] = array.NewRecordBatch(lateSchema, b.Columns(), b.NumRows())
		}
		if err := e.commitEpoch(oid, epoch, rec, lateOID, late, output, snap, job.CommittingChanges()); err != nil {
			return err
		}
		guard.Committed(epoch, toRecord(rec))
		return nil
	}
	job.SnapshotRows = e.snapshotRows
	job.TableName = rel.Name
	job.StateLimit = e.stateLimit
	if trig.stateLimit > 0 {
		job.StateLimit = trig.stateLimit
	}
	if job.StateLimit < 0 {
		job.StateLimit = 0
	}
	job.StoreOutput = func(epoch int64, output []arrow.RecordBatch) error {
		return e.storeOutput(oid, epoch, output)
	}
	e.attachSinks(rel, sp, job) // sinks.go
	status, lastErr := statusRunning, ""
	stored, restore, err := e.recoverJob(job, guard, oid, rel.Name, sp.Mode)
	if err != nil {
		status, lastErr = statusFailed, sqlerr.From(err).Message
		e.startFailed(oid, rel.Name, err) // event_log_recovery.go
	}
	r := &runner{eng: e, oid: rel.OID, name: rel.Name, plan: sp, trigger: trig, restore: restore,
		recoveryFailed: make(chan struct{}), job: job, guard: guard, done: make(chan struct{}), kick: make(chan struct{}, 1), status: status, lastError: lastErr,
		outputStored: sp.Mode == planner.AppendMode && stored}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	e.mu.Lock()
	e.runners[rel.OID] = r
	e.mu.Unlock()
	if err == nil {
		e.jobStarted(r) // event_log_recovery.go
	}
	go r.run(ctx)
	return r
}

func (e *Engine) runnerFor(oid uint32) *runner {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runners[oid]
}

func (e *Engine) stopRunner(oid uint32) {
	e.mu.Lock()
	r := e.runners[oid]
	delete(e.runners, oid)
	e.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.done
	}
	e.closeFilesInputs(oid) // files_input.go
	e.closeKafkaInputs(oid) // kafka_input.go
}

// systemSession is the session streaming jobs evaluate in: the bootstrap
// superuser, default settings, UTC.
func (e *Engine) systemSession() *Session {
	return newSession(e, catalog.BootstrapRole, catalog.DefaultDB, 0, true, nil)
}

// startStreamingTables plans and starts every streaming table at open.
// One that no longer plans (its input was dropped) is started failed, with
// the reason, instead of stopping the server.
//
// A table that meets a new files schema while the others are still
// starting restarts on it only once every table is started: its restart
// widens its SELECT * readers, which it can only find once they run (a
// reader planned on the old columns and registered after the restart
// looked for it would keep them).
func (e *Engine) startStreamingTables() {
	e.filesOpen.evolveMu.Lock() // files_evolve.go: restarts on new schemas wait
	defer e.filesOpen.evolveMu.Unlock()
	sys := e.systemSession()
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable {
			continue
		}
		if rel.Streaming.NoQuery {
			e.startFlows(rel) // flows.go: each flow its own job
			continue
		}
		if rel.Streaming.PlanText() == "" {
			continue
		}
		st, err := parse.ParseStreaming(rel.Streaming.PlanText())
		var sp *planner.StreamPlan
		trig := trigger{kind: "continuous"}
		if err == nil && st != nil {
			sys.storedFiles = rel.Streaming.Files // files_inline.go: the schemas inferred at CREATE
			// row_security.go: it reads as its owner.
			sys.readsAs = rel.Owner
			sp, trig, err = sys.planStreamingTable(st, shapeOf(rel))
			sys.storedFiles = nil
			sys.readsAs = 0
		}
		if err != nil || sp == nil {
			msg := "cannot plan the streaming table"
			if err != nil {
				msg = sqlerr.From(err).Message
			}
			e.startFailed(rel.OID, rel.Name, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "%s", msg)) // event_log_recovery.go
			e.registerFailed(rel, msg)                                                                   // files_evolve.go
			continue
		}
		e.startRunner(rel, sp, trig)
	}
}

// stopAll stops every runner (server shutdown).
func (e *Engine) stopAll() {
	e.mu.Lock()
	oids := make([]uint32, 0, len(e.runners))
	for oid := range e.runners {
		oids = append(oids, oid)
	}
	e.mu.Unlock()
	for _, oid := range oids {
		e.stopRunner(oid)
	}
}

// ensureLateRowsTable creates the late_rows table of a streaming table
// (the rows that reach the aggregation too late, with their window), or
// checks that an existing one has that shape.
func (s *Session) ensureLateRowsTable(schema, name string, sp *planner.StreamPlan, io noticer) error {
	var cols []planner.Column
	switch {
	case sp.Tree != nil:
		// A tree's operators drop rows of different shapes: the table
		// holds each as jsonb with the operator that dropped it.
		cols = exec.LateRowsColumns
	case sp.Agg == nil || sp.WindowKey < 0:
		return sqlerr.New(sqlerr.InvalidParameterValue, "late_rows needs a windowed aggregation: only rows of closed windows are late")
	default:
		cols = sp.Agg.Input.Columns()
	}
	if existing, err := s.eng.cat.LookupRelation(s.searchPath(), "", name); err == nil {
		if !hasShape(existing, cols) {
			return sqlerr.New(sqlerr.DatatypeMismatch, "late_rows table \"%s\" exists with another shape", name).
				WithDetail("It must have the columns of the rows being aggregated: " + columnList(cols) + ".")
		}
		return nil
	}
	rel := &catalog.Relation{Schema: schema, Name: name, Kind: catalog.KindTable}
	for _, c := range cols {
		t := c.T
		if t.OID == types.OidUnknown {
			t = types.Text
		}
		rel.Columns = append(rel.Columns, catalog.Column{Name: c.Name, Type: t})
	}
	rel.Owner = s.ownerOfNew(rel) // owner.go
	if _, err := s.eng.cat.CreateRelation(rel, false); err != nil {
		return err
	}
	io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("created table %s for late rows (%s)", name, columnList(cols)))
	return nil
}

// hasShape reports whether rel is a table with columns of cols' types, in
// order: what a side table a streaming table writes into (late_rows,
// quarantine) must be when it exists already.
func hasShape(rel *catalog.Relation, cols []planner.Column) bool {
	ok := rel.Kind == catalog.KindTable && len(rel.Columns) == len(cols)
	for i := 0; ok && i < len(cols); i++ {
		ok = rel.Columns[i].Type.OID == cols[i].T.OID
	}
	return ok
}

func columnList(cols []planner.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.T.String()
	}
	return strings.Join(parts, ", ")
}
