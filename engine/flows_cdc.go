package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// AUTO CDC flows (Databricks' CREATE FLOW f AS AUTO CDC INTO target FROM
// STREAM(feed) KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq
// COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1|2; APPLY CHANGES INTO,
// the older spelling, means the same).
//
// The flow is run as the streaming query that computes the same table
// over the whole feed, which the stream executor keeps up to date in
// update mode, its state checkpointed with every epoch:
//
//   - SCD type 1: per key, the change with the highest sequence
//     (row_number() OVER (PARTITION BY keys ORDER BY seq DESC) = 1: the
//     executor's Top-N, exec/stream_topn.go, which keeps one row per key),
//     unless that change is a delete. A change older than the one a key
//     holds never enters the top 1, so it is ignored; a delete stays the
//     key's top row, so an older insert arriving after it does not bring
//     the key back. weir keeps these tombstones for ever (Databricks
//     forgets them after pipelines.cdc.tombstoneGCThresholdInSeconds, two
//     days by default): the state holds one row per key ever seen.
//   - SCD type 2: every change of a key is a version, from its sequence
//     (__start_at) to the next change's (__end_at, NULL for the current
//     one: lead(seq) OVER (PARTITION BY keys ORDER BY seq)); a delete is
//     no version of its own but ends the one before it, and a change that
//     repeats the one before it opens none (scd2Query). The changes are
//     first grouped by all their columns, which makes them a changelog
//     the executor's OVER recomputes per key when a change arrives late
//     (exec/stream_over_changelog.go): a late change lands in the history
//     where its sequence puts it.
//
// APPLY AS TRUNCATE WHEN, IGNORE NULL UPDATES and TRACK HISTORY ON are
// compiled into the query too (flows_cdc_clauses.go).
//
// A change whose key is NULL is skipped; the target's primary key is KEYS
// (SCD1) or KEYS, __start_at (SCD2).
//
// The flow's checkpoint is the target's (flow OID 0): the target's rows
// are the job's update-mode rows, as a streaming table's with a query of
// its own. A target takes one AUTO CDC flow and no other flows: several
// AUTO CDC flows into one target (Databricks allows a backfill and a live
// one) would be one query over the union of their feeds, and the stream
// planner takes no union of streams yet.

