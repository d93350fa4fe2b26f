package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// testCA signs certificates for the binary's tests, written as PEM into dir.
type testCA struct {
	t      *testing.T
	dir    string
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	file   string
	serial int64
}

func newTestCA(t *testing.T, dir string) *testCA {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "weir test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := &testCA{t: t, dir: dir, key: key, file: filepath.Join(dir, "ca.crt"), serial: 1000}
	ca.cert, _ = x509.ParseCertificate(der)
	ca.write(ca.file, "CERTIFICATE", der)
	return ca
}

func (ca *testCA) write(path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		ca.t.Fatal(err)
	}
}

// issue signs a certificate for name (a server one for localhost and
// 127.0.0.1 when server); a client's subject is CN then O, in the order
// `openssl req -subj /CN=…/O=…` writes it.
func (ca *testCA) issue(name string, server bool) (certFile, keyFile string, serial int64) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		ca.t.Fatal(err)
	}
	ca.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(ca.serial),
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	if server {
		tmpl.Subject = pkix.Name{CommonName: name}
		tmpl.DNSNames, tmpl.IPAddresses = []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	} else {
		tmpl.Subject = pkix.Name{ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: name},
			{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: "Weir Test"},
		}}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		ca.t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		ca.t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(ca.dir, name+".crt"), filepath.Join(ca.dir, name+".key")
	ca.write(certFile, "CERTIFICATE", der)
	ca.write(keyFile, "PRIVATE KEY", kder)
	return certFile, keyFile, ca.serial
}

