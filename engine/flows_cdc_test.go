package engine_test

// AUTO CDC flows, SCD types 1 and 2, with Databricks' documented examples
// ("Simplified change data capture with the AUTO CDC APIs": the
// userId/name/city feed and the target tables it shows).

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// databricksCDCFeed is the docs' example feed (sequenceNum ordered as in
// the docs: the updates with sequence 5 arrive after the ones with 6).
var databricksCDCFeed = []string{
	"CREATE TABLE cdc_data_users (userId int, name text, city text, operation text, sequenceNum bigint)",
	`INSERT INTO cdc_data_users VALUES
	 (124, 'Raul', 'Oaxaca', 'INSERT', 1),
	 (123, 'Isabel', 'Monterrey', 'INSERT', 1),
	 (125, 'Mercedes', 'Tijuana', 'INSERT', 2),
	 (126, 'Lily', 'Cancun', 'INSERT', 2),
	 (123, NULL, NULL, 'DELETE', 6),
	 (125, 'Mercedes', 'Guadalajara', 'UPDATE', 6),
	 (125, 'Mercedes', 'Mexicali', 'UPDATE', 5),
	 (123, 'Isabel', 'Chihuahua', 'UPDATE', 5),
	 (NULL, 'no key', 'skipped', 'INSERT', 7)`, // not in the docs: a change without a key names no row
}

// queryLines is the rows of q, one line each, columns joined by |.
func queryLines(t *testing.T, c *pgx.Conn, q string) string {
	t.Helper()
	rows, err := c.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return strings.Join(out, "\n")
}

func TestAutoCDCDatabricksSCD1(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	execAll(t, c,
		"CREATE OR REFRESH STREAMING TABLE target",
		`CREATE FLOW flow AS AUTO CDC INTO target
		   FROM stream(cdc_data_users)
		   KEYS (userId)
		   APPLY AS DELETE WHEN operation = "DELETE"
		   SEQUENCE BY sequenceNum
		   COLUMNS * EXCEPT (operation, sequenceNum)
		   STORED AS SCD TYPE 1`,
		"REFRESH STREAMING TABLE target")
	want := "124|Raul|Oaxaca\n125|Mercedes|Guadalajara\n126|Lily|Cancun"
	if got := queryLines(t, c, "SELECT * FROM target ORDER BY userid"); got != want {
		t.Errorf("SCD1 target:\n%s\nwant (Databricks' docs):\n%s", got, want)
	}
	// The target's key is the flow's KEYS; a full refresh recomputes it
	// from the feed; DROP FLOW stops it and frees the target for another.
	if got := queryLines(t, c, "SELECT pg_get_viewdef('target'::regclass) LIKE '%row_number()%'"); got != "true" {
		t.Errorf("pg_get_viewdef(target) does not show the flow's query: %s", got)
	}
	// CREATE OR REFRESH FLOW with the same state keeps the checkpoint; a
	// definition that keeps other state is refused.
	execAll(t, c, `CREATE OR REFRESH FLOW flow AS AUTO CDC INTO target FROM stream(cdc_data_users) KEYS (userId)
		APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum COLUMNS * EXCEPT (operation, sequenceNum)`,
		"REFRESH STREAMING TABLE target")
	if got := queryLines(t, c, "SELECT * FROM target ORDER BY userid"); got != want {
		t.Errorf("SCD1 target after CREATE OR REFRESH FLOW:\n%s\nwant:\n%s", got, want)
	}
	if _, err := c.Exec(context.Background(), `CREATE OR REFRESH FLOW flow AS AUTO CDC INTO target FROM stream(cdc_data_users) KEYS (userId, name)
		SEQUENCE BY sequenceNum COLUMNS * EXCEPT (operation, sequenceNum)`); err == nil || !strings.Contains(err.Error(), "55000") {
		t.Errorf("CREATE OR REFRESH FLOW with other keys: %v, want 55000", err)
	}
	execAll(t, c, "REFRESH STREAMING TABLE target FULL")
	if got := queryLines(t, c, "SELECT * FROM target ORDER BY userid"); got != want {
		t.Errorf("SCD1 target after REFRESH FULL:\n%s\nwant:\n%s", got, want)
	}
	execAll(t, c, "DROP FLOW flow",
		"CREATE FLOW flow2 AS AUTO CDC INTO target FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum COLUMNS userId, name, city",
		"REFRESH STREAMING TABLE target")
	if got, want := queryLines(t, c, "SELECT * FROM target ORDER BY userid"), "123|NULL|NULL\n124|Raul|Oaxaca\n125|Mercedes|Guadalajara\n126|Lily|Cancun"; got != want {
		t.Errorf("SCD1 target without deletes:\n%s\nwant:\n%s", got, want)
	}
}