// createCDCFlow runs CREATE [OR REFRESH] FLOW name AS AUTO CDC INTO target.
func (s *Session) createCDCFlow(st *parse.StreamingStmt, target *catalog.Relation, text string, io noticer) (wire.Result, error) {
	spec := st.Spec
	for _, f := range target.Streaming.Flows {
		if f.Name == spec.Flow && st.OrReplace && f.CDC != nil {
			continue
		}
		if f.Name == spec.Flow {
			return nil, sqlerr.New(sqlerr.DuplicateObject, "flow \"%s\" already exists", spec.Flow)
		}
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "streaming table \"%s\" already has flow \"%s\": an AUTO CDC flow's target takes no other flow", target.Name, f.Name).
			WithHint("Give the AUTO CDC flow a streaming table of its own.")
	}
	if owner, _, ok := s.findFlow(target.Schema, spec.Flow); ok && owner.OID != target.OID {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "flow \"%s\" already exists", spec.Flow).
			WithDetail(fmt.Sprintf("It goes into streaming table %s.", owner.Name))
	}
	def, err := s.cdcDefinition(spec.CDC)
	if err != nil {
		return nil, err
	}
	sp, trig, query, err := s.planCDC(target, def)
	if err != nil {
		return nil, err
	}
	if err := s.checkAccesses(sp.Accesses); err != nil { // privilege_checks.go
		return nil, err
	}
	flow := catalog.Flow{Name: spec.Flow, Definition: text, StateFingerprint: sp.StateFingerprint(), CDC: def}
	if spec.Comment != nil {
		flow.Comment = *spec.Comment
	}
	if old := target.Streaming.Flows; len(old) > 0 {
		if old[0].StateFingerprint != flow.StateFingerprint {
			return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "the new definition of flow \"%s\" keeps different state than its checkpoint", spec.Flow).
				WithHint(fmt.Sprintf("DROP FLOW %s and create it again, or REFRESH STREAMING TABLE %s FULL after the change.", spec.Flow, target.Name))
		}
		s.eng.stopRunner(target.OID)
	}
	updated, err := s.eng.cat.UpdateStreamingTable(target.OID, func(r *catalog.Relation) error {
		t := r.Streaming
		if len(t.Flows) > 0 && t.Flows[0].Name != flow.Name {
			return sqlerr.New(sqlerr.DuplicateObject, "streaming table \"%s\" got flow \"%s\" meanwhile", r.Name, t.Flows[0].Name)
		}
		t.Flows = []catalog.Flow{flow}
		t.OutputMode, t.Trigger = planner.UpdateMode, trig.kind
		if len(r.Columns) == 0 {
			for _, c := range sp.Cols {
				r.Columns = append(r.Columns, catalog.Column{Name: c.Name, Type: queryType(c.T)})
			}
		}
		r.PrimaryKey = append([]string(nil), def.Keys...)
		if def.SCDType == 2 {
			r.PrimaryKey = append(r.PrimaryKey, "__start_at")
		}
		r.ViewSQL = query
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.startCreatedFlow(updated, flow, sp, trig, io), nil // flows_ddl.go
}

// cdcDefinition resolves an AUTO CDC statement against its source's
// columns: the target's columns, checked.
func (s *Session) cdcDefinition(c *parse.AutoCDC) (*catalog.AutoCDC, error) {
	def := &catalog.AutoCDC{SourceSchema: c.Source.Schema, Source: c.Source.Name, Sequence: c.Sequence,
		DeleteWhen: c.DeleteWhen, SCDType: c.SCDType}
	src, err := s.cdcSourceColumns(def)
	if err != nil {
		return nil, err
	}
	has := func(n string) bool { return slices.Contains(src, n) }
	def.SourceColumns = src
	if def.DeleteWhen, err = parse.SparkStrings(def.DeleteWhen, has); err != nil {
		return nil, err
	}
	for _, k := range c.Keys {
		if !has(k) {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "key column \"%s\" is not a column of %s", k, c.Source.Name)
		}
	}
	def.Keys = c.Keys
	for _, n := range append(slices.Clone(c.Columns), c.Except...) {
		if !has(n) {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" is not a column of %s", n, c.Source.Name)
		}
	}
	switch {
	case c.Columns != nil:
		def.Columns = c.Columns
	default:
		for _, n := range src {
			if !slices.Contains(c.Except, n) {
				def.Columns = append(def.Columns, n)
			}
		}
	}
	for _, k := range c.Keys {
		if !slices.Contains(def.Columns, k) {
			return nil, sqlerr.New(sqlerr.InvalidColumnReference, "key column \"%s\" must be one of the target's columns", k)
		}
	}
	if def.SCDType == 2 {
		for _, n := range def.Columns {
			if n == "__start_at" || n == "__end_at" {
				return nil, sqlerr.New(sqlerr.DuplicateColumn, "column \"%s\" is reserved for SCD type 2's history", n)
			}
		}
	}
	if err := cdcClauses(c, def, has); err != nil { // flows_cdc_clauses.go
		return nil, err
	}
	return def, nil
}

// cdcSourceColumns are the names of the columns STREAM(source) gives.
func (s *Session) cdcSourceColumns(def *catalog.AutoCDC) ([]string, error) {
	sp, _, err := s.planCDCQuery("SELECT * FROM STREAM " + cdcSource(def))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(sp.Cols))
	for i, c := range sp.Cols {
		out[i] = c.Name
	}
	return out, nil
}

