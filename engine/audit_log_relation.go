package engine

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/auditlog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// weir_catalog.audit_log is the audit log, oldest event first. Who reads
// it: superusers and the members of pg_read_all_stats (pg_monitor is
// one), as PostgreSQL lets them read every session's pg_stat_activity;
// anybody else gets PostgreSQL's 42501 for a relation they may not read,
// when the statement is bound (naming it, as in a ::regclass cast, is
// allowed).
// A read first waits for the events recorded before it to be written
// (audit_writer.go), so a session sees what it just did.

// auditLogOID is the fixed OID of weir_catalog.audit_log.
const auditLogOID uint32 = 14030

var auditLogColumns = []planner.RelColumn{
	{Name: "seq", T: types.Int8},
	{Name: "time", T: types.TimestampTZ},
	{Name: "kind", T: types.Text},
	{Name: "role", T: types.Text},
	{Name: "session_user", T: types.Text},
	{Name: "client", T: types.Text},
	{Name: "object", T: types.Text},
	{Name: "statement", T: types.Text},
	{Name: "success", T: types.Bool},
	{Name: "detail", T: types.Text},
}

func auditLogRelation() *planner.Relation {
	return &planner.Relation{OID: auditLogOID, Schema: weirCatalogSchema, Name: "audit_log", Kind: planner.VirtualTable, Cols: auditLogColumns}
}

// mayReadAuditLog reports whether s may read the audit log.
func (s *Session) mayReadAuditLog() bool {
	return s.superuser || s.hasPrivsOfOID(catalog.ReadAllStatsRoleOID)
}

// checkMonitorRead is the 42501 of a weir_catalog relation s may not
// read, checked when a statement is bound (catalog_view.go) as
// PostgreSQL checks it before a query runs; nil for the others.
func (s *Session) checkMonitorRead(oid uint32) error {
	if oid == auditLogOID && !s.mayReadAuditLog() {
		return errAuditLogDenied()
	}
	return nil
}

func errAuditLogDenied() error {
	return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for view audit_log")
}

// auditLogRows builds weir_catalog.audit_log for s.
func (s *Session) auditLogRows() (arrow.RecordBatch, error) {
	if !s.mayReadAuditLog() { // a plan bound before a SET ROLE
		return nil, errAuditLogDenied()
	}
	s.eng.flushAudit()
	evs, err := s.eng.auditLog.log.Read()
	if err != nil {
		return nil, err
	}
	return auditLogBatch(evs)
}

// auditLogBatch is evs as audit_log's columns, built straight into Arrow
// arrays: the log holds up to --audit-log-max-rows events, read whole by
// every query of it.
func auditLogBatch(evs []auditlog.Event) (arrow.RecordBatch, error) {
	mem := memory.DefaultAllocator
	fields := make([]arrow.Field, len(auditLogColumns))
	builders := make([]array.Builder, len(auditLogColumns))
	for i, c := range auditLogColumns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.Arrow(), Nullable: true}
		builders[i] = array.NewBuilder(mem, c.T.Arrow())
		defer builders[i].Release()
		builders[i].Reserve(len(evs))
	}
	seq, okSeq := builders[0].(*array.Int64Builder)
	at, okTime := builders[1].(*array.TimestampBuilder)
	success, okBool := builders[8].(*array.BooleanBuilder)
	texts := make([]*array.StringBuilder, 0, 7)
	for _, i := range []int{2, 3, 4, 5, 6, 7, 9} {
		if b, ok := builders[i].(*array.StringBuilder); ok {
			texts = append(texts, b)
		}
	}
	if !okSeq || !okTime || !okBool || len(texts) != 7 {
		return nil, sqlerr.New(sqlerr.InternalError, "audit_log: unexpected column representation")
	}
	for i := range evs {
		ev := &evs[i]
		seq.Append(int64(ev.Seq))
		at.Append(arrow.Timestamp(ev.Time.UnixMicro()))
		success.Append(ev.Success)
		for k, v := range [...]string{ev.Kind, ev.Role, ev.SessionUser, ev.Client, ev.Object, ev.Statement, ev.Detail} {
			if v == "" && k > 0 { // kind is never empty; the others are NULL when unknown
				texts[k].AppendNull()
			} else {
				texts[k].Append(v)
			}
		}
	}
	arrs := make([]arrow.Array, len(builders))
	for i, b := range builders {
		arrs[i] = b.NewArray()
		defer arrs[i].Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(evs))), nil
}
