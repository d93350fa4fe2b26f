package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/engine"
)

// The schemaEvolutionMode options of a streaming table over read_files,
// each checked against PostgreSQL's rows from the same files (its raw
// table, the JSON lines as written): Databricks' table of modes
// (addNewColumns: the stream stops on the new column and runs on the
// merged schema after the restart; rescue: never evolves, new fields in
// the rescued-data column; failOnNewColumns: fails until the schema is
// changed; none: new fields ignored).

// evolutionEvents is n JSON lines {id, kind} from id first, each with
// "extra": "e<id>" when extra.
func evolutionEvents(first, n int, extra bool) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		if extra {
			fmt.Fprintf(&b, `{"id": %d, "kind": "k%d", "extra": "e%d"}`+"\n", i, i%3, i)
		} else {
			fmt.Fprintf(&b, `{"id": %d, "kind": "k%d"}`+"\n", i, i%3)
		}
	}
	return b.String()
}

const pgEvolution = `(SELECT (line::jsonb->>'id')::bigint AS id, line::jsonb->>'kind' AS kind, line::jsonb->>'extra' AS extra FROM raw) AS e`

func columnNames(t *testing.T, w *pgx.Conn, table string) string {
	t.Helper()
	res, err := w.PgConn().Exec(context.Background(), "SELECT * FROM "+table+" LIMIT 1").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range res[0].FieldDescriptions {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}

// tableEvents are the event log's events of kind about relation name.
func tableEvents(t *testing.T, srv *server, name, kind string) []eventlog.Event {
	t.Helper()
	evs, err := eventlog.Read(srv.eng.Store(), func(ev *eventlog.Event) bool {
		return ev.Kind == kind && (ev.Name == name || strings.HasSuffix(ev.Name, "."+name))
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestFilesEvolutionAddNewColumns(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 20, false)))
	srcExec(t, w, `CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('landing', format => 'json')`)
	srcExec(t, w, `CREATE STREAMING TABLE silver AS SELECT * FROM STREAM bronze`)
	srcExec(t, w, `CREATE STREAMING TABLE picked AS SELECT id, kind FROM STREAM read_files('landing', format => 'json')`)
	srcExec(t, w, `CREATE STREAMING TABLE per_kind AS SELECT kind, count(*) AS n FROM STREAM read_files('landing', format => 'json') GROUP BY kind`)
	waitSame(t, w, pg, "SELECT id, kind FROM silver ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	if got := columnNames(t, w, "bronze"); got != "id,kind,_rescued_data" {
		t.Fatalf("bronze's columns before: %s", got)
	}
	// A file with a new field, then one more: bronze and silver gain the
	// column; the rows before read NULL, the file's rows carry it.
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", evolutionEvents(20, 10, true)))
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", evolutionEvents(30, 5, true)))
	const wantRows = "SELECT id, kind, extra FROM " + pgEvolution + " ORDER BY id"
	waitSame(t, w, pg, "SELECT id, kind, extra FROM bronze ORDER BY id", wantRows)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM silver ORDER BY id", wantRows)
	waitSame(t, w, pg, "SELECT id, kind FROM picked ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	waitSame(t, w, pg, "SELECT kind, n FROM per_kind ORDER BY kind", "SELECT kind, count(*) FROM "+pgEvolution+" GROUP BY kind ORDER BY kind")
	sameFileRows(t, w, pg, "SELECT count(*) FROM bronze WHERE _rescued_data IS NOT NULL", "SELECT 0")
	for table, want := range map[string]string{"bronze": "id,kind,extra,_rescued_data", "silver": "id,kind,extra,_rescued_data", "picked": "id,kind"} {
		if got := columnNames(t, w, table); got != want {
			t.Errorf("%s's columns after evolution: %s, want %s", table, got, want)
		}
	}
	evs := tableEvents(t, srv, "bronze", eventlog.KindSchemaChange)
	if len(evs) != 1 || !strings.Contains(evs[0].Message, "extra text") || !strings.Contains(evs[0].Details, `"to_version":2`) {
		t.Fatalf("bronze's schema_change events: %+v", evs)
	}
	// Across a restart: the new schema is the stored one; nothing re-read.
	srv.stop()
	loadRaw(t, pg, writeFile(t, root, "landing/d.json", evolutionEvents(35, 5, true)))
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{root}})
	w = srv.connect(t)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM bronze ORDER BY id", wantRows)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM silver ORDER BY id", wantRows)
	waitSame(t, w, pg, "SELECT kind, n FROM per_kind ORDER BY kind", "SELECT kind, count(*) FROM "+pgEvolution+" GROUP BY kind ORDER BY kind")
	if evs := tableEvents(t, srv, "bronze", eventlog.KindSchemaChange); len(evs) != 1 {
		t.Fatalf("schema_change events after the restart: %+v", evs)
	}
	// CREATE OR REFRESH of the same query infers the wider schema from
	// the files there: it keeps the checkpoint, re-reads nothing twice and
	// needs no further restart.
	srcExec(t, w, `CREATE OR REFRESH STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('landing', format => 'json')`)
	loadRaw(t, pg, writeFile(t, root, "landing/e.json", evolutionEvents(40, 5, true)))
	waitSame(t, w, pg, "SELECT id, kind, extra FROM bronze ORDER BY id", wantRows)
	if evs := tableEvents(t, srv, "bronze", eventlog.KindSchemaChange); len(evs) != 1 {
		t.Fatalf("schema_change events after CREATE OR REFRESH: %+v", evs)
	}
}

