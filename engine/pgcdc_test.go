package engine_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// startLogicalPG starts a PostgreSQL 15 with wal_level = logical, a
// database shop with a customers table, and a role replicator that logs
// in with a password (scram-sha-256) and may replicate.
func startLogicalPG(t *testing.T) (*pgtest.Server, *pgx.Conn) {
	t.Helper()
	srv, err := pgtest.StartWith(pgtest.Options{Logical: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	admin := srv.Connect(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE ROLE replicator LOGIN REPLICATION PASSWORD 's3cret'`,
		`CREATE ROLE nobody LOGIN PASSWORD 's3cret'`,
		`CREATE DATABASE shop`,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	hba := filepath.Join(srv.Dir, "data", "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	rules := "host all replicator 127.0.0.1/32 scram-sha-256\nhost all nobody 127.0.0.1/32 scram-sha-256\n"
	if err := os.WriteFile(hba, append([]byte(rules), old...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `SELECT pg_reload_conf()`); err != nil {
		t.Fatal(err)
	}
	shop, err := pgx.Connect(ctx, strings.Replace(srv.URL(), "/postgres?", "/shop?", 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shop.Close(context.Background()) })
	for _, q := range []string{
		`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text, segment text, credit numeric(12,2), since timestamptz)`,
		`GRANT SELECT ON customers TO replicator`,
		// Creating a publication takes the table's owner; weir creates
		// one itself only when its user may.
		`CREATE PUBLICATION weir_shop FOR TABLE customers`,
		`INSERT INTO customers SELECT g, 'customer ' || g, (ARRAY['retail','pro','gov'])[g % 3 + 1], g * 10.25, '2024-01-01Z'::timestamptz + g * interval '1 day' FROM generate_series(1, 300) g`,
	} {
		if _, err := shop.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return srv, shop
}

// shopChanges is a round of inserts, updates (one changing keys) and
// deletes on the source table.
func shopChanges(t *testing.T, c *pgx.Conn, round int) {
	t.Helper()
	base := 1000 * (round + 1)
	for _, q := range []string{
		fmt.Sprintf(`INSERT INTO customers SELECT g, 'new ' || g, 'retail', g, now() FROM generate_series(%d, %d) g`, base, base+99),
		fmt.Sprintf(`UPDATE customers SET credit = credit + 1, segment = 'pro' WHERE customer_id %% 5 = %d`, round%5),
		fmt.Sprintf(`UPDATE customers SET customer_id = customer_id + 100000 WHERE customer_id BETWEEN %d AND %d`, base, base+4),
		fmt.Sprintf(`DELETE FROM customers WHERE customer_id %% 9 = %d`, round%9),
	} {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

const shopRow = `concat_ws('|', customer_id::text, coalesce(name, 'NULL'), coalesce(segment, 'NULL'), coalesce(credit::text, 'NULL'), coalesce(since::text, 'NULL'))`

// sourceRows is PostgreSQL's own table.
func sourceRows(t *testing.T, c *pgx.Conn) []string {
	rows, err := c.Query(context.Background(), `SELECT `+shopRow+` FROM customers`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// appliedRows is the table weir's change rows describe, applied in LSN
// order by key (within one transaction a key changes once).
func appliedRows(t *testing.T, w *pgx.Conn, table string) ([]string, error) {
	rows, err := w.Query(context.Background(), `SELECT customer_id::text, `+shopRow+`, _op FROM `+table+` ORDER BY _lsn`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	state := map[string]string{}
	for rows.Next() {
		var key, row, op string
		if err := rows.Scan(&key, &row, &op); err != nil {
			return nil, err
		}
		if op == "d" {
			delete(state, key)
		} else {
			state[key] = row
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(state))
	for _, v := range state {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}

// waitMatches waits until weir's table applied equals the source table.
func waitMatches(t *testing.T, w, pg *pgx.Conn, table string) {
	t.Helper()
	want := sourceRows(t, pg)
	waitUntil(t, table+" to match the source table", func() (bool, string) {
		got, err := appliedRows(t, w, table)
		if err != nil {
			return false, err.Error()
		}
		if strings.Join(got, "\n") == strings.Join(want, "\n") {
			return true, ""
		}
		return false, fmt.Sprintf("weir %d rows, PostgreSQL %d", len(got), len(want))
	})
}

// CREATE SOURCE ... connector = 'postgres-cdc' with the password in a
// secret, a streaming table over it, changes on PostgreSQL while weir
// streams: the change rows, applied by key, equal PostgreSQL's table —
// also after weir restarts, with changes made while it was down.
func TestPgCDCSource(t *testing.T) {
	pg, shop := startLogicalPG(t)
	key := make([]byte, 32)
	rand.Read(key)
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir, SecretKey: key})
	w := srv.connect(t)
	execAll(t, w,
		`CREATE SECRET shop_pw AS 's3cret'`,
		fmt.Sprintf(`CREATE SOURCE shop WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = %d,
		  username = 'replicator', password = secret('shop_pw'), database.name = 'shop',
		  table.name = 'public.customers', slot.name = 'weir_shop', publication = 'weir_shop')`, pg.Port),
		`CREATE STREAMING TABLE customer_changes AS SELECT * FROM STREAM shop`)
	var conn, table string
	rows, err := w.Query(context.Background(), `SHOW SOURCES`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		vals, _ := rows.Values()
		if vals[0] == "shop" {
			conn, table = fmt.Sprint(vals[1]), fmt.Sprint(vals[4])
		}
	}
	rows.Close()
	if conn != "postgres-cdc" || table != "public.customers" {
		t.Fatalf("SHOW SOURCES: connector %q, table %q", conn, table)
	}
	for round := 0; round < 3; round++ {
		shopChanges(t, shop, round)
	}
	waitMatches(t, w, shop, "customer_changes")
	waitMatches(t, w, shop, "shop") // a batch SELECT reads the whole log

	w.Close(context.Background())
	srv.stop()
	shopChanges(t, shop, 3) // while weir is down
	srv = startServerWith(t, engine.Config{DataDir: dir, SecretKey: key})
	defer srv.stop()
	w = srv.connect(t)
	shopChanges(t, shop, 4)
	waitMatches(t, w, shop, "customer_changes")

	// The slot's confirmed LSN moves, and is never ahead of weir's log.
	waitUntil(t, "the slot's confirmed LSN to advance", func() (bool, string) {
		var confirmed *string
		if err := shop.QueryRow(context.Background(), `SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'weir_shop'`).Scan(&confirmed); err != nil {
			return false, err.Error()
		}
		return confirmed != nil && *confirmed != "0/0", fmt.Sprint(confirmed)
	})
	// The slot's lag reaches the monitor (and /metrics): within the WAL
	// PostgreSQL keeps for the slot now, as it reported it earlier.
	waitUntil(t, "the slot lag in the monitor", func() (bool, string) {
		var held int64
		if err := shop.QueryRow(context.Background(), `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = 'weir_shop'`).Scan(&held); err != nil {
			return false, err.Error()
		}
		for _, src := range srv.eng.Monitor().Sources {
			if src.Name == "public.shop" {
				return src.HasSlotLag && src.SlotLagBytes >= 0 && src.SlotLagBytes <= held+1<<20, fmt.Sprintf("monitor %d, PostgreSQL holds %d", src.SlotLagBytes, held)
			}
		}
		return false, "no source public.shop in the monitor"
	})

	// DROP SOURCE ... CASCADE drops the slot too.
	execAll(t, w, `DROP SOURCE shop CASCADE`)
	var slots int
	if err := shop.QueryRow(context.Background(), `SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'weir_shop'`).Scan(&slots); err != nil || slots != 0 {
		t.Fatalf("slot left after DROP SOURCE: %d, %v", slots, err)
	}
}

// CREATE SOURCE refuses what cannot be read, with clear SQLSTATEs.
func TestPgCDCSourceErrors(t *testing.T) {
	pg, _ := startLogicalPG(t)
	plain := pgtest.Shared(t) // wal_level = replica
	key := make([]byte, 32)
	rand.Read(key)
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), SecretKey: key})
	defer srv.stop()
	w := srv.connect(t)
	execAll(t, w, `CREATE SECRET good AS 's3cret'`, `CREATE SECRET bad AS 'wrong'`)
	create := func(port int, user, secret, db, table string) error {
		_, err := w.Exec(context.Background(), fmt.Sprintf(`CREATE SOURCE s WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = %d,
		  username = '%s', password = secret('%s'), database.name = '%s', table.name = '%s', slot.name = 'weir_err')`, port, user, secret, db, table))
		return err
	}
	cases := []struct {
		name string
		err  error
		code string
	}{
		{"unreachable", create(1, "replicator", "good", "shop", "customers"), "08001"},
		{"wrong password", create(pg.Port, "replicator", "bad", "shop", "customers"), "28P01"},
		{"missing table", create(pg.Port, "replicator", "good", "shop", "nope"), "42P01"},
		{"no replication privilege", create(pg.Port, "nobody", "good", "shop", "customers"), "42501"},
		{"wal_level not logical", create(plain.Port, "postgres", "good", "postgres", "pg_class"), "55000"},
	}
	for _, c := range cases {
		pe, ok := c.err.(*pgconn.PgError)
		if !ok || pe.Code != c.code {
			t.Errorf("%s: want SQLSTATE %s, got %v", c.name, c.code, c.err)
			continue
		}
		if c.code == "55000" && !strings.Contains(pe.Hint, "wal_level = logical") {
			t.Errorf("%s: hint %q", c.name, pe.Hint)
		}
	}
}
