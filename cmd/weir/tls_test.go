package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
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

// writeSelfSigned writes a self-signed certificate for localhost and
// 127.0.0.1 and its key into dir.
func writeSelfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
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

// TestServeTLS runs the real binary with --tls-cert, --tls-key and
// --require-tls: psql and pgx get in over TLS (verify-full with the
// certificate as CA), a clear-text client is refused with 28000.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeSelfSigned(t, dir)
	port := freePort(t)
	var log bytes.Buffer
	cmd := exec.Command(weirBinary, "serve", "--data", filepath.Join(dir, "data"), "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--tls-cert", certFile, "--tls-key", keyFile, "--require-tls")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
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
	}()
	url := fmt.Sprintf("postgres://weir@localhost:%d/weir?sslmode=verify-full&sslrootcert=%s", port, certFile)
	deadline := time.Now().Add(20 * time.Second)
	var conn *pgx.Conn
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, url)
		cancel()
		if err == nil {
			conn = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("weir not accepting TLS connections after 20s: %v; log:\n%s", err, &log)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
	var one int
	if err := conn.QueryRow(ctxT(t), "select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("select 1 over TLS: %d, %v", one, err)
	}
	// pg_stat_ssl shows this session's TLS as PostgreSQL 15 does.
	var ssl bool
	var version, cipher string
	var bits int32
	if err := conn.QueryRow(ctxT(t), "select ssl, version, cipher, bits from pg_stat_ssl where pid = pg_backend_pid()").
		Scan(&ssl, &version, &cipher, &bits); err != nil || !ssl || version != "TLSv1.3" || !strings.HasPrefix(cipher, "TLS_") || bits < 128 {
		t.Errorf("pg_stat_ssl: %v %q %q %d, %v", ssl, version, cipher, bits, err)
	}
	conn.Close(context.Background())

	_, err := pgx.Connect(ctxT(t), fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", port))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28000" ||
		pe.Message != `no pg_hba.conf entry for host "127.0.0.1", user "weir", database "weir", no encryption` {
		t.Errorf("clear-text client: %v", err)
	}

	psql := mustTool(t, "psql")
	out, stderr, err := run(t, dir, "", []string{"PGSSLMODE=require", "PSQLRC=/dev/null"}, psql, "-X", "-A", "-t",
		fmt.Sprintf("host=127.0.0.1 port=%d user=weir dbname=weir sslmode=require", port), "-c", "select 1")
	if err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("psql sslmode=require: %q %q %v", out, stderr, err)
	}
}

// TestServeTLSBadKey: a key that does not match the certificate fails the
// start with a message naming the files.
func TestServeTLSBadKey(t *testing.T) {
	dir := t.TempDir()
	certFile, _ := writeSelfSigned(t, dir)
	_, otherKey := writeSelfSigned(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, weirBinary, "serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0",
		"--tls-cert", certFile, "--tls-key", otherKey).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--tls-cert/--tls-key") || !strings.Contains(string(out), certFile) {
		t.Errorf("weir serve with a mismatched key: %v\n%s", err, out)
	}
	out, err = exec.CommandContext(ctx, weirBinary, "serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0",
		"--require-tls").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--require-tls needs --tls-cert") {
		t.Errorf("weir serve --require-tls alone: %v\n%s", err, out)
	}
}