// TestFilesEvolutionNamedSource: a named files source is shared by its
// readers, each with its own log; the first to meet a file with a new
// field widens the source (its stored columns and version), the SELECT *
// readers (and their SELECT * readers) restart on the new column, the
// others keep their columns; every reader reads each file once; the
// source's schema_change event says it was applied; a restart keeps it.
func TestFilesEvolutionNamedSource(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 10, false)))
	srcExec(t, w, `CREATE SOURCE evs WITH (connector = 'files', path = 'landing', format = 'json')`)
	srcExec(t, w, `CREATE STREAMING TABLE from_source AS SELECT * FROM STREAM evs`)
	srcExec(t, w, `CREATE STREAMING TABLE second AS SELECT *, _metadata.file_name AS file FROM STREAM evs`)
	srcExec(t, w, `CREATE STREAMING TABLE silver AS SELECT * FROM STREAM from_source`)
	srcExec(t, w, `CREATE STREAMING TABLE picked AS SELECT id, kind FROM STREAM evs`)
	srcExec(t, w, `CREATE STREAMING TABLE per_kind AS SELECT kind, count(*) AS n FROM STREAM evs GROUP BY kind`)
	waitSame(t, w, pg, "SELECT id, kind FROM silver ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", evolutionEvents(10, 10, true)))
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", evolutionEvents(20, 5, true)))
	const wantRows = "SELECT id, kind, extra FROM " + pgEvolution + " ORDER BY id"
	for _, table := range []string{"from_source", "second", "silver"} {
		waitSame(t, w, pg, "SELECT id, kind, extra FROM "+table+" ORDER BY id", wantRows)
	}
	waitSame(t, w, pg, "SELECT id, kind FROM picked ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	waitSame(t, w, pg, "SELECT kind, n FROM per_kind ORDER BY kind", "SELECT kind, count(*) FROM "+pgEvolution+" GROUP BY kind ORDER BY kind")
	sameFileRows(t, w, pg, "SELECT count(*) FROM from_source WHERE _rescued_data IS NOT NULL", "SELECT 0")
	sameFileRows(t, w, pg, "SELECT id, kind, extra FROM evs ORDER BY id", wantRows)
	for table, want := range map[string]string{"evs": "id,kind,extra,_rescued_data", "from_source": "id,kind,extra,_rescued_data",
		"second": "id,kind,extra,_rescued_data,file", "silver": "id,kind,extra,_rescued_data", "picked": "id,kind", "per_kind": "kind,n"} {
		if got := columnNames(t, w, table); got != want {
			t.Errorf("%s's columns after evolution: %s, want %s", table, got, want)
		}
	}
	desc := strings.Join(textRows(t, w, "DESCRIBE EXTENDED evs"), "\n")
	if !strings.Contains(desc, "Files Schema\tversion 2: id bigint, kind text, extra text, _rescued_data jsonb") {
		t.Errorf("DESCRIBE EXTENDED evs after evolution:\n%s", desc)
	}
	evs := tableEvents(t, srv, "evs", eventlog.KindSchemaChange)
	if len(evs) != 1 || !strings.Contains(evs[0].Message, "extra text") || !strings.Contains(evs[0].Details, `"to_version":2`) || !strings.Contains(evs[0].Details, `"applied":true`) {
		t.Fatalf("evs's schema_change events: %+v", evs)
	}
	// Across a restart: the source's stored schema is the wider one;
	// nothing is read twice, no further version.
	srv.stop()
	loadRaw(t, pg, writeFile(t, root, "landing/d.json", evolutionEvents(25, 5, true)))
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{root}})
	w = srv.connect(t)
	for _, table := range []string{"from_source", "second", "silver"} {
		waitSame(t, w, pg, "SELECT id, kind, extra FROM "+table+" ORDER BY id", wantRows)
	}
	waitSame(t, w, pg, "SELECT kind, n FROM per_kind ORDER BY kind", "SELECT kind, count(*) FROM "+pgEvolution+" GROUP BY kind ORDER BY kind")
	sameFileRows(t, w, pg, "SELECT count(DISTINCT file), count(*) FROM second", "SELECT 4, count(*) FROM raw")
	if evs := tableEvents(t, srv, "evs", eventlog.KindSchemaChange); len(evs) != 1 {
		t.Fatalf("schema_change events after the restart: %+v", evs)
	}
}

