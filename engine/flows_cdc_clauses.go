package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// The AUTO CDC clauses that change how changes apply (flows_cdc.go has
// the flow itself), each compiled into the flow's streaming query, so
// that their state is the query's and is checkpointed with every epoch:
//
//   - APPLY AS TRUNCATE WHEN cond (SCD type 1): a change matching it
//     empties the target as of its sequence. A key's row survives only if
//     its latest change is sequenced after the latest truncate; changes
//     sequenced after it apply as to an empty table, older ones (and ones
//     of the truncate's own sequence) are gone with it.
//   - IGNORE NULL UPDATES [ON (cols) | ON * EXCEPT (cols)]: a change's
//     NULL in one of those columns keeps the value the key's row has. In
//     sequence order: a column's value is that of the key's latest change
//     with a non-NULL value in it since the key last had no row (its last
//     delete, or the last truncate); NULL when there is none.
//   - TRACK HISTORY ON (cols) | * EXCEPT (cols) (SCD type 2): a change
//     opens a version only when a tracked column changes; a change of the
//     other columns only (the untracked) updates the current version in
//     place: a version's untracked columns are those of its last change.
//
// How, over the changes grouped by all their columns (a changelog, whose
// window functions the executor recomputes per key when a change arrives,
// as for SCD type 2):
//
//   - the latest change of each key is the one with no change before it
//     in descending sequence order (lag(1) IS NULL, which reads one row
//     back, so a change recomputes one row), or, sharing the window of
//     the running counts below, the one whose ROWS frame from it to the
//     partition's end holds one row (count(*) = 1): one row per key (a
//     row_number() = 1 filter would be read as a Top-N, which takes
//     append-only input only);
//   - a NULL-ignoring column's value is first_value over the changes
//     partitioned by the key and by a running count of the changes that
//     reset the column (a non-NULL value, a delete): each such partition
//     starts at the change whose value (NULL for a delete) holds until the
//     next one; its sequence says whether it came after the last truncate;
//   - the latest truncate is last_value over all keys' latest rows
//     (OVER (), ordered by truncate-or-not then sequence): recomputed when
//     any key changes, so a flow with TRUNCATE WHEN does work in
//     proportion to its number of keys every epoch that changes it;
//   - TRACK HISTORY numbers each key's versions by a running count of
//     the changes that open one, and takes each untracked column's
//     last_value over the version.

// cdcClauses resolves c's TRUNCATE WHEN, IGNORE NULL UPDATES and TRACK
// HISTORY ON into def, against the target's columns.
func cdcClauses(c *parse.AutoCDC, def *catalog.AutoCDC, has func(string) bool) error {
	var err error
	if c.TruncateWhen != "" {
		if def.TruncateWhen, err = parse.SparkStrings(c.TruncateWhen, has); err != nil {
			return err
		}
	}
	nonKey := func() []string {
		var out []string
		for _, n := range def.Columns {
			if !slices.Contains(def.Keys, n) {
				out = append(out, n)
			}
		}
		return out
	}
	// checkTarget refuses a column the target does not have.
	checkTarget := func(names []string, pos int, clause string) error {
		for _, n := range names {
			if !slices.Contains(def.Columns, n) {
				return sqlerr.At(sqlerr.UndefinedColumn, pos, "column \"%s\" of %s is not a column of the flow's target", n, clause).
					WithDetail("The target's columns are: " + strings.Join(def.Columns, ", ") + ".")
			}
		}
		return nil
	}
	if c.IgnoreNullUpdates {
		if err := checkTarget(append(slices.Clone(c.IgnoreNullOn), c.IgnoreNullExcept...), c.IgnoreNullPos, "IGNORE NULL UPDATES"); err != nil {
			return err
		}
		for _, n := range nonKey() {
			if (c.IgnoreNullOn == nil || slices.Contains(c.IgnoreNullOn, n)) && !slices.Contains(c.IgnoreNullExcept, n) {
				def.IgnoreNull = append(def.IgnoreNull, n)
			}
		}
	}
	if c.TrackHistory {
		if err := checkTarget(append(slices.Clone(c.Track), c.TrackExcept...), c.TrackPos, "TRACK HISTORY ON"); err != nil {
			return err
		}
		for _, n := range nonKey() {
			if c.Track != nil && !slices.Contains(c.Track, n) || slices.Contains(c.TrackExcept, n) {
				def.Untracked = append(def.Untracked, n)
			}
		}
	}
	return nil
}

