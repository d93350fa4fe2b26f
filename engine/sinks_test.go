package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/connector/filesink"
	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// The orders both weir and PostgreSQL get, in batches: each INSERT is an
// epoch (or a few) of the streaming tables.
var sinkOrders = [][]string{
	{`(1, 'eu', 10.50, 'first', '2024-01-01 10:00:00+00')`, `(2, 'us', -3.00, NULL, '2024-01-01 10:01:00+00')`},
	{`(3, 'eu', 7.25, '', '2024-01-01 10:02:00+00')`, `(4, 'a/b=c', 1.00, 'comma, "quote"', '2024-01-01 10:03:00+00')`},
	{`(5, 'us', 99.99, 'x', '2024-01-01 10:04:00.123456+00')`},
	{`(6, NULL, 5.00, 'no region', '2024-01-01 10:05:00+00')`, `(7, 'eu', 0.01, 'tiny', '2024-01-01 10:06:00+00')`},
}

const sinkOrdersTable = `CREATE TABLE orders (order_id bigint, region text, amount numeric(18,2), note text, ts timestamptz)`

func execAll(t *testing.T, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s (now: %s)", what, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// manifestRows is how many rows the live files of a sink folder hold.
func manifestRows(t *testing.T, dir string) int64 {
	ms, err := filesink.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range filesink.LiveFiles(ms) {
		n += f.Rows
	}
	return n
}

// pgRows runs q on PostgreSQL and returns the rows as text ("|"-joined,
// NULL as \N), sorted.
func pgRows(t *testing.T, c *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := rows.RawValues()
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				parts[i] = `\N`
			} else {
				parts[i] = string(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// parquetRows reads the sink's Parquet files that the manifests make up
// with arrow-go's reader, independently of the sink's code: each row as
// "order_id|region|amount|note|ts micros" (region from the Hive folder).
func parquetRows(t *testing.T, dir string) []string {
	t.Helper()
	ms, err := filesink.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range filesink.LiveFiles(ms) {
		region := `\N`
		if v, ok := strings.CutPrefix(f.Partition, "region="); ok && v != filesink.NullPartition {
			region = strings.NewReplacer("%2F", "/", "%3D", "=").Replace(v)
		}
		fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := pqarrow.ReadTable(context.Background(), fh, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		tr := array.NewTableReader(tbl, 1024)
		for tr.Next() {
			b := tr.RecordBatch()
			col := func(name string) arrow.Array {
				idx := b.Schema().FieldIndices(name)
				if len(idx) != 1 {
					t.Fatalf("%s: no column %s in %v", f.Path, name, b.Schema())
				}
				return b.Column(idx[0])
			}
			ids, amounts, notes, tss := col("order_id").(*array.Int64), col("amount").(*array.Decimal128), col("note").(*array.String), col("ts").(*array.Timestamp)
			scale := amounts.DataType().(*arrow.Decimal128Type).Scale
			for i := 0; i < int(b.NumRows()); i++ {
				note := `\N`
				if !notes.IsNull(i) {
					note = notes.Value(i)
				}
				out = append(out, fmt.Sprintf("%d|%s|%s|%s|%d", ids.Value(i), region, amounts.Value(i).ToString(scale), note, int64(tss.Value(i))))
			}
		}
		tr.Release()
		tbl.Release()
	}
	sort.Strings(out)
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot:\n%s\nwant (PostgreSQL):\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An append-mode streaming table's files sink: a sink created on a table
// that has rows starts with its contents, then gets every later epoch's
// rows; the Parquet files, read back with arrow-go following the
// manifests, hold PostgreSQL's result of the same query over the same
// rows, each row once.
func TestFilesSinkParquetAppend(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	dir := filepath.Join(t.TempDir(), "lake", "silver")
	execAll(t, c, sinkOrdersTable)
	execAll(t, pg, sinkOrdersTable)
	insert := func(i int) {
		stmt := "INSERT INTO orders VALUES " + strings.Join(sinkOrders[i], ", ")
		execAll(t, c, stmt)
		execAll(t, pg, stmt)
	}
	insert(0)
	execAll(t, c, `CREATE STREAMING TABLE silver AS SELECT order_id, region, amount, note, ts FROM STREAM orders WHERE amount > 0`)
	waitUntil(t, "silver's first rows", func() (bool, string) {
		var n int64
		c.QueryRow(context.Background(), "SELECT count(*) FROM silver").Scan(&n)
		return n == 1, fmt.Sprint(n)
	})
	execAll(t, c, fmt.Sprintf(`CREATE SINK silver_files FROM silver WITH (connector = 'files', path = '%s', format = 'parquet', partition_by = 'region', target_file_size = '4kB')`, dir))
	for i := 1; i < len(sinkOrders); i++ {
		insert(i)
	}
	const q = `SELECT order_id, region, amount, note, (extract(epoch FROM ts) * 1000000)::bigint FROM orders WHERE amount > 0`
	want := pgRows(t, pg, q)
	waitUntil(t, "the sink's files", func() (bool, string) {
		n := manifestRows(t, dir)
		return n == int64(len(want)), fmt.Sprint(n, " rows")
	})
	sameLines(t, "the sink's Parquet files", parquetRows(t, dir), want)

	// SHOW SINKS: the sink runs and has committed an epoch.
	var name, from, conn, opts, state string
	var last *int64
	var errText *string
	if err := c.QueryRow(context.Background(), "SHOW SINKS").Scan(&name, &from, &conn, &opts, &state, &last, &errText); err != nil {
		t.Fatal(err)
	}
	if name != "silver_files" || from != "silver" || conn != "files" || state != "running" || last == nil || *last < 1 || errText != nil ||
		!strings.Contains(opts, "format=parquet") || !strings.Contains(opts, "partition_by=region") {
		t.Errorf("SHOW SINKS: %s %s %s %q %s %v %v", name, from, conn, opts, state, last, errText)
	}
	// No temporary file is left, and a glob of part-* files reads the same
	// set as the manifests.
	var parts, temps int
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), ".tmp-") {
			temps++
		}
		if strings.HasPrefix(d.Name(), "part-") {
			parts++
		}
		return nil
	})
	ms, _ := filesink.ReadManifests(dir)
	if live := len(filesink.LiveFiles(ms)); temps != 0 || parts != live {
		t.Errorf("%d temporary files, %d part files, %d in the manifests", temps, parts, live)
	}

	// A restart delivers nothing twice and the sink goes on.
	srv.stop()
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{os.TempDir()}})
	c = srv.connect(t)
	extra := `(8, 'us', 2.50, 'after restart', '2024-01-01 11:00:00+00')`
	execAll(t, c, "INSERT INTO orders VALUES "+extra)
	execAll(t, pg, "INSERT INTO orders VALUES "+extra)
	want = pgRows(t, pg, q)
	waitUntil(t, "the row after the restart", func() (bool, string) {
		n := manifestRows(t, dir)
		return n == int64(len(want)), fmt.Sprint(n, " rows")
	})
	sameLines(t, "the sink's Parquet files after a restart", parquetRows(t, dir), want)
}

