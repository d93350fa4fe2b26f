package parse

import (
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestSinkStatements(t *testing.T) {
	st, err := ParseStreaming(`CREATE SINK IF NOT EXISTS s.silver_files FROM gold.silver WITH (connector = 'files', path = 'lake/silver', format = 'parquet', target_file_size = '128MB', partition_by = 'region')`)
	if err != nil || st == nil {
		t.Fatalf("%v %v", st, err)
	}
	if st.Kind != CreateSink || !st.IfNotExists || st.Schema != "s" || st.Name != "silver_files" || st.Sink == nil ||
		st.Sink.From != (QualifiedName{"gold", "silver"}) || st.Sink.FromPos != 47 ||
		st.Options["connector"] != "files" || st.Options["path"] != "lake/silver" || st.Options["target_file_size"] != "128MB" || st.Options["partition_by"] != "region" {
		t.Errorf("CREATE SINK: %+v %+v", st, st.Sink)
	}
	st, err = ParseStreaming(`create sink s as select * from t`)
	if err != nil || st.Kind != CreateSink || st.Sink.AsQueryPos != 15 {
		t.Errorf("CREATE SINK AS: %+v %v", st, err)
	}
	st, err = ParseStreaming(`DROP SINK IF EXISTS a, b CASCADE;`)
	if err != nil || st.Kind != DropSink || !st.IfExists || len(st.Names) != 2 || st.Names[1].Name != "b" || !st.Cascade {
		t.Errorf("DROP SINK: %+v %v", st, err)
	}
	st, err = ParseStreaming(`SHOW SINKS`)
	if err != nil || st.Kind != ShowSinks {
		t.Errorf("SHOW SINKS: %+v %v", st, err)
	}
	st, err = ParseStreaming(`DROP STREAMING TABLE IF EXISTS t CASCADE`)
	if err != nil || st.Kind != DropStreamingTable || !st.Cascade || !st.IfExists || st.Name != "t" {
		t.Errorf("DROP STREAMING TABLE CASCADE: %+v %v", st, err)
	}
	for _, tc := range []struct {
		sql string
		pos int
	}{
		{`CREATE SINK s FROM t`, 21},
		{`CREATE SINK s TO t WITH (connector = 'files')`, 15},
		{`CREATE SINK s FROM t WITH (connector = 'files') FORMAT PLAIN ENCODE JSON`, 49},
		{`CREATE SINK FROM t WITH (connector = 'files')`, 13},
		{`DROP SINK s x`, 13},
		{`SHOW SINKS now`, 12},
	} {
		_, err := ParseStreaming(tc.sql)
		e := sqlerr.From(err)
		if err == nil || e.Code != sqlerr.SyntaxError || e.Position != tc.pos {
			t.Errorf("%s: %v (position %d), want 42601 at %d", tc.sql, err, e.Position, tc.pos)
		}
	}
}
