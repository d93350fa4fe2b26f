package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// The sink crash tests compare what a sink holds with PostgreSQL's batch
// GROUP BY over the rows weir kept of the input (the INSERTs a kill did
// not interrupt), loaded into a throwaway PostgreSQL database.

// sinkPG is a PostgreSQL database holding a copy of weir's ev table
// (created by the same statement, create).
type sinkPG struct{ c *pgx.Conn }

func newSinkPG(t *testing.T, create string) *sinkPG {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	if _, err := c.Exec(ctx, `SET TimeZone = 'UTC'; `+create); err != nil {
		t.Fatal(err)
	}
	return &sinkPG{c: c}
}

// totals loads weir's ev rows into PostgreSQL and returns query (a GROUP
// BY of ev) as PostgreSQL computes it, rows as "a|b|c", sorted.
func (p *sinkPG) totals(t *testing.T, weir *pgx.Conn, query string) []string {
	t.Helper()
	ctx := context.Background()
	if _, err := p.c.Exec(ctx, `TRUNCATE ev`); err != nil {
		t.Fatal(err)
	}
	// Every value as a quoted literal, which PostgreSQL reads as the
	// column's type (the values hold no quotes).
	rows := textRows(t, ctx, weir, "SELECT * FROM ev")
	for len(rows) > 0 {
		n := min(len(rows), 1000)
		vals := make([]string, n)
		for i, r := range rows[:n] {
			vals[i] = "('" + strings.ReplaceAll(r, "|", "', '") + "')"
		}
		if _, err := p.c.Exec(ctx, "INSERT INTO ev VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
		rows = rows[n:]
	}
	return textRows(t, ctx, p.c, query)
}
