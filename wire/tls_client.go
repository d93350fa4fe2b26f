package wire

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// Client certificates. With a CA bundle (--tls-client-ca) the server asks
// every TLS client for a certificate, as PostgreSQL does with ssl_ca_file:
// one that is presented must chain to the bundle, or the handshake fails;
// one that is not is allowed, and it is the HBA rules (cert,
// clientcert=) that may then require it.

// LoadClientCA makes cfg request client certificates and verify them
// against the PEM bundle in caFile.
func LoadClientCA(cfg *tls.Config, caFile string) error {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no PEM certificate found", caFile)
	}
	cfg.ClientCAs = pool
	cfg.ClientAuth = tls.VerifyClientCertIfGiven
	return nil
}

// clientCertificateCN returns the common name of the client's verified
// certificate, or nil when the client presented none (or the server
// verifies none, having no CA).
func (c *conn) clientCertificateCN() *string {
	if c.tls == nil || len(c.tls.PeerCertificates) == 0 || len(c.tls.VerifiedChains) == 0 {
		return nil
	}
	cn := c.tls.PeerCertificates[0].Subject.CommonName
	return &cn
}
