package engine_test

import (
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/weir-sql/weir/engine"
)

// TestSecretUsage: naming secret('name') in a connector's options needs
// USAGE on the secret (granted with GRANT USAGE ON SECRET, as USAGE on a
// foreign server in PostgreSQL), and a sink is dropped by its owner only.
func TestSecretUsage(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	root := t.TempDir()
	writeFile(t, root, "landing/a.json", jsonEvents(0, 20))
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}, SecretKey: key})
	admin := &session{c: srv.connect(t)}
	for _, q := range []string{
		"CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN",
		"GRANT pg_read_server_files, pg_write_server_files TO alice, bob",
		"GRANT CREATE ON SCHEMA public TO alice, bob",
		"CREATE SECRET landing_path AS 'landing'",
	} {
		if err := execErr(admin, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	alice := target{"weir", srv.url()}.connect(t, "alice")
	bob := target{"weir", srv.url()}.connect(t, "bob")
	source := "CREATE SOURCE events WITH (connector = 'files', path = secret('landing_path'), format = 'json')"
	sink := fmt.Sprintf("CREATE SINK out FROM copied WITH (connector = 'files', path = '%s/out', format = 'json')", root)
	type step struct {
		s         *session
		sql, want string
	}
	run := func(steps []step) {
		t.Helper()
		for _, st := range steps {
			if got := aclOutcome(execErr(st.s, st.sql)); got != st.want {
				t.Errorf("%s: got %s, want %s", st.sql, got, st.want)
			}
		}
	}
	run([]step{
		{alice, source, "42501 permission denied for secret landing_path"},
		{alice, "GRANT USAGE ON SECRET landing_path TO bob", "42501 permission denied for secret landing_path"},
		{admin, "GRANT USAGE ON SECRET landing_path TO alice", "ok"},
		{alice, source, "ok"},
		{alice, "SELECT count(*) FROM events", "ok"},
		{alice, "CREATE STREAMING TABLE copied AS SELECT * FROM STREAM events", "ok"},
		{admin, "GRANT SELECT ON copied TO bob", "ok"},
		{admin, "CREATE OR REPLACE STREAMING TABLE copied AS SELECT * FROM STREAM events", "ok"},
		{bob, "CREATE OR REPLACE STREAMING TABLE copied AS SELECT * FROM STREAM events", "42501 must be owner of streaming table copied"},
	})
	// CREATE OR REPLACE keeps the owner and the ACL.
	if got := admin.query("SELECT relacl::text FROM pg_class WHERE relname = 'copied'"); got != "{alice=arwdDxt/alice,bob=r/alice}" {
		t.Errorf("the replaced streaming table's ACL: %s", got)
	}
	run([]step{
		{alice, sink, "ok"},
		{bob, "DROP SINK out", "42501 must be owner of sink out"},
		{bob, "DROP STREAMING TABLE copied", "42501 must be owner of streaming table copied"},
		{bob, "DROP SOURCE events", "42501 must be owner of source events"},
		{admin, "REVOKE USAGE ON SECRET landing_path FROM alice", "ok"},
		{bob, "DROP SECRET landing_path", "42501 must be owner of secret landing_path"},
		{admin, "DROP ROLE alice", `2BP01 role "alice" cannot be dropped because some objects depend on it DETAIL: privileges for schema public; owner of source events; owner of streaming table copied; owner of sink out`},
		{admin, "DROP OWNED BY alice", "ok"},
		{admin, "SELECT count(*) FROM pg_class WHERE relname IN ('events', 'copied')", "ok"},
		{admin, "DROP ROLE alice", "ok"},
	})
	if n := admin.query("SELECT count(*) FROM pg_class WHERE relname IN ('events', 'copied')"); n != "0" {
		t.Errorf("DROP OWNED left %s of alice's relations", n)
	}
}
