package parse

import (
	"reflect"
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// The AUTO CDC forms of Databricks' docs (CREATE FLOW ... AS AUTO CDC
// INTO, and Delta Live Tables' standalone APPLY CHANGES INTO).
func TestParseAutoCDC(t *testing.T) {
	tests := []struct {
		sql  string
		flow string
		want AutoCDC
	}{
		{`CREATE FLOW customers_flow AS AUTO CDC INTO customers_silver
		   FROM STREAM(customers_feed) KEYS (customer_id)
		   APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq
		   COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1`, "customers_flow",
			AutoCDC{Source: QualifiedName{Name: "customers_feed"}, Keys: []string{"customer_id"}, DeleteWhen: "op = 'D'",
				Sequence: "seq", Except: []string{"op", "seq"}, SCDType: 1}},
		{`APPLY CHANGES INTO live.target FROM stream(cdc_data.users) KEYS (userId, region)
		   IGNORE NULL UPDATES APPLY AS DELETE WHEN operation = "DELETE" APPLY AS TRUNCATE WHEN operation = "TRUNCATE"
		   SEQUENCE BY struct(ts, (seq)) COLUMNS userId, name STORED AS SCD TYPE 2`, "target",
			AutoCDC{Source: QualifiedName{Schema: "cdc_data", Name: "users"}, Keys: []string{"userid", "region"}, IgnoreNullUpdates: true,
				DeleteWhen: `operation = "DELETE"`, TruncateWhen: `operation = "TRUNCATE"`, Sequence: "struct(ts, (seq))",
				Columns: []string{"userid", "name"}, SCDType: 2}},
		{`CREATE OR REFRESH STREAMING TABLE target FLOW AUTO CDC FROM stream(cdc_data.users) KEYS (userId) SEQUENCE BY sequenceNum STORED AS SCD TYPE 1`, "target",
			AutoCDC{Source: QualifiedName{Schema: "cdc_data", Name: "users"}, Keys: []string{"userid"}, Sequence: "sequenceNum", SCDType: 1}},
		{`CREATE OR REFRESH FLOW f AS APPLY CHANGES INTO t FROM STREAM s KEYS (k) SEQUENCE BY seq`, "f",
			AutoCDC{Source: QualifiedName{Name: "s"}, Keys: []string{"k"}, Sequence: "seq", SCDType: 1}},
	}
	for _, tc := range tests {
		st, err := ParseStreaming(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if st.Kind != CreateFlow || st.Spec == nil || st.Spec.CDC == nil {
			t.Fatalf("%s: parsed as %+v", tc.sql, st)
		}
		if st.Spec.Flow != tc.flow || !reflect.DeepEqual(*st.Spec.CDC, tc.want) {
			t.Errorf("%s:\ngot  %q %+v\nwant %q %+v", tc.sql, st.Spec.Flow, *st.Spec.CDC, tc.flow, tc.want)
		}
	}
}

func TestSparkStrings(t *testing.T) {
	got, err := SparkStrings(`operation = "DELETE" AND "Op" <> 'x'`, func(n string) bool { return n == "Op" })
	if want := `operation = 'DELETE' AND "Op" <> 'x'`; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func TestParseAutoCDCErrors(t *testing.T) {
	for sql, code := range map[string]string{
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (a)": "0A000",
		"CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k) SEQUENCE BY seq":                                                            "0A000",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) SEQUENCE BY seq":                                                             "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 3":                               "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) KEYS (j) SEQUENCE BY seq":                                           "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY":                                                        "42601",
	} {
		_, err := ParseStreaming(sql)
		e, ok := err.(*sqlerr.Error)
		if !ok || e.Code != code {
			t.Errorf("%s: got %v, want SQLSTATE %s", sql, err, code)
		}
	}
}

func TestParseChangelogTable(t *testing.T) {
	st, err := ParseStreaming(`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text, segment text) FROM shop TABLE 'public.customers'`)
	if err != nil {
		t.Fatal(err)
	}
	want := AutoCDC{Source: QualifiedName{Name: "shop"}, Keys: []string{"customer_id"}, Sequence: "_lsn", DeleteWhen: "_op = 'd'",
		Columns: []string{"customer_id", "name", "segment"}, SCDType: 1}
	if st.Kind != CreateFlow || st.Spec.ChangelogTable != "public.customers" || st.Spec.Flow != "customers" || !reflect.DeepEqual(*st.Spec.CDC, want) {
		t.Errorf("parsed %+v %+v", st.Spec, st.Spec.CDC)
	}
	// An ordinary CREATE TABLE is not one.
	if st, err := ParseStreaming(`CREATE TABLE t (a int)`); err != nil || st != nil {
		t.Errorf("CREATE TABLE t (a int): %+v, %v", st, err)
	}
}
