package engine_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-sql/weir/engine"
)

// logText is what the server wrote to l so far.
func (l *lockedBuffer) logText() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestSecrets: CREATE SECRET seals the value (the data directory's bytes
// never hold it); SHOW SECRETS lists names only; secret('name') in a files
// source's path resolves to the secret's value while SHOW CREATE, SHOW
// SOURCES, EXPLAIN, the event log, pg_stat_activity and the server log
// keep secret('name'); DROP SECRET; 55000 without a key; the key file is
// refused inside the data directory.
func TestSecrets(t *testing.T) {
	const value = "hunter2-Sup3rS3cretValue"
	key := make([]byte, 32)
	rand.Read(key)
	root := t.TempDir()
	writeFile(t, root, "landing/a.json", jsonEvents(0, 20))
	var logBuf lockedBuffer
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir, FilesRoots: []string{root}, SecretKey: key,
		Logger: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	w := srv.connect(t)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := w.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("CREATE SECRET pw AS '" + value + "'")
	exec("CREATE SECRET landing_path AS 'landing'")
	exec("CREATE SECRET IF NOT EXISTS pw AS 'other'")
	if _, err := w.Exec(ctx, "CREATE SECRET pw AS 'other'"); sqlState(err) != "42710" {
		t.Errorf("duplicate CREATE SECRET: %v, want 42710", err)
	}
	if got := strings.Join(textRows(t, w, "SHOW SECRETS"), "|"); !strings.Contains(got, "landing_path") || !strings.Contains(got, "pw") || strings.Contains(got, value) {
		t.Errorf("SHOW SECRETS: %q", got)
	}
	exec("CREATE SOURCE events WITH (connector = 'files', path = secret('landing_path'), format = 'json')")
	if got := textRows(t, w, "SELECT count(*) FROM events"); len(got) != 1 || got[0] != "20" {
		t.Errorf("source whose path is secret('landing_path'): %q rows, want 20", got)
	}
	if _, err := w.Exec(ctx, "CREATE SOURCE e2 WITH (connector = 'files', path = secret('nope'), format = 'json')"); sqlState(err) != "42704" {
		t.Errorf("unknown secret: %v, want 42704", err)
	}
	// A value given as secret('pw') to an option (a glob filter that
	// matches nothing): neither its error, pg_stat_activity nor the event
	// log may show the value.
	_, e3err := w.Exec(ctx, "CREATE SOURCE e3 WITH (connector = 'files', path = 'landing', format = 'json', pathGlobFilter = secret('pw'))")
	if e3err == nil {
		t.Fatalf("a glob filter of %q matched files", value)
	}
	outputs := []string{e3err.Error()} // the error of a statement that resolved it
	for _, q := range []string{"SHOW CREATE TABLE events", "SHOW SOURCES", "SHOW SINKS", "SHOW SECRETS", "EXPLAIN SELECT * FROM events",
		"SELECT coalesce(string_agg(query, ' '), '') FROM pg_stat_activity", "SELECT coalesce(string_agg(message || details::text, ' '), '') FROM weir_catalog.event_log"} {
		rows, err := w.Query(ctx, q)
		if err != nil {
			outputs = append(outputs, q+": "+err.Error())
			continue
		}
		for rows.Next() {
			vals, _ := rows.Values()
			for _, v := range vals {
				if s, ok := v.(string); ok {
					outputs = append(outputs, s)
				}
			}
		}
		rows.Close()
	}
	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, "secret('landing_path')") {
		t.Errorf("SHOW CREATE SOURCE does not keep secret('landing_path'):\n%s", all)
	}
	if strings.Contains(all, value) {
		t.Errorf("a secret's value shows in SHOW/EXPLAIN/pg_stat_activity/event_log:\n%s", all)
	}
	exec("DROP SECRET IF EXISTS nope")
	exec("DROP SECRET pw")
	if got := strings.Join(textRows(t, w, "SHOW SECRETS"), "|"); strings.Contains(got, "pw") {
		t.Errorf("SHOW SECRETS after DROP: %q", got)
	}
	exec("CREATE SECRET pw2 AS '" + value + "'")
	// Another session sees w idle after CREATE SECRET: its last statement,
	// with the value redacted.
	other := srv.connect(t)
	if got := strings.Join(textRows(t, other, "SELECT query FROM pg_stat_activity"), "\n"); strings.Contains(got, value) || !strings.Contains(got, "CREATE SECRET pw2 AS '<redacted>'") {
		t.Errorf("pg_stat_activity after CREATE SECRET: %q", got)
	}
	// dialect.md's WITH (value = …) and RisingWave's WITH (backend = 'meta')
	// AS …, $$-quoted too: redacted the same way.
	for _, q := range []string{
		"CREATE SECRET pw3 WITH (value = '" + value + "')",
		"CREATE SECRET pw4 WITH (backend = 'meta') AS '" + value + "'",
		"CREATE SECRET pw5 AS $x$" + value + "$x$",
	} {
		exec(q)
		got := strings.Join(textRows(t, other, "SELECT query FROM pg_stat_activity"), "\n")
		if strings.Contains(got, value) || !strings.Contains(got, "<redacted>") {
			t.Errorf("pg_stat_activity after %s: %q", strings.ReplaceAll(q, value, "VALUE"), strings.ReplaceAll(got, value, "VALUE"))
		}
	}
	if got := strings.Join(textRows(t, w, "SHOW SECRETS"), "|"); !strings.Contains(got, "pw3") || !strings.Contains(got, "pw5") || strings.Contains(got, value) {
		t.Errorf("SHOW SECRETS after the WITH forms: %q", got)
	}
	srv.stop()
	if strings.Contains(logBuf.logText(), value) {
		t.Errorf("the server log shows a secret's value")
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(value)) {
			t.Errorf("%s holds a secret's plaintext", p)
		}
		return nil
	})
	// Reopened with the same key, the secret still opens.
	srv = startServerWith(t, engine.Config{DataDir: dir, FilesRoots: []string{root}, SecretKey: key})
	w = srv.connect(t)
	exec("CREATE SOURCE events_again WITH (connector = 'files', path = secret('landing_path'), format = 'json')")

	// No key: 55000.
	nokey := startServerWith(t, engine.Config{DataDir: t.TempDir()})
	if _, err := nokey.connect(t).Exec(ctx, "CREATE SECRET s AS 'x'"); sqlState(err) != "55000" {
		t.Errorf("CREATE SECRET without a key: %v, want 55000", err)
	}
	// The key file: refused inside the data directory; hex is read.
	inside := filepath.Join(dir, "key")
	os.WriteFile(inside, key, 0o600)
	if _, err := engine.ReadSecretKeyFile(inside, dir); err == nil {
		t.Errorf("a key file inside the data directory was accepted")
	}
	outside := filepath.Join(t.TempDir(), "key.hex")
	os.WriteFile(outside, []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	if k, err := engine.ReadSecretKeyFile(outside, dir); err != nil || len(k) != 32 || k[0] != 0xab {
		t.Errorf("hex key file: %x %v", k, err)
	}
}