func TestAutoCDCDatabricksSCD2(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	execAll(t, c,
		"CREATE OR REFRESH STREAMING TABLE target",
		`APPLY CHANGES INTO live.target
		   FROM stream(cdc_data_users)
		   KEYS (userId)
		   APPLY AS DELETE WHEN operation = "DELETE"
		   SEQUENCE BY sequenceNum
		   COLUMNS * EXCEPT (operation, sequenceNum)
		   STORED AS SCD TYPE 2`,
		"REFRESH STREAMING TABLE target")
	want := strings.Join([]string{
		"123|Isabel|Monterrey|1|5",
		"123|Isabel|Chihuahua|5|6",
		"124|Raul|Oaxaca|1|NULL",
		"125|Mercedes|Tijuana|2|5",
		"125|Mercedes|Mexicali|5|6",
		"125|Mercedes|Guadalajara|6|NULL",
		"126|Lily|Cancun|2|NULL",
	}, "\n")
	if got := queryLines(t, c, "SELECT * FROM target ORDER BY userid, __START_AT"); got != want {
		t.Errorf("SCD2 target:\n%s\nwant (Databricks' docs):\n%s", got, want)
	}
}

// What AUTO CDC refuses, with SQLSTATEs.
func TestAutoCDCErrors(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	execAll(t, c, "CREATE OR REFRESH STREAMING TABLE target", "CREATE TABLE plain (a int)", "CREATE OR REFRESH STREAMING TABLE t2",
		"CREATE FLOW flow AS AUTO CDC INTO target FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum")
	for stmt, code := range map[string]string{
		"CREATE FLOW f2 AS AUTO CDC INTO target FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum":                                    "0A000",
		"CREATE FLOW f3 AS INSERT INTO target BY NAME SELECT * FROM STREAM cdc_data_users":                                                            "0A000",
		"CREATE FLOW f4 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (nope) SEQUENCE BY sequenceNum":                                          "42703",
		"CREATE FLOW f5 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum COLUMNS name, city":                     "42P10",
		"CREATE FLOW f6 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) APPLY AS TRUNCATE WHEN operation = 'T' SEQUENCE BY sequenceNum": "0A000",
		"CREATE FLOW f7 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) IGNORE NULL UPDATES SEQUENCE BY sequenceNum":                    "0A000",
		"CREATE FLOW f8 AS AUTO CDC INTO plain FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum":                                     "42809",
		"CREATE FLOW f9 AS AUTO CDC INTO t2 FROM STREAM(nosuch) KEYS (userId) SEQUENCE BY sequenceNum":                                                "42P01",
		"CREATE FLOW flow AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum":                                      "42710",
	} {
		_, err := c.Exec(context.Background(), stmt)
		var got string
		if pe, ok := err.(*pgconn.PgError); ok {
			got = pe.Code
		} else if err != nil {
			got = err.Error()
		}
		if got != code {
			t.Errorf("%s: got %q (%v), want %q", stmt, got, err, code)
		}
	}
}

// Databricks' table-clause form: CREATE OR REFRESH STREAMING TABLE target
// FLOW AUTO CDC FROM ... (the table and its own flow, named after it).
func TestAutoCDCTableFlow(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	stmt := `CREATE OR REFRESH STREAMING TABLE target
		FLOW AUTO CDC
		FROM stream(cdc_data_users)
		KEYS (userId)
		APPLY AS DELETE WHEN operation = "DELETE"
		SEQUENCE BY sequenceNum
		COLUMNS * EXCEPT (operation, sequenceNum)
		STORED AS SCD TYPE 2`
	execAll(t, c, stmt, "REFRESH STREAMING TABLE target")
	if got := queryLines(t, c, "SELECT count(*), count(*) FILTER (WHERE __end_at IS NULL) FROM target"); got != "7|3" {
		t.Errorf("SCD2 target: %s rows / current, want 7|3 (Databricks' example)", got)
	}
	execAll(t, c, stmt, "REFRESH STREAMING TABLE target") // CREATE OR REFRESH keeps it
	if got := queryLines(t, c, "SELECT count(*) FROM target"); got != "7" {
		t.Errorf("after CREATE OR REFRESH: %s rows, want 7", got)
	}
	for _, q := range []string{"SHOW CREATE TABLE target", "DESCRIBE TABLE EXTENDED target", "SELECT name FROM weir_catalog.streaming_progress"} {
		if out := queryLines(t, c, q); !strings.Contains(out, "target") || q == "SHOW CREATE TABLE target" && strings.Count(out, "FLOW AUTO CDC") != 1 {
			t.Errorf("%s:\n%s", q, out)
		}
	}
}
