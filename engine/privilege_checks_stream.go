package engine

import (
	"github.com/weir-sql/weir/catalog"
)

// Streaming tables, flows and sinks run as their owner: what their plan
// reads needs the owner's SELECT, checked when the job starts (CREATE,
// REFRESH, a restart, a re-plan after files evolution) and again at the
// first epoch after any catalog change (catalog.Version moves with every
// GRANT, REVOKE, membership change and ALTER ... OWNER). A failed check
// fails the job with 42501 and the table's usual failure path (status
// failed with the message, a job_failed event); it stays failed until a
// REFRESH finds the privilege back.

// privWatch is the catalog version a job's privileges were last found
// sufficient at; ok is unset until then and after a failed check, so
// that a job failed for privileges checks again however the catalog
// stands.
type privWatch struct {
	version uint64
	ok      bool
}

// checkOwnerPrivileges is called before each epoch; it costs an atomic
// load while the catalog does not change.
func (r *runner) checkOwnerPrivileges() error {
	v := r.eng.cat.Version()
	if r.plan == nil || r.privs.ok && r.privs.version == v {
		return nil
	}
	owner, ok := r.eng.jobOwner(r.oid)
	if !ok {
		return nil
	}
	if err := r.eng.checkAccessesAs(owner, r.plan.Accesses); err != nil {
		r.privs.ok = false
		return err
	}
	r.eng.checkSinkOwners(r.oid)
	r.privs = privWatch{version: v, ok: true}
	return nil
}

// checkSinkOwners fails each running sink of table oid whose owner may
// no longer read the table; the table goes on, as with any failing sink,
// and a REFRESH reopens the sink (checking again).
func (e *Engine) checkSinkOwners(oid uint32) {
	ts := e.sinksOf(oid)
	rel, ok := e.cat.RelationByOID(oid)
	if ts == nil || !ok {
		return
	}
	ts.mu.Lock()
	var denied []*liveSink
	var errs []error
	for _, l := range ts.sinks {
		if err := e.sinkReadable(l.def, rel); err != nil && l.running() {
			denied, errs = append(denied, l), append(errs, err)
		}
	}
	ts.mu.Unlock()
	for i, l := range denied {
		l.fail(errs[i])
	}
}

// jobOwner is the role a streaming job runs as: its table's owner (a
// flow's job is its target's).
func (e *Engine) jobOwner(oid uint32) (uint32, bool) {
	if target, ok := e.flows.target(oid); ok {
		oid = target
	}
	if rel, ok := e.cat.RelationByOID(oid); ok {
		return rel.Owner, true
	}
	return 0, false
}

// sinkReadable checks that a sink's owner may read its table (all its
// columns): a sink runs as its owner, as a streaming table does.
func (e *Engine) sinkReadable(def *catalog.Sink, rel *catalog.Relation) error {
	if e.relationAllowed(def.Owner, rel, catalog.PrivSelect, columnNames(rel)) {
		return nil
	}
	return relationDenied(rel)
}

func columnNames(rel *catalog.Relation) []string {
	out := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		out[i] = c.Name
	}
	return out
}
