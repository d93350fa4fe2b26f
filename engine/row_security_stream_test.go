package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// rlsSubscribe starts SUBSCRIBE TO table on a new connection as role and
// returns its rows as "diff|values...".
func rlsSubscribe(t *testing.T, url, role, table string) (<-chan subRow, <-chan error) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		c.Close(context.Background())
	})
	mustExec(t, c, "SET ROLE "+role)
	rows, err := c.Query(ctx, "SUBSCRIBE TO "+table)
	if err != nil {
		t.Fatalf("SUBSCRIBE as %s: %v", role, err)
	}
	ch := make(chan subRow, 100)
	errc := make(chan error, 1)
	go func() {
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				errc <- err
				rows.Close()
				return
			}
			parts := []string{fmt.Sprintf("%+d", vals[1])}
			for _, v := range vals[2:] {
				parts = append(parts, fmt.Sprint(v))
			}
			ch <- subRow{epoch: vals[0].(int64), text: strings.Join(parts, "|")}
		}
		rows.Close()
		errc <- rows.Err()
	}()
	return ch, errc
}

// TestRowSecuritySubscribe: a streaming table with row security sends
// each subscriber only the rows its policies let it read — its contents
// first, then the changes (an append-mode table's inserts, an update-mode
// table's deletes and inserts) — and current_user in a policy is the
// subscriber. With row_security off SUBSCRIBE fails as a SELECT would.
func TestRowSecuritySubscribe(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	for _, q := range []string{
		"CREATE ROLE alice",
		"CREATE ROLE bob",
		"CREATE TABLE ev (id int, owner text)",
		"INSERT INTO ev VALUES (1, 'alice'), (2, 'bob'), (3, 'alice')",
		"CREATE STREAMING TABLE ev_copy AS SELECT id, owner FROM ev",
		"CREATE STREAMING TABLE ev_counts AS SELECT owner, count(*) AS n FROM ev GROUP BY owner",
		"ALTER TABLE ev_copy ENABLE ROW LEVEL SECURITY",
		"ALTER STREAMING TABLE ev_counts ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY mine ON ev_copy USING (owner = current_user)",
		"CREATE POLICY mine ON ev_counts USING (owner = current_user)",
		"GRANT SELECT ON ev_copy, ev_counts TO alice, bob",
	} {
		mustExec(t, c, q)
	}
	waitConsumed(t, c, []string{"ev_copy", "ev_counts"}, 3, 10*time.Second)

	aliceRows, aliceErr := rlsSubscribe(t, srv.url(), "alice", "ev_copy")
	bobRows, bobErr := rlsSubscribe(t, srv.url(), "bob", "ev_copy")
	aliceCounts, aliceCountsErr := rlsSubscribe(t, srv.url(), "alice", "ev_counts")
	expectRows(t, aliceRows, aliceErr, "alice's rows", "+1|1|alice", "+1|3|alice")
	expectRows(t, bobRows, bobErr, "bob's rows", "+1|2|bob")
	expectRows(t, aliceCounts, aliceCountsErr, "alice's count", "+1|alice|2")

	mustExec(t, c, "INSERT INTO ev VALUES (4, 'bob'), (5, 'alice'), (6, 'carol')")
	expectRows(t, aliceRows, aliceErr, "alice's new row", "+1|5|alice")
	expectRows(t, bobRows, bobErr, "bob's new row", "+1|4|bob")
	expectRows(t, aliceCounts, aliceCountsErr, "alice's count changed", "-1|alice|2", "+1|alice|3")

	mustExec(t, c, "INSERT INTO ev VALUES (7, 'bob')")
	expectRows(t, bobRows, bobErr, "bob's second new row", "+1|7|bob")
	// A change alice may not see sends her nothing: her next row is the
	// next one she may see.
	mustExec(t, c, "INSERT INTO ev VALUES (8, 'alice')")
	expectRows(t, aliceRows, aliceErr, "alice's next row", "+1|8|alice")

	// The same policies apply to SELECT.
	var n int64
	mustExec(t, c, "SET ROLE bob")
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM ev_copy").Scan(&n); err != nil || n != 3 {
		t.Errorf("bob's SELECT count(*) FROM ev_copy = %d, %v; want 3", n, err)
	}
	// row_security = off: SUBSCRIBE would be filtered, so it fails.
	mustExec(t, c, "SET row_security = off")
	_, err := c.Exec(context.Background(), "SUBSCRIBE TO ev_copy")
	if got, want := errOutcome(err), `42501 query would be affected by row-level security policy for table "ev_copy"`; got != want {
		t.Errorf("SUBSCRIBE with row_security off: %s, want %s", got, want)
	}
	mustExec(t, c, "RESET ROLE")
	mustExec(t, c, "RESET row_security")
}

