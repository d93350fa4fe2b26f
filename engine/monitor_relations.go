package engine

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
)

// The weir_catalog relations of the event log and the batch history
// (event_log_relation.go, batches.go), found by catalog_view.go as
// streaming_progress is.

func monitorRelations() []*planner.Relation {
	return []*planner.Relation{eventLogRelation(), batchesRelation(), auditLogRelation()}
}

// monitorRelation is the relation schema.name of these, if it is one.
func monitorRelation(schema, name string) *planner.Relation {
	if schema != weirCatalogSchema {
		return nil
	}
	for _, r := range monitorRelations() {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// monitorRelationByOID is the relation of these with OID oid, if any.
func monitorRelationByOID(oid uint32) *planner.Relation {
	for _, r := range monitorRelations() {
		if r.OID == oid {
			return r
		}
	}
	return nil
}

// monitorRows are the rows relation oid has for s (ok false: not one of
// these).
func (s *Session) monitorRows(oid uint32) (b arrow.RecordBatch, ok bool, err error) {
	switch oid {
	case eventLogOID:
		b, err = s.eventLogRows()
		return b, true, err
	case auditLogOID:
		b, err = s.auditLogRows() // audit_log_relation.go
		return b, true, err
	case batchesOID:
		return s.eng.batchesRows(s.seesMonitoringOf), true, nil
	}
	return nil, false, nil
}