// TestFilesEvolutionNamedSourceKept: a named files source read by a
// streaming table with declared columns (or by a flow) keeps its schema:
// widening it would break that reader's SELECT *. Every reader runs on,
// the new field in the rescued-data column; the source's schema_change
// event says it was not applied and which reader kept it; a restart keeps
// the schema too.
func TestFilesEvolutionNamedSourceKept(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 10, false)))
	srcExec(t, w, `CREATE SOURCE evs WITH (connector = 'files', path = 'landing', format = 'json')`)
	srcExec(t, w, `CREATE STREAMING TABLE free AS SELECT * FROM STREAM evs`)
	srcExec(t, w, `CREATE STREAMING TABLE declared (id bigint, kind text, _rescued_data jsonb) AS SELECT * FROM STREAM evs`)
	waitSame(t, w, pg, "SELECT id, kind FROM declared ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", evolutionEvents(10, 10, true)))
	const want = "SELECT id, kind, extra FROM " + pgEvolution + " ORDER BY id"
	for _, table := range []string{"free", "declared"} {
		waitSame(t, w, pg, "SELECT id, kind, _rescued_data->>'extra' FROM "+table+" ORDER BY id", want)
		if got := columnNames(t, w, table); got != "id,kind,_rescued_data" {
			t.Errorf("%s's columns: %s", table, got)
		}
	}
	evs := tableEvents(t, srv, "evs", eventlog.KindSchemaChange)
	if len(evs) != 1 || !strings.Contains(evs[0].Details, `"applied":false`) || !strings.Contains(evs[0].Details, `streaming table declared`) {
		t.Fatalf("evs's schema_change events: %+v", evs)
	}
	srv.stop()
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", evolutionEvents(20, 5, true)))
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{root}})
	w = srv.connect(t)
	for _, table := range []string{"free", "declared"} {
		waitSame(t, w, pg, "SELECT id, kind, _rescued_data->>'extra' FROM "+table+" ORDER BY id", want)
	}
	if got := columnNames(t, w, "evs"); got != "id,kind,_rescued_data" {
		t.Errorf("evs's columns after the restart: %s", got)
	}
}

func TestFilesEvolutionRescueAndNone(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 10, false)))
	srcExec(t, w, `CREATE STREAMING TABLE rescued AS SELECT * FROM STREAM read_files('landing', format => 'json', schemaEvolutionMode => 'rescue')`)
	srcExec(t, w, `CREATE STREAMING TABLE ignored AS SELECT * FROM STREAM read_files('landing', format => 'json', schemaEvolutionMode => 'none')`)
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", evolutionEvents(10, 10, true)))
	waitSame(t, w, pg, "SELECT id, kind, _rescued_data->>'extra' FROM rescued ORDER BY id", "SELECT id, kind, extra FROM "+pgEvolution+" ORDER BY id")
	waitSame(t, w, pg, "SELECT id, kind FROM ignored ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	if got := columnNames(t, w, "rescued"); got != "id,kind,_rescued_data" {
		t.Errorf("rescue mode's columns: %s", got)
	}
	if got := columnNames(t, w, "ignored"); got != "id,kind" {
		t.Errorf("none mode's columns: %s", got)
	}
	for _, table := range []string{"rescued", "ignored"} {
		if evs := tableEvents(t, srv, table, eventlog.KindSchemaChange); len(evs) != 0 {
			t.Errorf("%s changed its schema: %+v", table, evs)
		}
	}
}

