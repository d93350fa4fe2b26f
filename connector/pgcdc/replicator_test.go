package pgcdc

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

var (
	logicalOnce sync.Once
	logical     *pgtest.Server
	logicalErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if logical != nil {
		logical.Stop()
	}
	pgtest.StopShared()
	os.Exit(code)
}

// logicalServer is one PostgreSQL 15 with wal_level = logical for the
// package's tests.
func logicalServer(t testing.TB) *pgtest.Server {
	t.Helper()
	logicalOnce.Do(func() { logical, logicalErr = pgtest.StartWith(pgtest.Options{Logical: true}) })
	if logicalErr != nil {
		t.Fatalf("start PostgreSQL: %v", logicalErr)
	}
	return logical
}

// fixture is a database on the logical server with a captured table.
type fixture struct {
	srv *pgtest.Server
	db  string
	pg  *pgx.Conn
	o   Options
}

func newFixture(t *testing.T, identity string) *fixture {
	t.Helper()
	srv := logicalServer(t)
	url := srv.FreshDatabase(t)
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(context.Background()) })
	db := pg.Config().Database
	exec(t, pg, `CREATE TABLE customers (id int PRIMARY KEY, name text, amount numeric(10,2), notes text, seen timestamptz)`)
	if identity != "" {
		exec(t, pg, `ALTER TABLE customers REPLICA IDENTITY `+identity)
	}
	exec(t, pg, `INSERT INTO customers SELECT g, 'c'||g, g*1.5, CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 400) END, '2024-01-01 00:00:00+00'::timestamptz + g * interval '1 hour' FROM generate_series(1, 500) g`)
	o, err := ParseOptions(map[string]string{"hostname": "127.0.0.1", "port": fmt.Sprint(srv.Port), "username": "postgres",
		"database.name": db, "table.name": "public.customers", "slot.name": "weir_" + db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c := srv.Connect(t)
		c.Exec(context.Background(), "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active", o.Slot)
	})
	return &fixture{srv: srv, db: db, pg: pg, o: o}
}

func exec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// currentLSN is the source server's WAL insert position now: past every
// commit made before (pg_current_wal_lsn is the write position, which
// trails it with synchronous_commit off).
func currentLSN(t *testing.T, c *pgx.Conn) uint64 {
	var s string
	if err := c.QueryRow(context.Background(), "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
		t.Fatal(err)
	}
	var hi, lo uint64
	fmt.Sscanf(s, "%X/%X", &hi, &lo)
	return hi<<32 | lo
}

// waitLogged waits until the replicator's log holds every change
// committed on the source before now.
func waitLogged(t *testing.T, r *Replicator, c *pgx.Conn) {
	t.Helper()
	want := currentLSN(t, c)
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := r.Status()
		if st.Snapshotted && max(st.LoggedLSN, st.Confirmed) >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replicator did not catch up with LSN %X: %+v", want, st)
		}
		// Poll: the replicator's progress is not signalled to tests.
		time.Sleep(20 * time.Millisecond)
	}
}

