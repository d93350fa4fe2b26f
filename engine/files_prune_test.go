package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// Column pruning of files inputs: a streaming table decodes only the
// columns its plan reads (planner.Relation.Reads), and reads every one
// when it reads the rescued column. Tables reading few columns, all of
// them (SELECT *, _metadata), the rescued column, and none (count(*))
// over the same files — with values that do not parse in read and in
// unread columns, fields the schema lacks, malformed lines and rows —
// give the rows PostgreSQL computes from the same lines.

// pruneLines are the JSON lines and CSV records of file k: every fifth
// line's amount is not a number, every seventh's n not an integer, every
// eleventh line is not JSON (has the wrong cell count), every thirteenth
// has a field the schema lacks (JSON only).
func pruneLines(k, n int) (jsonText, csvText string) {
	var j, c strings.Builder
	c.WriteString("id,kind,amount,n,note\n")
	kinds := []string{"view", "buy", "cart"}
	for i := k * n; i < (k+1)*n; i++ {
		if i%11 == 10 {
			fmt.Fprintf(&j, "{\"id\": %d, \"kind\": oops}\n", i)
			fmt.Fprintf(&c, "%d,%s\n", i, kinds[i%3])
			continue
		}
		amount, camount := fmt.Sprintf("%d.25", i%9), fmt.Sprintf("%d.25", i%9)
		if i%5 == 4 {
			amount, camount = `"x`+fmt.Sprint(i)+`"`, "x"+fmt.Sprint(i)
		}
		nv, cn := fmt.Sprint(i%4), fmt.Sprint(i%4)
		if i%7 == 6 {
			nv, cn = `"bad"`, "bad"
		}
		extra := ""
		if i%13 == 12 {
			extra = `, "extra": [1, 2]`
		}
		fmt.Fprintf(&j, `{"id": %d, "kind": "%s", "amount": %s, "n": %s, "note": "note %d"%s}`+"\n", i, kinds[i%3], amount, nv, i, extra)
		fmt.Fprintf(&c, "%d,%s,%s,%s,note %d\n", i, kinds[i%3], camount, cn, i)
	}
	return j.String(), c.String()
}

// pgPruneJSON and pgPruneCSV are the oracle's rows of raw's lines:
// id, kind, amount, n, note and the rescued data (without _file_path and
// _line), as weir's files source gives them.
var pgPruneFuncs = []string{
	`CREATE FUNCTION try_float8(t text) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN RETURN t::float8; EXCEPTION WHEN others THEN RETURN NULL; END $$`,
	`CREATE FUNCTION try_int8(t text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN RETURN t::bigint; EXCEPTION WHEN others THEN RETURN NULL; END $$`,
	`CREATE FUNCTION try_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN RETURN t::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$`,
	`CREATE FUNCTION nonempty(j jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN j = '{}' THEN NULL ELSE j END $$`,
}

const pgPruneJSON = `(SELECT CASE WHEN ok THEN (j->>'id')::bigint END AS id, CASE WHEN ok THEN j->>'kind' END AS kind,
	CASE WHEN ok AND jsonb_typeof(j->'amount') = 'number' THEN (j->>'amount')::float8 END AS amount,
	CASE WHEN ok AND jsonb_typeof(j->'n') = 'number' THEN (j->>'n')::bigint END AS n,
	CASE WHEN ok THEN j->>'note' END AS note,
	CASE WHEN NOT ok THEN jsonb_build_object('_corrupt_record', line)
		ELSE nonempty(jsonb_strip_nulls(jsonb_build_object(
			'amount', CASE WHEN jsonb_typeof(j->'amount') <> 'number' THEN j->'amount' END,
			'n', CASE WHEN jsonb_typeof(j->'n') <> 'number' THEN j->'n' END,
			'extra', j->'extra'))) END AS resc
	FROM (SELECT line, try_jsonb(line) AS j, try_jsonb(line) IS NOT NULL AS ok FROM raw) r) AS e`

