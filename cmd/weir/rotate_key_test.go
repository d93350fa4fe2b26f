package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestRotateSecretKey rotates the secret key of a real server's data
// directory: secrets made under the old key resolve under the new one
// after `weir rotate-secret-key`, the old key no longer opens them, a
// wrong old key changes nothing, and a running server's store is not
// touched.
func TestRotateSecretKey(t *testing.T) {
	root := t.TempDir()
	data, keys := filepath.Join(root, "data"), filepath.Join(root, "keys")
	landing := filepath.Join(root, "landing")
	for _, d := range []string{keys, landing} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(landing, "a.json"), []byte(`{"x": 1}`+"\n"+`{"x": 2}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := func(name string) string {
		b := make([]byte, 32)
		rand.Read(b)
		p := filepath.Join(keys, name)
		if err := os.WriteFile(p, []byte(hex.EncodeToString(b)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldKey, newKey, wrongKey := key("old.key"), key("new.key"), key("wrong.key")
	port := freePort(t)
	serve := func(keyFile string) *crashServer {
		s, _ := startCrashServer(t, data, port, []string{"--secret-key-file", keyFile, "--files-root", root})
		return s
	}
	rotate := func(old, new string) (string, error) {
		out, err := exec.Command(weirBinary, "rotate-secret-key", "--data", data, "--secret-key-file", old, "--new-secret-key-file", new).CombinedOutput()
		return string(out), err
	}
	use := func(s *crashServer, name string) error {
		c, err := pgx.Connect(context.Background(), s.url())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		_, err = c.Exec(context.Background(), "CREATE SOURCE "+name+" WITH (connector = 'files', path = secret('landing'), format = 'json')")
		return err
	}

	s := serve(oldKey)
	c, err := pgx.Connect(context.Background(), s.url())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), "CREATE SECRET landing AS '"+landing+"'"); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	if out, err := rotate(oldKey, newKey); err == nil {
		t.Fatalf("rotation of a running server's store succeeded: %s", out)
	}
	s.kill()

	if out, err := rotate(wrongKey, newKey); err == nil || !strings.Contains(out, "cannot be opened") {
		t.Fatalf("rotation with a wrong old key: %v %s", err, out)
	}
	if out, err := rotate(oldKey, newKey); err != nil || !strings.Contains(out, "resealed 1 secrets") {
		t.Fatalf("rotation: %v %s", err, out)
	}

	s = serve(newKey)
	if err := use(s, "e1"); err != nil {
		t.Fatalf("secret under the new key: %v", err)
	}
	s.kill()
	s = serve(oldKey)
	var pe *pgconn.PgError
	if err := use(s, "e2"); !errors.As(err, &pe) || pe.Code != "55000" {
		t.Fatalf("secret under the old key after rotation: %v, want 55000", err)
	}
	s.kill()
}