// applied is the table weir's change rows describe: each key's last
// image, in PostgreSQL's text form.
func applied(t *testing.T, st *state.Store, rel uint32, cols []Column) []string {
	t.Helper()
	batches, err := st.ScanTable(rel, Schema(cols))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	n := len(cols)
	for _, b := range batches {
		for i := 0; i < int(b.NumRows()); i++ {
			var vals []string
			for j := 0; j < n; j++ {
				if b.Column(j).IsNull(i) {
					vals = append(vals, "NULL")
				} else {
					vals = append(vals, string(types.AppendText(nil, cols[j].Type, b.Column(j), i, nil)))
				}
			}
			op := string(types.AppendText(nil, types.T{OID: types.OidText}, b.Column(n), i, nil))
			switch op {
			case "d":
				delete(rows, vals[0])
			case "t":
				clear(rows)
			default:
				rows[vals[0]] = strings.Join(vals, "|")
			}
		}
	}
	out := make([]string, 0, len(rows))
	for _, v := range rows {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// pgRows is the source table itself, in the same form.
func pgRows(t *testing.T, c *pgx.Conn) []string {
	rs, err := c.Query(context.Background(), `SELECT concat_ws('|', id::text, coalesce(name, 'NULL'), coalesce(amount::text, 'NULL'), coalesce(notes, 'NULL'), coalesce(seen::text, 'NULL')) FROM customers`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func compare(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		g := map[string]bool{}
		for _, r := range got {
			g[r] = true
		}
		var missing []string
		for _, r := range want {
			if !g[r] {
				missing = append(missing, r)
			}
		}
		t.Fatalf("weir holds %d rows, PostgreSQL %d; PostgreSQL's rows weir lacks: %.300q", len(got), len(want), missing)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: weir %q, PostgreSQL %q", i, got[i], want[i])
		}
	}
}

// changes runs a mix of inserts, updates (some leaving the TOASTed notes
// unchanged, some changing the key) and deletes on the source.
func changes(t *testing.T, c *pgx.Conn, round int) {
	base := 1000 * (round + 1)
	exec(t, c, fmt.Sprintf(`INSERT INTO customers SELECT g, 'n'||g, g, NULL, now() FROM generate_series(%d, %d) g`, base, base+199))
	exec(t, c, fmt.Sprintf(`UPDATE customers SET amount = amount + 1 WHERE id %% 7 = %d`, round%7))
	exec(t, c, fmt.Sprintf(`UPDATE customers SET name = 'moved' , id = id + 100000 WHERE id BETWEEN %d AND %d`, base, base+9))
	exec(t, c, fmt.Sprintf(`DELETE FROM customers WHERE id %% 11 = %d`, round%11))
	exec(t, c, `BEGIN; UPDATE customers SET name = name || '!' WHERE id % 13 = 0; INSERT INTO customers VALUES (`+fmt.Sprint(base+500)+`, 'tx', 1, NULL, NULL); COMMIT`)
}

func openStore(t testing.TB, dir string) *state.Store {
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The snapshot, then inserts, updates (TOASTed values unchanged, keys
// changed) and deletes while the replicator streams: weir's change rows,
// applied by key, equal PostgreSQL's table, with REPLICA IDENTITY DEFAULT
// and FULL. The replicator is then stopped and started again on the same
// store (a restart), and more changes follow: nothing lost or doubled.
func TestReplicatorMatchesPostgres(t *testing.T) {
	for _, identity := range []string{"", "FULL"} {
		t.Run("identity="+identity, func(t *testing.T) {
			f := newFixture(t, identity)
			ctx := context.Background()
			cols, err := Prepare(ctx, f.o)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			st := openStore(t, dir)
			r := NewReplicator(st, 7001, f.o, cols)
			r.Start()
			for round := 0; round < 3; round++ {
				changes(t, f.pg, round)
			}
			waitLogged(t, r, f.pg)
			compare(t, applied(t, st, 7001, cols), pgRows(t, f.pg))
			r.Close()
			changes(t, f.pg, 3) // while weir is away
			st.Close()
			st = openStore(t, dir)
			defer st.Close()
			r = NewReplicator(st, 7001, f.o, cols)
			r.Start()
			defer r.Close()
			changes(t, f.pg, 4)
			waitLogged(t, r, f.pg)
			compare(t, applied(t, st, 7001, cols), pgRows(t, f.pg))
		})
	}
}

// CREATE SOURCE's checks give clear SQLSTATEs.
func TestPrepareErrors(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	o := f.o
	o.Table = "nope"
	if _, err := Prepare(ctx, o); sqlerr.Code(err) != sqlerr.UndefinedTable {
		t.Errorf("missing table: %v", err)
	}
	o = f.o
	o.Port = 1
	if _, err := Prepare(ctx, o); sqlerr.Code(err) != "08001" {
		t.Errorf("unreachable: %v", err)
	}
	exec(t, f.pg, `CREATE ROLE weir_plain LOGIN`)
	o = f.o
	o.User = "weir_plain"
	if _, err := Prepare(ctx, o); sqlerr.Code(err) != sqlerr.InsufficientPrivilege {
		t.Errorf("no replication: %v", err)
	}
	plain := pgtest.Shared(t) // wal_level = replica
	o = f.o
	o.Port, o.Database = plain.Port, "postgres"
	if _, err := Prepare(ctx, o); sqlerr.Code(err) != sqlerr.ObjectNotInPrerequisiteState {
		t.Errorf("wal_level replica: %v", err)
	}
}

// An immediate restart of PostgreSQL (a crash) while the replicator
// streams: it reconnects with backoff, says so in its events, and
// nothing is lost or doubled.
func TestReplicatorSurvivesPostgresRestart(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	cols, err := Prepare(ctx, f.o)
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, t.TempDir())
	defer st.Close()
	r := NewReplicator(st, 7002, f.o, cols)
	var mu sync.Mutex
	var events []string
	r.OnEvent = func(level, msg string) { mu.Lock(); events = append(events, level+": "+msg); mu.Unlock() }
	r.Start()
	defer r.Close()
	changes(t, f.pg, 0)
	waitLogged(t, r, f.pg)
	changes(t, f.pg, 1)
	if err := f.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(ctx, strings.Replace(f.srv.URL(), "/postgres?", "/"+f.db+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	changes(t, pg, 2)
	waitLogged(t, r, pg)
	compare(t, applied(t, st, 7002, cols), pgRows(t, pg))
	if r.Status().Reconnects == 0 {
		t.Fatal("no reconnection counted")
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, e := range events {
		if strings.Contains(e, "lost its replication connection") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no reconnection event: %q", events)
	}
}