const pgPruneCSV = `(SELECT CASE WHEN ok THEN c[1]::bigint END AS id, CASE WHEN ok THEN c[2] END AS kind,
	CASE WHEN ok THEN try_float8(c[3]) END AS amount, CASE WHEN ok THEN try_int8(c[4]) END AS n,
	CASE WHEN ok THEN c[5] END AS note,
	CASE WHEN NOT ok THEN jsonb_build_object('_corrupt_record', line)
		ELSE nonempty(jsonb_strip_nulls(jsonb_build_object(
			'amount', CASE WHEN try_float8(c[3]) IS NULL THEN to_jsonb(c[3]) END,
			'n', CASE WHEN try_int8(c[4]) IS NULL THEN to_jsonb(c[4]) END))) END AS resc
	FROM (SELECT line, string_to_array(line, ',') AS c, cardinality(string_to_array(line, ',')) = 5 AS ok
		FROM raw WHERE line <> 'id,kind,amount,n,note') r) AS e`

// rescParts are the entries of rescued data r that the lines decide
// (_file_path and _line left out), and whether there is any.
func rescParts(r string) string {
	return fmt.Sprintf("(%[1]s->'amount')::text, (%[1]s->'n')::text, (%[1]s->'extra')::text, %[1]s->>'_corrupt_record', %[1]s IS NULL", r)
}

func TestReadFilesPrunedColumns(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	pgJSON, pgCSV := pgFiles(t), pgFiles(t)
	for _, f := range pgPruneFuncs {
		mustExec(t, pgJSON, f)
		mustExec(t, pgCSV, f)
	}
	for k := 0; k < 3; k++ {
		j, c := pruneLines(k, 700)
		loadRaw(t, pgJSON, writeFile(t, root, fmt.Sprintf("json/part-%d.json", k), j))
		loadRaw(t, pgCSV, writeFile(t, root, fmt.Sprintf("csv/part-%d.csv", k), c))
	}
	const schema = `schema => 'id BIGINT, kind STRING, amount DOUBLE, n BIGINT, note STRING', schemaEvolutionMode => 'rescue'`
	for _, f := range []struct {
		name, call, pg string
		pgConn         int
	}{
		{"json", `read_files('json', format => 'json', ` + schema + `)`, pgPruneJSON, 0},
		{"csv", `read_files('csv', format => 'csv', header => true, ` + schema + `)`, pgPruneCSV, 1},
	} {
		pg := pgJSON
		if f.pgConn == 1 {
			pg = pgCSV
		}
		t.Run(f.name, func(t *testing.T) {
			tables := []struct{ create, weir, pg string }{
				// Two columns of five, rescued data not read.
				{`SELECT kind, count(*) AS c, sum(amount) AS total, count(amount) AS amounts FROM STREAM %s GROUP BY kind`,
					`SELECT kind, c, total, amounts FROM %s ORDER BY kind NULLS FIRST`,
					`SELECT kind, count(*), sum(amount), count(amount) FROM ` + f.pg + ` GROUP BY kind ORDER BY kind NULLS FIRST`},
				// A filter on one column, another projected.
				{`SELECT id, n FROM STREAM %s WHERE kind = 'buy'`,
					`SELECT id, n FROM %s ORDER BY id`,
					`SELECT id, n FROM ` + f.pg + ` WHERE kind = 'buy' ORDER BY id`},
				// Every column, the rescued column and _metadata.
				{`SELECT *, _metadata.file_name AS file FROM STREAM %s`,
					`SELECT id, kind, amount, n, note, ` + rescParts("_rescued_data") + `, file LIKE 'part-_.%%' FROM %s ORDER BY id, 6, 9`,
					`SELECT id, kind, amount, n, note, ` + rescParts("resc") + `, true FROM ` + f.pg + ` ORDER BY id, 6, 9`},
				// The rescued column and one other: every column decoded.
				{`SELECT id, _rescued_data AS r FROM STREAM %s`,
					`SELECT id, ` + rescParts("r") + ` FROM %s ORDER BY id, 5`,
					`SELECT id, ` + rescParts("resc") + ` FROM ` + f.pg + ` ORDER BY id, 5`},
				// No column at all: every row still counts.
				{`SELECT count(*) AS c FROM STREAM %s`,
					`SELECT c FROM %s`,
					`SELECT count(*) FROM ` + f.pg},
			}
			for i, tb := range tables {
				name := fmt.Sprintf("pruned_%s_%d", f.name, i)
				srcExec(t, w, "CREATE STREAMING TABLE "+name+" AS "+fmt.Sprintf(tb.create, f.call))
				waitSame(t, w, pg, fmt.Sprintf(tb.weir, name), tb.pg)
			}
		})
	}
}
