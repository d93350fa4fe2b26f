package engine_test

import (
	"strings"
	"testing"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/engine"
)

// TestFilesEvolutionFlow: a flow's read_files evolves its target, as
// Databricks' append flows do: a file with a new field stops the flow,
// the target (its columns its first flow's) gains the column, every flow
// restarts (one listing its columns gives NULL for it), the target's
// SELECT * reader gains it too; a target with declared columns keeps them
// (the field in _rescued_data). Rows against PostgreSQL's from the same
// lines, across a restart.
func TestFilesEvolutionFlow(t *testing.T) {
	root := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	w := srv.connect(t)
	pg := pgFiles(t)
	loadRaw(t, pg, writeFile(t, root, "landing/a.json", evolutionEvents(0, 10, false)))
	srcExec(t, w, `CREATE OR REFRESH STREAMING TABLE merged`)
	srcExec(t, w, `CREATE FLOW all_fields AS INSERT INTO merged BY NAME SELECT * FROM STREAM read_files('landing', format => 'json')`)
	srcExec(t, w, `CREATE FLOW shifted AS INSERT INTO merged BY NAME SELECT id + 1000 AS id, kind FROM STREAM read_files('landing', format => 'json')`)
	srcExec(t, w, `CREATE STREAMING TABLE downstream AS SELECT * FROM STREAM merged`)
	srcExec(t, w, `CREATE OR REFRESH STREAMING TABLE fixed (id bigint, kind text, _rescued_data jsonb)`)
	srcExec(t, w, `CREATE FLOW into_fixed AS INSERT INTO fixed BY NAME SELECT * FROM STREAM read_files('landing', format => 'json')`)
	const oracle = "SELECT id, kind, extra FROM " + pgEvolution + " UNION ALL SELECT id + 1000, kind, NULL FROM " + pgEvolution + " ORDER BY 1"
	waitSame(t, w, pg, "SELECT id, kind FROM downstream ORDER BY 1", "SELECT id, kind FROM ("+oracle+") o")
	loadRaw(t, pg, writeFile(t, root, "landing/b.json", evolutionEvents(10, 10, true)))
	loadRaw(t, pg, writeFile(t, root, "landing/c.json", evolutionEvents(20, 5, true)))
	waitSame(t, w, pg, "SELECT id, kind, extra FROM merged ORDER BY 1", oracle)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM downstream ORDER BY 1", oracle)
	waitSame(t, w, pg, "SELECT id, kind, _rescued_data->>'extra' FROM fixed ORDER BY 1", "SELECT id, kind, extra FROM "+pgEvolution+" ORDER BY 1")
	sameFileRows(t, w, pg, "SELECT count(*) FROM merged WHERE _rescued_data IS NOT NULL", "SELECT 0")
	for table, want := range map[string]string{"merged": "id,kind,_rescued_data,extra", "downstream": "id,kind,_rescued_data,extra", "fixed": "id,kind,_rescued_data"} {
		if got := columnNames(t, w, table); got != want {
			t.Errorf("%s's columns after evolution: %s, want %s", table, got, want)
		}
	}
	evs := tableEvents(t, srv, "merged", eventlog.KindSchemaChange)
	// One for each flow's input (shifted's moves to version 2 too, its
	// columns unchanged).
	if len(evs) != 2 || !strings.Contains(evs[0].Message, "extra text") || !strings.Contains(evs[1].Details, `"to_version":2`) {
		t.Fatalf("merged's schema_change events: %+v", evs)
	}
	// Across a restart: the flows run on the stored definitions.
	srv.stop()
	loadRaw(t, pg, writeFile(t, root, "landing/d.json", evolutionEvents(25, 5, true)))
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{root}})
	w = srv.connect(t)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM merged ORDER BY 1", oracle)
	waitSame(t, w, pg, "SELECT id, kind, extra FROM downstream ORDER BY 1", oracle)
	waitSame(t, w, pg, "SELECT id, kind, _rescued_data->>'extra' FROM fixed ORDER BY 1", "SELECT id, kind, extra FROM "+pgEvolution+" ORDER BY 1")
	if evs := tableEvents(t, srv, "merged", eventlog.KindSchemaChange); len(evs) != 2 {
		t.Fatalf("schema_change events after the restart: %+v", evs)
	}
}
