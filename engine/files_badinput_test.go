package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/engine"
)

// waitFilesEvent waits for a files event of table name whose notice is
// kind and whose path ends in file, with a deadline.
func waitFilesEvent(t *testing.T, srv *server, name, kind, file string) eventlog.Event {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, ev := range tableEvents(t, srv, name, eventlog.KindFiles) {
			var d struct{ Notice, Path string }
			if json.Unmarshal([]byte(ev.Details), &d) == nil && d.Notice == kind && strings.HasSuffix(d.Path, file) {
				if ev.Level != eventlog.LevelWarn || ev.Object == 0 {
					t.Errorf("files event %+v: want level WARN and the table's OID", ev)
				}
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s files event for %s of %s in 15 s: %+v", kind, file, name, tableEvents(t, srv, name, eventlog.KindFiles))
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}

// TestFilesBadInputEvents: a file changed after it was read, one listed
// and deleted before it was read, a named pipe where a file is expected
// (unreadable whoever the server runs as) and a path matching nothing at
// CREATE are each a files event in the durable event log (and, but for
// the last, counted in streaming_progress.files_skipped); the table keeps
// running, and holds exactly the rows PostgreSQL reads from the files
// that were there to read, each once.
func TestFilesBadInputEvents(t *testing.T) {
	srv, root := filesServer(t)
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", jsonEvents(0, 10)))
	srcExec(t, w, `CREATE STREAMING TABLE bronze WITH (trigger = 'available_now') AS
		SELECT *, _metadata.file_name AS file FROM STREAM read_files('landing', format => 'json', pathGlobFilter => '*.json')`)
	const rowsW = "SELECT id, kind, amount, file FROM bronze ORDER BY id"
	rowsPG := func() string {
		return "SELECT id, kind, amount, CASE WHEN id < 10 THEN 'a.json' ELSE 'c.json' END FROM " + pgEvents + " ORDER BY id"
	}
	waitSame(t, w, pg, rowsW, rowsPG())

	// Changed after it was read: reported, not read again.
	writeFile(t, root, "landing/a.json", jsonEvents(100, 20))
	srv.eng.RescanFiles()
	srcExec(t, w, "REFRESH STREAMING TABLE bronze")
	waitFilesEvent(t, srv, "bronze", "changed", "a.json")

	// Listed, then deleted before it was read.
	b := writeFile(t, root, "landing/b.json", jsonEvents(200, 5))
	srv.eng.RescanFiles()
	waitFor(t, w, "SELECT backlog_files = 1 FROM weir_catalog.streaming_progress WHERE name = 'bronze'")
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	srv.eng.RescanFiles()
	srcExec(t, w, "REFRESH STREAMING TABLE bronze")
	waitFilesEvent(t, srv, "bronze", "vanished", "b.json")

	// A named pipe named like a data file: never opened (a read could
	// block forever), reported.
	if err := syscall.Mkfifo(filepath.Join(root, "landing", "p.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.eng.RescanFiles()
	srcExec(t, w, "REFRESH STREAMING TABLE bronze")
	waitFilesEvent(t, srv, "bronze", "unreadable", "p.json")

	// And the table goes on reading.
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", jsonEvents(10, 5)))
	srv.eng.RescanFiles()
	srcExec(t, w, "REFRESH STREAMING TABLE bronze")
	waitSame(t, w, pg, rowsW, rowsPG())
	waitFor(t, w, "SELECT status = 'idle' AND files_skipped = 3 AND last_error IS NULL FROM weir_catalog.streaming_progress WHERE name = 'bronze'")
	// A restart does not read the changed file again either.
	srv.stop()
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{root}})
	w = srv.connect(t)
	loadRaw(t, pg, writeFile(t, root, "landing/c2.json", jsonEvents(15, 5)))
	srv.eng.RescanFiles()
	srcExec(t, w, "REFRESH STREAMING TABLE bronze")
	waitSame(t, w, pg, rowsW, strings.Replace(rowsPG(), "ELSE 'c.json'", "WHEN id < 15 THEN 'c.json' ELSE 'c2.json'", 1))

	// A path matching nothing yet, the schema given: a NOTICE at CREATE
	// and an event; the table reads the files that arrive later.
	cfg, err := pgx.ParseConfig(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Message)
		mu.Unlock()
	}
	nc, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close(context.Background())
	if _, err := nc.Exec(context.Background(), `CREATE STREAMING TABLE later AS SELECT * FROM STREAM read_files('landing/*.csv', format => 'csv', header => true, schema => 'id bigint, kind text')`); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := strings.Join(notices, "\n")
	mu.Unlock()
	if !strings.Contains(got, `no files match "landing/*.csv" yet`) {
		t.Errorf("CREATE over a path matching nothing: notices %q", got)
	}
	waitFilesEvent(t, srv, "later", "no_files", "*.csv")
	writeFile(t, root, "landing/x.csv", "id,kind\n1,a\n2,b\n")
	waitFor(t, w, "SELECT count(*) = 2 AND sum(id) = 3 FROM later")
}
