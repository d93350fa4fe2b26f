package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/jackc/pgx/v5"
)

// TestIcebergSinkExactlyOnceAfterKill kills the real binary at each crash
// point of an Iceberg sink's epoch (its data files written, its snapshot
// about to be committed, committed) and of the table's commit (before it,
// and after it before the sinks publish), restarts it, and checks that
// the Iceberg tables, read back through iceberg-go, hold every input row
// exactly once (append mode) and, in update mode, the streaming table's
// rows, which are PostgreSQL's GROUP BY of the input weir holds: a GROUP
// BY without a window, and one of 5-minute tumbling windows, which close
// as the watermark passes them (also while a restart re-runs epochs).
func TestIcebergSinkExactlyOnceAfterKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	warehouse := filepath.Join(t.TempDir(), "lake")
	port := freePort(t)
	srv, _ := startCrashServer(t, dir, port, []string{"--files-root", os.TempDir()})
	pg := newSinkPG(t, evTable)
	ctx := context.Background()
	conn := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := conn()
	nextID := int64(0)
	insert := func(c *pgx.Conn) error {
		var vals []string
		for i := 0; i < 20; i++ {
			nextID++
			vals = append(vals, fmt.Sprintf("(%d, 'r%d', %d.%02d, TIMESTAMPTZ '2024-01-01 00:00:00+00' + %d * INTERVAL '10 seconds')",
				nextID, nextID%3, nextID%97, nextID%100, nextID))
		}
		_, err := c.Exec(ctx, "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
		return err
	}
	for _, s := range []string{
		evTable,
		`CREATE STREAMING TABLE silver AS SELECT id, region, amount FROM STREAM ev`,
		`CREATE STREAMING TABLE totals AS SELECT region, count(*) AS n, sum(amount)::numeric(18,2) AS total FROM STREAM ev GROUP BY region`,
		`CREATE STREAMING TABLE windows WITH (output_mode = 'update') AS SELECT window_start, region, count(*) AS n, sum(amount)::numeric(18,2) AS total
			FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY window_start, region`,
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := insert(c); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "silver's first rows", "SELECT count(*) = 20 FROM silver")
	for _, s := range []string{
		fmt.Sprintf(`CREATE SINK silver_lake FROM silver WITH (connector = 'iceberg', warehouse = '%s', namespace = 'silver', partition_by = 'region')`, warehouse),
		fmt.Sprintf(`CREATE SINK totals_lake FROM totals WITH (connector = 'iceberg', warehouse = '%s', namespace = 'gold')`, warehouse),
		fmt.Sprintf(`CREATE SINK windows_lake FROM windows WITH (connector = 'iceberg', warehouse = '%s', namespace = 'gold')`, warehouse),
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	c.Close(ctx)

	round := 0
	for _, point := range []string{"iceberg-after-write", "iceberg-before-commit", "iceberg-after-commit", "epoch-before-commit", "epoch-after-commit"} {
		for _, n := range []int{1, 4} {
			srv.kill()
			srv, _ = startCrashServer(t, dir, port, []string{"--files-root", os.TempDir()}, fmt.Sprintf("WEIR_FAILPOINT=%s:%d", point, n))
			w := conn()
			for i := 0; i < 200 && insert(w) == nil; i++ {
				time.Sleep(5 * time.Millisecond) // spread the rows over epochs
			}
			w.Close(ctx)
			select {
			case <-srv.exited:
				srv.exited <- nil
			case <-time.After(30 * time.Second):
				t.Fatalf("%s:%d: the server did not reach the crash point:\n%s", point, n, srv.log)
			}
			srv, _ = startCrashServer(t, dir, port, []string{"--files-root", os.TempDir()})
			round++
			checkIcebergSinks(t, srv, pg, round, point, warehouse)
		}
	}
	srv.kill()
}

const evTable = `CREATE TABLE ev (id bigint, region text, amount numeric(12,2), ts timestamptz)`

// checkIcebergSinks waits until the Iceberg tables hold the input weir
// kept, then checks each row is there once.
func checkIcebergSinks(t *testing.T, srv *crashServer, pg *sinkPG, round int, point, warehouse string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	ids := textRows(t, ctx, c, "SELECT id FROM ev")
	sort.Strings(ids)
	totals := pg.totals(t, c, "SELECT region, count(*), sum(amount)::numeric(18,2) FROM ev GROUP BY region")
	waitFor(t, c, "totals to hold the input", fmt.Sprintf("SELECT sum(n) = %d FROM totals", len(ids)))
	if table := textRows(t, ctx, c, "SELECT region, n, total FROM totals"); strings.Join(table, "\n") != strings.Join(totals, "\n") {
		t.Fatalf("round %d (%s): the streaming table holds %v, PostgreSQL's GROUP BY %v", round, point, table, totals)
	}
	const pgWindows = `SELECT date_bin('5 minutes', ts, 'epoch'), region, count(*), sum(amount)::numeric(18,2) FROM ev GROUP BY 1, 2`
	waitFor(t, c, "windows to hold the input", fmt.Sprintf("SELECT sum(n) = %d FROM windows", len(ids)))
	if table, want := textRows(t, ctx, c, "SELECT window_start, region, n, total FROM windows"), pg.totals(t, c, pgWindows); strings.Join(table, "\n") != strings.Join(want, "\n") {
		t.Fatalf("round %d (%s): the streaming table windows holds\n%v\nPostgreSQL's GROUP BY\n%v", round, point, table, want)
	}
	windows := pg.totals(t, c, `SELECT (extract(epoch FROM date_bin('5 minutes', ts, 'epoch')) * 1000000)::bigint, region, count(*), sum(amount)::numeric(18,2) FROM ev GROUP BY 1, 2`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := readIceberg(t, warehouse, []string{"silver", "silver"}, func(cols []arrow.Array, i int) string {
			return fmt.Sprint(cols[0].(*array.Int64).Value(i))
		})
		gold := readIceberg(t, warehouse, []string{"gold", "totals"}, func(cols []arrow.Array, i int) string {
			return cols[0].(*array.String).Value(i) + "|" + fmt.Sprint(cols[1].(*array.Int64).Value(i)) + "|" +
				cols[2].(*array.Decimal128).Value(i).ToString(2)
		})
		goldWindows := readIceberg(t, warehouse, []string{"gold", "windows"}, func(cols []arrow.Array, i int) string {
			return fmt.Sprint(int64(cols[0].(*array.Timestamp).Value(i))) + "|" + cols[1].(*array.String).Value(i) + "|" +
				fmt.Sprint(cols[2].(*array.Int64).Value(i)) + "|" + cols[3].(*array.Decimal128).Value(i).ToString(2)
		})
		if len(got) >= len(ids) && strings.Join(gold, "\n") == strings.Join(totals, "\n") && strings.Join(goldWindows, "\n") == strings.Join(windows, "\n") {
			if strings.Join(got, ",") != strings.Join(ids, ",") {
				seen := map[string]int{}
				for _, id := range got {
					seen[id]++
				}
				for id, k := range seen {
					if k != 1 {
						t.Fatalf("round %d (%s): id %s is %d times in the Iceberg table", round, point, id, k)
					}
				}
				t.Fatalf("round %d (%s): the Iceberg table holds %d ids, the input %d", round, point, len(got), len(ids))
			}
			t.Logf("round %d (%s): %d rows, each once in the Iceberg table; gold holds the %d groups and the %d window rows", round, point, len(ids), len(gold), len(goldWindows))
			return
		}
		if time.Now().After(deadline) {
			var sinks []string
			rows, _ := c.Query(ctx, "SHOW SINKS")
			for rows.Next() {
				v, _ := rows.Values()
				sinks = append(sinks, fmt.Sprint(v))
			}
			rows.Close()
			missing, extra := diffRows(windows, goldWindows)
			t.Fatalf("round %d (%s): the Iceberg table holds %d rows of %d; gold %v, the input's %v; gold windows: %d rows missing %v, %d extra %v; SHOW SINKS: %v\ngold's snapshots:\n%s\nwindows' snapshots:\n%s\n%s",
				round, point, len(got), len(ids), gold, totals, len(missing), head(missing), len(extra), head(extra), sinks,
				snapshotLog(t, warehouse, []string{"gold", "totals"}), snapshotLog(t, warehouse, []string{"gold", "windows"}), srv.log)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}

// readIceberg reads an Iceberg table's rows through iceberg-go, each as
// row makes it, sorted (no rows while the table is not there yet).
func readIceberg(t *testing.T, warehouse string, ident []string, row func(cols []arrow.Array, i int) string) []string {
	t.Helper()
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("reader", warehouse, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		return nil
	}
	_, recs, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, row(rec.Columns(), i))
		}
		rec.Release()
	}
	sort.Strings(out)
	return out
}

// snapshotLog describes an Iceberg table's snapshots, for failures.
func snapshotLog(t *testing.T, warehouse string, ident []string) string {
	cat, err := hadoop.NewCatalog("reader", warehouse, ice.Properties{})
	if err != nil {
		return err.Error()
	}
	tbl, err := cat.LoadTable(context.Background(), ident)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, s := range tbl.Metadata().Snapshots() {
		p := s.Summary.Properties
		out = append(out, fmt.Sprintf("%d parent %v %s epoch %s table %s +%s -%s total %s", s.SnapshotID, s.ParentSnapshotID, s.Summary.Operation,
			p["weir.epoch"], p["weir.table"], p["added-records"], p["deleted-records"], p["total-records"]))
	}
	return strings.Join(out, "\n")
}
