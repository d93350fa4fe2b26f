package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/state"
)

// Files sources over the real wire: files written to a temp folder,
// read with read_files (batch and streaming) and CREATE SOURCE, compared
// with PostgreSQL's batch SQL over the same rows loaded with COPY.

// filesServer starts a server whose files root is a fresh folder.
func filesServer(t *testing.T) (*server, string) {
	t.Helper()
	root := t.TempDir()
	return startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}}), root
}

// writeFile writes a whole file under root and dates it a minute back, so
// that discovery's completeness rule takes it as complete at once.
func writeFile(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(tmp, past, past); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonEvents is n JSON lines of events starting at id first.
func jsonEvents(first, n int) string {
	var b strings.Builder
	kinds := []string{"click", "view", "buy"}
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"id": %d, "kind": "%s", "amount": %d.5, "ts": "2026-01-01T00:%02d:%02dZ"}`+"\n", i, kinds[i%3], i%7, (i/60)%60, i%60)
	}
	return b.String()
}

// pgFiles is a fresh PostgreSQL database with a table raw(line text)
// that loadRaw fills with the lines of files, read by PostgreSQL's own
// server-side COPY: the oracle reads the very files weir reads.
func pgFiles(t *testing.T) *pgx.Conn {
	t.Helper()
	pg := pgtest.Shared(t)
	c, err := pgx.Connect(context.Background(), pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	mustExec(t, c, "CREATE TABLE raw (line text)")
	return c
}

// loadRaw appends the lines of the file at path to PostgreSQL's raw
// (COPY FROM STDIN of the file's bytes, as written: PostgreSQL's server
// may run as another OS user, who cannot open a test's temp folder).
func loadRaw(t *testing.T, pg *pgx.Conn, path string) {
	t.Helper()
	copyFile(t, pg, path, `COPY raw FROM STDIN WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')`)
}

// copyFile sends the file at path to PostgreSQL as the data of copySQL.
func copyFile(t *testing.T, pg *pgx.Conn, path, copySQL string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := pg.PgConn().CopyFrom(context.Background(), f, copySQL); err != nil {
		t.Fatalf("%s: %v", copySQL, err)
	}
}

// pgEvents is the oracle's view of the JSON events in raw.
const pgEvents = `(SELECT (line::jsonb->>'id')::bigint AS id, line::jsonb->>'kind' AS kind,
	(line::jsonb->>'amount')::float8 AS amount, line::jsonb->>'ts' AS ts FROM raw) AS e`

// sameFileRows fails unless weir's query and PostgreSQL's give the same rows.
func sameFileRows(t *testing.T, w, pg *pgx.Conn, wq, pq string) {
	t.Helper()
	got, want := textRows(t, w, wq), textRows(t, pg, pq)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s\n weir: %q\n   pg: %q", wq, got, want)
	}
}

