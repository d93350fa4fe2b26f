package wire

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"hash"
)

// SCRAM-SHA-256-PLUS (RFC 5802 §6, RFC 7677) with the tls-server-end-point
// channel binding (RFC 5929 §4), the only type PostgreSQL offers: the
// client mixes a hash of the certificate it saw into the exchange, so a
// man in the middle that terminates TLS with another certificate cannot
// relay the proof.

const scramPlusMechanism = "SCRAM-SHA-256-PLUS"

// cbindType is the one channel-binding type accepted.
const cbindType = "tls-server-end-point"

// serverEndPoint returns the tls-server-end-point channel-binding data of
// the server's certificate: its hash with the hash function of its
// signature algorithm, SHA-256 in place of MD5 and SHA-1 (RFC 5929 §4.1).
// It is nil when that hash is not defined (an Ed25519 certificate) or when
// the configuration could present more than one certificate (SNI, a
// GetCertificate callback): the server cannot tell which one the client
// saw, so it does not offer channel binding.
func serverEndPoint(cfg *tls.Config) []byte {
	if cfg == nil || len(cfg.Certificates) != 1 || cfg.GetCertificate != nil || cfg.GetConfigForClient != nil {
		return nil
	}
	c := cfg.Certificates[0]
	leaf := c.Leaf
	if leaf == nil {
		if len(c.Certificate) == 0 {
			return nil
		}
		var err error
		if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return nil
		}
	}
	var h hash.Hash
	switch leaf.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.DSAWithSHA1, x509.ECDSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.DSAWithSHA256, x509.ECDSAWithSHA256:
		h = sha256.New()
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	default:
		return nil
	}
	h.Write(leaf.Raw)
	return h.Sum(nil)
}

// scramMechanisms lists what AuthenticationSASL offers: with channel
// binding first, as PostgreSQL orders them, over TLS; plain SCRAM only in
// the clear (there is no channel to bind to).
func (c *conn) scramMechanisms() []string {
	if c.tls != nil && c.srv.cbind != nil {
		return []string{scramPlusMechanism, scramMechanism}
	}
	return []string{scramMechanism}
}
