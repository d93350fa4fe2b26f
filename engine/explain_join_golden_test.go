package engine_test

// TestExplainJoinGolden: EXPLAIN of multi-way joins shows the join order
// the planner chose, the join kinds, hash keys and row estimates
// (testdata/explain/join_*.txt; -update-golden rewrites them).

import (
	"context"
	"strings"
	"testing"
)

func TestExplainJoinGolden(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	ctx := context.Background()
	setup := []string{
		"CREATE TABLE customers (id bigint PRIMARY KEY, region text, name text)",
		"CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint, amount numeric(10,2))",
		"CREATE TABLE items (order_id bigint, sku text, qty int)",
		"CREATE TABLE regions (region text, manager text)",
		"INSERT INTO regions VALUES ('north', 'ann'), ('south', 'bob')",
		"INSERT INTO customers SELECT g, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END, 'c' || g FROM generate_series(1, 100) g",
		"INSERT INTO orders SELECT g, g % 100 + 1, g FROM generate_series(1, 1000) g",
		"INSERT INTO items SELECT g % 1000 + 1, 's' || (g % 50), 1 FROM generate_series(1, 5000) g",
	}
	for _, s := range setup {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	cases := []struct{ golden, query string }{
		// Written largest first and linked only through WHERE: the plan
		// starts from the filtered small relations, joins on every
		// equality and forms no cross product.
		{"join_from_list", "SELECT r.manager, count(*) FROM items i, orders o, customers c, regions r WHERE i.order_id = o.id AND o.customer_id = c.id AND c.region = r.region AND r.manager = 'ann' GROUP BY r.manager"},
		// An outer join is a leaf of the problem; the WHERE conjunct on
		// its preserved side is pushed into it, the one on its nullable
		// side stays above.
		{"join_outer", "SELECT c.name, o.id, i.sku FROM customers c JOIN orders o ON o.customer_id = c.id LEFT JOIN items i ON i.order_id = o.id AND i.qty > 0 WHERE c.region = 'north' AND (i.sku IS NULL OR i.sku <> 's1')"},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			lines := explainLines(t, c, "EXPLAIN "+tc.query)
			checkGolden(t, tc.golden, lines)
			if strings.Contains(strings.Join(lines, "\n"), "Cross Join") {
				t.Errorf("%s: a cross product where conditions link every relation:\n%s", tc.golden, strings.Join(lines, "\n"))
			}
		})
	}
	// pgjdbc's getImportedKeys: nine relations, one a function scan, and
	// equalities whose sides read two relations (con.confkey[pos.n]).
	// Estimates follow the catalog's size, so no golden: the plan must
	// join every relation on a condition (pos and con, linked only
	// through pka and fka, may meet in a cross product, as in PostgreSQL).
	t.Run("getImportedKeys", func(t *testing.T) {
		q := readCatalogQueries(t)
		var sql string
		for _, x := range q {
			if x.Name == "jdbc getImportedKeys" {
				sql, _ = x.Fill(0)
			}
		}
		sql = strings.NewReplacer("$1", "'public'", "$2", "'orders'").Replace(sql)
		lines := explainLines(t, c, "EXPLAIN "+sql)
		plan := strings.Join(lines, "\n")
		t.Log("\n" + plan)
		if n := strings.Count(plan, "Hash Inner Join"); n < 7 {
			t.Errorf("%d hash joins, want at least 7 for 9 relations:\n%s", n, plan)
		}
		if n := strings.Count(plan, "Cross Join"); n > 1 {
			t.Errorf("%d cross joins, want at most 1 (con × pos):\n%s", n, plan)
		}
	})
}
