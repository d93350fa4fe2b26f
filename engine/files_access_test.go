package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestServerFileAccess: who may read and write the server's files, and
// where. COPY FROM/TO 'file' as a role without pg_read_server_files /
// pg_write_server_files fails as PostgreSQL's does (compared with
// PostgreSQL's own outcome); read_files and files sources follow the
// same privilege; every path must stay under the files roots, whatever
// ../ or a symbolic link says.
func TestServerFileAccess(t *testing.T) {
	srv, root := filesServer(t)
	outside := t.TempDir()
	w := srv.connect(t)
	pgAdmin := pgtest.Shared(t).Connect(t)
	writeFile(t, root, "landing/a.json", jsonEvents(0, 3))
	writeFile(t, outside, "secret.json", `{"id": 1, "kind": "secret"}`+"\n")
	if err := os.Symlink(outside, filepath.Join(root, "landing_link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(root, "leak", "secret.json")); err != nil {
		if err := os.MkdirAll(filepath.Join(root, "leak"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(root, "leak", "secret.json")); err != nil {
			t.Fatal(err)
		}
	}

	role := fmt.Sprintf("files_%d", time.Now().UnixNano())
	for _, q := range []string{"CREATE ROLE " + role + " LOGIN", "CREATE TABLE t (id bigint, kind text)"} {
		mustExec(t, w, q)
	}
	mustExec(t, pgAdmin, "CREATE ROLE "+role+" LOGIN")
	mustExec(t, pgAdmin, "CREATE TABLE IF NOT EXISTS files_access_t (id bigint, kind text)")
	t.Cleanup(func() { pgAdmin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	pgUser, err := connectAs(t, pgtest.Shared(t).URL(), role, "")
	if err != nil {
		t.Fatal(err)
	}
	wUser, err := connectAs(t, srv.url(), role, "")
	if err != nil {
		t.Fatal(err)
	}

	// As PostgreSQL: the privilege is checked first, with its message.
	for _, c := range []struct{ weir, pg string }{
		{"COPY t FROM '/etc/passwd'", "COPY files_access_t FROM '/etc/passwd'"},
		{"COPY t TO '/tmp/weir_never_written'", "COPY files_access_t TO '/tmp/weir_never_written'"},
		{"COPY t FROM 'relative.csv' (FORMAT csv)", "COPY files_access_t FROM 'relative.csv' (FORMAT csv)"},
	} {
		got, want := srcErr(t, wUser, c.weir), srcErr(t, pgUser, c.pg)
		if got == nil || want == nil || got.Code != want.Code || got.Message != want.Message || got.Hint != want.Hint {
			t.Errorf("%s as %s:\n weir %s\n   pg %s", c.weir, role, describePgErr(got), describePgErr(want))
		}
	}
	// As superuser, COPY TO a relative path is refused as PostgreSQL does.
	if got, want := srcErr(t, w, "COPY t TO 'out.csv'"), srcErr(t, pgAdmin, "COPY files_access_t TO 'out.csv'"); got == nil || want == nil || got.Code != want.Code || got.Message != want.Message {
		t.Errorf("COPY TO a relative path:\n weir %s\n   pg %s", describePgErr(got), describePgErr(want))
	}

	// read_files and files sources need pg_read_server_files too.
	for _, q := range []string{
		"SELECT * FROM read_files('landing', format => 'json')",
		"CREATE SOURCE s WITH (connector = 'files', path = 'landing', format = 'json')",
		"CREATE STREAMING TABLE st AS SELECT * FROM STREAM read_files('landing', format => 'json')",
	} {
		if pe := srcErr(t, wUser, q); pe == nil || pe.Code != "42501" || !strings.Contains(pe.Message, "pg_read_server_files") {
			t.Errorf("%s as %s: %s", q, role, describePgErr(pe))
		}
	}

	mustExec(t, w, "GRANT pg_read_server_files TO "+role)
	if got := textRows(t, wUser, "SELECT count(*) FROM read_files('landing', format => 'json')"); len(got) != 1 || got[0] != "3" {
		t.Errorf("read_files with pg_read_server_files: %q", got)
	}
	// Every way out of the roots is refused, 42501.
	for _, q := range []string{
		"SELECT * FROM read_files('../', format => 'json')",
		"SELECT * FROM read_files('landing/../../', format => 'json')",
		"SELECT * FROM read_files('" + outside + "', format => 'json')",
		"SELECT * FROM read_files('/etc/passwd', format => 'text')",
		"SELECT * FROM read_files('landing_link', format => 'json')",
		"SELECT * FROM read_files('landing_link/secret.json', format => 'json')",
		"SELECT * FROM read_files('leak', format => 'json')",
		"SELECT * FROM read_files('leak/secret.json', format => 'json')",
		"COPY t FROM '" + filepath.Join(outside, "secret.json") + "'",
		"COPY t FROM '" + root + "/../" + filepath.Base(outside) + "/secret.json'",
	} {
		if pe := srcErr(t, wUser, q); pe == nil || pe.Code != "42501" || !strings.Contains(pe.Message, "outside the server's files roots") {
			t.Errorf("%s: %s, want 42501 outside the roots", q, describePgErr(pe))
		}
	}
	// Writing still needs pg_write_server_files.
	if pe := srcErr(t, wUser, "COPY t TO '"+root+"/x.csv'"); pe == nil || pe.Code != "42501" || !strings.Contains(pe.Message, "pg_write_server_files") {
		t.Errorf("COPY TO without pg_write_server_files: %s", describePgErr(pe))
	}

	// COPY to and from server files round trips, in text and CSV.
	mustExec(t, w, `INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'tab	and "quote", comma'), (4, E'back\\slash\nnewline')`)
	for _, opts := range []string{"", "(FORMAT csv, HEADER true)", "(FORMAT text, DELIMITER '|', NULL 'nil')"} {
		out := filepath.Join(root, "out", "t.dat")
		os.MkdirAll(filepath.Dir(out), 0o755)
		tag, err := w.Exec(context.Background(), "COPY t TO '"+out+"' "+opts)
		if err != nil || tag.String() != "COPY 4" {
			t.Fatalf("COPY TO %s: %v %v", opts, tag, err)
		}
		mustExec(t, w, "DROP TABLE IF EXISTS t2")
		mustExec(t, w, "CREATE TABLE t2 (id bigint, kind text)")
		mustExec(t, w, "GRANT INSERT ON t2 TO "+role) // COPY FROM needs INSERT too, as in PostgreSQL
		// As the role with pg_read_server_files, and a relative path.
		if tag, err := wUser.Exec(context.Background(), "COPY t2 FROM 'out/t.dat' "+opts); err != nil || tag.String() != "COPY 4" {
			t.Fatalf("COPY FROM %s: %v %v", opts, tag, err)
		}
		if got, want := textRows(t, w, "SELECT * FROM t2 ORDER BY id"), textRows(t, w, "SELECT * FROM t ORDER BY id"); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("round trip %s: %q, want %q", opts, got, want)
		}
	}
	// The CSV file is PostgreSQL's: PostgreSQL reads it back the same, and
	// it holds the bytes COPY TO STDOUT sends.
	csvPath := filepath.Join(root, "out", "t.csv")
	mustExec(t, w, "COPY t TO '"+csvPath+"' (FORMAT csv)")
	var stdout bytes.Buffer
	if _, err := w.PgConn().CopyTo(context.Background(), &stdout, "COPY t TO STDOUT (FORMAT csv)"); err != nil {
		t.Fatal(err)
	}
	if file, err := os.ReadFile(csvPath); err != nil || !bytes.Equal(file, stdout.Bytes()) {
		t.Errorf("COPY TO file wrote %q (%v), COPY TO STDOUT sent %q", file, err, stdout.Bytes())
	}
	mustExec(t, pgAdmin, "TRUNCATE files_access_t")
	copyFile(t, pgAdmin, csvPath, "COPY files_access_t FROM STDIN (FORMAT csv)")
	if got, want := textRows(t, pgAdmin, "SELECT * FROM files_access_t ORDER BY id"), textRows(t, w, "SELECT * FROM t ORDER BY id"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("PostgreSQL reading weir's COPY TO file: %q, want %q", got, want)
	}
	mustExec(t, pgAdmin, "DROP TABLE files_access_t")

	for _, c := range []struct{ sql, code string }{
		{"COPY t FROM '" + root + "/missing.csv'", "58P01"},
		{"COPY t FROM '" + root + "/out'", "42809"},
		{"COPY t TO '" + root + "/out'", "42809"},
		{"COPY t TO '" + outside + "/x.csv'", "42501"},
		{"COPY t FROM PROGRAM 'cat /etc/passwd'", "0A000"},
	} {
		if pe := srcErr(t, w, c.sql); pe == nil || pe.Code != c.code {
			t.Errorf("%s: %s, want %s", c.sql, describePgErr(pe), c.code)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x.csv")); err == nil {
		t.Errorf("COPY TO outside the roots wrote the file")
	}

	// A link to a file outside, placed in a folder a streaming table
	// reads: the table fails rather than read it.
	writeFile(t, root, "stream/good.json", jsonEvents(0, 3))
	mustExec(t, w, "CREATE STREAMING TABLE leaky AS SELECT count(*) AS n FROM STREAM read_files('stream', format => 'json')")
	waitFor(t, w, "SELECT n = 3 FROM leaky")
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(root, "stream", "evil.json")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "SELECT status = 'failed' AND last_error LIKE '%outside the server''s files roots%' FROM weir_catalog.streaming_progress WHERE name = 'leaky'")
	if got := textRows(t, w, "SELECT n FROM leaky"); len(got) != 1 || got[0] != "3" {
		t.Errorf("leaky read the linked file: %q", got)
	}
}

func describePgErr(e *pgconn.PgError) string {
	if e == nil {
		return "no error"
	}
	return e.Code + " " + e.Message + " (hint: " + e.Hint + ")"
}
