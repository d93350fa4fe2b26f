// Package pgtest starts a throwaway PostgreSQL 15 server for tests: the oracle
// that weir's results are compared with. It is test support only.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL.
type Server struct {
	Dir  string
	Port int
	bin  string
	asPG bool
	opts string // the server options pg_ctl starts it with
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// binDir finds initdb/pg_ctl of PostgreSQL 15.
func binDir() (string, error) {
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

// Shared returns one PostgreSQL server per test binary, started on first use
// and left for the OS to reap when the process exits (it is stopped by
// Stop in TestMain when the package provides one). A test that needs the
// oracle fails when it cannot start, unless WEIR_NO_PG=1.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		if os.Getenv("WEIR_NO_PG") == "1" {
			t.Skipf("PostgreSQL not available: %v", sharedErr)
		}
		t.Fatalf("start PostgreSQL: %v", sharedErr)
	}
	return shared
}

// StopShared stops the shared server if one was started; call from TestMain.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Options adjust the cluster Start makes.
type Options struct {
	// Durable turns fsync and synchronous_commit on (benchmarks compare
	// with weir's durable commits); tests leave them off for speed.
	Durable bool
	// Logical sets wal_level = logical (and room for replication slots
	// and senders): a server that change data capture can read.
	Logical bool
}

// Start initialises a fresh cluster in a temporary directory and starts it
// on a free loopback port. When running as root the server runs as the
// postgres user, since PostgreSQL refuses to run as root.
func Start() (*Server, error) { return StartWith(Options{}) }

// StartWith is Start with options.
func StartWith(o Options) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "weir-pg-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Port: port, bin: bin, asPG: os.Geteuid() == 0}
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
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	fsync := "-c fsync=off -c synchronous_commit=off"
	if o.Durable {
		fsync = "-c fsync=on -c synchronous_commit=on"
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 %s -c timezone=UTC -c log_timezone=UTC -c max_connections=50", port, dir, fsync)
	if o.Logical {
		opts += " -c wal_level=logical -c max_replication_slots=20 -c max_wal_senders=20"
	}
	s.opts = opts
	if out, err := s.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	return s, nil
}

func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.asPG {
		quoted := make([]string, 0, len(args)+1)
		quoted = append(quoted, shellQuote(path))
		for _, a := range args {
			quoted = append(quoted, shellQuote(a))
		}
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
	} else {
		cmd = exec.Command(path, args...)
	}
	return cmd.CombinedOutput()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Stop shuts the server down and removes its directory.
func (s *Server) Stop() {
	s.run("pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.Dir)
}

// Restart restarts the server the way a crash would: pg_ctl restart -m
// immediate (no shutdown checkpoint; recovery replays the WAL).
func (s *Server) Restart() error {
	data := filepath.Join(s.Dir, "data")
	if out, err := s.run("pg_ctl", "-D", data, "-o", s.opts, "-l", filepath.Join(s.Dir, "log"), "-m", "immediate", "-w", "-t", "60", "restart"); err != nil {
		return fmt.Errorf("pg_ctl restart: %v: %s", err, out)
	}
	return nil
}

// URL is a connection string for database postgres as user postgres.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
}

// Connect opens a pgx connection, failing the test on error.
func (s *Server) Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// FreshDatabase creates a new empty database and returns a connection
// string for it, so tests sharing one server do not see each other's tables.
func (s *Server) FreshDatabase(t testing.TB) string {
	t.Helper()
	c := s.Connect(t)
	name := fmt.Sprintf("t_%d", time.Now().UnixNano())
	if _, err := c.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, name)
}
