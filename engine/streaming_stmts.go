package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// streamingColumns is the result shape of a streaming statement.
func streamingColumns(st *parse.StreamingStmt) []wire.Column {
	if cols, ok := describeColumns(st); ok { // describe.go
		return cols
	}
	switch st.Kind {
	case parse.ShowStreamingTables:
		return []wire.Column{{Name: "name", Type: types.Text}, {Name: "status", Type: types.Text},
			{Name: "output_mode", Type: types.Text}, {Name: "trigger", Type: types.Text},
			{Name: "input", Type: types.Text}, {Name: "epoch", Type: types.Int8}, {Name: "rows", Type: types.Int8}}
	case parse.ExplainStreamingTable, parse.ExplainCreateStreamingTable:
		return []wire.Column{{Name: "QUERY PLAN", Type: types.Text}}
	case parse.ShowSources:
		return showSourcesColumns
	case parse.ShowSinks:
		return showSinksColumns
	case parse.ShowSecrets:
		return showSecretsColumns // secrets.go
	}
	return nil
}

func (s *Session) runStreaming(ctx context.Context, st *statement, io wire.ExecIO) (wire.Result, error) {
	ss := st.stream
	// One statement infers a read_files call's schema once, however often
	// its planning binds the call (files_source.go).
	s.filesMemo = map[string]*catalog.FilesSource{}
	defer func() { s.filesMemo = nil }()
	if isSourceStatement(ss) {
		return s.runSourceStatement(st, io)
	}
	if parse.IsDescribe(ss.Kind) {
		return s.runDescribe(st) // describe.go
	}
	if parse.IsSink(ss.Kind) {
		return s.runSinkStatement(ctx, st, io) // sink_stmts.go
	}
	if parse.IsSecret(ss.Kind) {
		return s.runSecretStatement(st, io) // secrets.go
	}
	if parse.IsColumnMask(ss.Kind) {
		return s.runColumnMaskStatement(ss) // column_masks.go
	}
	if ss.Name != "" {
		// [catalog.]schema.name: the parser keeps the parts joined; every
		// statement below uses the schema and the name apart (the catalog
		// checked against the session's database).
		schema, name, err := s.streamingNameParts(ss) // database_names.go
		if err != nil {
			return nil, err
		}
		cp := *ss
		cp.Schema, cp.Name = schema, name
		ss = &cp
	}
	if s.tx.open && ss.Kind != parse.ShowStreamingTables && ss.Kind != parse.ExplainStreamingTable && ss.Kind != parse.ExplainCreateStreamingTable {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "streaming table statements cannot run inside a transaction block")
	}
	switch ss.Kind {
	case parse.CreateStreamingTable:
		if err := s.checkDeclaredMasks(ss); err != nil { // column_masks.go
			return nil, err
		}
		if ss.Spec != nil && ss.Spec.NoQuery {
			res, err := s.createDeclaredStreamingTable(ss, st.parsed.Text, io) // streaming_ddl.go
			if err == nil {
				err = s.setDeclaredMasks(ss)
			}
			return res, err
		}
		tag, err := s.createStreamingTable(ss, st.parsed.Text, io)
		if err == nil {
			err = s.setDeclaredMasks(ss) // column_masks.go
		}
		if err != nil {
			return nil, err
		}
		return commandResult(tag), nil
	case parse.CreateFlow:
		return s.createFlow(ss, st.parsed.Text, io)
	case parse.DropFlow:
		return s.dropFlow(ss, io) // flows_ddl.go
	case parse.AlterStreamingTable:
		return s.alterStreamingTable(ss, io)
	case parse.DropStreamingTable:
		return s.dropStreamingTable(ss, io)
	case parse.RefreshStreamingTable:
		return s.refreshStreamingTable(ctx, ss, io)
	case parse.ShowStreamingTables:
		return s.showStreamingTables(st)
	case parse.ExplainCreateStreamingTable:
		if ss.Spec != nil && ss.Spec.NoQuery {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "streaming table \"%s\" has no query to explain", ss.Name)
		}
		sp, trig, err := s.planStreamingTable(ss, nil)
		if err != nil {
			return nil, err
		}
		if err := s.checkAccesses(sp.Accesses); err != nil { // privilege_checks.go: as EXPLAIN SELECT
			return nil, err
		}
		lines := explainStreaming(ss.Name, sp, trig)
		return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch(lines)}, tag: "EXPLAIN"}, nil
	case parse.ExplainStreamingTable:
		if rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name); err == nil && rel.Kind == catalog.KindStreamingTable && rel.Streaming.NoQuery {
			return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch(s.eng.explainFlows(rel))}, tag: "EXPLAIN"}, nil // flows_describe.go
		}
		r, err := s.streamingRunner(ss)
		if err != nil {
			return nil, err
		}
		if r.plan == nil {
			_, e := r.state()
			return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table \"%s\" has no plan: %s", ss.Name, e)
		}
		lines := explainStreaming(ss.Name, r.plan, r.trigger)
		return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch(lines)}, tag: "EXPLAIN"}, nil
	case parse.Subscribe:
		return s.subscribe(ctx, ss, io)
	case parse.StreamingQuery:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "a query reading a stream (STREAM, WATERMARK, a WINDOW clause) runs only as a streaming table").
			WithHint("Write CREATE STREAMING TABLE name AS <query>, then SELECT from it or SUBSCRIBE TO it; without STREAM and WATERMARK the query reads the tables as they are.")
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "this streaming statement is not supported")
}

