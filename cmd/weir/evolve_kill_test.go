package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestFilesEvolutionKill: a file with a new column lands while streaming
// tables read the folder (schemaEvolutionMode addNewColumns, the
// default), and the real binary is killed (SIGKILL) at each crash point
// of the evolution — the merged schema recorded with the file unread,
// before the catalog takes it, after, before the readers of the evolved
// table restart — and once at a random moment after the file landed. After
// the restart every table must hold what PostgreSQL computes from the
// same lines: each file's rows exactly once, the new column's values from
// the file that brought it on, NULL before; bronze (SELECT *) and silver
// (SELECT * of bronze) with the new column, picked (its own column list)
// without.
func TestFilesEvolutionKill(t *testing.T) {
	for _, point := range []string{"files-evolve-recorded", "files-evolve-before-catalog", "files-evolve-after-catalog", "files-evolve-before-readers", "random"} {
		t.Run(point, func(t *testing.T) { evolveKillRun(t, point, "inline") })
	}
}

// TestFilesEvolutionKillNamedSource: the same crash points when the tables
// read a named files source (CREATE SOURCE ... WITH (connector =
// 'files')): the source's stored schema gains the column; bronze and
// mirror (its SELECT * readers) and silver (bronze's) take it, picked
// keeps its own columns.
func TestFilesEvolutionKillNamedSource(t *testing.T) {
	for _, point := range []string{"files-evolve-recorded", "files-evolve-before-catalog", "files-evolve-after-catalog", "files-evolve-before-readers", "random"} {
		t.Run(point, func(t *testing.T) { evolveKillRun(t, point, "named") })
	}
}

// TestFilesEvolutionKillFlow: the same crash points when bronze is the
// target of a flow reading the folder (its columns the flow's): bronze
// gains the column after its others, silver (SELECT * of bronze) too.
func TestFilesEvolutionKillFlow(t *testing.T) {
	for _, point := range []string{"files-evolve-recorded", "files-evolve-before-catalog", "files-evolve-after-catalog", "files-evolve-before-readers", "random"} {
		t.Run(point, func(t *testing.T) { evolveKillRun(t, point, "flow") })
	}
}

