package files

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// CSV cells decode as PostgreSQL's input functions read the same text:
// each value equals PostgreSQL's (value::type)::text, and what
// PostgreSQL refuses is NULL and rescued.
func TestDecodeMatchesPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	srv := pgtest.Shared(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ddl, pg string
		values  []string
	}{
		{"c DECIMAL(10,2)", "numeric(10,2)", []string{"12.5", "007", "-0.00", "1.005", "-1.005", " 12 ", "1e3", "12345678.999", "123456789", "abc", "NaN", "1e1001", ".5", "+3", "0e900000000", "-0.000e2"}},
		{"c DECIMAL", "numeric(10,0)", []string{"0e900000000", "0.00e-3", "-0e5", "1e131072", "00012.3400"}},
		{"c DECIMAL(38,10)", "numeric(38,10)", []string{"0.00000000005", "-12.3456789012345"}},
		{"c TIMESTAMP", "timestamptz", []string{"2024-01-01T10:00:00Z", "2024-01-01 10:00:00", "2024-01-01 10:00:00.1234567", "2024-01-01T10:00:00+05:30", "2024-01-01", "2024-02-30 00:00:00", "January 8, 2024 04:05:06 PST", "1704103200", "infinity", "garbage",
			"2024-01-01 10:00:00-0800", "2024-01-01 10:00:00+15", "2024-01-01 10:00:00+16", "2024-01-01 10:00:00.5Z", "2024-02-29T00:00:00", "1900-02-29 00:00:00",
			"2024-01-01 24:00:00", "2024-01-01 10:00:00.", "2024-01-01T10:00:00Zx", "9999-12-31 23:59:59.999999-01:30", "0000-01-01 00:00:00", "2024-01-01 10:00:00 +01:00"}},
		{"c TIMESTAMP_NTZ", "timestamp", []string{"2024-01-01T10:00:00Z", "2024-01-01 23:59:59.999999", "0001-01-01 00:00:00", "2024-13-01 00:00:00", "2024-06-30T23:59:59.5+02:00", "2024-06-31 00:00:00"}},
		{"c INT", "int4", []string{"1", "-2147483648", "2147483648", " 42", "4.0", "0x1F", "-"}},
		{"c BIGINT", "int8", []string{"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1_000"}},
		{"c DOUBLE", "float8", []string{"1.5", "1e308", "1e309", "-0", "NaN", "Infinity", "0.1", ".", "1e-400"}},
		{"c BOOLEAN", "bool", []string{"true", "FALSE", "t", "yes", "off", "1", "2", "truthy"}},
		{"c DATE", "date", []string{"2024-02-29", "2023-02-29", "2024-1-5", "20240105"}},
	}
	for _, c := range cases {
		s := schemaOf(t, c.ddl)
		var content strings.Builder
		for _, v := range c.values {
			content.WriteString("\"" + strings.ReplaceAll(v, "\"", "\"\"") + "\"\n")
		}
		info := writeFile(t, "o.csv", []byte(content.String()))
		d := decodeAll(t, info, Options{Format: "csv"}, s, 0)
		for i, v := range c.values {
			var want string
			q := "SELECT ($1::text)::" + c.pg + "::text"
			if c.pg == "bool" { // bool's output, not its cast to text
				q = "SELECT CASE WHEN ($1::text)::bool THEN 't' ELSE 'f' END"
			}
			pgErr := conn.QueryRow(ctx, q, v).Scan(&want)
			got, resc := d.rows[i][0], d.rows[i][1]
			if pgErr != nil {
				if got != "NULL" || !strings.Contains(resc, `"c"`) {
					t.Errorf("%s %q: PostgreSQL refuses (%v), weir gives %s (rescued %s)", c.pg, v, pgErr, got, resc)
				}
				continue
			}
			if got != want {
				t.Errorf("%s %q: weir %s, PostgreSQL %s (rescued %s)", c.pg, v, got, want, resc)
			}
		}
	}
}