func cdcSource(def *catalog.AutoCDC) string {
	if def.SourceSchema != "" {
		return quoteIdentAlways(def.SourceSchema) + "." + quoteIdentAlways(def.Source)
	}
	return quoteIdentAlways(def.Source)
}

// planCDCQuery plans query as a streaming table's.
func (s *Session) planCDCQuery(query string) (*planner.StreamPlan, trigger, error) {
	st, err := parse.ParseStreaming("CREATE STREAMING TABLE weir_auto_cdc AS " + query)
	if err != nil {
		return nil, trigger{}, err
	}
	if st == nil || st.Query == "" {
		return nil, trigger{}, sqlerr.New(sqlerr.InternalError, "AUTO CDC: the flow's query does not parse")
	}
	return s.planStreaming(st)
}

// cdcQuery is the streaming query that keeps def's target.
func cdcQuery(def *catalog.AutoCDC) string {
	q := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = quoteIdentAlways(n)
		}
		return strings.Join(out, ", ")
	}
	keys, cols, all := q(def.Keys), q(def.Columns), q(def.SourceColumns)
	// A change without a key (a postgres-cdc truncate row) names no row:
	// the target's key columns are its primary key, NOT NULL.
	keyed := make([]string, len(def.Keys))
	for i, k := range def.Keys {
		keyed[i] = quoteIdentAlways(k) + " IS NOT NULL"
	}
	feed := cdcSource(def) + " WHERE " + strings.Join(keyed, " AND ")
	notDeleted := ""
	if def.DeleteWhen != "" {
		notDeleted = " NOT coalesce((" + def.DeleteWhen + "), false)"
	}
	if def.TruncateWhen != "" || len(def.IgnoreNull) > 0 || len(def.Untracked) > 0 {
		return cdcClausesQuery(def) // flows_cdc_clauses.go
	}
	if def.SCDType == 2 {
		return scd2Query(def, keys, cols, all, "(SELECT "+all+" FROM STREAM "+feed+" GROUP BY "+all+")")
	}
	where := " WHERE weir_cdc_rank = 1"
	if notDeleted != "" {
		where += " AND" + notDeleted
	}
	return "SELECT " + cols + " FROM (SELECT *, row_number() OVER (PARTITION BY " + keys + " ORDER BY (" + def.Sequence +
		") DESC NULLS LAST) AS weir_cdc_rank FROM STREAM " + feed + ") AS weir_cdc_latest" + where
}

// planCDC plans def's query for target; query is its text (the target's
// pg_get_viewdef).
func (s *Session) planCDC(target *catalog.Relation, def *catalog.AutoCDC) (*planner.StreamPlan, trigger, string, error) {
	query := cdcQuery(def)
	sp, trig, err := s.planCDCQuery(query)
	if err != nil {
		return nil, trig, "", err
	}
	trig = scheduledTrigger(target.Streaming.Schedule, trig)
	if sp.Mode != planner.UpdateMode {
		return nil, trig, "", sqlerr.New(sqlerr.InternalError, "AUTO CDC: the flow's query runs in %s mode", sp.Mode)
	}
	if len(target.Columns) > 0 {
		for i, c := range sp.Cols {
			if i < len(target.Columns) && target.Columns[i].Name == c.Name && target.Columns[i].Type != queryType(c.T) {
				return nil, trig, "", sqlerr.New(sqlerr.DatatypeMismatch, "column \"%s\" of streaming table \"%s\" is of another type than its AUTO CDC flow gives", c.Name, target.Name).
					WithDetail("The table has: " + catalogColumnNames(target.Columns) + "; the flow gives: " + planColumnNames(sp.Cols) + ".")
			}
			if i >= len(target.Columns) || target.Columns[i].Name != c.Name {
				return nil, trig, "", sqlerr.New(sqlerr.InvalidColumnReference, "streaming table \"%s\" has other columns than its AUTO CDC flow gives", target.Name).
					WithDetail("The table has: " + catalogColumnNames(target.Columns) + "; the flow gives: " + planColumnNames(sp.Cols) + ".")
			}
		}
	}
	return sp, trig, query, nil
}

