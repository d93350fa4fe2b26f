package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// pgServer is a throwaway PostgreSQL 15 cluster with fsync ON (unlike
// internal/pgtest, which turns it off for test speed). Started with initdb
// and pg_ctl; as the postgres user via su when running as root.
type pgServer struct {
	dir  string
	port int
	bin  string
	asPG bool
}

func pgBinDir() (string, error) {
	for _, d := range []string{"/usr/lib/postgresql/15/bin", "/usr/local/pgsql/bin"} {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL 15 binaries (initdb) not found")
}

func startPG(tmp string) (*pgServer, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "pg")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir, port: port, bin: bin, asPG: os.Geteuid() == 0}
	if s.asPG {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c timezone=UTC -c log_timezone=UTC -c max_connections=20", port, dir)
	if out, err := s.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	if err := waitReady(s.url(), 30*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *pgServer) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.asPG {
		q := []string{shellQuote(path)}
		for _, a := range args {
			q = append(q, shellQuote(a))
		}
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(q, " "))
	} else {
		cmd = exec.Command(path, args...)
	}
	return cmd.CombinedOutput()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *pgServer) stop() {
	s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "fast", "-w", "stop")
}

func (s *pgServer) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}
