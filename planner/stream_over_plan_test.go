package planner

import (
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func windowNode(t *testing.T, sql string) *Window {
	t.Helper()
	var w *Window
	var walk func(Node)
	walk = func(n Node) {
		if x, ok := n.(*Window); ok {
			w = x
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(planOf(t, timedCatalog{}, sql))
	return w
}

func TestPlanStreamOver(t *testing.T) {
	cases := []struct {
		over    string
		context int
		err     string
	}{
		{"avg(ad_id) OVER (PARTITION BY ad_id ORDER BY imp_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)", 10, ""},
		{"sum(ad_id) OVER w, lag(ad_id, 3) OVER w FROM impressions WINDOW w AS (ORDER BY imp_time ROWS 2 PRECEDING)", 3, ""},
		{"avg(ad_id) OVER (ORDER BY imp_time)", 0, "needs a ROWS frame"},
		{"avg(ad_id) OVER (ORDER BY imp_time ROWS UNBOUNDED PRECEDING)", 0, "UNBOUNDED PRECEDING"},
		{"avg(ad_id) OVER (ORDER BY imp_time ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING)", 0, "FOLLOWING"},
		{"avg(ad_id) OVER (ORDER BY imp_time DESC ROWS 2 PRECEDING)", 0, "ascending"},
		{"avg(ad_id) OVER (ORDER BY ad_id ROWS 2 PRECEDING)", 0, "ordered first by the watermarked column"},
		{"row_number() OVER (ORDER BY imp_time)", 0, "Top-N"},
	}
	for _, c := range cases {
		sql := "SELECT " + c.over
		if !strings.Contains(c.over, " FROM ") {
			sql += " FROM impressions"
		}
		so, err := PlanStreamOver(windowNode(t, sql), 1, "imp_time")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error()+errHint(err), c.err) {
				t.Errorf("%s: got %v, want %q", sql, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if so.Context != c.context || so.TimeCol != 1 {
			t.Errorf("%s: context %d time %d", sql, so.Context, so.TimeCol)
		}
	}
}

func errHint(err error) string {
	if se, ok := err.(*sqlerr.Error); ok {
		return " " + se.Hint
	}
	return ""
}