// startWeirWith runs `weir serve` with args on a free port, waits until
// readyURL (its %d the port) connects, and stops it with SIGTERM at the
// end, checking that it exits cleanly. It returns the port.
func startWeirWith(t *testing.T, readyURL func(port int) string, args ...string) int {
	t.Helper()
	port := freePort(t)
	var log bytes.Buffer
	cmd := exec.Command(weirBinary, append([]string{"serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, args...)...)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("weir exited with %v; log:\n%s", err, &log)
			}
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("weir did not exit within 5s of SIGTERM")
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, readyURL(port))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return port
		}
		select {
		case werr := <-exited:
			exited <- werr
			t.Fatalf("weir exited before accepting connections (%v); log:\n%s", werr, &log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("weir not accepting connections after 20s: %v; log:\n%s", err, &log)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

// TestServeClientCerts runs the real binary with --tls-client-ca and an
// --hba-file: the bootstrap superuser logs in by certificate (pgx and
// psql's sslcert), pg_stat_ssl shows the certificate as PostgreSQL 15
// does, a password role logs in with channel binding (pgx) and over
// pgjdbc, and the rules refuse the rest with PostgreSQL's words.
func TestServeClientCerts(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, dir)
	serverCrt, serverKey, _ := ca.issue("localhost", true)
	weirCrt, weirKey, weirSerial := ca.issue("weir", false)
	url0 := func(port int) string {
		return fmt.Sprintf("postgres://weir@localhost:%d/weir?sslmode=verify-full&sslrootcert=%s&sslcert=%s&sslkey=%s", port, ca.file, weirCrt, weirKey)
	}
	hba := filepath.Join(dir, "hba.conf")
	if err := os.WriteFile(hba, []byte(`# weir's own pg_hba.conf
hostssl all weir  127.0.0.1/32 cert
hostssl all alice 127.0.0.1/32 scram-sha-256
host    all all   127.0.0.1/32 reject
`), 0o600); err != nil {
		t.Fatal(err)
	}
	port := startWeirWith(t, url0, "--data", filepath.Join(dir, "data"),
		"--tls-cert", serverCrt, "--tls-key", serverKey, "--tls-client-ca", ca.file, "--hba-file", hba)
	base := fmt.Sprintf("postgres://%%s@localhost:%d/weir?sslmode=verify-full&sslrootcert=%s", port, ca.file)
	conn, err := pgx.Connect(ctxT(t), fmt.Sprintf(base, "weir")+"&sslcert="+weirCrt+"&sslkey="+weirKey)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var dn, serial, issuer string
	if err := conn.QueryRow(ctxT(t), "select client_dn, client_serial::text, issuer_dn from pg_stat_ssl where pid = pg_backend_pid()").
		Scan(&dn, &serial, &issuer); err != nil {
		t.Fatal(err)
	}
	if dn != "/CN=weir/O=Weir Test" || serial != fmt.Sprint(weirSerial) || issuer != "/CN=weir test CA" {
		t.Errorf("pg_stat_ssl: client_dn %q client_serial %q issuer_dn %q", dn, serial, issuer)
	}
	if _, err := conn.Exec(ctxT(t), "CREATE ROLE alice LOGIN PASSWORD 'pw'"); err != nil {
		t.Fatal(err)
	}
	var out, stderr string

	psql := mustTool(t, "psql")
	out, stderr, err = run(t, dir, "", []string{"PSQLRC=/dev/null"}, psql, "-X", "-A", "-t",
		fmt.Sprintf("host=localhost port=%d user=weir dbname=weir sslmode=verify-full sslrootcert=%s sslcert=%s sslkey=%s", port, ca.file, weirCrt, weirKey),
		"-c", "select ssl, client_dn from pg_stat_ssl where pid = pg_backend_pid()")
	if err != nil || strings.TrimSpace(out) != "t|/CN=weir/O=Weir Test" {
		t.Errorf("psql with a client certificate: %q %q %v", out, stderr, err)
	}

	refusal := func(dsn string) string {
		c, err := pgx.Connect(ctxT(t), dsn)
		if err == nil {
			c.Close(context.Background())
			return "ok"
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code + " " + pe.Message
		}
		return err.Error()
	}
	for _, c := range []struct{ dsn, want string }{
		{fmt.Sprintf(base, "alice:pw") + "&channel_binding=require", "ok"},
		{fmt.Sprintf(base, "weir"), "28000 connection requires a valid client certificate"},
		{fmt.Sprintf("postgres://alice:pw@127.0.0.1:%d/weir?sslmode=disable", port),
			`28000 pg_hba.conf rejects connection for host "127.0.0.1", user "alice", database "weir", no encryption`},
	} {
		if got := refusal(c.dsn); got != c.want {
			t.Errorf("%s: got %s, want %s", c.dsn, got, c.want)
		}
	}

	// pgjdbc 42.5.5 has no channelBinding setting: over TLS it picks
	// SCRAM-SHA-256 out of the two mechanisms offered and logs in.
	java := mustTool(t, "java")
	if _, err := os.Stat(pgjdbcJar); err != nil {
		t.Fatalf("pgjdbc not installed (libpostgresql-jdbc-java): %v", err)
	}
	src := filepath.Join(dir, "JdbcTLS.java")
	if err := os.WriteFile(src, []byte(`import java.sql.*;
public class JdbcTLS {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0]); Statement s = c.createStatement();
         ResultSet r = s.executeQuery("select current_user, ssl from pg_stat_ssl where pid = pg_backend_pid()")) {
      r.next();
      System.out.println(r.getString(1) + " " + r.getBoolean(2));
    }
  }
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, err = run(t, dir, "", nil, java, "-cp", pgjdbcJar, src,
		fmt.Sprintf("jdbc:postgresql://localhost:%d/weir?user=alice&password=pw&sslmode=require", port))
	if err != nil || strings.TrimSpace(out) != "alice true" {
		t.Errorf("pgjdbc over TLS: %q %q %v", out, stderr, err)
	}
}

// TestServeClientCertRequire: --tls-client-cert require is the one rule
// "hostssl all all all cert".
func TestServeClientCertRequire(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, dir)
	serverCrt, serverKey, _ := ca.issue("localhost", true)
	weirCrt, weirKey, _ := ca.issue("weir", false)
	aliceCrt, aliceKey, _ := ca.issue("alice", false)
	base := "postgres://weir@localhost:%d/weir?sslmode=verify-full&sslrootcert=" + ca.file
	port := startWeirWith(t, func(port int) string { return fmt.Sprintf(base, port) + "&sslcert=" + weirCrt + "&sslkey=" + weirKey },
		"--data", filepath.Join(dir, "data"), "--tls-cert", serverCrt, "--tls-key", serverKey, "--tls-client-ca", ca.file, "--tls-client-cert", "require")
	for _, c := range []struct{ dsn, want string }{
		{fmt.Sprintf(base, port) + "&sslcert=" + aliceCrt + "&sslkey=" + aliceKey, `28000 certificate authentication failed for user "weir"`},
		{fmt.Sprintf(base, port), "28000 connection requires a valid client certificate"},
		{fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", port),
			`28000 no pg_hba.conf entry for host "127.0.0.1", user "weir", database "weir", no encryption`},
	} {
		_, err := pgx.Connect(ctxT(t), c.dsn)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code+" "+pe.Message != c.want {
			t.Errorf("%s: %v, want %s", c.dsn, err, c.want)
		}
	}
}

// TestServeAuthFlags: a bad --hba-file fails the start naming the file
// and the line; the client-certificate flags are checked together.
func TestServeAuthFlags(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, dir)
	crt, key, _ := ca.issue("localhost", true)
	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte("# rules\nhost all all 127.0.0.1/32 trust\nhost all all 10.0.0.0/8 password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certOnly := filepath.Join(dir, "cert.conf")
	if err := os.WriteFile(certOnly, []byte("hostssl all all all cert\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tls := []string{"--tls-cert", crt, "--tls-key", key}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hba-file", bad}, "--hba-file " + bad + `: line 3: invalid authentication method "password"`},
		{[]string{"--hba-file", filepath.Join(dir, "missing.conf")}, "missing.conf: no such file"},
		{append([]string{"--hba-file", certOnly}, tls...), "give --tls-client-ca"},
		{[]string{"--hba-file", certOnly}, "--hba-file " + certOnly + ": line 1: hostssl record cannot match because SSL is disabled"},
		{append([]string{"--tls-client-cert", "require"}, tls...), "give --tls-client-ca"},
		{[]string{"--tls-client-cert", "require"}, "--tls-client-cert require needs --tls-cert and --tls-key"},
		{append([]string{"--tls-client-cert", "optional", "--tls-client-ca", ca.file}, tls...), `--tls-client-cert takes require, not "optional"`},
		{[]string{"--tls-client-ca", ca.file}, "--tls-client-ca needs --tls-cert"},
		{append([]string{"--tls-client-ca", bad}, tls...), "no PEM certificate found"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		args := append([]string{"serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0"}, c.args...)
		out, err := exec.CommandContext(ctx, weirBinary, args...).CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("weir %q: %v\n%s\nwant %q", c.args, err, out, c.want)
		}
	}
}