// TestRowSecurityStreamingTable: a streaming table reads a table with row
// security as its owner — the role that created it — as a materialized
// view is refreshed as its owner in PostgreSQL: one created by a
// superuser holds every row, one created by alice only what alice's
// policies let through, and rows inserted later are filtered the same
// way. The materialized views PostgreSQL makes of the same queries by the
// same roles are the expected contents.
func TestRowSecurityStreamingTable(t *testing.T) {
	pg := pgtest.Shared(t)
	dir := t.TempDir()
	srv := startServer(t, dir)
	s := fmt.Sprint(time.Now().UnixNano())
	alice := "alice_" + s
	pc, wc := pg.Connect(t), srv.connect(t)
	setup := []string{
		"CREATE ROLE " + alice,
		"CREATE SCHEMA rlss_" + s,
		"SET search_path = rlss_" + s,
		"GRANT USAGE, CREATE ON SCHEMA rlss_" + s + " TO " + alice,
		"CREATE TABLE ev (id int, level int)",
		"GRANT SELECT ON ev TO " + alice,
		"INSERT INTO ev VALUES (1, 1), (2, 2), (3, 1)",
		"ALTER TABLE ev ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY low ON ev TO " + alice + " USING (level = 1)",
	}
	for _, q := range setup {
		mustExec(t, pc, q)
		mustExec(t, wc, q)
	}
	t.Cleanup(func() {
		pc.Exec(context.Background(), "RESET ROLE")
		pc.Exec(context.Background(), "DROP SCHEMA rlss_"+s+" CASCADE")
		pc.Exec(context.Background(), "DROP OWNED BY "+alice)
		pc.Exec(context.Background(), "DROP ROLE "+alice)
	})
	create := func(name, role string) {
		t.Helper()
		for _, c := range []struct {
			conn *pgx.Conn
			kind string
		}{{pc, "MATERIALIZED VIEW"}, {wc, "STREAMING TABLE"}} {
			if role != "" {
				mustExec(t, c.conn, "SET ROLE "+role)
			}
			mustExec(t, c.conn, "CREATE "+c.kind+" "+name+" AS SELECT id, level FROM rlss_"+s+".ev")
			mustExec(t, c.conn, "RESET ROLE")
		}
	}
	create("ev_all", "")
	create("ev_alice", alice)
	compare := func(rows string, total int64, when string) {
		t.Helper()
		mustExec(t, pc, "INSERT INTO ev VALUES "+rows)
		mustExec(t, wc, "INSERT INTO ev VALUES "+rows)
		mustExec(t, pc, "REFRESH MATERIALIZED VIEW ev_all")
		mustExec(t, pc, "REFRESH MATERIALIZED VIEW ev_alice")
		waitConsumed(t, wc, []string{"ev_all", "ev_alice"}, total, 10*time.Second)
		for _, name := range []string{"ev_all", "ev_alice"} {
			q := "SELECT string_agg(id || ':' || level, ',' ORDER BY id) FROM " + name
			var want, got string
			if err := pc.QueryRow(context.Background(), q).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if err := wc.QueryRow(context.Background(), q).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: %s holds %s, PostgreSQL's materialized view %s", when, name, got, want)
			}
		}
	}
	compare("(4, 1), (5, 3)", 5, "after CREATE")
	// At restart the queries are planned again, as their owners.
	srv.stop()
	srv = startServer(t, dir)
	wc = srv.connect(t)
	mustExec(t, wc, "SET search_path = rlss_"+s)
	compare("(6, 1), (7, 2)", 7, "after a restart")
}

// TestRowSecurityInvokerViewRefused: weir's views read as their owner;
// a view asking to read as its invoker is refused rather than silently
// reading as its owner.
func TestRowSecurityInvokerViewRefused(t *testing.T) {
	c := startServer(t, t.TempDir()).connect(t)
	mustExec(t, c, "CREATE TABLE t (a int)")
	_, err := c.Exec(context.Background(), "CREATE VIEW v WITH (security_invoker = true) AS SELECT a FROM t")
	if got, want := errOutcome(err), "0A000 security_invoker views are not supported"; got != want {
		t.Errorf("security_invoker view: %s, want %s", got, want)
	}
	mustExec(t, c, "CREATE VIEW v WITH (security_invoker = false) AS SELECT a FROM t")
}

// TestRowSecurityWithMasks: on a streaming table with both row-level
// security and a column mask, readers and subscribers get the rows the
// policies pass, judged on the stored values, with the masked column
// masked (filters sit under the masks, as at a scan).
func TestRowSecurityWithMasks(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	for _, q := range []string{
		"CREATE ROLE alice",
		"CREATE TABLE ev (id int, owner text)",
		"INSERT INTO ev VALUES (1, 'alice'), (2, 'bob'), (3, 'alice')",
		"CREATE STREAMING TABLE ev_copy AS SELECT id, owner FROM ev",
		"CREATE FUNCTION id_mask(i int) RETURNS int RETURN CASE WHEN is_account_group_member('admins') THEN i ELSE -1 END",
		"ALTER TABLE ev_copy ALTER COLUMN id SET MASK id_mask",
		"ALTER STREAMING TABLE ev_copy ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY small ON ev_copy USING (id < 3)",
		"GRANT SELECT ON ev_copy TO alice",
	} {
		mustExec(t, c, q)
	}
	waitConsumed(t, c, []string{"ev_copy"}, 3, 10*time.Second)
	rows, errc := rlsSubscribe(t, srv.url(), "alice", "ev_copy")
	expectRows(t, rows, errc, "alice's masked rows", "+1|-1|alice", "+1|-1|bob")
	mustExec(t, c, "INSERT INTO ev VALUES (0, 'carol'), (9, 'dave')")
	expectRows(t, rows, errc, "alice's new masked row", "+1|-1|carol")

	mustExec(t, c, "SET ROLE alice")
	var got string
	if err := c.QueryRow(context.Background(), "SELECT string_agg(id || ':' || owner, ',' ORDER BY owner) FROM ev_copy").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "-1:alice,-1:bob,-1:carol"; got != want {
		t.Errorf("alice's SELECT: %s, want %s", got, want)
	}
	mustExec(t, c, "RESET ROLE")
}