// streamingRunner finds the runner of a named streaming table.
func (s *Session) streamingRunner(ss *parse.StreamingStmt) (*runner, error) {
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name)
	if err != nil {
		return nil, err
	}
	if rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", ss.Name)
	}
	r := s.eng.runnerFor(rel.OID)
	if r == nil {
		return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table \"%s\" is not running", ss.Name)
	}
	return r, nil
}

func (s *Session) dropStreamingTable(ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	if err := s.requireNamedSchemaUsage(ss.Schema); err != nil { // owner.go
		return nil, err
	}
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name)
	if err != nil {
		if ss.IfExists && sqlerr.Code(err) == sqlerr.UndefinedTable {
			io.Notice("NOTICE", sqlerr.UndefinedTable, fmt.Sprintf("streaming table \"%s\" does not exist, skipping", ss.Name))
			return commandResult("DROP STREAMING TABLE"), nil
		}
		return nil, err
	}
	if rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", ss.Name)
	}
	if err := s.requireDropOwner(rel); err != nil { // owner.go
		return nil, err
	}
	if reader := s.eng.streamingReaderOf(rel.OID); reader != "" {
		return nil, sqlerr.New("2BP01", "cannot drop streaming table %s because streaming table %s reads it", rel.Name, reader).
			WithHint("Drop the streaming tables that read it first.")
	}
	if err := s.dropTableSinks(rel, ss.Cascade, io); err != nil { // sink_stmts.go
		return nil, err
	}
	logsRead := s.eng.changeLogsReadBy(rel) // change_log.go
	s.eng.stopRunner(rel.OID)
	s.eng.stopFlows(rel) // flows.go: a target's flows go with it
	if err := s.eng.cat.DropRelation(nil, rel.Schema, rel.Name, catalog.KindStreamingTable, false); err != nil {
		return nil, err
	}
	s.eng.tableDropped(rel) // event_log.go
	if rel.Streaming.NoQuery {
		if err := s.eng.dropTargetData(rel); err != nil {
			return nil, err
		}
	} else if err := s.eng.dropEpochs(rel.OID); err != nil {
		return nil, err
	}
	if err := s.eng.dropChangeLog(rel.OID); err != nil { // change_log.go
		return nil, err
	}
	if err := s.eng.releaseChangeLogs(logsRead); err != nil { // change_log.go: a log nobody reads any more goes
		return nil, err
	}
	return commandResult("DROP STREAMING TABLE"), nil
}

