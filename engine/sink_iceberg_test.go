package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// icebergRows reads an Iceberg table as another engine would (a catalog of
// its own over the warehouse folder, through iceberg-go): each row as
// text, columns joined by |, NULL as \N, numerics at their scale,
// timestamps in microseconds; and the weir.epoch of every snapshot. A
// table not there yet reads as no rows.
func icebergRows(t *testing.T, warehouse string, ident ...string) (rows []string, epochs []string) {
	t.Helper()
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("reader", warehouse, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		return nil, nil
	}
	for _, s := range tbl.Metadata().Snapshots() {
		epochs = append(epochs, s.Summary.Properties["weir.epoch"])
	}
	_, recs, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c, col := range rec.Columns() {
				parts[c] = icebergCell(col, i)
			}
			rows = append(rows, strings.Join(parts, "|"))
		}
		rec.Release()
	}
	sort.Strings(rows)
	return rows, epochs
}

func icebergCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return `\N`
	}
	switch a := a.(type) {
	case *array.Int64:
		return fmt.Sprint(a.Value(i))
	case *array.Int32:
		return fmt.Sprint(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Timestamp:
		return fmt.Sprint(int64(a.Value(i)))
	}
	return "?" + a.DataType().String()
}

// An append-mode table's Iceberg sink: a sink created on a table that has
// rows starts with its contents, then gets every later epoch's rows; the
// Iceberg table, read back through iceberg-go, holds PostgreSQL's result
// of the same query over the same rows, each row once, also across a
// restart; every snapshot carries its epoch.
func TestIcebergSinkAppend(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	warehouse := filepath.Join(t.TempDir(), "lake")
	execAll(t, c, sinkOrdersTable)
	execAll(t, pg, sinkOrdersTable)
	insert := func(stmt string) {
		execAll(t, c, stmt)
		execAll(t, pg, stmt)
	}
	insert("INSERT INTO orders VALUES " + strings.Join(sinkOrders[0], ", "))
	execAll(t, c, `CREATE STREAMING TABLE silver AS SELECT order_id, region, amount, note, ts FROM STREAM orders WHERE amount > 0`)
	waitUntil(t, "silver's first rows", func() (bool, string) {
		var n int64
		c.QueryRow(context.Background(), "SELECT count(*) FROM silver").Scan(&n)
		return n == 1, fmt.Sprint(n)
	})
	execAll(t, c, fmt.Sprintf(`CREATE SINK silver_lake FROM silver WITH (connector = 'iceberg', warehouse = '%s', namespace = 'lake.silver', table = 'orders', partition_by = 'region')`, warehouse))
	for i := 1; i < len(sinkOrders); i++ {
		insert("INSERT INTO orders VALUES " + strings.Join(sinkOrders[i], ", "))
	}
	const q = `SELECT order_id, coalesce(region, '\N'), amount, coalesce(note, '\N'), (extract(epoch FROM ts) * 1000000)::bigint FROM orders WHERE amount > 0`
	want := pgRows(t, pg, q)
	wait := func(what string) {
		waitUntil(t, what, func() (bool, string) {
			rows, _ := icebergRows(t, warehouse, "lake", "silver", "orders")
			return len(rows) == len(want), fmt.Sprint(len(rows), " rows")
		})
		rows, epochs := icebergRows(t, warehouse, "lake", "silver", "orders")
		sameLines(t, what, rows, want)
		// One snapshot per epoch, in epoch order.
		prev := int64(0)
		for _, e := range epochs {
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil || n <= prev {
				t.Errorf("%s: snapshot epochs %v", what, epochs)
				break
			}
			prev = n
		}
	}
	wait("the Iceberg table")

	var name, from, conn, opts, state string
	var last *int64
	var errText *string
	if err := c.QueryRow(context.Background(), "SHOW SINKS").Scan(&name, &from, &conn, &opts, &state, &last, &errText); err != nil {
		t.Fatal(err)
	}
	if name != "silver_lake" || conn != "iceberg" || state != "running" || last == nil || *last < 1 || errText != nil ||
		!strings.Contains(opts, "warehouse="+warehouse) || !strings.Contains(opts, "namespace=lake.silver") || !strings.Contains(opts, "table=orders") {
		t.Errorf("SHOW SINKS: %s %s %s %q %s %v %v", name, from, conn, opts, state, last, errText)
	}

	// A restart writes nothing twice, and the sink goes on.
	srv.stop()
	srv = startServerWith(t, engine.Config{DataDir: srv.dir, FilesRoots: []string{os.TempDir()}})
	c = srv.connect(t)
	insert(`INSERT INTO orders VALUES (8, 'us', 2.50, 'after restart', '2024-01-01 11:00:00+00')`)
	want = pgRows(t, pg, q)
	wait("the Iceberg table after a restart")
}

