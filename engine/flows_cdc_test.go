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
		"CREATE FLOW f2 AS AUTO CDC INTO target FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum":                                                                                      "0A000",
		"CREATE FLOW f3 AS INSERT INTO target BY NAME SELECT * FROM STREAM cdc_data_users":                                                                                                              "0A000",
		"CREATE FLOW f4 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (nope) SEQUENCE BY sequenceNum":                                                                                            "42703",
		"CREATE FLOW f5 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum COLUMNS name, city":                                                                       "42P10",
		"CREATE FLOW f6 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) APPLY AS TRUNCATE WHEN operation = 'T' SEQUENCE BY sequenceNum STORED AS SCD TYPE 2":                              "0A000",
		"CREATE FLOW f7 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) IGNORE NULL UPDATES ON (nope) SEQUENCE BY sequenceNum":                                                            "42703",
		"CREATE FLOW f10 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum TRACK HISTORY ON (city)":                                                                 "42601",
		"CREATE FLOW f11 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum STORED AS SCD TYPE 2 TRACK HISTORY ON (nope)":                                            "42703",
		"CREATE FLOW f12 AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum COLUMNS * EXCEPT (operation) STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (operation)": "42703",
		"CREATE FLOW f8 AS AUTO CDC INTO plain FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum":                                                                                       "42809",
		"CREATE FLOW f9 AS AUTO CDC INTO t2 FROM STREAM(nosuch) KEYS (userId) SEQUENCE BY sequenceNum":                                                                                                  "42P01",
		"CREATE FLOW flow AS AUTO CDC INTO t2 FROM STREAM(cdc_data_users) KEYS (userId) SEQUENCE BY sequenceNum":                                                                                        "42710",
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

// databricksCDCTruncate is the row the docs' example feed has commented
// out ("Uncomment to test TRUNCATE").
const databricksCDCTruncate = `INSERT INTO cdc_data_users VALUES (NULL, NULL, NULL, 'TRUNCATE', 3)`

// APPLY AS TRUNCATE WHEN, the docs' SCD type 1 example: "records 124 and
// 126 are truncated because of the TRUNCATE operation at sequenceNum=3",
// leaving 125 (whose changes at 5 and 6 come after it).
func TestAutoCDCDatabricksTruncate(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	execAll(t, c,
		"CREATE OR REFRESH STREAMING TABLE users_current",
		`CREATE FLOW apply_cdc AS AUTO CDC INTO users_current
		   FROM stream(cdc_data_users)
		   KEYS (userId)
		   APPLY AS DELETE WHEN operation = "DELETE"
		   APPLY AS TRUNCATE WHEN operation = "TRUNCATE"
		   SEQUENCE BY sequenceNum
		   COLUMNS * EXCEPT (operation, sequenceNum)
		   STORED AS SCD TYPE 1`,
		"REFRESH STREAMING TABLE users_current")
	// Without the truncate row, the docs' SCD type 1 table.
	if got, want := queryLines(t, c, "SELECT * FROM users_current ORDER BY userid"), "124|Raul|Oaxaca\n125|Mercedes|Guadalajara\n126|Lily|Cancun"; got != want {
		t.Errorf("before the truncate:\n%s\nwant (Databricks' docs):\n%s", got, want)
	}
	execAll(t, c, databricksCDCTruncate, "REFRESH STREAMING TABLE users_current")
	if got, want := queryLines(t, c, "SELECT * FROM users_current ORDER BY userid"), "125|Mercedes|Guadalajara"; got != want {
		t.Errorf("with the truncate at sequence 3:\n%s\nwant (Databricks' docs):\n%s", got, want)
	}
	// A change sequenced after the truncate brings its key back; one
	// before it stays gone.
	execAll(t, c, "INSERT INTO cdc_data_users VALUES (124, 'Raul', 'Puebla', 'UPDATE', 8), (126, 'Lily', 'Tulum', 'UPDATE', 2)",
		"REFRESH STREAMING TABLE users_current")
	if got, want := queryLines(t, c, "SELECT * FROM users_current ORDER BY userid"), "124|Raul|Puebla\n125|Mercedes|Guadalajara"; got != want {
		t.Errorf("after later changes:\n%s\nwant:\n%s", got, want)
	}
	execAll(t, c, "REFRESH STREAMING TABLE users_current FULL")
	if got, want := queryLines(t, c, "SELECT * FROM users_current ORDER BY userid"), "124|Raul|Puebla\n125|Mercedes|Guadalajara"; got != want {
		t.Errorf("after REFRESH FULL:\n%s\nwant:\n%s", got, want)
	}
}