// refreshStreamingTable runs a streaming table now (available_now, or
// after a failure); FULL recomputes it from the retained input.
func (s *Session) refreshStreamingTable(ctx context.Context, ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	rel, err := s.lookupStreamingName(ss)
	if err != nil {
		return nil, err
	}
	if rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", ss.Name)
	}
	began := time.Now()
	if rel.Streaming.NoQuery {
		res, err := s.refreshFlows(ctx, rel, ss.Full, io) // flows_ddl.go
		if err == nil {
			s.eng.tableRefreshed(rel, ss.Full, began) // event_log.go
		}
		return res, err
	}
	r := s.eng.runnerFor(rel.OID)
	failed := false
	if r != nil {
		status, _ := r.state()
		failed = status == statusFailed
	}
	// A failed sink is retried by starting the table's job again: its
	// recovery re-runs the epochs the sink lacks (sinks.go).
	if ss.Full || failed || r == nil || r.plan == nil || s.eng.hasFailedSinks(rel.OID) {
		if rel.Streaming.PlanText() == "" {
			return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table \"%s\" has no flow yet", rel.Name).
				WithHint("CREATE FLOW name AS INSERT INTO " + rel.Name + " BY NAME SELECT ...")
		}
		st, err := parse.ParseStreaming(rel.Streaming.PlanText())
		if err != nil || st == nil {
			return nil, sqlerr.New(sqlerr.InternalError, "streaming table \"%s\" has an unreadable definition", rel.Name)
		}
		sp, trig, err := s.planStreamingTable(st, shapeOf(rel))
		if err != nil {
			return nil, err
		}
		s.eng.stopRunner(rel.OID)
		if ss.Full {
			// FULL forgets the epochs: the table is recomputed from the
			// retained input as one fresh run; its sinks get it as
			// epochs after theirs.
			if err := s.eng.rebaseSinks(rel.OID); err != nil { // sinks.go
				return nil, err
			}
			if err := s.eng.rebaseChangeLog(rel); err != nil { // change_log.go: its readers see the old rows deleted
				return nil, err
			}
			if err := s.eng.dropEpochs(rel.OID); err != nil {
				return nil, err
			}
			if n, _ := s.eng.logs.Trimmed(sp.Input.OID); n > 0 {
				io.Notice("WARNING", sqlerr.Warning, fmt.Sprintf("retention has already removed the oldest input of %s (%d chunks): the recomputed table does not include it", sp.Input.Name, n))
			}
			io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("recomputing streaming table %s from its retained input", rel.Name))
		}
		r = s.eng.startRunner(rel, sp, trig)
	} else {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	if err := s.eng.waitRefreshed(ctx, r, ss.Full, io); err != nil {
		return nil, err
	}
	s.eng.tableRefreshed(rel, ss.Full, began) // event_log.go
	return commandResult("REFRESH STREAMING TABLE"), nil
}

// waitRefreshed makes REFRESH synchronous, as in Databricks SQL: it
// returns once the table has consumed the input its input table held when
// the statement started, sending a NOTICE with the progress every second
// (and, for FULL, one at the end). A processing_time table runs one
// micro-batch per interval, so REFRESH does not wait for it. Cancelling
// the statement stops the waiting, not the table.
func (e *Engine) waitRefreshed(ctx context.Context, r *runner, full bool, io wire.ExecIO) error {
	if r.plan == nil || r.trigger.kind == "processing_time" {
		return nil
	}
	target, err := e.refreshTarget(r.plan.Input.OID)
	if err != nil {
		return err
	}
	began := time.Now()
	lastNotice := began
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		// A table restarted meanwhile (on a files input's new schema,
		// files_evolve.go) is waited for in its new job; none between.
		if cur := e.runnerFor(r.oid); cur != r {
			if cur == nil || cur.job == nil {
				select {
				case <-ctx.Done():
					return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
				case <-tick.C:
				}
				continue
			}
			r = cur
		}
		p := r.job.Progress()
		status, lastErr := r.state()
		switch {
		case status == statusFailed:
			return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table %s failed: %s", r.name, lastErr)
		case p.InputRows >= target && p.BacklogRows == 0 && e.filesCaughtUp(r.oid) && !r.job.Replaying() && status != statusPaused:
			if full {
				io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("streaming table %s recomputed: %d input rows in %d epochs, %.1f s",
					r.name, p.InputRows, p.Epoch, time.Since(began).Seconds()))
			}
			return nil
		}
		if time.Since(lastNotice) >= time.Second {
			lastNotice = time.Now()
			pct := 100.0
			if target > 0 {
				pct = 100 * float64(min(p.InputRows, target)) / float64(target)
			}
			io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("streaming table %s: %d of %d input rows processed (%.0f%%), epoch %d", r.name, p.InputRows, target, pct, p.Epoch))
		}
		select {
		case <-ctx.Done():
			return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request").
				WithDetail("The streaming table goes on refreshing in the background.")
		case <-tick.C:
		}
	}
}