// An update-mode table's Iceberg sink holds the table's contents after
// each epoch: PostgreSQL's GROUP BY over the same rows.
func TestIcebergSinkUpdateMode(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	warehouse := filepath.Join(t.TempDir(), "lake")
	execAll(t, c, sinkOrdersTable)
	execAll(t, pg, sinkOrdersTable)
	execAll(t, c, `CREATE STREAMING TABLE totals AS SELECT region, count(*) AS n, sum(amount)::numeric(18,2) AS total FROM STREAM orders GROUP BY region`)
	execAll(t, c, fmt.Sprintf(`CREATE SINK totals_lake FROM totals WITH (connector = 'iceberg', warehouse = '%s', namespace = 'gold')`, warehouse))
	const q = `SELECT coalesce(region, '\N'), count(*), sum(amount)::numeric(18,2) FROM orders GROUP BY region`
	for _, batch := range sinkOrders {
		stmt := "INSERT INTO orders VALUES " + strings.Join(batch, ", ")
		execAll(t, c, stmt)
		execAll(t, pg, stmt)
		want := pgRows(t, pg, q)
		waitUntil(t, "the Iceberg table to hold PostgreSQL's GROUP BY", func() (bool, string) {
			rows, _ := icebergRows(t, warehouse, "gold", "totals")
			return strings.Join(rows, "\n") == strings.Join(want, "\n"), strings.Join(rows, ", ")
		})
	}
}

// CREATE SINK refuses what the Iceberg table could not hold, before it
// stores the sink.
func TestIcebergSinkErrors(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	c := srv.connect(t)
	dir := t.TempDir()
	execAll(t, c, sinkOrdersTable, `CREATE STREAMING TABLE silver AS SELECT * FROM STREAM orders`,
		`CREATE STREAMING TABLE sums AS SELECT region, sum(amount) AS total FROM STREAM orders GROUP BY region`)
	execAll(t, c, fmt.Sprintf(`CREATE SINK s FROM silver WITH (connector = 'iceberg', warehouse = '%s')`, dir))
	for _, tc := range []struct{ sql, code string }{
		{`CREATE SINK s2 FROM silver WITH (connector = 'iceberg', namespace = 'n')`, "22023"},
		{`CREATE SINK s2 FROM silver WITH (connector = 'iceberg', warehouse = 'x', colour = 'red')`, "22023"},
		{`CREATE SINK s2 FROM silver WITH (connector = 'iceberg', warehouse = 'x', partition_by = 'nope')`, "42703"},
		{`CREATE SINK s2 FROM silver WITH (connector = 'iceberg', warehouse = 'x', partition_by = 'day(region)')`, "22023"},
		// sum(numeric) is numeric without a precision: no Iceberg decimal holds it.
		{`CREATE SINK s2 FROM sums WITH (connector = 'iceberg', warehouse = 'x')`, "0A000"},
		// The same Iceberg table as sink s.
		{fmt.Sprintf(`CREATE SINK s2 FROM silver WITH (connector = 'iceberg', warehouse = '%s', namespace = 'default', table = 'silver')`, dir), "22023"},
	} {
		_, err := c.Exec(context.Background(), tc.sql)
		if code := sqlState(err); code != tc.code {
			t.Errorf("%s: %v, want SQLSTATE %s", tc.sql, err, tc.code)
		}
	}
}
