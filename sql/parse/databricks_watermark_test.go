package parse

import (
	"reflect"
	"strings"
	"testing"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks' WATERMARK clause as its SQL reference writes it
// (sql-ref-syntax-qry-select-watermark): the alias after the clause, a
// derived column, joins with a clause on each side, a subquery.
func TestDatabricksWatermark(t *testing.T) {
	const s = time.Second
	wmk := func(e, c string, d time.Duration) *WatermarkSpec { return &WatermarkSpec{Expr: e, Column: c, Delay: d} }
	tests := []struct {
		name, sql, query string
		inputs           []StreamInput
	}{
		{
			name:   "alias after the clause (the reference's first example)",
			sql:    `SELECT count(*) AS cnt FROM STREAM stream_source WATERMARK ts DELAY OF INTERVAL 10 SECONDS AS stream GROUP BY window(ts, '10 seconds')`,
			query:  `SELECT count(*) AS cnt FROM stream_source AS stream GROUP BY "window"(ts, '10 seconds')`,
			inputs: []StreamInput{{Name: "stream_source", Alias: "stream", Stream: true, Watermark: wmk("ts", "ts", 10*s)}},
		},
		{
			name:   "derived column, alias after (the reference's second example)",
			sql:    `SELECT count(*) FROM STREAM stream_source WATERMARK to_timestamp(ts_str) AS ts DELAY OF INTERVAL 10 SECONDS AS stream GROUP BY window(ts, '10 seconds')`,
			query:  `SELECT count(*) FROM (SELECT *, to_timestamp(ts_str) AS ts FROM stream_source AS stream) stream GROUP BY "window"(ts, '10 seconds')`,
			inputs: []StreamInput{{Name: "stream_source", Alias: "stream", Stream: true, Watermark: wmk("to_timestamp(ts_str)", "ts", 10*s)}},
		},
		{
			name:   "alias without AS after the clause, qualified column",
			sql:    `SELECT s.ts FROM STREAM src WATERMARK s.ts DELAY OF INTERVAL 1 MINUTE s`,
			query:  `SELECT s.ts FROM src s`,
			inputs: []StreamInput{{Name: "src", Alias: "s", Stream: true, Watermark: wmk("ts", "ts", time.Minute)}},
		},
		{
			name:   "alias first, qualified column, three-part name",
			sql:    `SELECT o.id FROM STREAM main.public.orders o WATERMARK o.event_time DELAY OF INTERVAL '5' SECOND`,
			query:  `SELECT o.id FROM main.public.orders o`,
			inputs: []StreamInput{{Name: "main.public.orders", Alias: "o", Stream: true, Watermark: wmk("event_time", "event_time", 5*s)}},
		},
		{
			name:   "derived column over a qualified expression",
			sql:    `SELECT r.et FROM STREAM raw WATERMARK to_timestamp(r.ts_str) AS et DELAY OF INTERVAL 1 SECOND AS r`,
			query:  `SELECT r.et FROM (SELECT *, to_timestamp(r.ts_str) AS et FROM raw AS r) r`,
			inputs: []StreamInput{{Name: "raw", Alias: "r", Stream: true, Watermark: wmk("to_timestamp(ts_str)", "et", s)}},
		},
		{
			name: "join: each side its own clause, aliases after",
			sql: `SELECT a.id FROM STREAM clicks WATERMARK click_time DELAY OF INTERVAL 1 MINUTE AS a
JOIN STREAM impressions WATERMARK impression_time DELAY OF INTERVAL 2 MINUTES AS b
ON a.id = b.id AND a.click_time BETWEEN b.impression_time AND b.impression_time + INTERVAL 1 HOUR`,
			query: `SELECT a.id FROM clicks AS a
JOIN impressions AS b
ON a.id = b.id AND a.click_time BETWEEN b.impression_time AND b.impression_time + INTERVAL '1 hour'`,
			inputs: []StreamInput{
				{Name: "clicks", Alias: "a", Stream: true, Watermark: wmk("click_time", "click_time", time.Minute)},
				{Name: "impressions", Alias: "b", Stream: true, Watermark: wmk("impression_time", "impression_time", 2*time.Minute)},
			},
		},
		{
			name:   "subquery, clause after its parenthesis",
			sql:    `SELECT count(*) FROM (SELECT * FROM STREAM src WHERE v > 0) WATERMARK ts DELAY OF INTERVAL 10 SECONDS AS s GROUP BY window(ts, '10 seconds')`,
			query:  `SELECT count(*) FROM (SELECT * FROM src WHERE v > 0) AS s GROUP BY "window"(ts, '10 seconds')`,
			inputs: []StreamInput{{Name: "src", Stream: true, Watermark: wmk("ts", "ts", 10*s)}},
		},
		{
			name:   "the clause inside a subquery, alias after",
			sql:    `SELECT w_start, cnt FROM (SELECT window.start AS w_start, count(*) AS cnt FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS AS s GROUP BY window(s.ts, '10 seconds')) AS agg WHERE cnt > 1`,
			query:  `SELECT w_start, cnt FROM (SELECT "window".start AS w_start, count(*) AS cnt FROM src AS s GROUP BY "window"(s.ts, '10 seconds')) AS agg WHERE cnt > 1`,
			inputs: []StreamInput{{Name: "src", Alias: "s", Stream: true, Watermark: wmk("ts", "ts", 10*s)}},
		},
		{
			name:   "subquery without STREAM, alias first",
			sql:    `SELECT count(*) FROM (SELECT * FROM src) s WATERMARK s.ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '10 seconds')`,
			query:  `SELECT count(*) FROM (SELECT * FROM src) s GROUP BY "window"(ts, '10 seconds')`,
			inputs: []StreamInput{{Name: "src", Watermark: wmk("ts", "ts", 10*s)}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ParseStreaming(tc.sql)
			if err != nil {
				e := sqlerr.From(err)
				t.Fatalf("error %s at %d: %s", e.Code, e.Position, e.Message)
			}
			if st == nil || st.Kind != StreamingQuery {
				t.Fatalf("not recognised as a streaming query: %+v", st)
			}
			if st.Query != tc.query {
				t.Errorf("query:\n got %s\nwant %s", st.Query, tc.query)
			}
			if _, err := pg_query.Parse(st.Query); err != nil {
				t.Errorf("canonical query does not parse: %v", err)
			}
			if len(st.Inputs) != len(tc.inputs) {
				t.Fatalf("inputs: got %+v, want %+v", st.Inputs, tc.inputs)
			}
			for i, in := range st.Inputs {
				if in.Watermark != nil {
					if !strings.HasPrefix(strings.ToUpper(string([]rune(tc.sql)[in.Watermark.Pos-1:])), "WATERMARK") {
						t.Errorf("watermark Pos %d does not point at WATERMARK", in.Watermark.Pos)
					}
					c := *in.Watermark
					c.Pos = 0
					in.Watermark = &c
				}
				if !reflect.DeepEqual(in, tc.inputs[i]) {
					t.Errorf("input %d: got %+v (%+v), want %+v (%+v)", i, in, in.Watermark, tc.inputs[i], tc.inputs[i].Watermark)
				}
			}
		})
	}
}

func TestDatabricksWatermarkErrors(t *testing.T) {
	tests := []struct {
		sql, code, at, msg string
	}{
		{`SELECT 1 FROM STREAM src s WATERMARK ts DELAY OF INTERVAL 1 SECOND AS t`, sqlerr.SyntaxError, "AS t", "alias once"},
		{`SELECT 1 FROM (SELECT * FROM STREAM a, STREAM b) WATERMARK ts DELAY OF INTERVAL 1 SECOND`, sqlerr.FeatureNotSupported, "WATERMARK", "several streams"},
		{`SELECT 1 FROM (SELECT * FROM src) WATERMARK to_timestamp(x) AS ts DELAY OF INTERVAL 1 SECOND`, sqlerr.FeatureNotSupported, "to_timestamp", "compute the column"},
		{`SELECT 1 FROM (SELECT * FROM src WATERMARK ts DELAY OF INTERVAL 1 SECOND) WATERMARK ts DELAY OF INTERVAL 1 SECOND`, sqlerr.SyntaxError, "WATERMARK ts DELAY OF INTERVAL 1 SECOND\x00", "already has"},
		{`SELECT 1 FROM STREAM src WATERMARK ts DELAY OF INTERVAL 1 SECOND AS`, sqlerr.SyntaxError, "", "syntax error"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := ParseStreaming(tc.sql)
			if err == nil && st != nil && st.Kind == StreamingQuery {
				_, err = Parse(st.Query)
				err = shiftForTest(err, st.QueryOffset)
			}
			if err == nil {
				t.Fatalf("no error")
			}
			e := sqlerr.From(err)
			if e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("got %s %q, want %s containing %q", e.Code, e.Message, tc.code, tc.msg)
			}
			at := strings.TrimSuffix(tc.at, "\x00")
			want := strings.Index(tc.sql, at) + 1
			if strings.HasSuffix(tc.at, "\x00") {
				want = strings.LastIndex(tc.sql, at) + 1
			}
			if at == "" {
				want = len(tc.sql) + 1
			}
			if e.Position != want {
				t.Errorf("position %d, want %d (%q)", e.Position, want, at)
			}
		})
	}
}

func shiftForTest(err error, off int) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Position > 0 {
		cp := *se
		cp.Position += off
		return &cp
	}
	return err
}
