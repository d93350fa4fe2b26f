package engine

import (
	"crypto/tls"
	"strings"

	"github.com/weir-sql/weir/catalog/pgcatalog"
)

// backendSSL turns a connection's TLS state into pg_stat_ssl's columns,
// the version as PostgreSQL (OpenSSL) names it ("TLSv1.3") and the IANA
// cipher suite name: the same as OpenSSL's for TLS 1.3; for TLS 1.2
// OpenSSL's own names (ECDHE-ECDSA-AES128-GCM-SHA256) differ. Bits is the
// symmetric key size.
func backendSSL(st *tls.ConnectionState) pgcatalog.BackendSSL {
	if st == nil {
		return pgcatalog.BackendSSL{}
	}
	version := "TLSv1.2"
	if st.Version == tls.VersionTLS13 {
		version = "TLSv1.3"
	}
	cipher := tls.CipherSuiteName(st.CipherSuite)
	bits := int32(128)
	if strings.Contains(cipher, "AES_256") || strings.Contains(cipher, "CHACHA20") {
		bits = 256
	}
	return pgcatalog.BackendSSL{SSL: true, Version: version, Cipher: cipher, Bits: bits}
}
