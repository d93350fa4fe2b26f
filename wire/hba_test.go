package wire_test

import (
	"context"
	"crypto/elliptic"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/wire"
)

// startHBAServer serves TLS with client certificates checked against its
// test CA, the rules given (failed logins are not throttled: the tests
// fail many in a row), and roles tester and alice (no password),
// carol (password "pw").
func startHBAServer(t *testing.T, listen, rules string) (*testServer, *testPKI) {
	return startHBAServerThrottled(t, listen, rules, wire.AuthThrottle{Limit: -1})
}

func startHBAServerThrottled(t *testing.T, listen, rules string, throttle wire.AuthThrottle) (*testServer, *testPKI) {
	return startHBAServerWithPKI(t, listen, rules, throttle, newTestPKI(t, elliptic.P256()))
}

func startHBAServerWithPKI(t *testing.T, listen, rules string, throttle wire.AuthThrottle, pki *testPKI) (*testServer, *testPKI) {
	t.Helper()
	certFile, keyFile := pki.issue(pkix.Name{CommonName: "localhost"}, true)
	tc, err := wire.LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := wire.LoadClientCA(tc, pki.CAFile); err != nil {
		t.Fatal(err)
	}
	hba, err := wire.ParseHBA(strings.NewReader(rules))
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHandler()
	v, _ := wire.SCRAMVerifier("pw")
	h.roles["carol"] = v
	h.roles["frank"] = v
	h.roles["alice"] = ""
	h.roles["rej"] = ""
	l, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{srv: wire.NewServer(h, wire.Config{TLS: tc, HBA: hba, AuthThrottle: throttle, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		h: h, addr: l.Addr().String(), done: make(chan error, 1)}
	go func() { ts.done <- ts.srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ts.srv.Shutdown(ctx)
	})
	return ts, pki
}

// loginOutcome connects with pgx and returns "ok" or the SQLSTATE and
// message of the refusal (or the client's error).
func loginOutcome(ctx context.Context, dsn string) string {
	conn, err := pgx.Connect(ctx, dsn)
	if err == nil {
		conn.Close(ctx)
		return "ok"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return "client: " + err.Error()
}

const hbaTestRules = `# TYPE  DATABASE USER  ADDRESS      METHOD
hostssl all      alice 127.0.0.1/32 cert
hostssl all      carol 127.0.0.1/32 scram-sha-256 clientcert=verify-full
host    all      rej   127.0.0.1/32 reject
host    db       carol,"dave" 127.0.0.1 255.255.255.255 scram-sha-256
hostnossl all    tester 127.0.0.0/8 trust
host    all      ghost samehost     trust
hostssl all      erin  127.0.0.1/32 trust clientcert=verify-full
host    all      frank 127.0.0.1/32 scram-sha-256
`

// TestHBARules: each kind of rule against pgx, with PostgreSQL 15's
// messages (read off a real PostgreSQL 15 with the same pg_hba.conf
// lines).
func TestHBARules(t *testing.T) {
	ts, pki := startHBAServer(t, "127.0.0.1:0", hbaTestRules)
	ctx := testCtx(t)
	aliceCrt, aliceKey := pki.issue(pkix.Name{CommonName: "alice", Organization: []string{"Weir Test"}}, false)
	bobCrt, bobKey := pki.issue(pkix.Name{CommonName: "bob"}, false)
	carolCrt, carolKey := pki.issue(pkix.Name{CommonName: "carol"}, false)
	other := newTestPKI(t, elliptic.P256())
	strangerCrt, strangerKey := other.issue(pkix.Name{CommonName: "alice"}, false)
	dsn := func(user, db, opts string) string {
		return fmt.Sprintf("postgres://%s@%s/%s?%s", user, ts.addr, db, opts)
	}
	certs := func(crt, key string) string { return "sslmode=require&sslcert=" + crt + "&sslkey=" + key }
	for _, c := range []struct{ dsn, want string }{
		{dsn("tester", "db", "sslmode=disable"), "ok"},
		{dsn("tester", "db", "sslmode=require"), `28000 no pg_hba.conf entry for host "127.0.0.1", user "tester", database "db", SSL encryption`},
		{dsn("nobody", "db", "sslmode=disable"), `28000 no pg_hba.conf entry for host "127.0.0.1", user "nobody", database "db", no encryption`},
		{dsn("rej", "db", "sslmode=disable"), `28000 pg_hba.conf rejects connection for host "127.0.0.1", user "rej", database "db", no encryption`},
		{dsn("carol:pw", "db", "sslmode=disable"), "ok"},
		{dsn("carol:nope", "db", "sslmode=disable"), `28P01 password authentication failed for user "carol"`},
		{dsn("carol:pw", "other", "sslmode=disable"), `28000 no pg_hba.conf entry for host "127.0.0.1", user "carol", database "other", no encryption`},
		{dsn("dave:pw", "db", "sslmode=disable"), `28P01 password authentication failed for user "dave"`},
		{dsn("ghost", "db", "sslmode=disable"), `28000 role "ghost" does not exist`},
		{dsn("alice", "db", certs(aliceCrt, aliceKey)), "ok"},
		{dsn("alice", "db", certs(bobCrt, bobKey)), `28000 certificate authentication failed for user "alice"`},
		{dsn("alice", "db", "sslmode=require"), "28000 connection requires a valid client certificate"},
		{dsn("carol:pw", "db", certs(carolCrt, carolKey)), "ok"},
		{dsn("carol:nope", "db", certs(carolCrt, carolKey)), `28P01 password authentication failed for user "carol"`},
		// PostgreSQL words a CN mismatch after the method: a wrong password here.
		{dsn("carol:pw", "db", certs(bobCrt, bobKey)), `28P01 password authentication failed for user "carol"`},
		{dsn("erin", "db", certs(bobCrt, bobKey)), `28000 "trust" authentication failed for user "erin"`},
		{dsn("carol:pw", "db", "sslmode=require"), "28000 connection requires a valid client certificate"},
	} {
		if got := loginOutcome(ctx, c.dsn); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.dsn, got, c.want)
		}
	}
	// A certificate from another CA fails the TLS handshake itself.
	if got := loginOutcome(ctx, dsn("alice", "db", certs(strangerCrt, strangerKey))); !strings.HasPrefix(got, "client: ") || !strings.Contains(got, "tls") {
		t.Errorf("certificate of another CA: %s", got)
	}
	if n := len(ts.h.waitAuthFailures(t, 13)); n != 13 {
		t.Errorf("%d failures reported", n)
	}
}

