package engine_test

import (
	"context"
	"fmt"
	"testing"
)

// TestStatSSLClearText: a clear-text session's pg_stat_ssl row and the
// view's columns, side by side with PostgreSQL 15 (the TLS row is read in
// cmd/weir's TestServeTLS, over a real handshake).
func TestStatSSLClearText(t *testing.T) {
	sideBySide(t, []string{"sa"}, func(t *testing.T, tg target, roles []string) []string {
		s := tg.connect(t, roles[0])
		var log []string
		rows, err := s.c.Query(context.Background(),
			"SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_stat_ssl'::regclass AND attnum > 0 ORDER BY attnum")
		if err != nil {
			return []string{"columns: " + errOutcome(err)}
		}
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				t.Fatal(err)
			}
			log = append(log, name+" "+typ)
		}
		rows.Close()
		var ssl bool
		var version, cipher, dn *string
		var bits *int32
		err = s.c.QueryRow(context.Background(), "SELECT ssl, version, cipher, bits, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()").
			Scan(&ssl, &version, &cipher, &bits, &dn)
		log = append(log, fmt.Sprintf("own row: ssl=%v version=%v cipher=%v bits=%v client_dn=%v err=%v", ssl, version, cipher, bits, dn, errOutcome(err)))
		return log
	})
}
