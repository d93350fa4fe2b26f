package engine_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/internal/slt"
)

var rewrite = flag.Bool("rewrite", false, "regenerate expected results of testdata/pg/*.slt from a real PostgreSQL 15")

// sltFiles lists the sqllogictest files: testdata/pg holds SQL whose
// results must equal PostgreSQL's; testdata/weir holds weir's own
// behaviour (streaming, recovery, weir-specific errors).
func sltFiles(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.slt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .slt files in testdata/%s", dir)
	}
	return files
}

// TestSLT runs every file against weir and compares with its expected results.
func TestSLT(t *testing.T) {
	if *rewrite {
		rewriteFromPostgres(t)
	}
	files := append(sltFiles(t, "pg"), sltFiles(t, "weir")...)
	for _, f := range files {
		f := f
		t.Run(strings.TrimSuffix(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), ".slt"), func(t *testing.T) {
			recs, err := slt.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// weir's own files snapshot streaming state at every epoch, so
			// that each restart in them recovers from a snapshot, unless
			// they say "# snapshot-rows: default" (recovery by re-running
			// epochs, as a short run does by default).
			cfg := engine.Config{DataDir: t.TempDir()}
			if text, err := os.ReadFile(f); err == nil && filepath.Base(filepath.Dir(f)) == "weir" &&
				!strings.Contains(string(text), "\n# snapshot-rows: default\n") {
				cfg.SnapshotRows = 1
			}
			srv := startServerWith(t, cfg)
			conn := srv.connect(t)
			ctx := context.Background()
			for _, r := range recs {
				if r.Kind == "restart" {
					conn.Close(ctx)
					srv.stop()
					srv = startServerWith(t, cfg)
					conn = srv.connect(t)
					continue
				}
				deadline := time.Now().Add(15 * time.Second)
				for {
					qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					out, err := slt.Exec(qctx, conn, r)
					cancel()
					if err != nil {
						t.Fatalf("%s:%d: %v\n%s", f, r.Line, err, r.SQL)
					}
					msg := slt.Check(r, out)
					if msg != "" && r.Retry && time.Now().Before(deadline) {
						time.Sleep(20 * time.Millisecond) // polling a streaming table, with a deadline
						continue
					}
					if msg != "" {
						t.Errorf("%s:%d: %s\nSQL: %s", f, r.Line, msg, r.SQL)
					}
					break
				}
			}
		})
	}
}

// TestSLTExpectationsArePostgres checks that the expected results of
// testdata/pg files are what PostgreSQL 15 itself returns, so that a file
// cannot drift into asserting weir's mistakes.
func TestSLTExpectationsArePostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	for _, f := range sltFiles(t, "pg") {
		recs, err := slt.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		conn := pgConnFresh(t, pg)
		for _, r := range recs {
			out, err := slt.Exec(context.Background(), conn, r)
			if err != nil {
				t.Fatalf("%s:%d: %v", f, r.Line, err)
			}
			if msg := slt.Check(r, out); msg != "" {
				t.Errorf("%s:%d: PostgreSQL disagrees with the file (run go test ./engine -run TestSLT -rewrite): %s", f, r.Line, msg)
			}
		}
	}
}

func pgConnFresh(t *testing.T, pg *pgtest.Server) *pgx.Conn {
	url := pg.FreshDatabase(t)
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	if _, err := c.Exec(context.Background(), "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	return c
}

func rewriteFromPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	for _, f := range sltFiles(t, "pg") {
		recs, err := slt.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		conn := pgConnFresh(t, pg)
		outs := make([]slt.Outcome, len(recs))
		for i, r := range recs {
			if outs[i], err = slt.Exec(context.Background(), conn, r); err != nil {
				t.Fatalf("%s:%d: %v", f, r.Line, err)
			}
		}
		if err := os.WriteFile(f, []byte(slt.Render(recs, outs)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
