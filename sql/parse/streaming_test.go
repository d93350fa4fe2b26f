package parse

import (
	"reflect"
	"strings"
	"testing"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func wmk(expr, col string, delay time.Duration) *WatermarkSpec {
	return &WatermarkSpec{Expr: expr, Column: col, Delay: delay}
}

// TestParseStreaming checks every spelling of dialect.md: the statement
// fields, the canonical query text (which must parse with pg_query), the
// inputs and the window.
func TestParseStreaming(t *testing.T) {
	const m = time.Minute
	tests := []struct {
		name   string
		sql    string
		want   StreamingStmt // compared on the fields set below
		query  string
		inputs []StreamInput
		window *WindowSpec
	}{
		{
			name: "create or refresh, options, WINDOW TUMBLING, emit",
			sql: `CREATE OR REFRESH STREAMING TABLE orders_5m
  WITH (output_mode = update, trigger = 'processing_time 10 seconds', late_rows = late_t)
AS SELECT window_start, window_end, region, sum(amount) AS total
FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 10 MINUTES
WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES)
GROUP BY window_start, window_end, region
EMIT ON WINDOW CLOSE;`,
			want: StreamingStmt{Kind: CreateStreamingTable, Name: "orders_5m", OrReplace: true, Emit: "window_close", AnyStream: true,
				Options: map[string]string{"output_mode": "update", "trigger": "processing_time 10 seconds", "late_rows": "late_t"}},
			query: `SELECT window_start, window_end, region, sum(amount) AS total
FROM TUMBLE(orders, event_time, INTERVAL '5 minutes') AS orders
GROUP BY window_start, window_end, region`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
			window: &WindowSpec{Kind: Tumbling, Size: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "watermark with quoted interval",
			sql:    `CREATE STREAMING TABLE t AS SELECT * FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL '10 minutes'`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT * FROM orders`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
		},
		{
			name:   "watermark with standard interval",
			sql:    `CREATE STREAMING TABLE t AS SELECT * FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL '10' MINUTE`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT * FROM orders`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
		},
		{
			name:   "watermark on an expression adds the column",
			sql:    `CREATE STREAMING TABLE t AS SELECT event_time, count(*) FROM STREAM raw WATERMARK to_timestamp(ts_text) AS event_time DELAY OF INTERVAL 1 MINUTE GROUP BY event_time`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT event_time, count(*) FROM (SELECT *, to_timestamp(ts_text) AS event_time FROM raw) raw GROUP BY event_time`,
			inputs: []StreamInput{{Name: "raw", Stream: true, Watermark: wmk("to_timestamp(ts_text)", "event_time", m)}},
		},
		{
			name:   "watermark on an expression with alias and a window",
			sql:    `CREATE STREAMING TABLE t AS SELECT count(*) FROM STREAM(raw) r WATERMARK to_timestamp(r.ts_text) AS et DELAY OF INTERVAL 1 MINUTE WINDOW SESSION (GAP INTERVAL 30 MINUTES) GROUP BY window_start`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT count(*) FROM SESSION((SELECT *, to_timestamp(r.ts_text) AS et FROM raw r), et, INTERVAL '30 minutes') AS r GROUP BY window_start`,
			inputs: []StreamInput{{Name: "raw", Alias: "r", Stream: true, Watermark: wmk("to_timestamp(ts_text)", "et", m)}},
			window: &WindowSpec{Kind: Session, Gap: 30 * m, TimeColumn: "et"},
		},
		{
			name:   "WINDOW HOPPING, STREAM(x) alias, qualified watermark column",
			sql:    `CREATE STREAMING TABLE t AS SELECT o.region, window_start, count(*) FROM STREAM(orders) o WATERMARK o.event_time DELAY OF INTERVAL 10 MINUTES WINDOW HOPPING  (SIZE INTERVAL 10 MINUTES, ADVANCE BY INTERVAL 5 MINUTES) WHERE o.amount > 0 GROUP BY 1, 2`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT o.region, window_start, count(*) FROM HOP(orders, event_time, INTERVAL '5 minutes', INTERVAL '10 minutes') AS o WHERE o.amount > 0 GROUP BY 1, 2`,
			inputs: []StreamInput{{Name: "orders", Alias: "o", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
			window: &WindowSpec{Kind: Hopping, Size: 10 * m, Slide: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "WINDOW SESSION keeps the relation name so orders.region resolves",
			sql:    `CREATE STREAMING TABLE t AS SELECT orders.region, count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL '10' MINUTE WINDOW SESSION  (GAP INTERVAL 30 MINUTES) GROUP BY orders.region, window_start, window_end`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT orders.region, count(*) FROM SESSION(orders, event_time, INTERVAL '30 minutes') AS orders GROUP BY orders.region, window_start, window_end`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
			window: &WindowSpec{Kind: Session, Gap: 30 * m, TimeColumn: "event_time"},
		},
		{
			name:   "WINDOW on a watermarked table without STREAM, schema-qualified",
			sql:    `CREATE STREAMING TABLE s.t AS SELECT count(*) FROM public.orders WATERMARK event_time DELAY OF INTERVAL 0 SECONDS WINDOW TUMBLING (SIZE INTERVAL '1 hour') GROUP BY window_start`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "s.t", Schema: "s"},
			query:  `SELECT count(*) FROM TUMBLE(public.orders, event_time, INTERVAL '1 hour') AS orders GROUP BY window_start`,
			inputs: []StreamInput{{Name: "public.orders", Watermark: wmk("event_time", "event_time", 0)}},
			window: &WindowSpec{Kind: Tumbling, Size: time.Hour, TimeColumn: "event_time"},
		},
		{
			name:   "TUMBLE table function stays",
			sql:    `CREATE STREAMING TABLE t AS SELECT window_start, count(*) FROM TUMBLE(orders, event_time, INTERVAL '5 minutes') GROUP BY window_start`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t"},
			query:  `SELECT window_start, count(*) FROM TUMBLE(orders, event_time, INTERVAL '5 minutes') GROUP BY window_start`,
			window: &WindowSpec{Kind: Tumbling, Size: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "HOP table function: slide then size",
			sql:    `CREATE STREAMING TABLE t AS SELECT window_start, count(*) FROM HOP(orders, event_time, INTERVAL '5 minutes', INTERVAL '10 minutes') GROUP BY window_start`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t"},
			query:  `SELECT window_start, count(*) FROM HOP(orders, event_time, INTERVAL '5 minutes', INTERVAL '10 minutes') GROUP BY window_start`,
			window: &WindowSpec{Kind: Hopping, Size: 10 * m, Slide: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "SESSION table function, INTERVAL 30 MINUTES made canonical",
			sql:    `CREATE STREAMING TABLE t AS SELECT window_start, count(*) FROM SESSION(orders, event_time, INTERVAL 30 MINUTES) GROUP BY window_start`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t"},
			query:  `SELECT window_start, count(*) FROM SESSION(orders, event_time, INTERVAL '30 minutes') GROUP BY window_start`,
			window: &WindowSpec{Kind: Session, Gap: 30 * m, TimeColumn: "event_time"},
		},
		{
			name:   "Spark window()",
			sql:    `CREATE STREAMING TABLE t AS SELECT window.start, window.end, region, count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 10 MINUTES GROUP BY window(event_time, '5 minutes'), region`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT "window".start, "window".end, region, count(*) FROM orders GROUP BY "window"(event_time, '5 minutes'), region`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
			window: &WindowSpec{Kind: Tumbling, Size: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "Spark sliding window(): width, slide",
			sql:    `CREATE STREAMING TABLE t AS SELECT window, count(*) FROM STREAM orders GROUP BY window(event_time, '10 minutes', '5 minutes')`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT "window", count(*) FROM orders GROUP BY "window"(event_time, '10 minutes', '5 minutes')`,
			inputs: []StreamInput{{Name: "orders", Stream: true}},
			window: &WindowSpec{Kind: Hopping, Size: 10 * m, Slide: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "Spark session_window()",
			sql:    `CREATE STREAMING TABLE t AS SELECT session_window.start, count(*) FROM STREAM orders GROUP BY session_window(event_time, '30 minutes')`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT session_window.start, count(*) FROM orders GROUP BY session_window(event_time, '30 minutes')`,
			inputs: []StreamInput{{Name: "orders", Stream: true}},
			window: &WindowSpec{Kind: Session, Gap: 30 * m, TimeColumn: "event_time"},
		},
		{
			name:   "dedup",
			sql:    `CREATE STREAMING TABLE t AS SELECT DISTINCT ON (event_id) * FROM STREAM events WATERMARK event_time DELAY OF INTERVAL 1 HOUR EMIT ON UPDATE`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true, Emit: "update"},
			query:  `SELECT DISTINCT ON (event_id) * FROM events`,
			inputs: []StreamInput{{Name: "events", Stream: true, Watermark: wmk("event_time", "event_time", time.Hour)}},
		},
		{
			name: "interval join",
			sql: `CREATE STREAMING TABLE IF NOT EXISTS paid AS
SELECT o.order_id, o.amount, p.paid_at
FROM STREAM orders o WATERMARK o.event_time DELAY OF INTERVAL 10 MINUTES
JOIN STREAM payments p WATERMARK p.paid_at DELAY OF INTERVAL 10 MINUTES
  ON p.order_id = o.order_id
 AND p.paid_at BETWEEN o.event_time AND o.event_time + INTERVAL '15 minutes';`,
			want: StreamingStmt{Kind: CreateStreamingTable, Name: "paid", IfNotExists: true, AnyStream: true},
			query: `SELECT o.order_id, o.amount, p.paid_at
FROM orders o
JOIN payments p
  ON p.order_id = o.order_id
 AND p.paid_at BETWEEN o.event_time AND o.event_time + INTERVAL '15 minutes'`,
			inputs: []StreamInput{
				{Name: "orders", Alias: "o", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)},
				{Name: "payments", Alias: "p", Stream: true, Watermark: wmk("paid_at", "paid_at", 10*m)},
			},
		},
		{
			name:   "stream-static LEFT JOIN",
			sql:    `CREATE STREAMING TABLE t AS SELECT o.*, c.segment FROM STREAM orders o LEFT JOIN customers c ON c.customer_id = o.customer_id`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT o.*, c.segment FROM orders o LEFT JOIN customers c ON c.customer_id = o.customer_id`,
			inputs: []StreamInput{{Name: "orders", Alias: "o", Stream: true}},
		},
		{
			name:  "no STREAM at all",
			sql:   `CREATE STREAMING TABLE t AS SELECT region, count(*) FROM orders GROUP BY region`,
			want:  StreamingStmt{Kind: CreateStreamingTable, Name: "t"},
			query: `SELECT region, count(*) FROM orders GROUP BY region`,
		},
		{
			name:   "read_files after STREAM, comma join, subquery",
			sql:    `CREATE STREAMING TABLE t AS SELECT * FROM STREAM read_files('landing/clicks', format => 'json') AS c, (SELECT * FROM STREAM orders) o`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT * FROM read_files('landing/clicks', format => 'json') AS c, (SELECT * FROM orders) o`,
			inputs: []StreamInput{{Name: "read_files", Alias: "c", Stream: true, Func: true}, {Name: "orders", Stream: true}},
		},
		{
			name:   "INTERVAL n UNIT elsewhere in the query",
			sql:    `CREATE STREAMING TABLE t AS SELECT * FROM STREAM orders WHERE event_time > now() - INTERVAL 2 HOURS`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT * FROM orders WHERE event_time > now() - INTERVAL '2 hours'`,
			inputs: []StreamInput{{Name: "orders", Stream: true}},
		},
		{
			name:   "PostgreSQL named window clause is left alone",
			sql:    `CREATE STREAMING TABLE t AS SELECT sum(a) OVER w FROM STREAM s WINDOW w AS (PARTITION BY b)`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT sum(a) OVER w FROM s WINDOW w AS (PARTITION BY b)`,
			inputs: []StreamInput{{Name: "s", Stream: true}},
		},
		{
			name: "keywords in strings and comments are not touched",
			sql: `CREATE STREAMING TABLE t AS SELECT 'FROM STREAM x WATERMARK y DELAY OF INTERVAL 5 MINUTES' AS s, /* WINDOW TUMBLING (SIZE 5 MINUTES) */ "stream"
FROM STREAM orders -- WATERMARK z DELAY OF INTERVAL 1 MINUTE
WHERE note <> 'INTERVAL 5 MINUTES'`,
			want: StreamingStmt{Kind: CreateStreamingTable, Name: "t", AnyStream: true},
			query: `SELECT 'FROM STREAM x WATERMARK y DELAY OF INTERVAL 5 MINUTES' AS s, /* WINDOW TUMBLING (SIZE 5 MINUTES) */ "stream"
FROM orders -- WATERMARK z DELAY OF INTERVAL 1 MINUTE
WHERE note <> 'INTERVAL 5 MINUTES'`,
			inputs: []StreamInput{{Name: "orders", Stream: true}},
		},
		{
			name:  "a table called stream and a quoted \"STREAM\"",
			sql:   `CREATE STREAMING TABLE t AS SELECT * FROM stream JOIN "stream" x ON true, stream AS y`,
			want:  StreamingStmt{Kind: CreateStreamingTable, Name: "t"},
			query: `SELECT * FROM stream JOIN "stream" x ON true, stream AS y`,
		},
		{
			name:   "case-insensitive",
			sql:    `create Or Refresh streaming TABLE "Orders_5m" As select window_start, count(*) from Stream Orders Watermark Event_Time delay Of interval 10 minutes window Tumbling (size interval 5 minutes) group by window_start emit on window close`,
			want:   StreamingStmt{Kind: CreateStreamingTable, Name: "Orders_5m", OrReplace: true, AnyStream: true, Emit: "window_close"},
			query:  `select window_start, count(*) from TUMBLE(Orders, Event_Time, INTERVAL '5 minutes') AS Orders group by window_start`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("Event_Time", "event_time", 10*m)}},
			window: &WindowSpec{Kind: Tumbling, Size: 5 * m, TimeColumn: "event_time"},
		},
		{
			name:   "EXPLAIN CREATE fills the same fields",
			sql:    `EXPLAIN CREATE STREAMING TABLE t AS SELECT * FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 10 MINUTES`,
			want:   StreamingStmt{Kind: ExplainCreateStreamingTable, Name: "t", AnyStream: true},
			query:  `SELECT * FROM orders`,
			inputs: []StreamInput{{Name: "orders", Stream: true, Watermark: wmk("event_time", "event_time", 10*m)}},
		},
		{
			name:   "bare SELECT with streaming clauses",
			sql:    `SELECT DISTINCT ON (event_id) * FROM STREAM events WATERMARK event_time DELAY OF INTERVAL 1 HOUR`,
			want:   StreamingStmt{Kind: StreamingQuery, AnyStream: true},
			query:  `SELECT DISTINCT ON (event_id) * FROM events`,
			inputs: []StreamInput{{Name: "events", Stream: true, Watermark: wmk("event_time", "event_time", time.Hour)}},
		},
		{name: "refresh", sql: `REFRESH STREAMING TABLE orders_5m;`, want: StreamingStmt{Kind: RefreshStreamingTable, Name: "orders_5m"}},
		{name: "refresh full", sql: `refresh streaming table orders_5m full`, want: StreamingStmt{Kind: RefreshStreamingTable, Name: "orders_5m", Full: true}},
		{name: "drop", sql: `DROP STREAMING TABLE orders_5m`, want: StreamingStmt{Kind: DropStreamingTable, Name: "orders_5m"}},
		{name: "drop if exists", sql: `DROP STREAMING TABLE IF EXISTS app.orders_5m;`, want: StreamingStmt{Kind: DropStreamingTable, Name: "app.orders_5m", Schema: "app", IfExists: true}},
		{name: "show", sql: `SHOW STREAMING TABLES;`, want: StreamingStmt{Kind: ShowStreamingTables}},
		{name: "explain table", sql: `EXPLAIN STREAMING TABLE orders_5m`, want: StreamingStmt{Kind: ExplainStreamingTable, Name: "orders_5m"}},
		{name: "subscribe to", sql: `SUBSCRIBE TO orders_5m;`, want: StreamingStmt{Kind: Subscribe, Name: "orders_5m"}},
		{name: "subscribe", sql: `subscribe orders_5m`, want: StreamingStmt{Kind: Subscribe, Name: "orders_5m"}},
		{name: "copy subscribe", sql: `COPY (SUBSCRIBE TO orders_5m) TO STDOUT;`, want: StreamingStmt{Kind: Subscribe, Name: "orders_5m", CopyOut: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ParseStreaming(tc.sql)
			if err != nil {
				e := sqlerr.From(err)
				t.Fatalf("error %s at %d: %s", e.Code, e.Position, e.Message)
			}
			if st == nil {
				t.Fatal("not recognised as a streaming statement")
			}
			if st.Query != tc.query {
				t.Errorf("query:\n got %s\nwant %s", st.Query, tc.query)
			}
			if tc.query != "" {
				if _, err := pg_query.Parse(st.Query); err != nil {
					t.Errorf("canonical query does not parse: %v", err)
				}
				if !strings.HasPrefix(tc.sql[st.QueryOffset:], strings.Fields(tc.query)[0]) {
					t.Errorf("QueryOffset %d does not point at the query", st.QueryOffset)
				}
			}
			got := *st
			if len(tc.want.Options) == 0 && len(got.Options) == 0 {
				got.Options = nil
			}
			got.Query, got.QueryOffset, got.Inputs, got.Window, got.Pos = "", 0, nil, nil, 0
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("statement:\n got %+v\nwant %+v", got, tc.want)
			}
			if st.Pos != 1 {
				t.Errorf("Pos = %d", st.Pos)
			}
			if len(st.Inputs) != len(tc.inputs) {
				t.Fatalf("inputs: got %+v, want %+v", st.Inputs, tc.inputs)
			}
			for i, in := range st.Inputs {
				w := tc.inputs[i]
				if in.Watermark != nil && w.Watermark != nil {
					if in.Watermark.Pos <= 0 || !strings.HasPrefix(strings.ToUpper(string([]rune(tc.sql)[in.Watermark.Pos-1:])), "WATERMARK") {
						t.Errorf("watermark Pos %d does not point at WATERMARK", in.Watermark.Pos)
					}
					c := *in.Watermark
					c.Pos = 0
					in.Watermark = &c
				}
				if !reflect.DeepEqual(in, w) {
					t.Errorf("input %d: got %+v (%+v), want %+v (%+v)", i, in, in.Watermark, w, w.Watermark)
				}
			}
			if (st.Window == nil) != (tc.window == nil) {
				t.Fatalf("window: got %+v, want %+v", st.Window, tc.window)
			}
			if st.Window != nil {
				w := *st.Window
				if w.Pos <= 0 {
					t.Errorf("window Pos %d", w.Pos)
				}
				w.Pos = 0
				if w != *tc.window {
					t.Errorf("window: got %+v, want %+v", w, *tc.window)
				}
			}
		})
	}
}

// TestParseStreamingNotOurs: what PostgreSQL parses itself is left to Parse.
func TestParseStreamingNotOurs(t *testing.T) {
	for _, sql := range []string{
		"SELECT 1", "", ";", "-- only a comment", "select $1::int, 'FROM STREAM x' /* STREAM */",
		"SELECT * FROM orders_5m WHERE region = 'eu' ORDER BY window_start",
		"SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY b)",
		"SELECT extract(epoch FROM ts), substring(s FROM 2), a IS DISTINCT FROM b FROM t",
		"SELECT * FROM TUMBLE(orders, event_time, INTERVAL '5 minutes')",
		"SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(x)$' COLLATE pg_catalog.default",
		"CREATE TABLE orders (order_id bigint, event_time timestamptz)",
		"CREATE OR REPLACE VIEW v AS SELECT 1", "DROP TABLE orders", "SHOW search_path",
		"SET application_name = 'x'", "REFRESH MATERIALIZED VIEW m", "EXPLAIN SELECT 1",
		"COPY orders FROM STDIN", "COPY (SELECT 1) TO STDOUT", "INSERT INTO t VALUES (1)",
		"SELECT INTERVAL '5' MINUTE",
	} {
		st, err := ParseStreaming(sql)
		if st != nil || err != nil {
			t.Errorf("%q: got %+v, %v; want nil, nil", sql, st, err)
		}
	}
}

// TestParseStreamingErrors: each error has its SQLSTATE and points into
// the offending clause (at the first occurrence of `at`).
func TestParseStreamingErrors(t *testing.T) {
	const pre = "CREATE STREAMING TABLE t AS SELECT count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 10 MINUTES "
	tests := []struct {
		sql, code, at, msg string
	}{
		{pre + "WINDOW SLIDING (SIZE INTERVAL 5 MINUTES)", sqlerr.FeatureNotSupported, "SLIDING", "WINDOW SLIDING is not supported"},
		{pre + "WINDOW TUMBLING (SIZE INTERVAL 0 MINUTES)", sqlerr.InvalidParameterValue, "INTERVAL 0", "window size must be positive"},
		{pre + "WINDOW TUMBLING (SIZE INTERVAL '-5 minutes')", sqlerr.InvalidParameterValue, "INTERVAL '-5", "window size must be positive"},
		{pre + "WINDOW HOPPING (SIZE INTERVAL 10 MINUTES, ADVANCE BY INTERVAL 3 MINUTES)", sqlerr.InvalidParameterValue, "INTERVAL 3", "must divide"},
		{pre + "WINDOW HOPPING (SIZE INTERVAL 10 MINUTES, ADVANCE BY INTERVAL 20 MINUTES)", sqlerr.InvalidParameterValue, "INTERVAL 20", "must not exceed"},
		{pre + "WINDOW HOPPING (SIZE INTERVAL 10 MINUTES, ADVANCE BY INTERVAL 0 MINUTES)", sqlerr.InvalidParameterValue, "INTERVAL 0", "positive"},
		{pre + "WINDOW SESSION (GAP INTERVAL 0 SECONDS)", sqlerr.InvalidParameterValue, "INTERVAL 0", "session gap must be positive"},
		{pre + "WINDOW TUMBLING (SIZ INTERVAL 5 MINUTES)", sqlerr.SyntaxError, "SIZ ", "syntax error in WINDOW clause"},
		{pre + "WINDOW TUMBLING (SIZE 5 furlongs)", sqlerr.SyntaxError, "5 furlongs", "expected SIZE INTERVAL"},
		{pre + "WINDOW HOPPING (SIZE INTERVAL 10 MINUTES)", sqlerr.SyntaxError, "<last>)", "ADVANCE BY"},
		{pre + "WINDOW TUMBLING (SIZE INTERVAL 1 MONTH)", sqlerr.InvalidParameterValue, "INTERVAL 1 MONTH", "fixed length"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES)", sqlerr.SyntaxError, "WINDOW", "needs an event-time column"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders WATERMARK event_time INTERVAL 5 MINUTES", sqlerr.SyntaxError, "INTERVAL", "WATERMARK clause"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders WATERMARK event_time DELAY OF 5", sqlerr.SyntaxError, "5", "DELAY OF INTERVAL"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders WATERMARK to_timestamp(x) DELAY OF INTERVAL 5 MINUTES", sqlerr.SyntaxError, "to_timestamp", "needs a name"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL '-5 minutes'", sqlerr.InvalidParameterValue, "INTERVAL '-5", "negative"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM (SELECT 1)", sqlerr.SyntaxError, "SELECT 1)", "expected a table name after STREAM"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM TUMBLE(orders, event_time, INTERVAL '0 minutes')", sqlerr.InvalidParameterValue, "INTERVAL '0", "window size must be positive"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM HOP(orders, event_time, INTERVAL '4 minutes', INTERVAL '10 minutes')", sqlerr.InvalidParameterValue, "INTERVAL '4", "must divide"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM SESSION(orders, event_time, INTERVAL '-1 minutes')", sqlerr.InvalidParameterValue, "INTERVAL '-1", "session gap"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders GROUP BY window(event_time, '0 minutes')", sqlerr.InvalidParameterValue, "'0 minutes'", "window size must be positive"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders GROUP BY window(event_time, '10 minutes', '15 minutes')", sqlerr.InvalidParameterValue, "'15 minutes'", "must not exceed"},
		{"CREATE STREAMING TABLE t AS SELECT 1 FROM STREAM orders GROUP BY session_window(event_time, '0 seconds')", sqlerr.InvalidParameterValue, "'0 seconds'", "session gap"},
		{"CREATE STREAMING TABLE t (CONSTRAINT valid EXPEC (amount > 0)) AS SELECT 1", sqlerr.SyntaxError, "EXPEC", "expected CONSTRAINT name EXPECT"},
		{"CREATE STREAMING TABLE t (CONSTRAINT valid EXPECT (amount > 0) ON VIOLATION IGNORE) AS SELECT 1", sqlerr.SyntaxError, "ON VIOLATION", "DROP ROW"},
		{"CREATE STREAMING TABLE t (a int DEFAULT 1) AS SELECT 1", sqlerr.FeatureNotSupported, "DEFAULT", "DEFAULT is not supported"},
		{"CREATE STREAMING TABLE t WITH (output_mode) AS SELECT 1", sqlerr.SyntaxError, ")", "expected a value"},
		{"CREATE STREAMING TABLE t WITH (a = 1, a = 2) AS SELECT 1", sqlerr.SyntaxError, "2", "more than once"},
		{"CREATE STREAMING TABLE t SELECT 1", sqlerr.SyntaxError, "SELECT", "expected AS"},
		{"CREATE STREAMING TABLE t AS", sqlerr.SyntaxError, "", "expected a query"},
		{"CREATE STREAMING TABLE AS SELECT 1", sqlerr.SyntaxError, "AS", "expected a table name"},
		{"CREATE STREAMING TABLE t AS SELECT FROM STREAM orders WHERE AND", sqlerr.SyntaxError, "AND", "syntax error"},
		{"CREATE STREAMING TABLE t AS INSERT INTO x VALUES (1)", sqlerr.SyntaxError, "INSERT", "expected one query"},
		{"CREATE STREAMING TABLE t AS SELECT 'abc", sqlerr.SyntaxError, "'abc", "unterminated"},
		{"DROP STREAMING TABLE a b", sqlerr.SyntaxError, "b", "expected end of statement"},
		{"SHOW STREAMING TABLE", sqlerr.SyntaxError, "TABLE", "SHOW STREAMING TABLES"},
		{"SUBSCRIBE TO", sqlerr.SyntaxError, "", "expected a table name"},
		{"COPY (SUBSCRIBE TO x) TO 'file'", sqlerr.SyntaxError, "TO 'file'", "TO STDOUT"},
		{"SELECT * FROM STREAM orders WINDOW SLIDING (SIZE 5 MINUTES)", sqlerr.FeatureNotSupported, "SLIDING", "not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := ParseStreaming(tc.sql)
			if err == nil {
				t.Fatalf("no error; got %+v", st)
			}
			if st != nil {
				t.Errorf("statement returned with the error")
			}
			var e *sqlerr.Error
			if e = sqlerr.From(err); e.Code != tc.code {
				t.Fatalf("code %s (%s), want %s", e.Code, e.Message, tc.code)
			}
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tc.msg)
			}
			want := len([]rune(tc.sql)) + 1
			if at, ok := strings.CutPrefix(tc.at, "<last>"); ok {
				want = strings.LastIndex(tc.sql, at) + 1
			} else if tc.at != "" {
				want = strings.Index(tc.sql, tc.at) + 1
			}
			if e.Position != want {
				t.Errorf("position %d, want %d (%q); message %s", e.Position, want, tc.at, e.Message)
			}
		})
	}
}

func TestParseCreateTableWatermark(t *testing.T) {
	tests := []struct {
		sql, rest string
		wm        *WatermarkSpec
	}{
		{
			sql: `CREATE TABLE orders (
  order_id    bigint,
  event_time  timestamptz,
  WATERMARK FOR event_time AS event_time - INTERVAL '10 minutes'   -- optional
) WITH (retention = '24 hours');`,
			rest: `CREATE TABLE orders (
  order_id    bigint,
  event_time  timestamptz   -- optional
) WITH (retention = '24 hours');`,
			wm: &WatermarkSpec{Expr: "event_time", Column: "event_time", Delay: 10 * time.Minute, Pos: 74},
		},
		{
			sql:  `create table t (watermark for ts as ts - interval 5 seconds, ts timestamptz, v int)`,
			rest: `create table t (ts timestamptz, v int)`,
			wm:   &WatermarkSpec{Expr: "ts", Column: "ts", Delay: 5 * time.Second, Pos: 17},
		},
		{
			sql:  `CREATE TABLE t (ts timestamptz, WATERMARK FOR ts AS ts, v int)`,
			rest: `CREATE TABLE t (ts timestamptz, v int)`,
			wm:   &WatermarkSpec{Expr: "ts", Column: "ts", Pos: 33},
		},
		{
			sql:  `CREATE TABLE t (ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)`,
			rest: `CREATE TABLE t (ts timestamptz)`,
			wm:   &WatermarkSpec{Expr: "ts", Column: "ts", Delay: time.Hour, Pos: 33},
		},
		{sql: `CREATE TABLE t (watermark timestamptz, x text DEFAULT 'WATERMARK FOR')`, rest: `CREATE TABLE t (watermark timestamptz, x text DEFAULT 'WATERMARK FOR')`},
		{sql: `SELECT 1`, rest: `SELECT 1`},
	}
	for _, tc := range tests {
		rest, wm, err := ParseCreateTableWatermark(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if rest != tc.rest {
			t.Errorf("rest:\n got %s\nwant %s", rest, tc.rest)
		}
		if !reflect.DeepEqual(wm, tc.wm) {
			t.Errorf("%s: wm %+v, want %+v", tc.sql, wm, tc.wm)
		}
		if _, err := pg_query.Parse(rest); err != nil && strings.HasPrefix(rest, "C") {
			t.Errorf("rest does not parse: %v", err)
		}
	}
	for _, tc := range []struct{ sql, code, at string }{
		{`CREATE TABLE t (ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1 minute' * 2)`, sqlerr.FeatureNotSupported, "ts - INTERVAL"},
		{`CREATE TABLE t (ts timestamptz, WATERMARK FOR ts AS other - INTERVAL '1 minute')`, sqlerr.FeatureNotSupported, "other"},
		{`CREATE TABLE t (ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1 month')`, sqlerr.InvalidParameterValue, "INTERVAL '1 month'"},
		{`CREATE TABLE t (ts timestamptz, WATERMARK FOR ts ts)`, sqlerr.SyntaxError, "ts)"},
		{`CREATE TABLE t (a timestamptz, b timestamptz, WATERMARK FOR a AS a, WATERMARK FOR b AS b)`, sqlerr.FeatureNotSupported, "WATERMARK FOR b"},
	} {
		_, _, err := ParseCreateTableWatermark(tc.sql)
		e := sqlerr.From(err)
		if e == nil || e.Code != tc.code || e.Position != strings.Index(tc.sql, tc.at)+1 {
			t.Errorf("%s: got %+v, want %s at %d", tc.sql, e, tc.code, strings.Index(tc.sql, tc.at)+1)
		}
	}
}

func TestIntervalSpellings(t *testing.T) {
	for _, tc := range []struct {
		text string
		d    time.Duration
	}{
		{"INTERVAL '5 minutes'", 5 * time.Minute}, {"INTERVAL '5' MINUTE", 5 * time.Minute}, {"INTERVAL 5 MINUTES", 5 * time.Minute},
		{"INTERVAL 1 MINUTE", time.Minute}, {"INTERVAL 30 SECONDS", 30 * time.Second}, {"INTERVAL '2' HOUR", 2 * time.Hour},
		{"INTERVAL 1 DAY", 24 * time.Hour}, {"INTERVAL '1 hour 30 minutes'", 90 * time.Minute}, {"INTERVAL '00:05:00'", 5 * time.Minute},
		{"INTERVAL 1.5 HOURS", 90 * time.Minute}, {"'10 minutes'", 10 * time.Minute}, {"5 MINUTES", 5 * time.Minute},
	} {
		toks, err := tokens(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		ts := &tokenStream{sql: tc.text, toks: toks}
		lit, ok := ts.interval(0)
		if !ok || lit.d != tc.d || lit.next != len(toks) {
			t.Errorf("%s: got %v %v next %d", tc.text, lit.d, ok, lit.next)
		}
	}
	for d, want := range map[time.Duration]string{
		5 * time.Minute: "INTERVAL '5 minutes'", time.Minute: "INTERVAL '1 minute'", 90 * time.Minute: "INTERVAL '90 minutes'",
		2 * time.Hour: "INTERVAL '2 hours'", 48 * time.Hour: "INTERVAL '2 days'", 1500 * time.Millisecond: "INTERVAL '1500 milliseconds'",
	} {
		if got := formatInterval(d); got != want {
			t.Errorf("%v: %s, want %s", d, got, want)
		}
	}
}