// evolveKillRun runs one kill; mode is how bronze reads the folder:
// "inline" (read_files in its query), "named" (a files source), "flow"
// (a flow into it).
func evolveKillRun(t *testing.T, point, mode string) {
	ctx := context.Background()
	root := t.TempDir()
	landing := filepath.Join(root, "landing")
	if err := os.MkdirAll(landing, 0o755); err != nil {
		t.Fatal(err)
	}
	pg := pgtest.Shared(t)
	pgc, err := pgx.Connect(ctx, pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	if _, err := pgc.Exec(ctx, "CREATE TABLE raw (file text, line jsonb)"); err != nil {
		t.Fatal(err)
	}
	land := func(name string, first, n int, extra bool) {
		t.Helper()
		var b strings.Builder
		for i := first; i < first+n; i++ {
			if extra {
				fmt.Fprintf(&b, `{"id": %d, "kind": "k%d", "extra": "e%d"}`+"\n", i, i%3, i)
			} else {
				fmt.Fprintf(&b, `{"id": %d, "kind": "k%d"}`+"\n", i, i%3)
			}
		}
		sc := bufio.NewScanner(strings.NewReader(b.String()))
		for sc.Scan() {
			if _, err := pgc.Exec(ctx, "INSERT INTO raw VALUES ($1, $2::jsonb)", name, sc.Text()); err != nil {
				t.Fatal(err)
			}
		}
		tmp := filepath.Join(landing, "."+name+".tmp")
		if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(landing, name)); err != nil {
			t.Fatal(err)
		}
	}
	dataDir := filepath.Join(root, "weir-data")
	port := freePort(t)
	args := []string{"--files-root", root}
	land("a.json", 0, 20, false)
	var env []string
	if point != "random" {
		env = append(env, "WEIR_FAILPOINT="+point)
	}
	srv, _ := startCrashServer(t, dataDir, port, args, env...)
	defer func() {
		select {
		case <-srv.exited:
		default:
			srv.kill()
		}
	}()
	conn, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	ddls := []string{
		`CREATE STREAMING TABLE bronze AS SELECT *, _metadata.file_name AS file FROM STREAM read_files('landing', format => 'json')`,
		`CREATE STREAMING TABLE silver AS SELECT * FROM STREAM bronze`,
		`CREATE STREAMING TABLE picked AS SELECT id, kind FROM STREAM read_files('landing', format => 'json')`,
	}
	switch mode {
	case "flow":
		ddls = []string{
			`CREATE OR REFRESH STREAMING TABLE bronze`,
			`CREATE FLOW landed AS INSERT INTO bronze BY NAME SELECT *, _metadata.file_name AS file FROM STREAM read_files('landing', format => 'json')`,
			`CREATE STREAMING TABLE silver AS SELECT * FROM STREAM bronze`,
			`CREATE STREAMING TABLE picked AS SELECT id, kind FROM STREAM read_files('landing', format => 'json')`,
		}
	case "named":
		ddls = []string{
			`CREATE SOURCE evs WITH (connector = 'files', path = 'landing', format = 'json')`,
			`CREATE STREAMING TABLE bronze AS SELECT *, _metadata.file_name AS file FROM STREAM evs`,
			`CREATE STREAMING TABLE silver AS SELECT * FROM STREAM bronze`,
			`CREATE STREAMING TABLE picked AS SELECT id, kind FROM STREAM evs`,
			`CREATE STREAMING TABLE mirror AS SELECT * FROM STREAM evs`,
		}
	}
	for _, ddl := range ddls {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			t.Fatalf("%s: %v\n%s", ddl, err, srv.log)
		}
	}
	evolveWait(t, ctx, conn, pgc, "SELECT count(*) FROM silver", "SELECT count(*) FROM raw", srv)
	conn.Close(ctx)

	land("b.json", 20, 10, true)
	if point == "random" {
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond) // the random moment of the kill: timing, not synchronisation
		srv.kill()
	} else {
		select {
		case <-srv.exited: // the failpoint killed it
		case <-time.After(30 * time.Second):
			t.Fatalf("the server did not pass %s within 30 s:\n%s", point, srv.log)
		}
	}
	land("c.json", 30, 5, true) // while it is down
	srv, _ = startCrashServer(t, dataDir, port, args)
	conn, err = pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const oracle = `SELECT (line->>'id')::bigint AS id, line->>'kind' AS kind, line->>'extra' AS extra, file FROM raw ORDER BY 1`
	evolveWait(t, ctx, conn, pgc, "SELECT id, kind, extra, file FROM bronze ORDER BY id", oracle, srv)
	evolveWait(t, ctx, conn, pgc, "SELECT id, kind, extra, file FROM silver ORDER BY id", oracle, srv)
	evolveWait(t, ctx, conn, pgc, "SELECT id, kind FROM picked ORDER BY id", "SELECT id, kind FROM ("+oracle+") o", srv)
	// Still running: a later file is read too.
	land("d.json", 35, 5, true)
	evolveWait(t, ctx, conn, pgc, "SELECT id, kind, extra, file FROM silver ORDER BY id", oracle, srv)
	wantCols := map[string]string{"bronze": "id,kind,extra,_rescued_data,file", "silver": "id,kind,extra,_rescued_data,file", "picked": "id,kind"}
	switch mode {
	case "flow":
		wantCols["bronze"] = "id,kind,_rescued_data,file,extra"
		wantCols["silver"] = "id,kind,_rescued_data,file,extra"
	case "named":
		evolveWait(t, ctx, conn, pgc, "SELECT id, kind, extra FROM mirror ORDER BY id", "SELECT id, kind, extra FROM ("+oracle+") o", srv)
		evolveWait(t, ctx, conn, pgc, "SELECT id, kind FROM picked ORDER BY id", "SELECT id, kind FROM ("+oracle+") o", srv)
		wantCols["mirror"] = "id,kind,extra,_rescued_data"
		wantCols["evs"] = "id,kind,extra,_rescued_data"
	}
	for table, want := range wantCols {
		res, err := conn.PgConn().Exec(ctx, "SELECT * FROM "+table+" LIMIT 1").ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range res[0].FieldDescriptions {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("%s's columns: %s, want %s", table, got, want)
		}
	}
	if log := srv.log.String(); strings.Contains(log, "panic") {
		t.Fatalf("the server panicked:\n%s", log)
	}
}

// evolveWait polls until weir's query gives PostgreSQL's rows, with a
// deadline.
func evolveWait(t *testing.T, ctx context.Context, w, pgc *pgx.Conn, wq, pq string, srv *crashServer) {
	t.Helper()
	want, err := evolveRows(ctx, pgc, pq)
	if err != nil {
		t.Fatalf("%s: %v", pq, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := evolveRows(ctx, w, wq)
		if err == nil && got == want {
			return
		}
		if err != nil {
			got = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not PostgreSQL's rows in 30 s\n weir: %q\n   pg: %q\n%s", wq, got, want, tail(srv.log.String(), 3000))
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}

// evolveRows is a query's rows as text, NULL as \N.
func evolveRows(ctx context.Context, c *pgx.Conn, sql string) (string, error) {
	res, err := c.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return "", err
	}
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
	return strings.Join(rows, "\n"), nil
}
