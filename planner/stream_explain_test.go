package planner

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// TestStreamExplainGolden plans each CREATE STREAMING TABLE of
// testdata/stream_explain.txt and compares its EXPLAIN, printed from the
// plan's tree, with the text below it.
//
//	go test ./planner -run TestStreamExplainGolden -update   # rewrite the expectations
var updateStreamExplain = flag.Bool("update", false, "TestStreamExplainGolden, TestStreamTreeExplainGolden: rewrite their files in testdata")

// streamCatalog holds the relations the golden queries read.
type streamCatalog map[string]*Relation

func (c streamCatalog) LookupRelation(schema, name string) (*Relation, error) {
	if r, ok := c[name]; ok {
		return r, nil
	}
	return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

func newStreamCatalog() streamCatalog {
	cols := func(defs ...any) []RelColumn {
		var out []RelColumn
		for i := 0; i < len(defs); i += 2 {
			out = append(out, RelColumn{Name: defs[i].(string), T: defs[i+1].(types.T)})
		}
		return out
	}
	return streamCatalog{
		"orders": {OID: 16401, Schema: "public", Name: "orders", Kind: StoredTable,
			Cols: cols("order_id", types.Int8, "region", types.Text, "amount", types.Int8, "event_time", types.Timestamp)},
		"regions": {OID: 16402, Schema: "public", Name: "regions", Kind: StoredTable,
			Cols: cols("region", types.Text, "country", types.Text)},
	}
}

const streamExplainFile = "testdata/stream_explain.txt"

func TestStreamExplainGolden(t *testing.T) {
	data, err := os.ReadFile(streamExplainFile)
	if err != nil {
		t.Fatal(err)
	}
	cat := newStreamCatalog()
	var rewritten strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(string(data)), "\n====\n") {
		stmt, want, ok := strings.Cut(block+"\n", "\n----\n")
		if !ok {
			t.Fatalf("a case without ----: %q", block)
		}
		stmt = strings.TrimSpace(stmt)
		var got []string
		st, err := parse.ParseStreaming(stmt)
		if err == nil && st == nil {
			t.Fatalf("not a streaming statement: %s", stmt)
		}
		var sp *StreamPlan
		if err == nil {
			opts := StreamOptions{Emit: st.Emit, OutputMode: st.Options["output_mode"]}
			sp, err = PlanStreaming(cat, st, opts)
		}
		if err != nil {
			got = []string{"ERROR: " + err.Error()}
		} else {
			got = sp.ExplainStream(StreamExplainOptions{Name: st.Name, Latency: "continuous"})
		}
		gotText := strings.Join(got, "\n")
		if rewritten.Len() > 0 {
			rewritten.WriteString("\n====\n")
		}
		rewritten.WriteString(stmt + "\n----\n" + gotText)
		if !*updateStreamExplain && gotText != strings.TrimSpace(want) {
			t.Errorf("%s\n--- got\n%s\n--- want\n%s", stmt, gotText, strings.TrimSpace(want))
		}
	}
	if *updateStreamExplain {
		if err := os.WriteFile(filepath.Clean(streamExplainFile), []byte(rewritten.String()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The tree of each plan shape: the stateful node (or the stateless one)
// at the root, over the stateless part, over one source leaf with its
// watermark.
func TestStreamTreeShape(t *testing.T) {
	cat := newStreamCatalog()
	for _, tc := range []struct {
		sql       string
		root      StageKind
		watermark bool
	}{
		{"CREATE STREAMING TABLE a AS SELECT order_id FROM STREAM orders WHERE amount > 1", StageStatelessNode, false},
		{"CREATE STREAMING TABLE b AS SELECT region, window_start, count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start", StageWindowAggNode, true},
		{"CREATE STREAMING TABLE c AS SELECT region, count(*) FROM orders GROUP BY region", StageWindowAggNode, false},
		{"CREATE STREAMING TABLE d AS SELECT region, window_start, count(*) FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 1 MINUTE GROUP BY session_window(event_time, '30 seconds'), region", StageSessionAggNode, true},
		{"CREATE STREAMING TABLE e AS SELECT DISTINCT ON (order_id) order_id, event_time FROM STREAM orders", StageDedupNode, false},
	} {
		st, err := parse.ParseStreaming(tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := PlanStreaming(cat, st, StreamOptions{Emit: st.Emit})
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		root := sp.Stages
		if root.Kind != tc.root {
			t.Errorf("%s: root kind %d, want %d", tc.sql, root.Kind, tc.root)
		}
		if len(root.Cols) != len(sp.Cols) {
			t.Errorf("%s: root has %d columns, the table %d", tc.sql, len(root.Cols), len(sp.Cols))
		}
		leaves := root.Leaves()
		if len(leaves) != 1 || leaves[0].Source.Relation.Name != "orders" || (leaves[0].Source.EventTime != nil) != tc.watermark {
			t.Errorf("%s: leaves %+v", tc.sql, leaves)
		}
		stateless := root
		if root.Stateful() {
			stateless = root.Inputs[0]
		}
		if stateless.Kind != StageStatelessNode || stateless.Plan != sp.Pre || len(stateless.Inputs) != 1 || stateless.Inputs[0] != leaves[0] {
			t.Errorf("%s: the stateless node is not the source's parent", tc.sql)
		}
	}
}