// TestHBAClientCertPsql: libpq's sslcert/sslkey against the cert method.
func TestHBAClientCertPsql(t *testing.T) {
	ts, pki := startHBAServer(t, "127.0.0.1:0", hbaTestRules)
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql not installed")
	}
	aliceCrt, aliceKey := pki.issue(pkix.Name{CommonName: "alice"}, false)
	bobCrt, bobKey := pki.issue(pkix.Name{CommonName: "bob"}, false)
	host, port, _ := net.SplitHostPort(ts.addr)
	for _, c := range []struct{ conninfo, want string }{
		{fmt.Sprintf("sslmode=verify-ca sslrootcert=%s sslcert=%s sslkey=%s", pki.CAFile, aliceCrt, aliceKey), "1\n2\n3\n"},
		{fmt.Sprintf("sslmode=require sslcert=%s sslkey=%s", bobCrt, bobKey), `FATAL:  certificate authentication failed for user "alice"`},
		{"sslmode=require sslcert=/nonexistent sslkey=/nonexistent", "FATAL:  connection requires a valid client certificate"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, path, "-X", "-A", "-t", fmt.Sprintf("host=%s port=%s user=alice dbname=db %s", host, port, c.conninfo), "-c", "select many")
		cmd.Env = append(os.Environ(), "PSQLRC=/dev/null")
		out, _ := cmd.CombinedOutput()
		cancel()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("psql %s: %q, want %q", c.conninfo, out, c.want)
		}
	}
}

// nonLoopbackIPv4 is one of this machine's addresses that is not
// loopback, or nil.
func nonLoopbackIPv4() net.IP {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP
		}
	}
	return nil
}

// TestHBARemoteClient connects from this machine's non-loopback address,
// which the server sees as a remote client (samenet, no loopback rule).
// The matcher's remote cases are also covered by TestHBAMatch, for
// machines without such an address.
func TestHBARemoteClient(t *testing.T) {
	ip := nonLoopbackIPv4()
	if ip == nil {
		t.Log("no non-loopback IPv4 address here: remote clients are covered by TestHBAMatch only")
		return
	}
	ts, _ := startHBAServer(t, net.JoinHostPort(ip.String(), "0"), "host all tester 127.0.0.1/32 trust\nhost all carol samenet scram-sha-256\n")
	ctx := testCtx(t)
	for _, c := range []struct{ user, want string }{
		{"tester", fmt.Sprintf(`28000 no pg_hba.conf entry for host "%s", user "tester", database "db", no encryption`, ip)},
		{"carol:pw", "ok"},
	} {
		if got := loginOutcome(ctx, fmt.Sprintf("postgres://%s@%s/db?sslmode=disable", c.user, ts.addr)); got != c.want {
			t.Errorf("%s from %s: got %s, want %s", c.user, ip, got, c.want)
		}
	}
	// The default rules (no HBA): a role without a password is trusted
	// from loopback only; from elsewhere it fails as a wrong password.
	def := &testServer{h: newTestHandler()}
	l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	def.srv = wire.NewServer(def.h, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go def.srv.Serve(l)
	defer def.srv.Shutdown(context.Background())
	if got := loginOutcome(ctx, fmt.Sprintf("postgres://tester@%s/db?sslmode=disable", l.Addr())); got != `28P01 password authentication failed for user "tester"` {
		t.Errorf("passwordless role from %s by default: %s", ip, got)
	}
}
