package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// BackendSSL is one session's TLS state as pg_stat_ssl shows it. Version
// and Cipher are OpenSSL's names (TLSv1.3, TLS_AES_128_GCM_SHA256), as
// PostgreSQL reports them.
type BackendSSL struct {
	SSL     bool
	Version string
	Cipher  string
	Bits    int32
	// ClientCert is set when the client presented a verified certificate:
	// ClientDN and IssuerDN are then its subject and issuer as PostgreSQL
	// writes them ("/CN=alice/O=Example\, Inc"), ClientSerial its serial
	// number in decimal.
	ClientCert                       bool
	ClientDN, ClientSerial, IssuerDN string
}

// pgStatSSL is PostgreSQL 15's pg_stat_ssl: one row per session, ssl
// false and the rest NULL for a clear-text one; client_dn, client_serial
// and issuer_dn are NULL without a client certificate.
func pgStatSSL() *Table {
	cols := []catalog.Column{
		col("pid", types.Int4),
		col("ssl", types.Bool),
		col("version", types.Text),
		col("cipher", types.Text),
		col("bits", types.Int4),
		col("client_dn", types.Text),
		col("client_serial", types.Numeric),
		col("issuer_dn", types.Text),
	}
	return &Table{OID: 12032, Schema: "pg_catalog", Name: "pg_stat_ssl", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			var rows []BackendActivity
			if s.Activity != nil {
				rows = s.Activity()
			} else {
				rows = []BackendActivity{{PID: s.PID, Visible: true}}
			}
			for _, a := range rows {
				if !a.SSL.SSL {
					rb.add(a.PID, false, nil, nil, nil, nil, nil, nil)
					continue
				}
				if a.SSL.ClientCert {
					rb.add(a.PID, true, a.SSL.Version, a.SSL.Cipher, a.SSL.Bits, a.SSL.ClientDN, a.SSL.ClientSerial, a.SSL.IssuerDN)
					continue
				}
				rb.add(a.PID, true, a.SSL.Version, a.SSL.Cipher, a.SSL.Bits, nil, nil, nil)
			}
			return rb.finish()
		}}
}