func (s *Session) showStreamingTables(st *statement) (wire.Result, error) {
	var cols [7][]any
	for _, rel := range s.eng.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable {
			continue
		}
		r := s.eng.runnerFor(rel.OID)
		status, input := statusStopped, ""
		var epoch, rows int64
		if rel.Streaming.NoQuery {
			status, input, epoch, rows = s.eng.targetSummary(rel) // flows_describe.go
		} else if r != nil {
			status, _ = r.state()
			if r.plan != nil {
				input = r.plan.Input.Name
				p := r.job.Progress()
				epoch, rows = p.Epoch, p.OutputRows
			}
		}
		vals := []any{rel.Name, status, rel.Streaming.OutputMode, rel.Streaming.Trigger, input, epoch, rows}
		for i, v := range vals {
			cols[i] = append(cols[i], v)
		}
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{anyBatch(st.cols, cols[:])}, tag: "SHOW"}, nil
}

// explainStreaming prints a streaming plan (planner.ExplainStream) with
// the latency its trigger gives.
func explainStreaming(name string, sp *planner.StreamPlan, trig trigger) []string {
	var latency string
	switch trig.kind {
	case "processing_time":
		latency = fmt.Sprintf("one micro-batch every %s (trigger processing_time)", trig.interval)
	case "available_now":
		latency = "none; runs on REFRESH STREAMING TABLE (trigger available_now)"
	default:
		latency = "continuous, a micro-batch as soon as input commits (tens of milliseconds)"
	}
	return sp.ExplainStream(planner.StreamExplainOptions{Name: name, Latency: latency})
}

// streamingTableRows is a streaming table's committed contents. After a
// restart it waits until the job has re-run its logged epochs, so a
// reader never sees the table go back in time.
func (e *Engine) streamingTableRows(ctx context.Context, oid uint32) ([]arrow.RecordBatch, error) {
	r := e.runnerFor(oid)
	if r == nil || r.job == nil {
		return nil, nil
	}
	if err := e.waitStreamingTable(ctx, r); err != nil {
		return nil, err
	}
	return e.publishedRows(r)
}

// waitStreamingTable waits until a streaming table's rows can be read:
// its job re-ran the epochs logged before a restart (unless its stored
// rows were complete already), failed to, or stopped.
func (e *Engine) waitStreamingTable(ctx context.Context, r *runner) error {
	if r.outputStored {
		return nil
	}
	select {
	case <-r.job.Recovered():
	case <-r.recoveryFailed:
		select {
		case <-r.job.Recovered(): // a REFRESH recovered it after all
		default:
			return r.recoveryErr
		}
	case <-r.done:
	case <-ctx.Done():
		return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
	case <-time.After(60 * time.Second):
		return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table \"%s\" is still recovering", r.name)
	}
	return nil
}

// publishedRows reads a streaming table's rows: its stored rows in append
// mode, its job's published snapshot otherwise.
func (e *Engine) publishedRows(r *runner) ([]arrow.RecordBatch, error) {
	if r.plan.Mode == planner.AppendMode {
		return e.store.ScanTable(r.oid, planner.Schema(r.plan.Cols))
	}
	return r.job.Snapshot(), nil
}

// streamingReaderOf names a streaming table that reads relation oid (as
// its input or for its late rows), or "".
func (e *Engine) streamingReaderOf(oid uint32) string {
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable {
			continue
		}
		for _, r := range e.jobsOf(rel) { // flows.go: its own job, or its flows'
			if r.plan != nil && r.plan.Input.OID == oid {
				return rel.Name
			}
			if r.plan != nil && r.plan.Tree != nil {
				for _, leaf := range r.plan.Tree.Sources { // a join's other inputs
					if leaf.Input.OID == oid {
						return rel.Name
					}
				}
			}
		}
	}
	return ""
}
