package parse

import (
	"reflect"
	"strings"
	"testing"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func strp(s string) *string { return &s }

// TestParseDatabricksDDL reads the statements of Databricks' CREATE
// STREAMING TABLE, CREATE FLOW and ALTER STREAMING TABLE reference pages
// (names and paths adapted) into their typed clauses.
func TestParseDatabricksDDL(t *testing.T) {
	tests := []struct {
		sql   string
		kind  StreamingKind
		spec  TableSpec
		query string
	}{
		{
			sql:   "CREATE OR REFRESH STREAMING TABLE csv_data (id int, ts timestamp, event string) AS SELECT * FROM STREAM raw_events",
			kind:  CreateStreamingTable,
			spec:  TableSpec{HasColumns: true, Columns: []ColumnSpec{{Name: "id", Type: "int"}, {Name: "ts", Type: "timestamp"}, {Name: "event", Type: "string"}}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:  "CREATE OR REFRESH STREAMING TABLE csv_data (id int PRIMARY KEY, ts timestamp NOT NULL COMMENT 'event time', d date GENERATED ALWAYS AS (CAST(ts AS DATE)), amount decimal(10, 2)) AS SELECT * FROM STREAM raw_events",
			kind: CreateStreamingTable,
			spec: TableSpec{HasColumns: true, PrimaryKey: []string{"id"}, Columns: []ColumnSpec{
				{Name: "id", Type: "int", PrimaryKey: true, NotNull: true},
				{Name: "ts", Type: "timestamp", NotNull: true, Comment: "event time"},
				{Name: "d", Type: "date", Generated: "CAST(ts AS DATE)"},
				{Name: "amount", Type: "decimal(10, 2)"}}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:   "CREATE OR REFRESH STREAMING TABLE csv_data (id int, ts timestamp, CONSTRAINT pk_id PRIMARY KEY (id)) AS SELECT * FROM STREAM raw_events",
			kind:  CreateStreamingTable,
			spec:  TableSpec{HasColumns: true, PrimaryKey: []string{"id"}, Columns: []ColumnSpec{{Name: "id", Type: "int"}, {Name: "ts", Type: "timestamp"}}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:   "CREATE OR REFRESH STREAMING TABLE avro_data (CONSTRAINT date_parsing EXPECT (to_date(dt) >= '2000-01-01') ON VIOLATION FAIL UPDATE, CONSTRAINT valid EXPECT (x > 0)) AS SELECT * FROM STREAM raw_events",
			kind:  CreateStreamingTable,
			spec:  TableSpec{HasColumns: true, Expectations: []Expectation{{Name: "date_parsing", Expr: "to_date(dt) >= '2000-01-01'", OnViolation: "fail update"}, {Name: "valid", Expr: "x > 0"}}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:  "CREATE OR REFRESH STREAMING TABLE firehose_raw COMMENT 'Stores the raw data from Kafka' TBLPROPERTIES ('delta.appendOnly' = 'true', pipelines.channel = \"PREVIEW\") PARTITIONED BY (region) CLUSTER BY (id, ts) AS SELECT * FROM STREAM raw_events",
			kind: CreateStreamingTable,
			spec: TableSpec{Comment: strp("Stores the raw data from Kafka"), Properties: []Property{{"delta.appendOnly", "true"}, {"pipelines.channel", "PREVIEW"}},
				PartitionedBy: []string{"region"}, ClusterBy: []string{"id", "ts"}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:   "CREATE STREAMING TABLE firehose_bronze SCHEDULE EVERY 1 HOUR AS SELECT * FROM STREAM firehose_raw",
			kind:  CreateStreamingTable,
			spec:  TableSpec{Schedule: &Schedule{Kind: "every", Every: 1, Unit: "hour"}},
			query: "SELECT * FROM firehose_raw",
		},
		{
			sql:   "CREATE STREAMING TABLE st SCHEDULE REFRESH CRON '0 0 0 * * ? *' AT TIME ZONE 'America/Los_Angeles' AS SELECT * FROM STREAM raw_events",
			kind:  CreateStreamingTable,
			spec:  TableSpec{Schedule: &Schedule{Kind: "cron", Cron: "0 0 0 * * ? *", TimeZone: "America/Los_Angeles"}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:   "CREATE STREAMING TABLE st TRIGGER ON UPDATE AT MOST EVERY INTERVAL 5 MINUTES AS SELECT * FROM STREAM raw_events",
			kind:  CreateStreamingTable,
			spec:  TableSpec{Schedule: &Schedule{Kind: "on update", AtMostEvery: 5 * time.Minute}},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:  "CREATE OR REFRESH STREAMING TABLE users;",
			kind: CreateStreamingTable,
			spec: TableSpec{NoQuery: true},
		},
		{
			sql:   "CREATE OR REFRESH STREAMING LIVE TABLE clean AS SELECT * FROM STREAM(LIVE.raw_events)",
			kind:  CreateStreamingTable,
			spec:  TableSpec{Live: true},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:   "CREATE OR REFRESH PRIVATE STREAMING TABLE p AS SELECT * FROM STREAM raw_events",
			kind:  CreateStreamingTable,
			spec:  TableSpec{Private: true},
			query: "SELECT * FROM raw_events",
		},
		{
			sql:   "CREATE FLOW users_flow AS INSERT INTO users BY NAME SELECT * FROM STREAM raw_users",
			kind:  CreateFlow,
			spec:  TableSpec{Flow: "users_flow", FlowTarget: QualifiedName{Name: "users"}},
			query: "SELECT * FROM raw_users",
		},
		{
			sql:   "CREATE FLOW backfill COMMENT 'once' AS INSERT INTO ONCE s.users BY NAME SELECT * FROM backfill_users",
			kind:  CreateFlow,
			spec:  TableSpec{Flow: "backfill", Comment: strp("once"), FlowOnce: true, FlowTarget: QualifiedName{Schema: "s", Name: "users"}},
			query: "SELECT * FROM backfill_users",
		},
		{
			sql:   "CREATE OR REFRESH FLOW users_flow AS INSERT ONCE INTO users BY NAME SELECT * FROM backfill_users",
			kind:  CreateFlow,
			spec:  TableSpec{Flow: "users_flow", FlowOnce: true, FlowTarget: QualifiedName{Name: "users"}},
			query: "SELECT * FROM backfill_users",
		},
		{sql: "DROP FLOW IF EXISTS s.users_flow", kind: DropFlow, spec: TableSpec{Flow: "users_flow"}},
		{
			sql:  "ALTER STREAMING TABLE my_st ADD SCHEDULE CRON '0 0 0 * * ? *' AT TIME ZONE 'America/Los_Angeles'",
			kind: AlterStreamingTable,
			spec: TableSpec{Alter: "add schedule", Schedule: &Schedule{Kind: "cron", Cron: "0 0 0 * * ? *", TimeZone: "America/Los_Angeles"}},
		},
		{
			sql:  "ALTER STREAMING TABLE my_st ALTER SCHEDULE EVERY 2 DAYS",
			kind: AlterStreamingTable,
			spec: TableSpec{Alter: "alter schedule", Schedule: &Schedule{Kind: "every", Every: 2, Unit: "day"}},
		},
		{sql: "ALTER STREAMING TABLE my_st DROP SCHEDULE", kind: AlterStreamingTable, spec: TableSpec{Alter: "drop schedule"}},
		{sql: "ALTER STREAMING TABLE my_st SET TBLPROPERTIES ('k' = 'v')", kind: AlterStreamingTable, spec: TableSpec{Alter: "set tblproperties", Properties: []Property{{"k", "v"}}}},
		{sql: "ALTER STREAMING TABLE my_st UNSET TBLPROPERTIES IF EXISTS (k)", kind: AlterStreamingTable, spec: TableSpec{Alter: "unset tblproperties", AlterIfExists: true, Properties: []Property{{"k", ""}}}},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := ParseStreaming(tc.sql)
			if err != nil || st == nil {
				t.Fatalf("ParseStreaming: %v, %v", st, err)
			}
			if st.Kind != tc.kind {
				t.Fatalf("kind %v, want %v", st.Kind, tc.kind)
			}
			got := *st.Spec
			// Positions: each column's is where its name is written.
			for i := range got.Columns {
				if want := strings.Index(tc.sql, "("+got.Columns[i].Name+" ") + 2; i == 0 && got.Columns[i].Pos != want {
					t.Errorf("column %s at %d, want %d", got.Columns[i].Name, got.Columns[i].Pos, want)
				}
				got.Columns[i].Pos = 0
			}
			if got.Schedule != nil {
				got.Schedule.Pos = 0
			}
			if !reflect.DeepEqual(got, tc.spec) {
				t.Fatalf("spec\n got %+v\nwant %+v", *st.Spec, tc.spec)
			}
			if tc.query != "" {
				if got := strings.Join(strings.Fields(st.Query), " "); got != tc.query {
					t.Fatalf("query %q, want %q", got, tc.query)
				}
				if _, err := pg_query.Parse(st.Query); err != nil {
					t.Fatalf("query does not parse: %v", err)
				}
			}
		})
	}
}

func TestParseDatabricksDDLErrors(t *testing.T) {
	tests := []struct {
		sql, code, at, msg string
	}{
		{"CREATE STREAMING TABLE t PARTITIONED (a) AS SELECT 1", sqlerr.SyntaxError, "PARTITIONED", "expected AS query or a table clause"},
		{"CREATE STREAMING TABLE t SCHEDULE EVERY 100 HOURS AS SELECT 1", sqlerr.InvalidParameterValue, "100", "between 1 and 72"},
		{"CREATE STREAMING TABLE t SCHEDULE EVERY 1 MINUTE AS SELECT 1", sqlerr.SyntaxError, "MINUTE", "HOURS"},
		{"CREATE STREAMING TABLE t SCHEDULE CRON '0 0 25 * * ?' AS SELECT 1", sqlerr.InvalidParameterValue, "'0 0 25", "bad hours field"},
		{"CREATE STREAMING TABLE t SCHEDULE CRON '0 0 * * *' AS SELECT 1", sqlerr.InvalidParameterValue, "'0 0", "6 or 7 fields"},
		{"CREATE STREAMING TABLE t SCHEDULE CRON '0 0 0 * * *' AS SELECT 1", sqlerr.InvalidParameterValue, "'0 0", "must be '?'"},
		{"CREATE STREAMING TABLE t SCHEDULE CRON '0 0 0 * * ?' AT TIME 'UTC' AS SELECT 1", sqlerr.SyntaxError, "AT TIME 'UTC'", "AT TIME ZONE"},
		{"CREATE STREAMING TABLE t SCHEDULE EVERY 1 HOUR SCHEDULE EVERY 2 HOURS AS SELECT 1", sqlerr.SyntaxError, "SCHEDULE EVERY 2", "only one"},
		{"CREATE STREAMING TABLE t TRIGGER ON UPDATE AT MOST EVERY INTERVAL 5 SECONDS AS SELECT 1", sqlerr.InvalidParameterValue, "INTERVAL 5", "at least 1 minute"},
		{"CREATE STREAMING TABLE t (a int, b string MASK) AS SELECT 1", sqlerr.SyntaxError, ") AS", "mask function's name"},
		{"CREATE STREAMING TABLE t (a int) WITH ROW FILTER f ON (a) AS SELECT 1", sqlerr.FeatureNotSupported, "WITH ROW", "row filters"},
		{"CREATE STREAMING TABLE t (a int, a int) AS SELECT 1", sqlerr.DuplicateColumn, "a int)", "specified more than once"},
		{"CREATE STREAMING TABLE t (a int PRIMARY KEY, b int, PRIMARY KEY (b)) AS SELECT 1", sqlerr.InvalidTableDefinition, "PRIMARY KEY (b)", "multiple primary keys"},
		{"CREATE STREAMING TABLE t (a int GENERATED ALWAYS AS IDENTITY) AS SELECT 1", sqlerr.FeatureNotSupported, "GENERATED", "identity"},
		{"CREATE STREAMING TABLE t (a int GENERATED ALWAYS AS ()) AS SELECT 1", sqlerr.SyntaxError, "()", "GENERATED ALWAYS AS (expression)"},
		{"CREATE STREAMING TABLE t (a int, FOREIGN KEY (a) REFERENCES x) AS SELECT 1", sqlerr.FeatureNotSupported, "FOREIGN", "FOREIGN KEY constraints"},
		{"CREATE STREAMING TABLE t (a int REFERENCES x (id)) AS SELECT 1", sqlerr.FeatureNotSupported, "REFERENCES", "FOREIGN KEY constraints"},
		{"CREATE STREAMING TABLE t (a int CHECK (a > 0)) AS SELECT 1", sqlerr.FeatureNotSupported, "CHECK", "CHECK constraints"},
		{"CREATE STREAMING TABLE t TBLPROPERTIES ('a' = 1, 'a' = 2) AS SELECT 1", sqlerr.SyntaxError, "'a' = 2", "more than once"},
		{"CREATE STREAMING TABLE t LOCATION '/tmp/x' AS SELECT 1", sqlerr.FeatureNotSupported, "LOCATION", "LOCATION is not supported"},
		{"CREATE STREAMING TABLE t FLOW AUTO CDC x AS SELECT 1", sqlerr.SyntaxError, "x AS", "expected FROM STREAM(source)"},
		{"CREATE STREAMING TABLE t FLOW REPLACE WHERE x", sqlerr.FeatureNotSupported, "FLOW", "only FLOW INSERT BY NAME"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM s KEYS (id)", sqlerr.SyntaxError, "AUTO", "needs SEQUENCE BY"},
		{"CREATE FLOW f AS INSERT t SELECT 1", sqlerr.SyntaxError, "INSERT", "INSERT INTO target"},
		{"CREATE FLOW f INSERT INTO t SELECT 1", sqlerr.SyntaxError, "INSERT", "expected AS"},
		{"ALTER STREAMING TABLE t ADD SCHEDULE CRON '* * *'", sqlerr.InvalidParameterValue, "'* * *'", "6 or 7"},
		{"ALTER STREAMING TABLE t RENAME TO u", sqlerr.SyntaxError, "RENAME", "ADD SCHEDULE"},
		{"ALTER STREAMING TABLE t SET ROW FILTER f ON (a)", sqlerr.FeatureNotSupported, "SET ROW", "row filters"},
		{"ALTER STREAMING TABLE t DROP SCHEDULE now", sqlerr.SyntaxError, "now", "expected end"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := ParseStreaming(tc.sql)
			if err == nil {
				t.Fatalf("no error; got %+v", st)
			}
			e, ok := err.(*sqlerr.Error)
			if !ok {
				t.Fatalf("error %T %v", err, err)
			}
			if e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("got %s %q, want %s containing %q", e.Code, e.Message, tc.code, tc.msg)
			}
			if want := strings.Index(tc.sql, tc.at) + 1; e.Position != want {
				t.Fatalf("position %d, want %d (%q)", e.Position, want, tc.at)
			}
		})
	}
}