// An update-mode table's sink gets its changes with _change_type and
// _commit_version: applied in order (the manifests', then the files'),
// they make PostgreSQL's GROUP BY result.
func TestFilesSinkJSONUpdateMode(t *testing.T) {
	for _, mode := range []string{"update", "complete"} {
		t.Run(mode, func(t *testing.T) { testFilesSinkChanges(t, mode) })
	}
}

func testFilesSinkChanges(t *testing.T, mode string) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	dir := filepath.Join(t.TempDir(), "gold")
	execAll(t, c, sinkOrdersTable)
	execAll(t, pg, sinkOrdersTable)
	execAll(t, c, `CREATE STREAMING TABLE totals WITH (output_mode = '`+mode+`') AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM orders GROUP BY region`)
	execAll(t, c, fmt.Sprintf(`CREATE SINK totals_json FROM totals WITH (connector = 'files', path = '%s', format = 'json')`, dir))
	for _, batch := range sinkOrders {
		stmt := "INSERT INTO orders VALUES " + strings.Join(batch, ", ")
		execAll(t, c, stmt)
		execAll(t, pg, stmt)
	}
	want := pgRows(t, pg, `SELECT coalesce(region, '\N'), count(*), sum(amount) FROM orders GROUP BY region`)
	apply := func() ([]string, string) {
		ms, err := filesink.ReadManifests(dir)
		if err != nil {
			t.Fatal(err)
		}
		cur := map[string]string{}
		var versions []int64
		for _, f := range filesink.LiveFiles(ms) {
			fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				var row struct {
					Region  *string     `json:"region"`
					N       json.Number `json:"n"`
					Total   json.Number `json:"total"`
					Change  string      `json:"_change_type"`
					Version int64       `json:"_commit_version"`
				}
				d := json.NewDecoder(strings.NewReader(sc.Text()))
				d.UseNumber()
				if err := d.Decode(&row); err != nil {
					t.Fatalf("%s: %v", sc.Text(), err)
				}
				region := `\N`
				if row.Region != nil {
					region = *row.Region
				}
				versions = append(versions, row.Version)
				switch row.Change {
				case "insert":
					cur[region] = region + "|" + row.N.String() + "|" + row.Total.String()
				case "delete":
					delete(cur, region)
				default:
					t.Fatalf("_change_type %q", row.Change)
				}
			}
			fh.Close()
		}
		if !sort.SliceIsSorted(versions, func(i, j int) bool { return versions[i] < versions[j] }) {
			t.Errorf("_commit_version out of order: %v", versions)
		}
		var out []string
		for _, v := range cur {
			out = append(out, v)
		}
		sort.Strings(out)
		return out, strings.Join(out, ",")
	}
	waitUntil(t, "the changes to make PostgreSQL's result", func() (bool, string) {
		got, s := apply()
		return strings.Join(got, "\n") == strings.Join(want, "\n"), s
	})
}