// TestReadFilesBatch: a plain SELECT over read_files reads the files there
// now, as PostgreSQL reads the same files: JSON lines with inferred types
// and schema hints, CSV with a header, cloud_files' legacy form, and the
// hidden _metadata column.
func TestReadFilesBatch(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", jsonEvents(0, 40)))
	loadRaw(t, pg, writeFile(t, root, "landing/day2/b.json", jsonEvents(40, 25)))

	sameFileRows(t, w, pg, "SELECT kind, count(*), sum(amount), min(id), max(id) FROM read_files('landing', format => 'json') GROUP BY kind ORDER BY kind",
		"SELECT kind, count(*), sum(amount), min(id), max(id) FROM "+pgEvents+" GROUP BY kind ORDER BY kind")
	// schemaHints types a column; the timestamps then compare as PostgreSQL's.
	sameFileRows(t, w, pg, "SELECT min(ts), max(ts), pg_typeof(min(ts))::text FROM read_files('landing/', format => 'json', schemaHints => 'ts timestamptz')",
		"SELECT min(ts::timestamptz), max(ts::timestamptz), 'timestamp with time zone' FROM "+pgEvents)
	// SELECT * leaves _metadata out; the rescued column is a column.
	res, err := w.PgConn().Exec(context.Background(), "SELECT * FROM read_files('landing', format => 'json') LIMIT 1").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range res[0].FieldDescriptions {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "id,kind,amount,ts,_rescued_data" {
		t.Errorf("SELECT * columns: %s", got)
	}
	// _metadata by field and whole.
	if got := textRows(t, w, "SELECT _metadata.file_name, count(*), min(_metadata.file_size) > 0, bool_and(_metadata.file_path LIKE '%/landing/%') FROM read_files('landing', format => 'json') AS f GROUP BY 1 ORDER BY 1"); strings.Join(got, "|") != "a.json\t40\tt\tt|b.json\t25\tt\tt" {
		t.Errorf("_metadata fields: %q", got)
	}
	if got := textRows(t, w, "SELECT (_metadata).file_name, _metadata.file_modification_time < now() FROM read_files('landing/a.json', format => 'json') LIMIT 1"); len(got) != 1 || got[0] != "a.json\tt" {
		t.Errorf("_metadata of one file: %q", got)
	}
	if got := textRows(t, w, "SELECT f._metadata IS NOT NULL FROM read_files('landing', format => 'json') f LIMIT 1"); len(got) != 1 || got[0] != "t" {
		t.Errorf("whole _metadata: %q", got)
	}
	// Auto Loader's legacy spelling.
	sameFileRows(t, w, pg, "SELECT count(*), sum(amount) FROM cloud_files('landing', 'json', map('cloudFiles.schemaHints', 'amount double'))",
		"SELECT count(*), sum(amount) FROM "+pgEvents)
	// A glob.
	sameFileRows(t, w, pg, "SELECT count(*) FROM read_files('landing/*.json', format => 'json')",
		"SELECT count(*) FROM "+pgEvents+" WHERE id < 40")

	// CSV with a header, compared with PostgreSQL's COPY of the same file.
	csv := "id,kind,amount\n"
	for i := 0; i < 30; i++ {
		csv += fmt.Sprintf("%d,%s,%d.25\n", i, []string{"a", "b,c", `"q"`}[i%3], i)
	}
	csv = strings.ReplaceAll(csv, `,"q",`, `,"""q""",`)
	csv = strings.ReplaceAll(csv, `,b,c,`, `,"b,c",`)
	p := writeFile(t, root, "csv/one.csv", csv)
	mustExec(t, pg, "CREATE TABLE c (id bigint, kind text, amount float8)")
	copyFile(t, pg, p, "COPY c FROM STDIN WITH (FORMAT csv, HEADER true)")
	sameFileRows(t, w, pg, "SELECT kind, count(*), sum(amount), sum(id) FROM read_files('csv', format => 'csv', header => true) GROUP BY kind ORDER BY kind",
		"SELECT kind, count(*), sum(amount), sum(id) FROM c GROUP BY kind ORDER BY kind")
}

// TestReadFilesBadInput: each mistake is refused with a clear SQLSTATE.
func TestReadFilesBadInput(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	writeFile(t, root, "landing/a.json", jsonEvents(0, 3))
	writeFile(t, root, "empty/.hidden", "")
	for _, c := range []struct{ sql, code, msg string }{
		{"SELECT * FROM read_files('empty', format => 'json')", "42P18", "cannot infer the schema"},
		{"SELECT * FROM read_files('landing/*.csv', format => 'csv')", "42P18", "no files match"},
		{"SELECT * FROM read_files('nowhere', format => 'json')", "58P01", "No such file or directory"},
		{"SELECT * FROM read_files('landing/a.json/x', format => 'json')", "58P01", "Not a directory"},
		{"SELECT * FROM read_files('landing', format => 'json', bogus => 1)", "22023", "bogus"},
		{"SELECT * FROM read_files('landing')", "22023", "format"},
		{"SELECT * FROM read_files('/Volumes/main/default/landing', format => 'json')", "0A000", "Unity Catalog volumes"},
		{"SELECT * FROM read_files('landing', 'json')", "22023", "named options"},
		{"SELECT * FROM read_files(format => 'json')", "22023", "needs a path"},
		{"SELECT * FROM cloud_files('landing', 'json', 3)", "22023", "map("},
	} {
		pe := srcErr(t, w, c.sql)
		if pe == nil || pe.Code != c.code || !strings.Contains(pe.Message, c.msg) {
			t.Errorf("%s: got %v, want %s ...%s...", c.sql, pe, c.code, c.msg)
		}
	}
	// With a schema, an empty folder is an empty result.
	if got := textRows(t, w, "SELECT count(*) FROM read_files('empty', format => 'json', schema => 'id BIGINT, kind STRING')"); len(got) != 1 || got[0] != "0" {
		t.Errorf("empty folder with a schema: %q", got)
	}
	if got := textRows(t, w, "SELECT 1"); len(got) != 1 {
		t.Errorf("the session goes on: %q", got)
	}
}

// waitSame polls until weir's query gives PostgreSQL's rows, with a
// deadline.
func waitSame(t *testing.T, w, pg *pgx.Conn, wq, pq string) {
	t.Helper()
	want := strings.Join(textRows(t, pg, pq), "\n")
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := w.PgConn().Exec(context.Background(), wq).ReadAll()
		got := ""
		if err == nil {
			var rows []string
			for _, row := range res[0].Rows {
				vals := make([]string, len(row))
				for i, v := range row {
					vals[i] = string(v)
					if v == nil {
						vals[i] = `\N`
					}
				}
				rows = append(rows, strings.Join(vals, "\t"))
			}
			got = strings.Join(rows, "\n")
			if got == want {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not PostgreSQL's rows in 15s (error %v)\n weir: %q\n   pg: %q", wq, err, got, want)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}

// TestReadFilesStreaming: a streaming table over STREAM read_files reads
// the files there at CREATE and those arriving later, each once, across a
// restart; its schema is the one inferred at CREATE even when later files
// carry more fields; streaming_progress shows the files backlog and
// DESCRIBE EXTENDED the input's path, format and schema.
func TestReadFilesStreaming(t *testing.T) {
	root := t.TempDir()
	cfg := engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}}
	srv := startServerWith(t, cfg)
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", jsonEvents(0, 30)))

	srcExec(t, w, `CREATE STREAMING TABLE by_kind AS SELECT kind, count(*) AS n, sum(amount) AS total, max(id) AS top
		FROM STREAM read_files('landing', format => 'json') GROUP BY kind`)
	srcExec(t, w, `CREATE STREAMING TABLE bronze AS SELECT *, _metadata.file_name AS file FROM STREAM read_files('landing', format => 'json', schemaHints => 'ts timestamptz') AS f`)
	// Databricks' GROUP BY ALL over read_files (the call is found in the
	// query Databricks' spellings rewrite, so it is read as a stream).
	srcExec(t, w, `CREATE STREAMING TABLE by_kind_all AS SELECT kind, count(*) AS n, sum(amount) AS total, max(id) AS top
		FROM STREAM read_files('landing', format => 'json') GROUP BY ALL`)
	const aggW = "SELECT kind, n, total, top FROM by_kind ORDER BY kind"
	waitSame(t, w, pg, "SELECT kind, n, total, top FROM by_kind_all ORDER BY kind", "SELECT kind, count(*), sum(amount), max(id) FROM "+pgEvents+" GROUP BY kind ORDER BY kind")
	const aggPG = "SELECT kind, count(*), sum(amount), max(id) FROM " + pgEvents + " GROUP BY kind ORDER BY kind"
	const bronzeW = "SELECT file, count(*), count(DISTINCT id), min(ts), max(ts) FROM bronze GROUP BY file ORDER BY file"
	waitSame(t, w, pg, aggW, aggPG)

	// Files arriving later are read, once each.
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", jsonEvents(30, 20)))
	loadRaw(t, pg, writeFile(t, root, "landing/sub/c.json", jsonEvents(50, 10)))
	waitSame(t, w, pg, aggW, aggPG)
	bronzePG := "SELECT split_part(f, '/', 2), count(*), count(DISTINCT id), min(ts::timestamptz), max(ts::timestamptz) FROM (SELECT *, CASE WHEN id < 30 THEN 'x/a.json' WHEN id < 50 THEN 'x/b.json' ELSE 'x/c.json' END AS f FROM " + pgEvents + ") g GROUP BY 1 ORDER BY 1"
	waitSame(t, w, pg, bronzeW, bronzePG)

	var backlogFiles, backlogBytes *int64
	if err := w.QueryRow(context.Background(), "SELECT backlog_files, backlog_bytes FROM weir_catalog.streaming_progress WHERE name = 'by_kind'").Scan(&backlogFiles, &backlogBytes); err != nil {
		t.Fatal(err)
	}
	if backlogFiles == nil || backlogBytes == nil || *backlogFiles != 0 || *backlogBytes != 0 {
		t.Errorf("backlog of a caught-up table: %v files, %v bytes", backlogFiles, backlogBytes)
	}
	desc := strings.Join(textRows(t, w, "DESCRIBE EXTENDED bronze"), "\n")
	for _, want := range []string{"Files Input 1 Path\t" + root + "/landing", "Files Input 1 Format\tjson", "Files Input 1 Schema\tversion 1: id bigint, kind text, amount double precision, ts timestamp with time zone, _rescued_data jsonb", "Files Input 1 Backlog\t0 files, 0 bytes"} {
		if !strings.Contains(desc, want) {
			t.Errorf("DESCRIBE EXTENDED bronze lacks %q:\n%s", want, desc)
		}
	}

	// A restart, and a file with a field the schema lacks: the table
	// evolves (schemaEvolutionMode addNewColumns, the default): it stops
	// at that file, records the merged schema and restarts on it, so
	// bronze gains the column (before _rescued_data, as the source's
	// schema orders it), the file's row carries its value and the rows
	// stored before read NULL; nothing is read twice.
	srv.stop()
	loadRaw(t, pg, writeFile(t, root, "landing/d.json", `{"id": 60, "kind": "view", "amount": 1.5, "ts": "2026-01-01T01:00:00Z", "extra": "x"}`+"\n"))
	srv = startServerWith(t, cfg)
	w = srv.connect(t)
	waitSame(t, w, pg, aggW, aggPG)
	waitSame(t, w, pg, "SELECT count(*), count(DISTINCT id), count(extra), max(extra) FROM bronze", "SELECT count(*), count(DISTINCT id), 1, 'x' FROM "+pgEvents)
	res, err := w.PgConn().Exec(context.Background(), "SELECT * FROM bronze LIMIT 1").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range res[0].FieldDescriptions {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "id,kind,amount,ts,extra,_rescued_data,file" {
		t.Errorf("bronze's columns after evolution: %s", got)
	}
	if got := textRows(t, w, "SELECT extra, _rescued_data IS NULL FROM bronze WHERE id = 60"); len(got) != 1 || got[0] != "x\tt" {
		t.Errorf("the new field's row: %q", got)
	}
	desc = strings.Join(textRows(t, w, "DESCRIBE EXTENDED bronze"), "\n")
	if !strings.Contains(desc, "Files Input 1 Schema\tversion 2: id bigint, kind text, amount double precision, ts timestamp with time zone, extra text, _rescued_data jsonb") {
		t.Errorf("DESCRIBE EXTENDED bronze after evolution:\n%s", desc)
	}
	// DROP stops the table and its source, and removes its files log.
	var oid uint32
	if err := w.QueryRow(context.Background(), "SELECT 'bronze'::regclass::oid").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	logKeys := func() int {
		tx := srv.eng.Store().Begin(false)
		defer tx.Discard()
		n := 0
		if err := tx.IteratePrefix(state.FilesLogPrefix(oid), func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if logKeys() == 0 {
		t.Fatalf("bronze has no files log under %q", state.FilesLogPrefix(oid))
	}
	srcExec(t, w, "DROP STREAMING TABLE by_kind")
	srcExec(t, w, "DROP STREAMING TABLE bronze")
	if n := logKeys(); n != 0 {
		t.Errorf("after DROP, %d keys of bronze's files log remain", n)
	}
}

// TestFilesSourceStatement: CREATE SOURCE ... WITH (connector = 'files'),
// with a column list and with inferred columns; a SELECT reads the files
// there now; each streaming table reading the source reads every file
// (its own log); SHOW SOURCES, the catalog and DROP SOURCE.
func TestFilesSourceStatement(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", jsonEvents(0, 20)))

	srcExec(t, w, `CREATE SOURCE events (id bigint, kind text, amount numeric(18,2), ts timestamptz,
		WATERMARK FOR ts AS ts - INTERVAL '1 minute') WITH (connector = 'files', path = 'landing', format = 'json')`)
	srcExec(t, w, `CREATE SOURCE events_inferred WITH (connector = 'files', path = 'landing', format = 'json', schemaHints = 'amount numeric(18,2)')`)
	sameFileRows(t, w, pg, "SELECT kind, count(*), sum(amount), min(ts) FROM events GROUP BY kind ORDER BY kind",
		"SELECT kind, count(*), sum(amount::numeric(18,2)), min(ts::timestamptz) FROM "+pgEvents+" GROUP BY kind ORDER BY kind")
	sameFileRows(t, w, pg, "SELECT kind, count(*), sum(amount) FROM events_inferred GROUP BY kind ORDER BY kind",
		"SELECT kind, count(*), sum(amount::numeric(18,2)) FROM "+pgEvents+" GROUP BY kind ORDER BY kind")
	if got := textRows(t, w, "SELECT count(DISTINCT _metadata.file_name) FROM events"); len(got) != 1 || got[0] != "1" {
		t.Errorf("_metadata of a named source: %q", got)
	}
	for q, want := range map[string]string{
		"SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'events'": "id bigint, kind text, amount numeric, ts timestamp with time zone, _rescued_data jsonb",
		"SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'events_inferred'":            "id, kind, amount, ts, _rescued_data",
		"SELECT relkind FROM pg_class WHERE relname = 'events'": "v",
	} {
		if got := textRows(t, w, q); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
	shown := strings.Join(textRows(t, w, "SHOW SOURCES"), "\n")
	if !strings.Contains(shown, "events\tfiles\t"+root+"/landing\tjson\t") || !strings.Contains(shown, "events_inferred\tfiles\t"+root+"/landing\tjson\t") {
		t.Errorf("SHOW SOURCES:\n%s", shown)
	}
	desc := strings.Join(textRows(t, w, "DESCRIBE EXTENDED events"), "\n")
	if !strings.Contains(desc, "Files Path\t"+root+"/landing") || !strings.Contains(desc, "Files Schema\tversion 1: id bigint, kind text, amount numeric(18,2), ts timestamp with time zone, _rescued_data jsonb") {
		t.Errorf("DESCRIBE EXTENDED events:\n%s", desc)
	}

	// Two readers, each with its own log: both read every file.
	srcExec(t, w, "CREATE STREAMING TABLE r1 AS SELECT kind, count(*) AS n FROM STREAM events GROUP BY kind")
	srcExec(t, w, "CREATE STREAMING TABLE r2 AS SELECT count(*) AS n, sum(amount) AS total FROM STREAM events")
	const r1PG = "SELECT kind, count(*) FROM " + pgEvents + " GROUP BY kind ORDER BY kind"
	waitSame(t, w, pg, "SELECT kind, n FROM r1 ORDER BY kind", r1PG)
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", jsonEvents(20, 15)))
	waitSame(t, w, pg, "SELECT kind, n FROM r1 ORDER BY kind", r1PG)
	waitSame(t, w, pg, "SELECT n, total FROM r2", "SELECT count(*), sum(amount::numeric(18,2)) FROM "+pgEvents)

	// A windowed aggregate on the source's WATERMARK FOR.
	srcExec(t, w, `CREATE STREAMING TABLE per_minute AS SELECT window_start, count(*) AS n FROM TUMBLE(events, ts, INTERVAL '1 minute') GROUP BY window_start EMIT ON WINDOW CLOSE`)
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", `{"id": 100, "kind": "buy", "amount": 1, "ts": "2026-01-01T00:05:00Z"}`+"\n"))
	waitSame(t, w, pg, "SELECT window_start, n FROM per_minute ORDER BY 1",
		"SELECT date_trunc('minute', ts::timestamptz), count(*) FROM "+pgEvents+" WHERE ts::timestamptz < '2026-01-01T00:04:00Z' GROUP BY 1 ORDER BY 1")

	if pe := srcErr(t, w, "DROP SOURCE events"); pe == nil || pe.Code != "2BP01" {
		t.Errorf("DROP SOURCE with readers: %v", pe)
	}
	srcExec(t, w, "DROP SOURCE events CASCADE")
	srcExec(t, w, "DROP SOURCE events_inferred")
	if got := textRows(t, w, "SELECT count(*) FROM pg_class WHERE relname IN ('events', 'r1', 'r2', 'per_minute')"); got[0] != "0" {
		t.Errorf("after DROP SOURCE ... CASCADE: %q", got)
	}

	for _, c := range []struct{ sql, code string }{
		{"CREATE SOURCE s WITH (connector = 'files', format = 'json')", "22023"},
		{"CREATE SOURCE s WITH (connector = 'files', path = 'landing')", "22023"},
		{"CREATE SOURCE s WITH (connector = 'files', path = 'nowhere', format = 'json')", "58P01"},
		{"CREATE SOURCE s WITH (connector = 'files', path = '../', format = 'json')", "42501"},
		{"CREATE SOURCE s (id bigint, _metadata text) WITH (connector = 'files', path = 'landing', format = 'json')", "42701"},
		{"CREATE SOURCE s (id bigint, _rescued_data jsonb) WITH (connector = 'files', path = 'landing', format = 'json')", "42701"},
		{"CREATE SOURCE s WITH (connector = 'files', path = '/Volumes/x/y', format = 'json')", "0A000"},
	} {
		if pe := srcErr(t, w, c.sql); pe == nil || pe.Code != c.code {
			t.Errorf("%s: %v, want %s", c.sql, pe, c.code)
		}
	}
}

// TestReadFilesWindows: an event-time window over read_files, with the
// query's WATERMARK clause and with TUMBLE's table argument, gives
// PostgreSQL's per-window counts once the windows close.
func TestReadFilesWindows(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", jsonEvents(0, 200)))
	srcExec(t, w, `CREATE STREAMING TABLE per_minute AS
		SELECT window_start, kind, count(*) AS n, sum(amount) AS total
		FROM STREAM read_files('landing', format => 'json', schemaHints => 'ts timestamptz') AS e
		WATERMARK ts DELAY OF INTERVAL '10 seconds'
		WINDOW TUMBLING (SIZE INTERVAL '1 minute')
		GROUP BY window_start, kind EMIT ON WINDOW CLOSE`)
	srcExec(t, w, `CREATE STREAMING TABLE per_minute_tvf AS
		SELECT window_start, count(*) AS n
		FROM TUMBLE(read_files('landing', format => 'json', schemaHints => 'ts timestamptz'), ts, INTERVAL '1 minute')
		GROUP BY window_start`)
	// The windows before the last event's minute, less the delay, close.
	waitSame(t, w, pg, "SELECT window_start, kind, n, total FROM per_minute ORDER BY 1, 2",
		"SELECT date_trunc('minute', ts::timestamptz), kind, count(*), sum(amount) FROM "+pgEvents+
			" WHERE ts::timestamptz < '2026-01-01T00:03:00Z' GROUP BY 1, 2 ORDER BY 1, 2")
	waitSame(t, w, pg, "SELECT window_start, n FROM per_minute_tvf ORDER BY 1",
		"SELECT date_trunc('minute', ts::timestamptz), count(*) FROM "+pgEvents+" GROUP BY 1 ORDER BY 1")
	// A flow reading files, Databricks' form, keeps its schema too.
	srcExec(t, w, "CREATE OR REFRESH STREAMING TABLE flowed")
	srcExec(t, w, "CREATE FLOW f AS INSERT INTO flowed BY NAME SELECT kind, id FROM STREAM read_files('landing', format => 'json')")
	waitSame(t, w, pg, "SELECT kind, count(*), sum(id) FROM flowed GROUP BY 1 ORDER BY 1", "SELECT kind, count(*), sum(id) FROM "+pgEvents+" GROUP BY 1 ORDER BY 1")
	// The same window function in a batch SELECT reads the files there now.
	sameFileRows(t, w, pg, "SELECT window_start, count(*) FROM TUMBLE(read_files('landing', format => 'json', schemaHints => 'ts timestamptz'), ts, INTERVAL '1 minute') GROUP BY 1 ORDER BY 1",
		"SELECT date_trunc('minute', ts::timestamptz), count(*) FROM "+pgEvents+" GROUP BY 1 ORDER BY 1")
}

// TestReadFilesAvailableNow: trigger = 'available_now' over files, a
// file per trigger: the table reads what is there, and REFRESH returns
// once the files there when it ran are read.
func TestReadFilesAvailableNow(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	for i := 0; i < 3; i++ {
		writeFile(t, root, fmt.Sprintf("landing/%d.json", i), jsonEvents(i*10, 10))
	}
	srcExec(t, w, `CREATE STREAMING TABLE once WITH (trigger = 'available_now') AS
		SELECT count(*) AS n, count(DISTINCT _metadata.file_name) AS files FROM STREAM read_files('landing', format => 'json', maxFilesPerTrigger => 1)`)
	waitFor(t, w, "SELECT n = 30 AND files = 3 FROM once")
	for i := 3; i < 6; i++ {
		writeFile(t, root, fmt.Sprintf("landing/%d.json", i), jsonEvents(i*10, 10))
	}
	srv.eng.RescanFiles() // discovery has seen them (no wait on fsnotify)
	srcExec(t, w, "REFRESH STREAMING TABLE once")
	if got := textRows(t, w, "SELECT n, files FROM once"); len(got) != 1 || got[0] != "60\t6" {
		t.Errorf("after REFRESH: %q, want 60 rows of 6 files", got)
	}
}

// TestFilesMedallion: files → bronze (read_files) → silver (DISTINCT ON
// the event id, with a watermark) → gold (one-minute windows per kind),
// with duplicated events across files, each layer compared with
// PostgreSQL's batch SQL over the same rows.
func TestFilesMedallion(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", jsonEvents(0, 150)))
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", jsonEvents(100, 100))) // ids 100..149 twice
	srcExec(t, w, `CREATE STREAMING TABLE bronze AS SELECT *, _metadata.file_name AS file
		FROM STREAM read_files('landing', format => 'json', schemaHints => 'ts timestamptz')`)
	srcExec(t, w, `CREATE STREAMING TABLE silver AS SELECT DISTINCT ON (id) id, kind, amount, ts
		FROM STREAM bronze WATERMARK ts DELAY OF INTERVAL '30 seconds'`)
	srcExec(t, w, `CREATE STREAMING TABLE gold AS SELECT window_start, kind, count(*) AS n, sum(amount) AS total
		FROM STREAM silver WATERMARK ts DELAY OF INTERVAL '30 seconds' WINDOW TUMBLING (SIZE INTERVAL '1 minute')
		GROUP BY window_start, kind EMIT ON WINDOW CLOSE`)
	// A late file moves the watermark past every window of the first two.
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", `{"id": 1000, "kind": "buy", "amount": 1.5, "ts": "2026-01-01T00:10:00Z"}`+"\n"))
	const dedup = "(SELECT DISTINCT ON (id) * FROM " + pgEvents + " ORDER BY id) d"
	waitSame(t, w, pg, "SELECT count(*), count(DISTINCT file), sum(id) FROM bronze", "SELECT count(*), 3, sum(id) FROM "+pgEvents)
	waitSame(t, w, pg, "SELECT count(*), count(DISTINCT id), sum(id) FROM silver",
		"SELECT count(*), count(DISTINCT id), sum(id) FROM "+dedup)
	waitSame(t, w, pg, "SELECT window_start, kind, n, total FROM gold ORDER BY 1, 2",
		"SELECT date_trunc('minute', ts::timestamptz), kind, count(*), sum(amount) FROM "+dedup+
			" WHERE ts::timestamptz < '2026-01-01T00:09:00Z' GROUP BY 1, 2 ORDER BY 1, 2")
}
