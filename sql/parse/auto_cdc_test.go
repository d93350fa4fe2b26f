package parse

import (
	"reflect"
	"strings"
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
		   SEQUENCE BY struct(ts, (seq)) COLUMNS userId, name STORED AS SCD TYPE 1`, "target",
			AutoCDC{Source: QualifiedName{Schema: "cdc_data", Name: "users"}, Keys: []string{"userid", "region"}, IgnoreNullUpdates: true,
				DeleteWhen: `operation = "DELETE"`, TruncateWhen: `operation = "TRUNCATE"`, Sequence: "struct(ts, (seq))",
				Columns: []string{"userid", "name"}, SCDType: 1}},
		// Databricks' SQL reference example, and the TRACK HISTORY forms.
		{`CREATE FLOW users_cdc_flow AS AUTO CDC INTO main.sales.users_cdc_target
		   FROM stream(cdc_data.users) KEYS (userId) IGNORE NULL UPDATES ON (email, phone)
		   APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
		   COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (city)`, "users_cdc_flow",
			AutoCDC{Source: QualifiedName{Schema: "cdc_data", Name: "users"}, Keys: []string{"userid"}, IgnoreNullUpdates: true,
				IgnoreNullOn: []string{"email", "phone"}, DeleteWhen: `operation = "DELETE"`, Sequence: "sequenceNum",
				Except: []string{"operation", "sequencenum"}, SCDType: 2, TrackHistory: true, TrackExcept: []string{"city"}}},
		{`CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) TRACK HISTORY ON a, b STORED AS SCD TYPE 2 IGNORE NULL UPDATES ON * EXCEPT (c) SEQUENCE BY seq`, "f",
			AutoCDC{Source: QualifiedName{Name: "s"}, Keys: []string{"k"}, TrackHistory: true, Track: []string{"a", "b"}, SCDType: 2,
				IgnoreNullUpdates: true, IgnoreNullExcept: []string{"c"}, Sequence: "seq"}},
		{`CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 2 TRACK HISTORY ON (a)`, "f",
			AutoCDC{Source: QualifiedName{Name: "s"}, Keys: []string{"k"}, TrackHistory: true, Track: []string{"a"}, SCDType: 2, Sequence: "seq"}},
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
		got := *st.Spec.CDC
		got.TruncatePos, got.TrackPos, got.IgnoreNullPos = 0, 0, 0 // TestParseAutoCDCErrors checks positions
		if st.Spec.Flow != tc.flow || !reflect.DeepEqual(got, tc.want) {
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
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq TRACK HISTORY ON * EXCEPT (a)":                        "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 2 TRACK HISTORY ON * (a)":          "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 2 TRACK HISTORY ON":                "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) IGNORE NULL UPDATES ON SEQUENCE BY seq":                               "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) APPLY AS TRUNCATE WHEN op = 'T' SEQUENCE BY seq STORED AS SCD TYPE 2": "0A000",
		"CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k) SEQUENCE BY seq":                                                              "0A000",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) SEQUENCE BY seq":                                                               "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 3":                                 "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) KEYS (j) SEQUENCE BY seq":                                             "42601",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY":                                                          "42601",
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

// The clauses that do not go with the flow's SCD type are refused where
// they are written.
func TestParseAutoCDCClausePositions(t *testing.T) {
	for sql, want := range map[string]string{
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) APPLY AS TRUNCATE WHEN op = 'T' SEQUENCE BY seq STORED AS SCD TYPE 2": "APPLY AS TRUNCATE",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) SEQUENCE BY seq TRACK HISTORY ON (a) STORED AS SCD TYPE 1":            "TRACK HISTORY",
	} {
		_, err := ParseStreaming(sql)
		e, ok := err.(*sqlerr.Error)
		if !ok || e.Position < 1 || e.Position > len(sql) || !strings.HasPrefix(sql[e.Position-1:], want) || e.Hint == "" {
			t.Errorf("%s: got %#v, want an error at %q with a hint", sql, err, want)
		}
	}
}
