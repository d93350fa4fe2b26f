package planner

import (
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// planJoin parses a CREATE STREAMING TABLE and plans its join of two streams.
func planJoin(t *testing.T, sql string) (*StreamJoin, error) {
	t.Helper()
	st, err := parse.ParseStreaming(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	stmts, err := parse.Parse(st.Query)
	if err != nil {
		t.Fatalf("%s: %v", st.Query, err)
	}
	q, err := BindQuery(timedCatalog{}, stmts[0].Node, nil)
	if err != nil {
		t.Fatalf("%s: %v", st.Query, err)
	}
	tree, err := PlanStreamTree(timedCatalog{}, q.Plan, st, streamedIn(st))
	if err != nil {
		return nil, err
	}
	var sj *StreamJoin
	var walk func(n *StreamNode)
	walk = func(n *StreamNode) {
		if n.Kind == JoinNode {
			sj = n.Join
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(tree.Root)
	if sj == nil {
		t.Fatalf("%s: no join node", sql)
	}
	return sj, nil
}

func TestPlanStreamJoin(t *testing.T) {
	const wm = " WATERMARK imp_time DELAY OF INTERVAL 10 MINUTES "
	const wmc = " WATERMARK click_time DELAY OF INTERVAL 20 MINUTES "
	cases := []struct {
		sql      string
		code     string // SQLSTATE of a refusal, "" when accepted
		warnings int
		msg      string
	}{
		// Spark's documented inner join with a time range and watermarks on both sides.
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time BETWEEN imp_time AND imp_time + INTERVAL 1 HOUR", "", 0, ""},
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "LEFT JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time >= imp_time AND click_time <= imp_time + INTERVAL 1 HOUR", "", 0, ""},
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "FULL JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time BETWEEN imp_time - INTERVAL 5 MINUTES AND imp_time + INTERVAL 1 HOUR", "", 0, ""},
		// Inner join without a time bound: accepted, both sides unbounded.
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc + "ON click_ad_id = ad_id", "", 2, "add a condition bounding the times"},
		// One-sided bound: the right side (clicks) expires, impressions do not.
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc + "ON click_ad_id = ad_id AND click_time >= imp_time", "", 1, "every row of impressions"},
		// Outer join without a watermark on the other side: refused.
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "LEFT JOIN STREAM clicks " +
			"ON click_ad_id = ad_id AND click_time BETWEEN imp_time AND imp_time + INTERVAL 1 HOUR", "0A000", 0, "add WATERMARK <time column> DELAY OF INTERVAL ... to clicks"},
		// Outer join without an upper bound: refused.
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "LEFT JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time >= imp_time", "0A000", 0, "add a condition bounding the times"},
		// Mismatched watermark types.
		{"CREATE STREAMING TABLE t AS SELECT * FROM STREAM impressions" + wm + "JOIN STREAM clicks WATERMARK click_time::timestamptz AS ct DELAY OF INTERVAL 1 MINUTE " +
			"ON click_ad_id = ad_id", "42804", 0, "must have the same type"},
	}
	for _, c := range cases {
		sj, err := planJoin(t, c.sql)
		if c.code != "" {
			se, ok := err.(*sqlerr.Error)
			if !ok || se.Code != c.code || !strings.Contains(se.Message, c.msg) {
				t.Errorf("%s: got %v, want %s %q", c.sql, err, c.code, c.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if len(sj.Warnings) != c.warnings || (c.msg != "" && !strings.Contains(strings.Join(sj.Warnings, "\n"), c.msg)) {
			t.Errorf("%s: warnings %q, want %d with %q", c.sql, sj.Warnings, c.warnings, c.msg)
		}
	}
}
