package planner

import (
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/parse"
)

// A single-stage plan names the input columns it reads (Relation.Reads):
// through filters, projections and window assignment, with the event time
// and a session's time; nil when it reads them all or cannot tell.
func TestStreamInputReads(t *testing.T) {
	cat := newStreamCatalog()
	for _, tc := range []struct{ sql, want string }{
		{"SELECT order_id FROM STREAM orders WHERE amount > 1", "order_id,amount"},
		{"SELECT region, count(*) FROM STREAM orders GROUP BY region", "region"},
		{"SELECT count(*) AS n FROM STREAM orders", ""},
		{"SELECT window(event_time, '5 minutes'), count(*), sum(amount) FROM STREAM orders GROUP BY 1", "amount,event_time"},
		{"SELECT region, window_start, count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 1 MINUTE GROUP BY session_window(event_time, '30 seconds'), region", "region,event_time"},
		{"SELECT order_id FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 1 MINUTE", "order_id,event_time"},
		{"SELECT upper(region) AS r, amount * 2 AS a FROM (SELECT region, amount, order_id FROM STREAM orders) s WHERE order_id > 3", "order_id,region,amount"},
		{"SELECT * FROM STREAM orders", "<all>"},
		{"SELECT DISTINCT ON (order_id) order_id, event_time FROM STREAM orders", "order_id,event_time"},
		{"SELECT o.order_id, r.country FROM STREAM orders o JOIN regions r ON o.region = r.region", "<all>"},
	} {
		st, err := parse.ParseStreaming("CREATE STREAMING TABLE t AS " + tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := PlanStreaming(cat, st, StreamOptions{Emit: st.Emit})
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		got := strings.Join(sp.Input.Reads, ",")
		if sp.Input.Reads == nil {
			got = "<all>"
		}
		if !sameSet(got, tc.want) {
			t.Errorf("%s: reads %q, want %q", tc.sql, got, tc.want)
		}
		if cat[sp.Input.Name].Reads != nil {
			t.Errorf("%s: the catalog's relation was changed", tc.sql)
		}
	}
}

// sameSet compares comma-separated names in any order.
func sameSet(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, n := range strings.Split(s, ",") {
			m[n] = true
		}
		return m
	}
	x, y := set(a), set(b)
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if !y[k] {
			return false
		}
	}
	return true
}