// planCDCFlowOf plans a stored AUTO CDC flow again (at start, REFRESH).
func (s *Session) planCDCFlowOf(target *catalog.Relation, f catalog.Flow) (*planner.StreamPlan, trigger, error) {
	s.readsAs = target.Owner // row_security.go: a stored flow reads as its target's owner
	defer func() { s.readsAs = 0 }()
	sp, trig, _, err := s.planCDC(target, f.CDC)
	return sp, trig, err
}

// cdcTargetTakesNoFlow refuses an append flow into the target of an AUTO
// CDC flow: the target's rows are that flow's state.
func cdcTargetTakesNoFlow(target *catalog.Relation) error {
	for _, f := range target.Streaming.Flows {
		if f.CDC != nil {
			return sqlerr.New(sqlerr.FeatureNotSupported, "streaming table \"%s\" is the target of AUTO CDC flow \"%s\": it takes no other flow", target.Name, f.Name).
				WithHint("Give the other flow a streaming table of its own.")
		}
	}
	return nil
}

// scd2Query is SCD type 2's query. The changes, grouped by all their
// columns (a changelog, which OVER recomputes per key as changes arrive
// out of order), each see the change before them (lag); a change that
// repeats the one before it on every tracked column (all the target's
// columns but the keys) continues its version and is dropped, as
// Databricks coalesces such no-op updates; each remaining change is a
// version to the next one's sequence (lead), and deletes only end
// versions.
//
// changes is the changelog of the feed's changes, all the source's
// columns: the feed grouped by all of them, or (IGNORE NULL UPDATES) that
// with the NULLs filled in.
func scd2Query(def *catalog.AutoCDC, keys, cols, all, changes string) string {
	seq := "(" + def.Sequence + ")"
	del := "false"
	if def.DeleteWhen != "" {
		del = "coalesce((" + def.DeleteWhen + "), false)"
	}
	over := " OVER (PARTITION BY " + keys + " ORDER BY " + seq + ")"
	var lags, changed []string
	changed = append(changed, "weir_cdc_delete", "weir_cdc_prev_seq IS NULL", "weir_cdc_prev_delete")
	n := 0
	for _, c := range def.Columns {
		if slices.Contains(def.Keys, c) || slices.Contains(def.Untracked, c) {
			continue
		}
		n++
		prev := fmt.Sprintf("weir_cdc_prev_%d", n)
		lags = append(lags, "lag("+quoteIdentAlways(c)+")"+over+" AS "+prev)
		changed = append(changed, quoteIdentAlways(c)+" IS DISTINCT FROM "+prev)
	}
	lagged := "SELECT *, " + seq + " AS __start_at, " + del + " AS weir_cdc_delete, lag(" + seq + ")" + over + " AS weir_cdc_prev_seq, lag(" + del + ")" + over + " AS weir_cdc_prev_delete"
	if len(lags) > 0 {
		lagged += ", " + strings.Join(lags, ", ")
	}
	lagged += " FROM " + changes + " AS weir_cdc_changes"
	opening := "SELECT * FROM (" + lagged + ") AS weir_cdc_lagged WHERE " + strings.Join(changed, " OR ")
	if len(def.Untracked) > 0 {
		opening = scd2Untracked(def, keys, lagged, changed) // flows_cdc_clauses.go
	}
	versions := "SELECT " + cols + ", weir_cdc_delete, __start_at, lead(__start_at) OVER (PARTITION BY " + keys + " ORDER BY __start_at) AS __end_at FROM (" +
		opening + ") AS weir_cdc_opening"
	return "SELECT " + cols + ", __start_at, __end_at FROM (" + versions + ") AS weir_cdc_versions WHERE NOT weir_cdc_delete"
}
