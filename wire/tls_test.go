package wire_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/wire"
)

// testCert writes a self-signed certificate for localhost and 127.0.0.1
// (its own CA) and its key into dir, and returns their paths.
func testCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "localhost"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func startTLSServer(t *testing.T, require bool) (ts *testServer, caFile string) {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile := testCert(t, dir)
	cfg, err := wire.LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, newTestHandler(), wire.Config{TLS: cfg, RequireTLS: require}), certFile
}

func TestTLSPgx(t *testing.T) {
	ts, ca := startTLSServer(t, false)
	_, port, _ := net.SplitHostPort(ts.addr)
	ctx := testCtx(t)
	for _, dsn := range []string{
		fmt.Sprintf("postgres://tester@127.0.0.1:%s/db?sslmode=require", port),
		fmt.Sprintf("postgres://tester@localhost:%s/db?sslmode=verify-full&sslrootcert=%s", port, ca),
		fmt.Sprintf("postgres://tester@127.0.0.1:%s/db?sslmode=verify-full&sslrootcert=%s", port, ca),
	} {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		if tc, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
			t.Errorf("%s: connection is %T, not TLS", dsn, conn.PgConn().Conn())
		} else if v := tc.ConnectionState().Version; v < tls.VersionTLS12 {
			t.Errorf("%s: TLS version %x", dsn, v)
		}
		var n int
		rows, err := conn.Query(ctx, "select many")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			n++
		}
		if rows.Err() != nil || n != 7 {
			t.Errorf("%s: select many: %d rows, %v", dsn, n, rows.Err())
		}
		conn.Close(ctx)
	}
	// Without TLS the same server still takes clear-text clients.
	conn, err := pgx.Connect(ctx, ts.url("tester", ""))
	if err != nil {
		t.Fatalf("sslmode=disable: %v", err)
	}
	conn.Close(ctx)
	// verify-full against another CA fails the handshake.
	otherCA, _ := testCert(t, t.TempDir())
	if _, err := pgx.Connect(ctx, fmt.Sprintf("postgres://tester@localhost:%s/db?sslmode=verify-full&sslrootcert=%s", port, otherCA)); err == nil {
		t.Error("verify-full with a foreign CA connected")
	}
}

func TestTLSPsql(t *testing.T) {
	ts, ca := startTLSServer(t, true)
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql not installed")
	}
	_, port, _ := net.SplitHostPort(ts.addr)
	for _, mode := range []string{"require", "verify-full sslrootcert=" + ca} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, path, "-X", "-A", "-t", fmt.Sprintf("host=localhost port=%s user=tester dbname=db sslmode=%s", port, mode),
			"-c", "select many", "-c", `\conninfo`)
		cmd.Env = append(os.Environ(), "PGSSLMODE=require", "PSQLRC=/dev/null")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("psql sslmode=%s: %v\n%s", mode, err, out)
		}
		if !strings.HasPrefix(string(out), "1\n2\n") || !strings.Contains(string(out), "SSL connection (protocol: TLSv1.3") {
			t.Errorf("psql sslmode=%s: %q", mode, out)
		}
	}
}

// TestTLSBufferedPlaintext is CVE-2021-23214: a startup message sent in
// the same write as the SSLRequest, before any handshake, must not be
// taken as if it had come through TLS.
func TestTLSBufferedPlaintext(t *testing.T) {
	ts, _ := startTLSServer(t, false)
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	buf, _ := (&pgproto3.SSLRequest{}).Encode(nil)
	buf, _ = (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "tester", "database": "db"}}).Encode(buf)
	if _, err := nc.Write(buf); err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(bufio.NewReader(nc), nc)
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	e, ok := msg.(*pgproto3.ErrorResponse)
	if !ok || e.Code != "08P01" || e.Severity != "FATAL" || e.Message != "received unencrypted data after SSL request" {
		t.Fatalf("got %#v", msg)
	}
	if _, err := io.ReadAll(nc); err != nil {
		t.Fatalf("connection not closed: %v", err)
	}
}

func TestRequireTLS(t *testing.T) {
	ts, _ := startTLSServer(t, true)
	_, port, _ := net.SplitHostPort(ts.addr)
	ctx := testCtx(t)
	for _, mode := range []string{"disable"} {
		_, err := pgx.Connect(ctx, fmt.Sprintf("postgres://tester@127.0.0.1:%s/db?sslmode=%s", port, mode))
		var pe *pgconn.PgError
		want := `no pg_hba.conf entry for host "127.0.0.1", user "tester", database "db", no encryption`
		if !errors.As(err, &pe) || pe.Code != "28000" || pe.Message != want {
			t.Errorf("sslmode=%s: %v", mode, err)
		}
	}
	// sslmode=prefer negotiates TLS and gets in; so does allow, which
	// retries with TLS after the refusal.
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://tester@127.0.0.1:%s/db?sslmode=prefer", port))
	if err != nil {
		t.Fatalf("sslmode=prefer: %v", err)
	}
	conn.Close(ctx)
	conn, err = pgx.Connect(ctx, fmt.Sprintf("postgres://tester@127.0.0.1:%s/db?sslmode=allow", port))
	if err != nil {
		t.Fatalf("sslmode=allow: %v", err)
	}
	conn.Close(ctx)
}

func TestLoadTLSBadFiles(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := testCert(t, dir)
	otherCert, _ := testCert(t, t.TempDir())
	for _, c := range [][2]string{{filepath.Join(dir, "missing.crt"), keyFile}, {otherCert, keyFile}, {keyFile, certFile}} {
		if _, err := wire.LoadTLS(c[0], c[1]); err == nil || !strings.Contains(err.Error(), c[0]) {
			t.Errorf("LoadTLS(%s, %s): %v", c[0], c[1], err)
		}
	}
}
