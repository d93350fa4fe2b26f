package pgcatalog

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// Statistics views. weir keeps no access statistics, so the counters are
// zero; what clients use them for is the list of tables (Metabase) and
// the current session (SQLAlchemy's cancel).

func pgStatUserTables() *Table {
	cols := []catalog.Column{
		col("relid", types.Oid),
		col("schemaname", types.Name),
		col("relname", types.Name),
		col("seq_scan", types.Int8),
		col("seq_tup_read", types.Int8),
		col("idx_scan", types.Int8),
		col("idx_tup_fetch", types.Int8),
		col("n_tup_ins", types.Int8),
		col("n_tup_upd", types.Int8),
		col("n_tup_del", types.Int8),
		col("n_tup_hot_upd", types.Int8),
		col("n_live_tup", types.Int8),
		col("n_dead_tup", types.Int8),
		col("n_mod_since_analyze", types.Int8),
		col("n_ins_since_vacuum", types.Int8),
		col("last_vacuum", types.TimestampTZ),
		col("last_autovacuum", types.TimestampTZ),
		col("last_analyze", types.TimestampTZ),
		col("last_autoanalyze", types.TimestampTZ),
		col("vacuum_count", types.Int8),
		col("autovacuum_count", types.Int8),
		col("analyze_count", types.Int8),
		col("autoanalyze_count", types.Int8),
	}
	return &Table{OID: 12030, Schema: "pg_catalog", Name: "pg_stat_user_tables", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			z := int64(0)
			for _, r := range s.userRelations() {
				if r.Kind != 'r' {
					continue
				}
				// idx_* are NULL for tables without indexes, as in PostgreSQL.
				var idxScan, idxFetch any
				if r.pkAttnums() != nil {
					idxScan, idxFetch = z, z
				}
				rb.add(r.OID, r.Schema, r.Name, z, z, idxScan, idxFetch, z, z, z, z, z, z, z, z,
					nil, nil, nil, nil, z, z, z, z)
			}
			return rb.finish()
		}}
}

// BackendActivity is one session as pg_stat_activity shows it. When
// Visible is false (another role's session, seen by a role without
// pg_read_all_stats) the privileged columns are NULL and query reads
// '<insufficient privilege>', as in PostgreSQL.
type BackendActivity struct {
	PID             int32
	Database        string
	User            string
	ApplicationName string
	Visible         bool

	ClientAddr string // "" is NULL (Unix socket, in-process)
	ClientPort int32  // -1 for a Unix socket; 0 is NULL
	// Zero times are NULL.
	BackendStart, XactStart, QueryStart, StateChange time.Time
	State, Query                                     string
	SSL                                              BackendSSL // pg_stat_ssl.go
}

func pgStatActivity() *Table {
	cols := []catalog.Column{
		col("datid", types.Oid),
		col("datname", types.Name),
		col("pid", types.Int4),
		col("leader_pid", types.Int4),
		col("usesysid", types.Oid),
		col("usename", types.Name),
		col("application_name", types.Text),
		// client_addr is inet in PostgreSQL; weir has no inet type and
		// shows the address as text (NULL here, like a Unix socket).
		col("client_addr", types.Text),
		col("client_hostname", types.Text),
		col("client_port", types.Int4),
		col("backend_start", types.TimestampTZ),
		col("xact_start", types.TimestampTZ),
		col("query_start", types.TimestampTZ),
		col("state_change", types.TimestampTZ),
		col("wait_event_type", types.Text),
		col("wait_event", types.Text),
		col("state", types.Text),
		col("backend_xid", xid),
		col("backend_xmin", xid),
		col("query_id", types.Int8),
		col("query", types.Text),
		col("backend_type", types.Text),
	}
	return &Table{OID: 12031, Schema: "pg_catalog", Name: "pg_stat_activity", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			datids := map[string]uint32{}
			for _, d := range s.databases() {
				datids[d.Name] = d.OID
			}
			var rows []BackendActivity
			if s.Activity != nil {
				rows = s.Activity()
			} else {
				rows = []BackendActivity{{PID: s.PID, Database: s.Database, User: s.User, ApplicationName: s.ApplicationName,
					Visible: true, State: "active"}}
			}
			ts := func(t time.Time) any {
				if t.IsZero() {
					return nil
				}
				return t
			}
			for _, a := range rows {
				if !a.Visible {
					rb.add(datids[a.Database], a.Database, a.PID, nil, s.roleOID(a.User), a.User, a.ApplicationName,
						nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "<insufficient privilege>", nil)
					continue
				}
				var addr, port any
				if a.ClientAddr != "" {
					addr = a.ClientAddr
				}
				if a.ClientPort != 0 {
					port = a.ClientPort
				}
				var state, waitType, wait any
				if a.State != "" {
					state = a.State
				}
				if strings.HasPrefix(a.State, "idle") {
					// Waiting for the client's next message, as PostgreSQL
					// reports it; running statements report no wait event.
					waitType, wait = "Client", "ClientRead"
				}
				rb.add(datids[a.Database], a.Database, a.PID, nil, s.roleOID(a.User), a.User, a.ApplicationName,
					addr, nil, port, ts(a.BackendStart), ts(a.XactStart), ts(a.QueryStart), ts(a.StateChange),
					waitType, wait, state, nil, nil, nil, a.Query, "client backend")
			}
			return rb.finish()
		}}
}
