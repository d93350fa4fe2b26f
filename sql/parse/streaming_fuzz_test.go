package parse

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// FuzzParseStreaming: any text gives nil, a statement whose canonical
// query parses, or an error with a SQLSTATE and a position inside the
// text — never a panic (which the front end would report as XX000).
func FuzzParseStreaming(f *testing.F) {
	for _, s := range []string{
		"CREATE OR REFRESH STREAMING TABLE t WITH (output_mode = update) AS SELECT window_start, count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 10 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY 1 EMIT ON WINDOW CLOSE",
		"CREATE STREAMING TABLE t AS SELECT * FROM STREAM(raw) r WATERMARK to_timestamp(ts) AS et DELAY OF INTERVAL '1' MINUTE WINDOW HOPPING (SIZE INTERVAL 10 MINUTES, ADVANCE BY INTERVAL 5 MINUTES)",
		"SELECT window.start FROM STREAM o GROUP BY window(t, '10 minutes', '5 minutes')",
		"SELECT * FROM HOP(orders, event_time, INTERVAL '5 minutes', INTERVAL '10 minutes')",
		"CREATE STREAMING TABLE t (CONSTRAINT c EXPECT (a > 0) ON VIOLATION FAIL UPDATE) AS SELECT 1",
		"CREATE OR REFRESH STREAMING LIVE TABLE t (id int PRIMARY KEY, d date GENERATED ALWAYS AS (CAST(ts AS date)) COMMENT 'x', CONSTRAINT pk PRIMARY KEY (id)) COMMENT 'c' TBLPROPERTIES ('a' = 'b') PARTITIONED BY (d) CLUSTER BY AUTO SCHEDULE REFRESH CRON '0 0/15 * * * ? *' AT TIME ZONE 'UTC' AS SELECT * FROM STREAM(LIVE.raw)",
		"CREATE OR REFRESH STREAMING TABLE users;", "CREATE FLOW f AS INSERT INTO ONCE t BY NAME SELECT * FROM STREAM s",
		"ALTER STREAMING TABLE t ADD TRIGGER ON UPDATE AT MOST EVERY INTERVAL 5 MINUTES", "ALTER STREAMING TABLE t UNSET TBLPROPERTIES IF EXISTS (a.b)",
		"COPY (SUBSCRIBE TO x) TO STDOUT", "REFRESH STREAMING TABLE x FULL", "SHOW STREAMING TABLES",
		"SELECT 1 FROM STREAM", "WINDOW SESSION (", "STREAM(", "SELECT 'x", "CREATE TABLE t (WATERMARK FOR a AS a - INTERVAL '1 s')",
		// Databricks' placements of the alias and the clause.
		"SELECT count(*) FROM STREAM s WATERMARK to_timestamp(t) AS ts DELAY OF INTERVAL 10 SECONDS AS stream GROUP BY window(ts, '10 seconds')",
		"SELECT 1 FROM (SELECT * FROM STREAM s) WATERMARK ts DELAY OF INTERVAL 1 SECOND AS q JOIN STREAM b WATERMARK t DELAY OF INTERVAL 1 SECOND b2 ON true",
		"SELECT 1 FROM (SELECT 1) WATERMARK", "SELECT 1 FROM STREAM a.b.c o WATERMARK o.t DELAY OF INTERVAL 1 SECOND AS",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(err error) {
			e := sqlerr.From(err)
			if e.Code == "" || e.Code == sqlerr.InternalError || e.Message == "" {
				t.Fatalf("bad error for %q: %#v", s, e)
			}
			if e.Position < 0 || e.Position > len([]rune(s))+1 {
				t.Fatalf("position %d outside %q", e.Position, s)
			}
		}
		st, err := ParseStreaming(s)
		if err != nil {
			check(err)
		} else if st != nil && st.Query != "" {
			if _, perr := pg_query.Parse(st.Query); perr != nil {
				t.Fatalf("canonical query of %q does not parse: %q: %v", s, st.Query, perr)
			}
		}
		if _, _, err := ParseCreateTableWatermark(s); err != nil {
			check(err)
		}
	})
}
