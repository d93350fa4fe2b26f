package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// streamingColumns is the result shape of a streaming statement.
func streamingColumns(st *parse.StreamingStmt) []wire.Column {
	switch st.Kind {
	case parse.ShowStreamingTables:
		return []wire.Column{{Name: "name", Type: types.Text}, {Name: "status", Type: types.Text},
			{Name: "output_mode", Type: types.Text}, {Name: "trigger", Type: types.Text},
			{Name: "input", Type: types.Text}, {Name: "epoch", Type: types.Int8}, {Name: "rows", Type: types.Int8}}
	case parse.ExplainStreamingTable, parse.ExplainCreateStreamingTable:
		return []wire.Column{{Name: "QUERY PLAN", Type: types.Text}}
	case parse.ShowSources:
		return showSourcesColumns
	}
	return nil
}

func (s *Session) runStreaming(ctx context.Context, st *statement, io wire.ExecIO) (wire.Result, error) {
	ss := st.stream
	if isSourceStatement(ss) {
		return s.runSourceStatement(st, io)
	}
	if s.tx.open && ss.Kind != parse.ShowStreamingTables && ss.Kind != parse.ExplainStreamingTable && ss.Kind != parse.ExplainCreateStreamingTable {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "streaming table statements cannot run inside a transaction block")
	}
	switch ss.Kind {
	case parse.CreateStreamingTable:
		tag, err := s.createStreamingTable(ss, st.parsed.Text, io)
		if err != nil {
			return nil, err
		}
		return commandResult(tag), nil
	case parse.DropStreamingTable:
		return s.dropStreamingTable(ss, io)
	case parse.RefreshStreamingTable:
		return s.refreshStreamingTable(ctx, ss, io)
	case parse.ShowStreamingTables:
		return s.showStreamingTables(st)
	case parse.ExplainCreateStreamingTable:
		sp, trig, err := s.planStreaming(ss)
		if err != nil {
			return nil, err
		}
		lines := explainStreaming(ss.Name, sp, trig)
		return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch(lines)}, tag: "EXPLAIN"}, nil
	case parse.ExplainStreamingTable:
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
	if reader := s.eng.streamingReaderOf(rel.OID); reader != "" {
		return nil, sqlerr.New("2BP01", "cannot drop streaming table %s because streaming table %s reads it", rel.Name, reader).
			WithHint("Drop the streaming tables that read it first.")
	}
	s.eng.stopRunner(rel.OID)
	if err := s.eng.cat.DropRelation(nil, rel.Schema, rel.Name, catalog.KindStreamingTable, false); err != nil {
		return nil, err
	}
	if err := s.eng.dropEpochs(rel.OID); err != nil {
		return nil, err
	}
	return commandResult("DROP STREAMING TABLE"), nil
}