// A sink whose folder goes away fails, with the reason in SHOW SINKS;
// its table goes on.
func TestFilesSinkFailureLeavesTableRunning(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	dir := filepath.Join(t.TempDir(), "out")
	execAll(t, c, sinkOrdersTable,
		`CREATE STREAMING TABLE silver AS SELECT * FROM STREAM orders`,
		fmt.Sprintf(`CREATE SINK s1 FROM silver WITH (connector = 'files', path = '%s', format = 'csv')`, dir),
		"INSERT INTO orders VALUES "+strings.Join(sinkOrders[0], ", "))
	waitUntil(t, "the first rows in the sink", func() (bool, string) {
		n := manifestRows(t, dir)
		return n == 2, fmt.Sprint(n)
	})
	// The folder is replaced by a file: nothing can be written under it.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	execAll(t, c, "INSERT INTO orders VALUES "+strings.Join(sinkOrders[1], ", "))
	waitUntil(t, "the sink to fail", func() (bool, string) {
		var state string
		var errText *string
		if err := c.QueryRow(context.Background(), "SELECT state, error FROM (SHOW SINKS) s").Scan(&state, &errText); err != nil {
			// SHOW is not a subquery in every dialect: fall back to reading all.
			rows, _ := c.Query(context.Background(), "SHOW SINKS")
			for rows.Next() {
				v, _ := rows.Values()
				state = fmt.Sprint(v[4])
				if v[6] != nil {
					s := fmt.Sprint(v[6])
					errText = &s
				}
			}
			rows.Close()
		}
		return state == "failed" && errText != nil && strings.Contains(*errText, dir), fmt.Sprint(state, errText)
	})
	waitUntil(t, "the table to go on", func() (bool, string) {
		var n int64
		c.QueryRow(context.Background(), "SELECT count(*) FROM silver").Scan(&n)
		return n == 4, fmt.Sprint(n)
	})
	var status string
	if err := c.QueryRow(context.Background(), "SELECT status FROM (SHOW STREAMING TABLES) s").Scan(&status); err == nil && status != "running" {
		t.Errorf("the table is %s", status)
	}
	// With its folder back, REFRESH retries the sink: it gets every epoch
	// it lacks, once.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	execAll(t, c, "REFRESH STREAMING TABLE silver")
	waitUntil(t, "the sink to catch up", func() (bool, string) {
		n := manifestRows(t, dir)
		return n == 4, fmt.Sprint(n)
	})
	var state string
	rows, err := c.Query(context.Background(), "SHOW SINKS")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		v, _ := rows.Values()
		state = fmt.Sprint(v[4])
	}
	rows.Close()
	if state != "running" {
		t.Errorf("after REFRESH the sink is %s", state)
	}
}

