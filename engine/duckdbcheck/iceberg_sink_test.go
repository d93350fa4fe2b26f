package duckdbcheck

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// An update-mode streaming table of tumbling windows, sunk to Iceberg:
// after every batch of rows, DuckDB reading the Parquet data files the
// table's current snapshot lists (and nothing else: no delete files to
// apply) finds PostgreSQL's GROUP BY of the same rows. The sink rewrites
// only the groups of files holding changed rows (copy-on-write), so this
// is the check that what it leaves in place and what it rewrites make the
// table together.
func TestDuckDBReadsIcebergUpdateSink(t *testing.T) {
	c := startWeir(t)
	pg, err := pgx.Connect(context.Background(), pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(context.Background())
	exec(t, pg, "SET TimeZone = 'UTC'")
	warehouse := filepath.Join(t.TempDir(), "lake")
	const table = `CREATE TABLE orders (region text, amount bigint, ts timestamptz)`
	exec(t, c, table, `CREATE STREAMING TABLE gold WITH (output_mode = 'update') AS
		SELECT window_start, region, count(*) AS n, sum(amount)::bigint AS total
		FROM STREAM orders WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES)
		GROUP BY window_start, region`,
		fmt.Sprintf(`CREATE SINK gold_lake FROM gold WITH (connector = 'iceberg', warehouse = '%s', namespace = 'gold')`, warehouse))
	exec(t, pg, table)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	next := 0
	for batch := 0; batch < 8; batch++ {
		var vals []string
		for i := 0; i < 25; i++ {
			next++
			vals = append(vals, fmt.Sprintf("('r%d', %d, TIMESTAMPTZ '2024-01-01 10:00:00+00' + %d * INTERVAL '20 seconds')", next%5, next, next))
		}
		stmt := "INSERT INTO orders VALUES " + strings.Join(vals, ", ")
		exec(t, c, stmt)
		exec(t, pg, stmt)
		rows, err := pg.Query(context.Background(), `SELECT (extract(epoch FROM date_bin('5 minutes', ts, 'epoch')) * 1000000)::bigint::text,
			region, count(*)::text, sum(amount)::text FROM orders GROUP BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		want := lines(t, rows, 4)
		rows.Close()
		var got []string
		deadline := time.Now().Add(20 * time.Second)
		for {
			files := snapshotFiles(t, warehouse, "gold", "gold")
			got = nil
			if len(files) > 0 {
				rows, err := db.Query(`SELECT epoch_us(window_start)::VARCHAR, region, n::VARCHAR, total::VARCHAR FROM read_parquet([` + strings.Join(files, ", ") + `])`)
				if err != nil {
					t.Fatal(err)
				}
				got = lines(t, rows, 4)
				rows.Close()
			}
			if strings.Join(got, "\n") == strings.Join(want, "\n") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after batch %d DuckDB reads the data files as\n%s\nwant (PostgreSQL):\n%s", batch, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
		}
	}
}

// snapshotFiles lists the data files of an Iceberg table's current
// snapshot, quoted for DuckDB (none while the table is not there); it
// fails on a delete file, which read_parquet would not apply.
func snapshotFiles(t *testing.T, warehouse string, ident ...string) []string {
	t.Helper()
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("reader", warehouse, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil || tbl.CurrentSnapshot() == nil {
		return nil
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		if len(task.DeleteFiles)+len(task.EqualityDeleteFiles) > 0 {
			t.Fatalf("delete files in an update-mode Iceberg table: %v", task)
		}
		out = append(out, "'"+strings.ReplaceAll(task.File.FilePath(), "'", "''")+"'")
	}
	return out
}
