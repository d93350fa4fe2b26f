package planner

import (
	"os"
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/parse"
)

// TestStreamTreeExplainGolden prints the stream tree of each query of
// Databricks', Flink's and RisingWave's stream-stream join, Top-N and
// cascading-window examples (over impressions and clicks) and compares
// the text with planner/testdata/stream_tree_explain.golden
// (go test ./planner -run TestStreamTreeExplainGolden -update rewrites it).
func TestStreamTreeExplainGolden(t *testing.T) {
	const wm = " WATERMARK imp_time DELAY OF INTERVAL 10 MINUTES "
	const wmc = " WATERMARK click_time DELAY OF INTERVAL 20 MINUTES "
	queries := []string{
		"SELECT * FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time BETWEEN imp_time AND imp_time + INTERVAL 1 HOUR",
		"SELECT * FROM STREAM impressions" + wm + "LEFT JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time >= imp_time AND click_time <= imp_time + INTERVAL 1 HOUR",
		"SELECT * FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc + "ON click_ad_id = ad_id",
		"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY ad_id DESC) AS rn FROM STREAM impressions" + wm +
			"WINDOW TUMBLING (SIZE INTERVAL 10 MINUTES)) x WHERE rn <= 3",
		"SELECT ad_id, imp_time FROM (SELECT *, row_number() OVER (PARTITION BY ad_id ORDER BY imp_time DESC) AS rn FROM STREAM impressions" + wm + ") x WHERE rn = 1",
		"SELECT window_start, max(n) FROM (SELECT ad_id, window_start, window_end, count(*) AS n FROM STREAM impressions" + wm +
			"WINDOW TUMBLING (SIZE INTERVAL 10 MINUTES) GROUP BY ad_id, window_start, window_end) c GROUP BY window_start, window_end",
		"SELECT ad_id, avg(ad_id) OVER (PARTITION BY ad_id ORDER BY imp_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM STREAM impressions" + wm,
		// A join feeding a window aggregation, windowed on the clicks' time.
		"SELECT window.start, count(*) FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time BETWEEN imp_time AND imp_time + INTERVAL 1 HOUR GROUP BY window(click_time, '10 minutes')",
		// Nexmark q4's shape: an aggregation over the changelog of a
		// non-windowed aggregation over a join.
		"SELECT n, count(*), avg(n), max(last_click) FROM (SELECT ad_id, count(*) AS n, max(click_time) AS last_click FROM STREAM impressions" + wm + "JOIN STREAM clicks" + wmc +
			"ON click_ad_id = ad_id AND click_time BETWEEN imp_time AND imp_time + INTERVAL 1 HOUR GROUP BY ad_id) c GROUP BY n",
		// Nexmark q6's shape: a rolling average over that changelog.
		"SELECT ad_id, avg(n) OVER (PARTITION BY ad_id % 10 ORDER BY ad_id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM (SELECT ad_id, count(*) AS n FROM STREAM impressions" + wm + "GROUP BY ad_id) c",
		// A rank over it: a change renumbers its whole partition.
		"SELECT ad_id, rank() OVER (PARTITION BY ad_id % 10 ORDER BY n DESC) FROM (SELECT ad_id, count(*) AS n FROM STREAM impressions" + wm + "GROUP BY ad_id) c",
		// An aggregation over a Top-N outside windows.
		"SELECT ad_id, count(*), min(imp_time) FROM (SELECT ad_id, imp_time FROM (SELECT *, row_number() OVER (PARTITION BY ad_id ORDER BY imp_time DESC) AS rn FROM STREAM impressions" + wm + ") x WHERE rn <= 2) t GROUP BY ad_id",
		// Aggregates that cannot be undone over a changelog.
		"SELECT n, string_agg(ad_id::text, ',') FROM (SELECT ad_id, count(*) AS n FROM STREAM impressions" + wm + "GROUP BY ad_id) c GROUP BY n",
		"SELECT n, count(DISTINCT ad_id) FROM (SELECT ad_id, count(*) AS n FROM STREAM impressions" + wm + "GROUP BY ad_id) c GROUP BY n",
	}
	var out strings.Builder
	for _, q := range queries {
		st, err := parse.ParseStreaming("CREATE STREAMING TABLE t AS " + q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		sp, err := PlanStreaming(timedCatalog{}, st, StreamOptions{})
		out.WriteString("-- " + q + "\n")
		if err != nil {
			out.WriteString("error: " + err.Error() + "\n\n")
			continue
		}
		if sp.Tree == nil {
			t.Fatalf("%s: not a stream tree", q)
		}
		out.WriteString("mode: " + sp.Mode + "\n")
		for _, l := range ExplainStreamTree(sp.Tree) {
			out.WriteString(l + "\n")
		}
		for _, w := range sp.Warnings {
			out.WriteString("warning: " + w + "\n")
		}
		out.WriteString("\n")
	}
	path := "testdata/stream_tree_explain.golden"
	if *updateStreamExplain {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != out.String() {
		t.Errorf("EXPLAIN of stream trees changed (-update rewrites %s):\n%s", path, out.String())
	}
}