// The statements' errors, with PostgreSQL's SQLSTATEs.
func TestSinkStatementErrors(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	dir := t.TempDir()
	execAll(t, c, sinkOrdersTable, `CREATE STREAMING TABLE silver AS SELECT * FROM STREAM orders`)
	for _, tc := range []struct{ sql, code string }{
		{`CREATE SINK s FROM silver WITH (connector = 'postgres', url = 'postgres://x', table = 't')`, "0A000"},
		{`CREATE SINK s FROM silver WITH (connector = 'kafka', topic = 't', bootstrap_servers = '127.0.0.1:1')`, "08001"}, // kafka_test.go tests the connector
		{`CREATE SINK s FROM silver WITH (connector = 'postgres', url = 'x')`, "0A000"},
		{`CREATE SINK s AS SELECT * FROM silver WITH (connector = 'files', path = 'x')`, "0A000"},
		{`CREATE SINK s FROM silver WITH (connector = 'nope')`, "22023"},
		// Sink folders are under the files roots, as COPY TO 'file' is.
		{`CREATE SINK s FROM silver WITH (connector = 'files', path = '/proc/weir_out')`, "42501"},
		{`CREATE SINK s FROM silver WITH (connector = 'files', path = '../../../../../../../etc/weir_out')`, "42501"},
		{`CREATE SINK s FROM silver WITH (connector = 'iceberg', warehouse = '/proc/lake', namespace = 'n', table = 't')`, "42501"},
		{`CREATE SINK s FROM silver WITH (path = 'x')`, "22023"},
		{`CREATE SINK s FROM silver WITH (connector = 'files')`, "22023"},
		{`CREATE SINK s FROM silver WITH (connector = 'files', path = 'x', format = 'avro')`, "22023"},
		{`CREATE SINK s FROM silver WITH (connector = 'files', path = 'x', target_file_size = 'big')`, "22023"},
		{`CREATE SINK s FROM silver WITH (connector = 'files', path = 'x', partition_by = 'nope')`, "42703"},
		{`CREATE SINK s FROM silver WITH (connector = 'files', path = 'x', colour = 'red')`, "22023"},
		{`CREATE SINK s FROM orders WITH (connector = 'files', path = 'x')`, "42809"},
		{`CREATE SINK s FROM nope WITH (connector = 'files', path = 'x')`, "42P01"},
		{`CREATE SINK s FROM silver`, "42601"},
		{`DROP SINK nope`, "42704"},
		{`SHOW SINKS x`, "42601"},
	} {
		_, err := c.Exec(context.Background(), tc.sql)
		if code := sqlState(err); code != tc.code {
			t.Errorf("%s: %v, want SQLSTATE %s", tc.sql, err, tc.code)
		}
	}
	execAll(t, c, fmt.Sprintf(`CREATE SINK s FROM silver WITH (connector = 'files', path = '%s')`, dir),
		fmt.Sprintf(`CREATE SINK IF NOT EXISTS s FROM silver WITH (connector = 'files', path = '%s')`, dir),
		`DROP SINK IF EXISTS nope`)
	for _, tc := range []struct{ sql, code string }{
		{fmt.Sprintf(`CREATE SINK s FROM silver WITH (connector = 'files', path = '%s/other')`, dir), "42710"},
		{fmt.Sprintf(`CREATE SINK s2 FROM silver WITH (connector = 'files', path = '%s')`, dir), "22023"},
		{`DROP STREAMING TABLE silver`, "2BP01"},
		{`CREATE OR REFRESH STREAMING TABLE silver AS SELECT * FROM STREAM orders`, "2BP01"},
	} {
		_, err := c.Exec(context.Background(), tc.sql)
		if code := sqlState(err); code != tc.code {
			t.Errorf("%s: %v, want SQLSTATE %s", tc.sql, err, tc.code)
		}
	}
	execAll(t, c, `DROP STREAMING TABLE silver CASCADE`)
	var n int
	rows, err := c.Query(context.Background(), "SHOW SINKS")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		n++
	}
	rows.Close()
	if n != 0 {
		t.Errorf("SHOW SINKS after DROP ... CASCADE: %d sinks", n)
	}
}

func sqlState(err error) string {
	if e := asPgError(err); e != nil {
		return e.Code
	}
	if err != nil {
		return "?"
	}
	return ""
}

// REFRESH ... FULL recomputes the table from epoch 1: its sinks get the
// recomputed rows as new epochs after the ones they hold (append mode:
// the rows again), and then the later epochs.
func TestFilesSinkAfterRefreshFull(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	dir := filepath.Join(t.TempDir(), "out")
	execAll(t, c, sinkOrdersTable,
		`CREATE STREAMING TABLE silver AS SELECT * FROM STREAM orders`,
		fmt.Sprintf(`CREATE SINK s1 FROM silver WITH (connector = 'files', path = '%s', format = 'json')`, dir),
		"INSERT INTO orders VALUES "+strings.Join(sinkOrders[0], ", "))
	rows := func(want int64) {
		t.Helper()
		waitUntil(t, fmt.Sprintf("%d rows in the sink", want), func() (bool, string) {
			n := manifestRows(t, dir)
			return n == want, fmt.Sprint(n)
		})
	}
	rows(2)
	execAll(t, c, "REFRESH STREAMING TABLE silver FULL")
	rows(4)
	execAll(t, c, "INSERT INTO orders VALUES "+strings.Join(sinkOrders[2], ", "))
	rows(5)
	ms, err := filesink.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].Epoch <= ms[i-1].Epoch {
			t.Fatalf("manifest epochs out of order: %d after %d", ms[i].Epoch, ms[i-1].Epoch)
		}
	}
}
