package iceberg

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	_ "github.com/duckdb/duckdb-go/v2"
)

// An independent reader: DuckDB reads the Parquet data files the current
// snapshot lists (read_parquet; its iceberg extension would need a
// download) and finds the rows written, with the types Iceberg declares.
func TestDataFilesReadByDuckDB(t *testing.T) {
	cfg := writeTypedEpochs(t)
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("reader", cfg.Warehouse, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, []string{"lake", "silver", "typed"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, task := range tasks {
		if len(task.DeleteFiles) > 0 {
			t.Fatalf("an append-only table has delete files: %v", task.DeleteFiles)
		}
		files = append(files, "'"+strings.ReplaceAll(task.File.FilePath(), "'", "''")+"'")
	}
	if len(files) != 3 { // epochs 1, 2 and 4 have rows; 3 is empty
		t.Fatalf("current snapshot lists %d data files, want 3", len(files))
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every value as text, the way typedRow.expected spells it: dates and
	// timestamps as day and microsecond counts since 1970.
	q := `SELECT n, i, sm, d, num, s, b, dt, ts, tstz, j,
	        typeof(ti), typeof(tsm), typeof(tnum), typeof(tdt), typeof(tts), typeof(ttstz)
	      FROM (SELECT n,
	        coalesce(i::varchar, 'NULL') AS i, coalesce(sm::varchar, 'NULL') AS sm, d,
	        coalesce(num::varchar, 'NULL') AS num, coalesce(s, 'NULL') AS s, coalesce(b::varchar, 'NULL') AS b,
	        coalesce((dt - DATE '1970-01-01')::varchar, 'NULL') AS dt,
	        coalesce(epoch_us(ts)::varchar, 'NULL') AS ts, coalesce(epoch_us(tstz)::varchar, 'NULL') AS tstz,
	        coalesce(j, 'NULL') AS j, i AS ti, sm AS tsm, num AS tnum, dt AS tdt, ts AS tts, tstz AS ttstz
	      FROM read_parquet([` + strings.Join(files, ", ") + `]))
	      ORDER BY n`
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := allExpected()
	got := 0
	for rows.Next() {
		var n int64
		var d sql.NullFloat64
		var v [10]string
		var ty [6]string
		if err := rows.Scan(&n, &v[0], &v[1], &d, &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
			&ty[0], &ty[1], &ty[2], &ty[3], &ty[4], &ty[5]); err != nil {
			t.Fatal(err)
		}
		got++
		v[2] = "NULL"
		if d.Valid {
			v[2] = fmt.Sprintf("%g", d.Float64)
		}
		line := strings.Join(append([]string{strconv.FormatInt(n, 10)}, v[:]...), "|")
		if line != want[n] {
			t.Errorf("row %d:\n got %s\nwant %s", n, line, want[n])
		}
		if types := strings.Join(ty[:], ","); types != "INTEGER,INTEGER,DECIMAL(12,2),DATE,TIMESTAMP,TIMESTAMP WITH TIME ZONE" {
			t.Errorf("DuckDB reads the columns as %s", types)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != len(want) {
		t.Errorf("DuckDB read %d rows, want %d", got, len(want))
	}
}