// cdcClausesQuery is the streaming query of a flow with TRUNCATE WHEN,
// IGNORE NULL UPDATES or TRACK HISTORY ON.
func cdcClausesQuery(def *catalog.AutoCDC) string {
	q := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = quoteIdentAlways(n)
		}
		return strings.Join(out, ", ")
	}
	keys, cols, all := q(def.Keys), q(def.Columns), q(def.SourceColumns)
	seq := "(" + def.Sequence + ")"
	trunc := "false"
	if def.TruncateWhen != "" {
		trunc = "coalesce((" + def.TruncateWhen + "), false)"
	}
	del := "false"
	if def.DeleteWhen != "" {
		del = "(NOT " + trunc + " AND coalesce((" + def.DeleteWhen + "), false))"
	}
	keyed := make([]string, len(def.Keys))
	for i, k := range def.Keys {
		keyed[i] = quoteIdentAlways(k) + " IS NOT NULL"
	}
	where := strings.Join(keyed, " AND ")
	if def.TruncateWhen != "" {
		// A truncate names no key (Databricks' example's are NULL).
		where = "(" + where + ") OR " + trunc
	}
	changes := "(SELECT " + all + " FROM STREAM " + cdcSource(def) + " WHERE " + where + " GROUP BY " + all + ")"
	// A truncate's changes are partitions of their own.
	part := "weir_cdc_truncate, " + keys
	order := " ORDER BY weir_cdc_seq NULLS FIRST"
	// marked: each change with its sequence, whether it deletes or
	// truncates, whether it is its key's latest, and per NULL-ignoring
	// column the running count of the changes that reset the column.
	latestIs := "weir_cdc_latest = 1"
	marked := "SELECT *, count(*) OVER (PARTITION BY " + part + order + " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS weir_cdc_latest"
	if len(def.IgnoreNull) == 0 {
		// Without running counts to share the window with, lag in
		// descending order finds the latest: it reads one row back, so a
		// change recomputes only the one after it, not its key's partition.
		latestIs = "weir_cdc_newer IS NULL"
		marked = "SELECT *, lag(1) OVER (PARTITION BY " + part + " ORDER BY weir_cdc_seq DESC NULLS LAST) AS weir_cdc_newer"
	}
	for i, c := range def.IgnoreNull {
		marked += fmt.Sprintf(", count(CASE WHEN weir_cdc_delete OR %s IS NOT NULL THEN 1 END) OVER (PARTITION BY %s%s ROWS UNBOUNDED PRECEDING) AS weir_cdc_reset_%d",
			quoteIdentAlways(c), part, order, i+1)
	}
	marked += " FROM (SELECT *, " + seq + " AS weir_cdc_seq, " + del + " AS weir_cdc_delete, " + trunc + " AS weir_cdc_truncate FROM " + changes + " AS weir_cdc_changes) AS weir_cdc_seqd"
	// filled: the NULL-ignoring columns' values (weir_cdc_value_i) and the
	// sequence of the change they come from (weir_cdc_from_i).
	filled := marked
	for i, c := range def.IgnoreNull {
		w := fmt.Sprintf(" OVER (PARTITION BY %s, weir_cdc_reset_%d%s)", part, i+1, order)
		filled = fmt.Sprintf("SELECT *, first_value(CASE WHEN weir_cdc_delete THEN NULL ELSE %s END)%s AS weir_cdc_value_%d, first_value(weir_cdc_seq)%s AS weir_cdc_from_%d FROM (%s) AS weir_cdc_fill_%d",
			quoteIdentAlways(c), w, i+1, w, i+1, filled, i+1)
	}
	value := func(c string, truncated bool) string {
		i := slices.Index(def.IgnoreNull, c)
		if i < 0 {
			return quoteIdentAlways(c)
		}
		v := fmt.Sprintf("weir_cdc_value_%d", i+1)
		if truncated {
			v = fmt.Sprintf("CASE WHEN weir_cdc_truncated_at IS NULL OR weir_cdc_from_%d > weir_cdc_truncated_at THEN %s END", i+1, v)
		}
		return v + " AS " + quoteIdentAlways(c)
	}
	if def.SCDType == 2 {
		// The changes with their NULLs filled (a delete keeps its own
		// values: its condition may read them), then SCD type 2's query.
		sel := make([]string, len(def.SourceColumns))
		for i, c := range def.SourceColumns {
			sel[i] = quoteIdentAlways(c)
			if j := slices.Index(def.IgnoreNull, c); j >= 0 {
				sel[i] = fmt.Sprintf("CASE WHEN weir_cdc_delete THEN %s ELSE weir_cdc_value_%d END AS %s", sel[i], j+1, sel[i])
			}
		}
		if len(def.IgnoreNull) > 0 {
			changes = "(SELECT " + strings.Join(sel, ", ") + " FROM (" + filled + ") AS weir_cdc_filled)"
		}
		return scd2Query(def, keys, cols, all, changes)
	}
	latest := "SELECT * FROM (" + filled + ") AS weir_cdc_filled WHERE " + latestIs
	out := make([]string, len(def.Columns))
	if def.TruncateWhen == "" {
		for i, c := range def.Columns {
			out[i] = value(c, false)
		}
		return "SELECT " + strings.Join(out, ", ") + " FROM (" + latest + ") AS weir_cdc_latest WHERE NOT weir_cdc_delete"
	}
	for i, c := range def.Columns {
		out[i] = value(c, true)
	}
	// The latest truncate: the last of all keys' latest rows ordered
	// truncates last, by sequence (last_value, not max: a sequence may be
	// a struct).
	truncated := "SELECT *, last_value(CASE WHEN weir_cdc_truncate THEN weir_cdc_seq END) OVER (ORDER BY weir_cdc_truncate, weir_cdc_seq NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS weir_cdc_truncated_at FROM (" +
		latest + ") AS weir_cdc_latest"
	return "SELECT " + strings.Join(out, ", ") + " FROM (" + truncated + ") AS weir_cdc_truncated WHERE NOT weir_cdc_truncate AND NOT weir_cdc_delete AND (weir_cdc_truncated_at IS NULL OR weir_cdc_seq > weir_cdc_truncated_at)"
}

