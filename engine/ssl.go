package engine

import (
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/weir-sql/weir/catalog/pgcatalog"
)

// backendSSL turns a connection's TLS state into pg_stat_ssl's columns,
// the version as PostgreSQL (OpenSSL) names it ("TLSv1.3") and the IANA
// cipher suite name: the same as OpenSSL's for TLS 1.3; for TLS 1.2
// OpenSSL's own names (ECDHE-ECDSA-AES128-GCM-SHA256) differ. Bits is the
// symmetric key size. A verified client certificate fills client_dn,
// client_serial and issuer_dn.
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
	ssl := pgcatalog.BackendSSL{SSL: true, Version: version, Cipher: cipher, Bits: bits}
	if len(st.PeerCertificates) > 0 && len(st.VerifiedChains) > 0 {
		cert := st.PeerCertificates[0]
		ssl.ClientCert = true
		ssl.ClientDN = truncateName(onelineDN(cert.RawSubject))
		ssl.ClientSerial = truncateName(cert.SerialNumber.String())
		ssl.IssuerDN = truncateName(onelineDN(cert.RawIssuer))
	}
	return ssl
}

// truncateName cuts s to NAMEDATALEN-1 bytes, as PostgreSQL copies the
// client's DN and serial into buffers of that size; here at a character
// boundary, so the text stays valid UTF-8.
func truncateName(s string) string {
	if len(s) <= 63 {
		return s
	}
	n := 63
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// shortNames are OpenSSL's short names of distinguished-name attributes.
var shortNames = map[string]string{
	"2.5.4.3": "CN", "2.5.4.4": "SN", "2.5.4.5": "serialNumber", "2.5.4.6": "C", "2.5.4.7": "L",
	"2.5.4.8": "ST", "2.5.4.9": "street", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.12": "title",
	"2.5.4.17": "postalCode", "2.5.4.42": "GN", "2.5.4.43": "initials", "2.5.4.44": "generationQualifier",
	"2.5.4.46": "dnQualifier", "2.5.4.65": "pseudonym", "1.2.840.113549.1.9.1": "emailAddress",
	"0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}

// onelineDN writes a DER name as PostgreSQL's X509_NAME_to_cstring does
// for pg_stat_ssl: "/CN=alice/O=Example, Inc" becomes
// "/CN=alice/O=Example\, Inc": every attribute in the certificate's order
// (those of a multi-valued RDN too) as "/" short name "=" value, the value
// escaped as RFC 2253 says (a backslash before , + " \ < > ; and before a
// leading # or space or a trailing space, control characters as \XX) but
// UTF-8 kept as it is.
func onelineDN(der []byte) string {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(der, &seq); err != nil || len(rest) > 0 {
		return "" // crypto/tls verified the certificate: not reached
	}
	var b strings.Builder
	for _, rdn := range seq {
		for _, atv := range rdn {
			oid := atv.Type.String()
			if n, ok := shortNames[oid]; ok {
				oid = n
			}
			b.WriteByte('/')
			b.WriteString(oid)
			b.WriteByte('=')
			v := fmt.Sprint(atv.Value)
			for j := 0; j < len(v); j++ {
				ch := v[j]
				switch {
				case strings.IndexByte(`,+"\<>;`, ch) >= 0,
					j == 0 && (ch == '#' || ch == ' '),
					j == len(v)-1 && ch == ' ':
					b.WriteByte('\\')
					b.WriteByte(ch)
				case ch < 0x20 || ch == 0x7f:
					fmt.Fprintf(&b, `\%02X`, ch)
				default:
					b.WriteByte(ch)
				}
			}
		}
	}
	return b.String()
}
