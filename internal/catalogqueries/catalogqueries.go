// Package catalogqueries reads testdata/clients/catalog_queries.sql, the
// catalog statements pgjdbc, SQLAlchemy 1.4 and psql send (the format is
// described at the top of that file), for the test that runs them under a
// deadline and the benchmark that times them against PostgreSQL. It is
// test and benchmark support only.
package catalogqueries

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Query is one entry: its name ("jdbc getImportedKeys"), its SQL with
// {schema} {table} {table2} {oid} placeholders, and the bound parameters
// of the drivers that send it prepared.
type Query struct {
	Name string
	SQL  string
	Args []string
}

// Read parses the file at path; a file without queries is an error.
func Read(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Query
	for _, part := range strings.Split(string(b), "\n;;\n") {
		var q Query
		var body []string
		for _, line := range strings.Split(part, "\n") {
			switch {
			case strings.HasPrefix(line, "-- [") && q.Name == "":
				q.Name = strings.TrimSuffix(strings.TrimPrefix(line, "-- ["), "]")
			case strings.HasPrefix(line, "-- args: "):
				q.Args = strings.Split(strings.TrimPrefix(line, "-- args: "), "|")
			case strings.HasPrefix(line, "--"):
			default:
				body = append(body, line)
			}
		}
		q.SQL = strings.TrimSpace(strings.Join(body, "\n"))
		if q.Name != "" && q.SQL != "" {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return out, nil
}

// Fill replaces the placeholders: the queries inspect public.t0500 (and
// t0501), whose OID differs per server.
func (q Query) Fill(oid uint32) (string, []any) {
	r := strings.NewReplacer("{schema}", "public", "{table}", "t0500", "{table2}", "t0501", "{oid}", fmt.Sprint(oid))
	args := make([]any, len(q.Args))
	for i, a := range q.Args {
		args[i] = r.Replace(a)
	}
	return r.Replace(q.SQL), args
}

// CountRows runs sql and reads all its rows, as a client does.
func CountRows(ctx context.Context, c *pgx.Conn, sql string, args []any) (int, error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	return n, rows.Err()
}
