package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-sql/weir/engine"
)

// rowsText runs sql and returns its rows as "a|b" lines, or the error's
// SQLSTATE and message.
func (s *session) rowsText(sql string) string {
	rows, err := s.c.Query(context.Background(), sql)
	if err != nil {
		return errOutcome(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return errOutcome(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		return errOutcome(err)
	}
	return strings.Join(out, "; ")
}

// TestColumnMaskReaders follows Databricks' column mask example: ssn is
// masked by a function that shows it to members of HumanResourceDept
// only. Two roles read the same table — one a member of the group, one
// not — through SELECT, WHERE, joins, aggregates, a view, COPY TO and a
// streaming table; filters and joins see the masked value, as Databricks
// documents.
func TestColumnMaskReaders(t *testing.T) {
	srv := startServer(t, t.TempDir())
	tg := target{name: "weir", url: srv.url()}
	admin := tg.connect(t, "")
	for _, q := range []string{
		"CREATE ROLE humanresourcedept",
		"CREATE ROLE hr_alice LOGIN",
		"CREATE ROLE bob LOGIN",
		"GRANT humanresourcedept TO hr_alice",
		"CREATE TABLE users (name STRING, ssn STRING, region STRING)",
		"INSERT INTO users VALUES ('ann', '111-22-3333', 'eu'), ('ben', '444-55-6666', 'us'), ('cat', '777-88-9999', 'us')",
		"CREATE TABLE payroll (ssn text, salary int)",
		"INSERT INTO payroll VALUES ('111-22-3333', 100), ('444-55-6666', 200)",
		"CREATE FUNCTION ssn_mask(ssn STRING) RETURN CASE WHEN is_account_group_member('HumanResourceDept') THEN ssn ELSE '***-**-****' END",
		"ALTER TABLE users ALTER COLUMN ssn SET MASK ssn_mask",
		"CREATE VIEW users_v AS SELECT name, ssn FROM users",
		// Reading needs SELECT, as in PostgreSQL; masks apply on top.
		"GRANT SELECT ON users, payroll, users_v TO hr_alice, bob",
		"GRANT CREATE ON SCHEMA public TO hr_alice, bob", // their streaming tables below
	} {
		mustExec(t, admin.c, q)
	}
	hr := tg.connect(t, "hr_alice")
	bob := tg.connect(t, "bob")
	checks := []struct{ sql, hr, bob string }{
		{"SELECT name, ssn FROM users ORDER BY name",
			"ann|111-22-3333; ben|444-55-6666; cat|777-88-9999", "ann|***-**-****; ben|***-**-****; cat|***-**-****"},
		{"SELECT count(*) FROM users WHERE ssn = '***-**-****'", "0", "3"},
		{"SELECT count(*) FROM users WHERE ssn LIKE '111%'", "1", "0"},
		{"SELECT u.name, p.salary FROM users u JOIN payroll p ON u.ssn = p.ssn ORDER BY 1", "ann|100; ben|200", ""},
		{"SELECT region, count(DISTINCT ssn) FROM users GROUP BY region ORDER BY 1", "eu|1; us|2", "eu|1; us|1"},
		{"SELECT max(ssn) FROM users", "777-88-9999", "***-**-****"},
		{"SELECT ssn FROM users_v WHERE name = 'ben'", "444-55-6666", "***-**-****"},
		{"SELECT name FROM users WHERE region = 'eu'", "ann", "ann"},
	}
	for _, c := range checks {
		if got := hr.rowsText(c.sql); got != c.hr {
			t.Errorf("%s as a member of the group:\n got %s\nwant %s", c.sql, got, c.hr)
		}
		if got := bob.rowsText(c.sql); got != c.bob {
			t.Errorf("%s as a non-member:\n got %s\nwant %s", c.sql, got, c.bob)
		}
	}
	// The owner is masked too (Databricks: the function decides); a
	// superuser has the privileges of every role, so is_account_group_member
	// is true for it.
	copyOut := func(s *session, sql string) string {
		var buf bytes.Buffer
		if _, err := s.c.PgConn().CopyTo(context.Background(), &buf, sql); err != nil {
			return errOutcome(err)
		}
		return buf.String()
	}
	for _, q := range []string{"COPY users TO STDOUT", "COPY (SELECT * FROM users ORDER BY name) TO STDOUT"} {
		if got := copyOut(bob, q); strings.Contains(got, "111-22") || !strings.Contains(got, "***-**-****") {
			t.Errorf("%s as a non-member: %q", q, got)
		}
		if got := copyOut(hr, q); !strings.Contains(got, "111-22-3333") {
			t.Errorf("%s as a member: %q", q, got)
		}
	}

	// Only the owner sets or drops a mask.
	if got := bob.rowsText("ALTER TABLE users ALTER COLUMN ssn DROP MASK"); got != "42501 must be owner of table users" {
		t.Errorf("DROP MASK by a non-owner: %s", got)
	}
	// A function in use as a mask cannot be dropped.
	if got := admin.rowsText("DROP FUNCTION ssn_mask"); !strings.HasPrefix(got, "2BP01 cannot drop function ssn_mask(text) because other objects depend on it") {
		t.Errorf("DROP FUNCTION of a mask: %s", got)
	}
	// The mask must take the column's type and give one it can hold.
	for _, c := range [][2]string{
		{"ALTER TABLE users ALTER COLUMN ssn SET MASK no_such_fn", "42883 function no_such_fn does not exist"},
		{"ALTER TABLE payroll ALTER COLUMN salary SET MASK ssn_mask", "42883 function ssn_mask(integer) does not exist"},
		{"ALTER TABLE users ALTER COLUMN nope SET MASK ssn_mask", "42703 column \"nope\" of relation \"users\" does not exist"},
		{"ALTER TABLE users ALTER COLUMN ssn SET MASK ssn_mask USING COLUMNS (nope)", "42703 column \"nope\" of relation \"users\" does not exist"},
		{"CREATE FUNCTION flag(s text) RETURNS boolean RETURN s IS NULL", "ok"},
		{"ALTER TABLE payroll ALTER COLUMN ssn SET MASK flag", "ok"},
		{"ALTER TABLE payroll ALTER COLUMN salary SET MASK flag", "42883 function flag(integer) does not exist"},
		{"CREATE FUNCTION bad_int(s text) RETURNS int RETURN length(s)", "ok"},
		{"ALTER TABLE users ALTER COLUMN region SET MASK bad_int", "ok"},
		{"CREATE FUNCTION to_date_mask(s text) RETURNS date RETURN DATE '2020-01-01'", "ok"},
		{"ALTER TABLE payroll ALTER COLUMN salary SET MASK to_date_mask", "42883 function to_date_mask(integer) does not exist"},
		{"CREATE FUNCTION i2d(i int) RETURNS date RETURN DATE '2020-01-01'", "ok"},
		{"ALTER TABLE payroll ALTER COLUMN salary SET MASK i2d", "42804 mask function i2d returns date, but column \"salary\" is of type integer"},
		{"ALTER TABLE payroll ALTER COLUMN ssn DROP MASK", "ok"},
		{"ALTER TABLE users ALTER COLUMN region DROP MASK", "ok"},
		{"CREATE FUNCTION region_mask(r text, n text, keep text) RETURN CASE WHEN n = keep THEN r ELSE '?' END", "ok"},
	} {
		q, want := c[0], c[1]
		if got := admin.rowsText(q); got != want && !(want == "ok" && got == "") {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	// USING COLUMNS passes other columns and literals after the masked one.
	mustExec(t, admin.c, "ALTER TABLE users ALTER COLUMN region SET MASK region_mask USING COLUMNS (name, 'ben')")
	if got := bob.rowsText("SELECT name, region FROM users ORDER BY name"); got != "ann|?; ben|us; cat|?" {
		t.Errorf("USING COLUMNS mask: %s", got)
	}
	mustExec(t, admin.c, "ALTER TABLE users ALTER COLUMN region DROP MASK")

	// A streaming table reading the masked table sees masked values,
	// computed as its owner.
	mustExec(t, bob.c, "CREATE STREAMING TABLE bob_users AS SELECT name, ssn FROM STREAM users")
	mustExec(t, hr.c, "CREATE STREAMING TABLE hr_users AS SELECT name, ssn FROM STREAM users")
	waitRows(t, admin, "SELECT name || ' ' || ssn FROM bob_users ORDER BY name", "ann ***-**-****; ben ***-**-****; cat ***-**-****")
	waitRows(t, admin, "SELECT name || ' ' || ssn FROM hr_users ORDER BY name", "ann 111-22-3333; ben 444-55-6666; cat 777-88-9999")

	// So does a flow, which runs as its target's owner.
	mustExec(t, bob.c, "CREATE OR REFRESH STREAMING TABLE bob_target")
	mustExec(t, bob.c, "CREATE FLOW bob_flow AS INSERT INTO bob_target BY NAME SELECT name, ssn FROM STREAM users")
	waitRows(t, admin, "SELECT name || ' ' || ssn FROM bob_target ORDER BY name", "ann ***-**-****; ben ***-**-****; cat ***-**-****")
	mustExec(t, admin.c, "DROP STREAMING TABLE bob_target")

	// SUBSCRIBE applies the masks of the streaming table it follows.
	mustExec(t, admin.c, "ALTER STREAMING TABLE hr_users ALTER COLUMN ssn SET MASK ssn_mask")
	mustExec(t, hr.c, "GRANT SELECT ON hr_users TO bob") // SUBSCRIBE needs SELECT
	subscribeRows := func(user string, n int) string {
		s := tg.connect(t, user) // cancelling closes the connection
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rows, err := s.c.Query(ctx, "SUBSCRIBE TO hr_users")
		if err != nil {
			return errOutcome(err)
		}
		var got []string
		for len(got) < n && rows.Next() {
			var epoch int64
			var diff int32
			var name, ssn string
			if err := rows.Scan(&epoch, &diff, &name, &ssn); err != nil {
				return errOutcome(err)
			}
			got = append(got, fmt.Sprintf("%+d %s %s", diff, name, ssn))
		}
		cancel()
		rows.Close()
		sort.Strings(got)
		return strings.Join(got, "; ")
	}
	if got := subscribeRows("bob", 3); got != "+1 ann ***-**-****; +1 ben ***-**-****; +1 cat ***-**-****" {
		t.Errorf("SUBSCRIBE as a non-member: %s", got)
	}
	if got := subscribeRows("hr_alice", 3); got != "+1 ann 111-22-3333; +1 ben 444-55-6666; +1 cat 777-88-9999" {
		t.Errorf("SUBSCRIBE as a member: %s", got)
	}
	mustExec(t, admin.c, "ALTER STREAMING TABLE hr_users ALTER COLUMN ssn DROP MASK")

	// DROP MASK: the stored values again.
	mustExec(t, admin.c, "ALTER TABLE users ALTER COLUMN ssn DROP MASK")
	if got := bob.rowsText("SELECT ssn FROM users WHERE name = 'ann'"); got != "111-22-3333" {
		t.Errorf("after DROP MASK: %s", got)
	}
	mustExec(t, admin.c, "DROP STREAMING TABLE bob_users")
	mustExec(t, admin.c, "DROP STREAMING TABLE hr_users")
	mustExec(t, admin.c, "DROP FUNCTION ssn_mask")
}

// waitRows polls sql until it gives want, for up to 10 seconds.
func waitRows(t *testing.T, s *session, sql, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		if got = s.rowsText(sql); got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
}

// auditCapture keeps the masked_read audit events the server logs (the
// audit log's own store is another part's; until then events reach the
// server's log).
type auditCapture struct {
	mu     sync.Mutex
	events []string
}

func (a *auditCapture) Enabled(context.Context, slog.Level) bool { return true }
func (a *auditCapture) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "audit" {
		return nil
	}
	var kind, role, object string
	r.Attrs(func(at slog.Attr) bool {
		switch at.Key {
		case "kind":
			kind = at.Value.String()
		case "role":
			role = at.Value.String()
		case "object":
			object = at.Value.String()
		}
		return true
	})
	if kind == "masked_read" {
		a.mu.Lock()
		a.events = append(a.events, role+" "+object)
		a.mu.Unlock()
	}
	return nil
}
func (a *auditCapture) WithAttrs([]slog.Attr) slog.Handler { return a }
func (a *auditCapture) WithGroup(string) slog.Handler      { return a }

func (a *auditCapture) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.events
	a.events = nil
	return out
}

// TestColumnMaskDDL: the MASK clause of CREATE TABLE (Databricks'
// column definition), what DESCRIBE TABLE EXTENDED, SHOW CREATE TABLE
// and information_schema.column_masks show, and the masked_read audit
// event, once for each execution of a query reading the masked table.
func TestColumnMaskDDL(t *testing.T) {
	capture := &auditCapture{}
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), Logger: slog.New(capture)})
	s := (target{url: srv.url()}).connect(t, "")
	mustExec(t, s.c, "CREATE FUNCTION ssn_mask(ssn STRING) RETURN CASE WHEN is_account_group_member('HumanResourceDept') THEN ssn ELSE '***-**-****' END")
	mustExec(t, s.c, "CREATE FUNCTION keep_region(r text, name text, who text) RETURNS text RETURN CASE WHEN name = who THEN r END")
	mustExec(t, s.c, "CREATE TABLE users (name STRING, ssn STRING MASK ssn_mask, region STRING MASK keep_region USING COLUMNS (name, 'ann'))")
	mustExec(t, s.c, "INSERT INTO users VALUES ('ann', '111-22-3333', 'eu'), ('ben', '444-55-6666', 'us')")
	mustExec(t, s.c, "CREATE ROLE viewer LOGIN")
	mustExec(t, s.c, "GRANT SELECT ON users TO viewer") // reading needs SELECT; the masks apply on top
	mustExec(t, s.c, "SET ROLE viewer")
	if got := s.rowsText("SELECT * FROM users ORDER BY name"); got != "ann|***-**-****|eu; ben|***-**-****|<nil>" {
		t.Errorf("CREATE TABLE … MASK: %s", got)
	}
	mustExec(t, s.c, "RESET ROLE")
	for q, want := range map[string]string{
		"SHOW CREATE TABLE users": "CREATE TABLE users (\n  name text,\n  ssn text MASK public.ssn_mask,\n  region text MASK public.keep_region USING COLUMNS (\"name\", 'ann')\n)",
		"SELECT schema_name, table_name, column_name, mask_schema, mask_name, coalesce(mask_col_usage, '-') FROM information_schema.column_masks ORDER BY column_name": "public|users|region|public|keep_region|\"name\",'ann'; public|users|ssn|public|ssn_mask|-",
	} {
		if got := s.rowsText(q); got != want {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	rows := s.rowsText("DESCRIBE TABLE EXTENDED users")
	if !strings.Contains(rows, "# Column Masks||; # col_name|mask|; ssn|MASK public.ssn_mask|; region|MASK public.keep_region USING COLUMNS (\"name\", 'ann')|") {
		t.Errorf("DESCRIBE TABLE EXTENDED: %s", rows)
	}
	// A mask that does not fit fails the CREATE and leaves no table.
	if got := s.rowsText("CREATE TABLE bad (n int MASK ssn_mask)"); got != "42883 function ssn_mask(integer) does not exist" {
		t.Errorf("CREATE TABLE with a wrong mask: %s", got)
	}
	if got := s.rowsText("SELECT count(*) FROM pg_class WHERE relname = 'bad'"); got != "0" {
		t.Errorf("table left behind: %s", got)
	}
	// Databricks' MASK clause in a streaming table's declared columns.
	mustExec(t, s.c, "CREATE TABLE raw_people (name text, ssn text)")
	mustExec(t, s.c, "INSERT INTO raw_people VALUES ('cat', '777-88-9999')")
	mustExec(t, s.c, "CREATE OR REFRESH STREAMING TABLE people (name STRING, ssn STRING MASK ssn_mask) AS SELECT name, ssn FROM STREAM raw_people")
	mustExec(t, s.c, "GRANT SELECT ON people TO viewer")
	mustExec(t, s.c, "SET ROLE viewer")
	waitRows(t, s, "SELECT name, ssn FROM people", "cat|***-**-****")
	mustExec(t, s.c, "RESET ROLE")
	if got := s.rowsText("CREATE OR REFRESH STREAMING TABLE people2 (name STRING, ssn INT MASK ssn_mask) AS SELECT name, 1 AS ssn FROM STREAM raw_people"); got != "42883 function ssn_mask(integer) does not exist" {
		t.Errorf("streaming table with a wrong mask: %s", got)
	}
	if got := s.rowsText("SELECT count(*) FROM pg_class WHERE relname = 'people2'"); got != "0" {
		t.Errorf("streaming table left behind: %s", got)
	}
	// A target of flows, followed by SUBSCRIBE: masked for the subscriber.
	mustExec(t, s.c, "CREATE OR REFRESH STREAMING TABLE tgt (name STRING, ssn STRING MASK ssn_mask)")
	mustExec(t, s.c, "CREATE FLOW f AS INSERT INTO tgt BY NAME SELECT name, ssn FROM STREAM raw_people")
	waitRows(t, s, "SELECT count(*) FROM tgt", "1")
	mustExec(t, s.c, "GRANT SELECT ON tgt TO viewer") // SUBSCRIBE needs SELECT
	viewer := (target{url: srv.url()}).connect(t, "viewer")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	sub, err := viewer.c.Query(ctx, "SUBSCRIBE TO tgt")
	if err != nil {
		t.Fatal(err)
	}
	var epoch int64
	var diff int32
	var name, ssn string
	if !sub.Next() {
		t.Fatalf("SUBSCRIBE TO a target of flows gave no row: %v", sub.Err())
	}
	if err := sub.Scan(&epoch, &diff, &name, &ssn); err != nil || name+" "+ssn != "cat ***-**-****" {
		t.Errorf("SUBSCRIBE TO a target of flows: %s %s (%v)", name, ssn, err)
	}
	cancel()
	sub.Close()
	capture.take()
	for i := 0; i < 2; i++ { // the second run uses the cached plan
		s.rowsText("SELECT u.name, u.ssn, v.region FROM users u JOIN users v ON u.name = v.name")
	}
	got := capture.take()
	if want := "weir public.users"; len(got) != 4 || got[0] != want {
		t.Errorf("masked_read events of two runs of a self-join over two masked columns: %q", got)
	}
	var buf bytes.Buffer
	if _, err := s.c.PgConn().CopyTo(context.Background(), &buf, "COPY (SELECT name, ssn, region FROM users) TO STDOUT"); err != nil {
		t.Fatal(err)
	}
	if got := capture.take(); len(got) != 2 {
		t.Errorf("masked_read events of COPY (query) TO: %q", got)
	}
	if s.rowsText("SELECT 1"); len(capture.take()) != 0 {
		t.Errorf("a query reading no masked table was audited")
	}
	if s.rowsText("SELECT name, count(*) FROM users GROUP BY name"); len(capture.take()) != 0 {
		t.Errorf("a query reading no masked column was audited")
	}
}