// scd2Untracked is SCD type 2's versions with TRACK HISTORY ON: lagged's
// changes (changed says which open a version: a change of a tracked
// column, a delete, the first change or the one after a delete) numbered
// by version, each version's untracked columns those of its last change,
// and only the changes that open one kept.
func scd2Untracked(def *catalog.AutoCDC, keys, lagged string, changed []string) string {
	opens := "(" + strings.Join(changed, " OR ") + ")"
	numbered := "SELECT *, " + opens + " AS weir_cdc_opens, sum(CASE WHEN " + opens + " THEN 1 ELSE 0 END) OVER (PARTITION BY " + keys +
		" ORDER BY __start_at ROWS UNBOUNDED PRECEDING) AS weir_cdc_version FROM (" + lagged + ") AS weir_cdc_lagged"
	sel := make([]string, len(def.Columns))
	for i, c := range def.Columns {
		sel[i] = quoteIdentAlways(c)
		if slices.Contains(def.Untracked, c) {
			sel[i] = "last_value(" + sel[i] + ") OVER (PARTITION BY " + keys + ", weir_cdc_version ORDER BY __start_at ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS " + sel[i]
		}
	}
	versioned := "SELECT " + strings.Join(sel, ", ") + ", weir_cdc_delete, weir_cdc_opens, __start_at FROM (" + numbered + ") AS weir_cdc_numbered"
	return "SELECT * FROM (" + versioned + ") AS weir_cdc_versioned WHERE weir_cdc_opens"
}