// TRACK HISTORY ON * EXCEPT (city), the docs' SCD type 2 example: city
// changes update the current version in place.
func TestAutoCDCDatabricksTrackHistory(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	execAll(t, c,
		"CREATE OR REFRESH STREAMING TABLE users_history",
		`CREATE FLOW apply_cdc AS AUTO CDC INTO users_history
		   FROM stream(cdc_data_users)
		   KEYS (userId)
		   APPLY AS DELETE WHEN operation = "DELETE"
		   SEQUENCE BY sequenceNum
		   COLUMNS * EXCEPT (operation, sequenceNum)
		   STORED AS SCD TYPE 2
		   TRACK HISTORY ON * EXCEPT (city)`,
		"REFRESH STREAMING TABLE users_history")
	want := strings.Join([]string{
		"123|Isabel|Chihuahua|1|6",
		"124|Raul|Oaxaca|1|NULL",
		"125|Mercedes|Guadalajara|2|NULL",
		"126|Lily|Cancun|2|NULL",
	}, "\n")
	if got := queryLines(t, c, "SELECT * FROM users_history ORDER BY userid, __start_at"); got != want {
		t.Errorf("SCD2 target tracking all but city:\n%s\nwant (Databricks' docs):\n%s", got, want)
	}
	// A change of a tracked column opens a version; TRACK HISTORY ON
	// (name) says the same as * EXCEPT (city).
	execAll(t, c, "INSERT INTO cdc_data_users VALUES (126, 'Lilian', 'Cancun', 'UPDATE', 8), (126, 'Lilian', 'Merida', 'UPDATE', 9)",
		"REFRESH STREAMING TABLE users_history",
		"CREATE OR REFRESH STREAMING TABLE by_name",
		`CREATE FLOW by_name_flow AS AUTO CDC INTO by_name FROM stream(cdc_data_users) KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE"
		   SEQUENCE BY sequenceNum COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2 TRACK HISTORY ON name`,
		"REFRESH STREAMING TABLE by_name")
	want = strings.Replace(want, "126|Lily|Cancun|2|NULL", "126|Lily|Cancun|2|8\n126|Lilian|Merida|8|NULL", 1)
	for _, tbl := range []string{"users_history", "by_name"} {
		if got := queryLines(t, c, "SELECT * FROM "+tbl+" ORDER BY userid, __start_at"); got != want {
			t.Errorf("%s after a change of name:\n%s\nwant:\n%s", tbl, got, want)
		}
	}
}

// IGNORE NULL UPDATES, as Databricks describes it: "columns with a null
// retain their existing values in the target"; ON (cols) limits it to
// those columns.
func TestAutoCDCIgnoreNullUpdates(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	execAll(t, c, databricksCDCFeed...)
	execAll(t, c, "INSERT INTO cdc_data_users VALUES (126, NULL, 'Merida', 'UPDATE', 8), (126, 'Lilian', NULL, 'UPDATE', 9), (127, NULL, 'Leon', 'INSERT', 3)")
	for name, clauses := range map[string]string{
		"all_cols": "IGNORE NULL UPDATES", "name_only": "IGNORE NULL UPDATES ON (name)",
		"scd2": "IGNORE NULL UPDATES STORED AS SCD TYPE 2",
	} {
		execAll(t, c, "CREATE OR REFRESH STREAMING TABLE "+name,
			"CREATE FLOW "+name+"_flow AS AUTO CDC INTO "+name+` FROM stream(cdc_data_users) KEYS (userId) `+clauses+`
			   APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum COLUMNS * EXCEPT (operation, sequenceNum)`,
			"REFRESH STREAMING TABLE "+name)
	}
	// 127's insert has no name: there was no row to keep one from.
	for q, want := range map[string]string{
		"SELECT * FROM all_cols ORDER BY userid":  "124|Raul|Oaxaca\n125|Mercedes|Guadalajara\n126|Lilian|Merida\n127|NULL|Leon",
		"SELECT * FROM name_only ORDER BY userid": "124|Raul|Oaxaca\n125|Mercedes|Guadalajara\n126|Lilian|NULL\n127|NULL|Leon",
		"SELECT * FROM scd2 WHERE userid IN (123, 126) ORDER BY userid, __start_at": strings.Join([]string{
			"123|Isabel|Monterrey|1|5", "123|Isabel|Chihuahua|5|6",
			"126|Lily|Cancun|2|8", "126|Lily|Merida|8|9", "126|Lilian|Merida|9|NULL"}, "\n"),
	} {
		if got := queryLines(t, c, q); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", q, got, want)
		}
	}
}
