package engine

import "github.com/weir-sql/weir/catalog"

// The replication slot lag of the postgres-cdc sources a job reads, as
// streaming_progress.replication_slot_lag_bytes: the WAL PostgreSQL keeps
// for the sources' slots beyond what weir confirmed (summed when a job
// reads several), the figure /metrics gives per source as
// weir_source_replication_slot_lag_bytes. It is what a table reading a
// CDC source is behind on PostgreSQL's side; backlog_rows is what it is
// behind on weir's (the change rows logged and not read yet).

// pgcdcSlotLag is job r's lag, or nil (SQL NULL) when it reads no
// postgres-cdc source whose replicator runs.
func pgcdcSlotLag(r *runner) any {
	if r == nil || r.plan == nil {
		return nil
	}
	var lag int64
	found := false
	for _, oid := range streamInputs(r.plan) { // retention.go
		rel, ok := r.eng.cat.RelationByOID(oid)
		if !ok || rel.Kind != catalog.KindSource || rel.Source == nil || rel.Source.PgCDC == nil {
			continue
		}
		if n, ok := r.eng.pgcdcLag(rel); ok { // pgcdc_source.go
			lag, found = lag+n, true
		}
	}
	if !found {
		return nil
	}
	return lag
}
