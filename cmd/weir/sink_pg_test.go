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

// sinkPG is a PostgreSQL database holding a copy of weir's ev table.
type sinkPG struct{ c *pgx.Conn }

func newSinkPG(t *testing.T) *sinkPG {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	if _, err := c.Exec(ctx, `CREATE TABLE ev (id bigint, region text, amount numeric(12,2))`); err != nil {
		t.Fatal(err)
	}
	return &sinkPG{c: c}
}

// totals loads weir's ev rows into PostgreSQL and returns query (a GROUP
// BY of ev) as PostgreSQL computes it, rows as "a|b|c", sorted.
func (p *sinkPG) totals(t *testing.T, weir *pgx.Conn, query string) []string {
	t.Helper()
	ctx := context.Background()
	var ids, regions, amounts []string
	for _, r := range textRows(t, ctx, weir, "SELECT id, region, amount FROM ev") {
		f := strings.Split(r, "|")
		ids, regions, amounts = append(ids, f[0]), append(regions, f[1]), append(amounts, f[2])
	}
	if _, err := p.c.Exec(ctx, `TRUNCATE ev`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.c.Exec(ctx, `INSERT INTO ev SELECT i::bigint, r, a::numeric(12,2) FROM unnest($1::text[], $2::text[], $3::text[]) AS u(i, r, a)`,
		ids, regions, amounts); err != nil {
		t.Fatal(err)
	}
	return textRows(t, ctx, p.c, query)
}