func TestFilesEvolutionFailOnNewColumns(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 10, false)))
	const create = `CREATE OR REFRESH STREAMING TABLE strict AS SELECT * FROM STREAM read_files('landing', format => 'json', schemaEvolutionMode => 'failOnNewColumns')`
	srcExec(t, w, create)
	waitSame(t, w, pg, "SELECT id, kind FROM strict ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	b := writeFile(t, root, "landing/b.json", evolutionEvents(10, 10, true))
	loadRaw(t, pg, b)
	deadline := time.Now().Add(15 * time.Second)
	var status, lastErr string
	for {
		var e *string
		if err := w.QueryRow(context.Background(), "SELECT status, last_error FROM weir_catalog.streaming_progress WHERE name = 'strict'").Scan(&status, &e); err != nil {
			t.Fatal(err)
		}
		if e != nil {
			lastErr = *e
		}
		if status == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("strict did not fail on the new column: %s %q", status, lastErr)
		}
		time.Sleep(20 * time.Millisecond) // polling, with a deadline
	}
	if !strings.Contains(lastErr, "extra") || !strings.Contains(lastErr, b) {
		t.Fatalf("the failure does not name the column and the file: %q", lastErr)
	}
	sameFileRows(t, w, pg, "SELECT id, kind FROM strict ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" WHERE id < 10 ORDER BY id")
	// CREATE OR REFRESH takes the schema from the files there now: the
	// table runs on, with the column.
	srcExec(t, w, create)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM strict ORDER BY id", "SELECT id, kind, extra FROM "+pgEvolution+" ORDER BY id")
	if got := columnNames(t, w, "strict"); got != "id,kind,extra,_rescued_data" {
		t.Errorf("columns after CREATE OR REFRESH: %s", got)
	}
}

// TestFilesEvolutionAvailableNow: REFRESH of an available_now table waits
// through the restart a new column causes: when it returns, the file that
// brought the column is read, with it.
func TestFilesEvolutionAvailableNow(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 10, false)))
	srcExec(t, w, `CREATE STREAMING TABLE once WITH (trigger = 'available_now') AS SELECT * FROM STREAM read_files('landing', format => 'json')`)
	waitSame(t, w, pg, "SELECT id, kind FROM once ORDER BY id", "SELECT id, kind FROM "+pgEvolution+" ORDER BY id")
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", evolutionEvents(10, 10, true)))
	srv.eng.RescanFiles()
	srcExec(t, w, "REFRESH STREAMING TABLE once")
	sameFileRows(t, w, pg, "SELECT id, kind, extra FROM once ORDER BY id", "SELECT id, kind, extra FROM "+pgEvolution+" ORDER BY id")
}

// TestFilesEvolutionCSV: a CSV file whose header has a column more evolves
// the table as a JSON field does; PostgreSQL reads the same files with
// COPY (csv, header).
func TestFilesEvolutionCSV(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	mustExec(t, pg, "CREATE TABLE ev (id bigint, kind text, extra text)")
	a := writeFile(t, root, "landing/a.csv", "id,kind\n1,x\n2,y\n")
	copyFile(t, pg, a, "COPY ev (id, kind) FROM STDIN WITH (FORMAT csv, HEADER true)")
	srcExec(t, w, `CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('landing', format => 'csv', header => true)`)
	waitSame(t, w, pg, "SELECT id, kind FROM bronze ORDER BY id", "SELECT id, kind FROM ev ORDER BY id")
	b := writeFile(t, root, "landing/b.csv", "id,kind,extra\n3,z,e3\n4,x,e4\n")
	copyFile(t, pg, b, "COPY ev (id, kind, extra) FROM STDIN WITH (FORMAT csv, HEADER true)")
	waitSame(t, w, pg, "SELECT id, kind, extra FROM bronze ORDER BY id", "SELECT id, kind, extra FROM ev ORDER BY id")
	if got := columnNames(t, w, "bronze"); got != "id,kind,extra,_rescued_data" {
		t.Errorf("columns: %s", got)
	}
}