// refreshStreamingTable runs a streaming table now (available_now, or
// after a failure); FULL recomputes it from the retained input.
func (s *Session) refreshStreamingTable(ctx context.Context, ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name)
	if err != nil {
		return nil, err
	}
	if rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", ss.Name)
	}
	r := s.eng.runnerFor(rel.OID)
	failed := false
	if r != nil {
		status, _ := r.state()
		failed = status == statusFailed
	}
	if ss.Full || failed || r == nil || r.plan == nil {
		st, err := parse.ParseStreaming(rel.Options["definition"])
		if err != nil || st == nil {
			return nil, sqlerr.New(sqlerr.InternalError, "streaming table \"%s\" has an unreadable definition", rel.Name)
		}
		sp, trig, err := s.planStreaming(st)
		if err != nil {
			return nil, err
		}
		s.eng.stopRunner(rel.OID)
		if ss.Full {
			// FULL forgets the epochs: the table is recomputed from the
			// retained input as one fresh run.
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
		p := r.job.Progress()
		status, lastErr := r.state()
		switch {
		case status == statusFailed:
			return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table %s failed: %s", r.name, lastErr)
		case p.InputRows >= target && p.BacklogRows == 0 && !r.job.Replaying() && status != statusPaused:
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
		if r != nil {
			status, _ = r.state()
			if r.plan != nil {
				input = r.plan.Input.Name
				p := r.job.Progress()
				epoch, rows = p.Epoch, p.OutputRows
			}
		}
		vals := []any{rel.Name, status, rel.Options["output_mode"], rel.Options["trigger"], input, epoch, rows}
		for i, v := range vals {
			cols[i] = append(cols[i], v)
		}
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{anyBatch(st.cols, cols[:])}, tag: "SHOW"}, nil
}

// explainStreaming prints the operator tree, each stateful operator's
// state and what frees it, and the seven answers a streaming design owes.
func explainStreaming(name string, sp *planner.StreamPlan, trig trigger) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("Streaming Table %s (output mode: %s)", name, sp.Mode)
	ind := "  "
	if sp.Tree != nil {
		for _, l := range planner.ExplainStreamTree(sp.Tree) {
			add("%s%s", ind, l)
		}
		for _, w := range sp.Warnings {
			add("%sWarning: %s", ind, w)
		}
		return out
	}
	if sp.Agg != nil {
		kind := "Aggregate"
		if sp.WindowKey >= 0 {
			kind = "Windowed Aggregate"
		}
		add("%s->  %s", ind, kind)
		var keys, aggs []string
		for _, g := range sp.Agg.GroupBy {
			keys = append(keys, g.String())
		}
		for _, a := range sp.Agg.Aggs {
			aggs = append(aggs, a.Name)
		}
		add("%s      State key: (%s)", ind, strings.Join(keys, ", "))
		add("%s      Aggregates: %s", ind, strings.Join(aggs, ", "))
		switch {
		case sp.WindowKey >= 0 && sp.EventTime != nil:
			add("%s      State bound: a window's state is freed when the watermark on %s passes its end", ind, sp.WatermarkColumn)
		case sp.WindowKey >= 0:
			add("%s      State bound: none (no watermark closes windows)", ind)
		default:
			add("%s      State bound: none (one entry per group, kept forever)", ind)
		}
		add("%s      Emits: %s", ind, emitText(sp))
		ind += "      "
	}
	if sp.Dedup != nil {
		var keys []string
		for _, k := range sp.Dedup {
			keys = append(keys, k.String())
		}
		add("%s->  Deduplicate", ind)
		add("%s      State key: (%s)", ind, strings.Join(keys, ", "))
		if sp.EventTime != nil {
			add("%s      State bound: a key is forgotten when the watermark on %s passes its row's event time", ind, sp.WatermarkColumn)
		} else {
			add("%s      State bound: none (every key is kept)", ind)
		}
		add("%s      Emits: the first row of each key, once", ind)
		ind += "      "
	}
	for i, l := range planner.Explain(sp.Pre) {
		if i == 0 {
			l = "->  " + l
		}
		add("%s%s", ind, l)
	}
	if sp.Input.Source {
		add("Input: source %s (read from its committed offset; append-only; the source's watermark hint can advance the watermark)", sp.Input.Name)
	} else {
		add("Input: %s (read from its committed offset; append-only)", sp.Input.Name)
	}
	if sp.EventTime != nil {
		add("Watermark: max(%s) - %s, advanced at the end of each micro-batch, never backwards", sp.WatermarkColumn, planner.Micros(sp.Delay))
	} else {
		add("Watermark: none")
	}
	if sp.Window != nil {
		switch sp.Window.Kind {
		case planner.TumblingWindow:
			add("Window: tumbling %s on %s", planner.Micros(sp.Window.Size), sp.Window.Time)
		case planner.HoppingWindow:
			add("Window: hopping %s every %s on %s", planner.Micros(sp.Window.Size), planner.Micros(sp.Window.Slide), sp.Window.Time)
		case planner.SessionWindow:
			add("Window: session gap %s on %s", planner.Micros(sp.Window.Gap), sp.Window.Time)
		}
	}
	for _, w := range sp.Warnings {
		add("WARNING: %s", w)
	}
	snapshots := exec.PlanSnapshotsState(sp)
	where := "Where progress is stored: in weir's store, one commit per epoch holding the input offset at its end"
	if sp.Mode == planner.AppendMode {
		where += " and the rows it added"
	}
	where += ", fsynced before the epoch is visible"
	if snapshots && (sp.Agg != nil || sp.Dedup != nil) {
		where += "; about every state's worth of input (weir serve --snapshot-rows) that commit also holds a snapshot of the whole state"
	}
	add("%s", where)
	switch {
	case sp.Agg == nil && sp.Dedup == nil:
		add("What a crash does: on restart the table is served from its stored rows and the job goes on after the last committed epoch (it keeps no state); nothing is lost or written twice, and retention may remove input the table has read")
	case snapshots && sp.Mode == planner.AppendMode:
		add("What a crash does: on restart the table is served from its stored rows; the job restores its latest state snapshot and re-runs the epochs logged after it over the same input, reaching the same state; nothing is lost or counted twice, and retention may remove input older than the snapshot")
	case snapshots:
		add("What a crash does: on restart the job restores its latest state snapshot and re-runs the epochs logged after it over the same input, reaching the same state and the same table (readers wait until it has); nothing is lost or counted twice, and retention may remove input older than the snapshot")
	case sp.Mode == planner.AppendMode:
		add("What a crash does: on restart the table is served from its stored rows, and the job re-runs the logged epochs of its still-open state over the same retained input, reaching the same state; nothing is lost or counted twice (an aggregate here has no state snapshot: DISTINCT, ORDER BY or json_agg)")
	default:
		add("What a crash does: on restart the job re-runs every logged epoch over the same input, reaching the same state and the same table (readers wait until it has); nothing is lost or counted twice, and input retention keeps all the input this table read (an aggregate here has no state snapshot: DISTINCT, ORDER BY or json_agg)")
	}
	switch {
	case sp.Dedup != nil && sp.EventTime != nil:
		add("How much state: the keys seen within the watermark delay")
	case sp.Dedup != nil:
		add("How much state: unbounded: every key seen")
	case sp.Agg == nil:
		add("How much state: none (stateless)")
	case sp.WindowKey >= 0 && sp.EventTime != nil:
		add("How much state: the groups of open windows (window size + watermark delay worth of keys)")
	default:
		add("How much state: unbounded: one entry per distinct group")
	}
	if sp.EventTime != nil && sp.Dedup != nil {
		add("Late data: rows with an event time below the watermark are dropped and counted in weir_catalog.streaming_progress.late_rows")
	} else if sp.EventTime != nil && sp.Agg != nil {
		add("Late data: rows for windows already closed by the watermark are dropped, counted in weir_catalog.streaming_progress.late_rows, and written to the late_rows table when that option is set")
	} else {
		add("Late data: no watermark, so no row is late")
	}
	if snapshots && (sp.Agg != nil || sp.Dedup != nil) {
		add("Delivery guarantee: exactly once into the table (state snapshots plus deterministic re-execution of the logged epochs after them)")
	} else {
		add("Delivery guarantee: exactly once into the table (deterministic re-execution of the logged epochs)")
	}
	switch trig.kind {
	case "processing_time":
		add("Latency target: one micro-batch every %s (trigger processing_time)", trig.interval)
	case "available_now":
		add("Latency target: none; runs on REFRESH STREAMING TABLE (trigger available_now)")
	default:
		add("Latency target: continuous, a micro-batch as soon as input commits (tens of milliseconds)")
	}
	add("Cost: one goroutine; CPU proportional to input rows; memory proportional to state")
	return out
}

func emitText(sp *planner.StreamPlan) string {
	switch sp.Mode {
	case planner.AppendMode:
		return "a window's rows once, when the watermark closes it"
	case planner.UpdateMode:
		return "changed groups after every micro-batch"
	}
	return "the whole result after every micro-batch"
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
		if r := e.runnerFor(rel.OID); r != nil && r.plan != nil && r.plan.Input.OID == oid {
			return rel.Name
		}
	}
	return ""
}
