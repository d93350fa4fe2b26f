package wire_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testPKI is a throwaway certificate authority for tests: it signs a
// server certificate for localhost/127.0.0.1 and client certificates
// with a given CN, written as PEM files in dir.
type testPKI struct {
	t      *testing.T
	dir    string
	curve  elliptic.Curve
	ca     *x509.Certificate
	caKey  crypto.Signer
	CAFile string
	serial int64
}

func newTestPKI(t *testing.T, curve elliptic.Curve) *testPKI {
	t.Helper()
	p := &testPKI{t: t, dir: t.TempDir(), curve: curve, serial: 100}
	key, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "weir test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(der)
	p.caKey = key
	p.CAFile = filepath.Join(p.dir, "ca.crt")
	p.write(p.CAFile, "CERTIFICATE", der)
	return p
}

func (p *testPKI) write(path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// issue signs a certificate; server ones are for localhost and 127.0.0.1.
func (p *testPKI) issue(name pkix.Name, server bool) (certFile, keyFile string) {
	p.t.Helper()
	key, err := ecdsa.GenerateKey(p.curve, rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: name,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if server {
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		p.t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		p.t.Fatal(err)
	}
	base := name.CommonName
	certFile, keyFile = filepath.Join(p.dir, base+".crt"), filepath.Join(p.dir, base+".key")
	p.write(certFile, "CERTIFICATE", der)
	p.write(keyFile, "PRIVATE KEY", kder)
	return certFile, keyFile
}
