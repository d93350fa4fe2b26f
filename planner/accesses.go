package planner

// What a bound statement reads and writes, for the engine's privilege
// checks: PostgreSQL's range table with requiredPerms, selectedCols and
// insertedCols. The binder records one Access per scan of a stored
// relation (and per INSERT target); the columns are those the query
// actually references, whatever part of it references them: the select
// list, WHERE, JOIN ... ON/USING, GROUP BY, ORDER BY, a subquery; `*`
// references every column it expands to; count(*) references none (the
// engine then wants the privilege on the table or on some column, as
// PostgreSQL does).

// AccessPriv is the privilege an access needs.
type AccessPriv uint8

const (
	AccessSelect AccessPriv = 1 << iota
	AccessInsert
)

// Access is one relation a statement reads or writes.
type Access struct {
	OID          uint32
	Schema, Name string
	Privs        AccessPriv
	// Columns are the relation's columns referenced (SELECT) or written
	// (INSERT), in the relation's order; hidden columns (a files source's
	// _metadata) are never listed.
	Columns []string
	// ViaView, when not 0, is the OID of the view whose definition reads
	// the relation: the privilege is checked as that view's owner, not as
	// the current user (PostgreSQL's views are not security_invoker).
	ViaView uint32

	rel  *Relation
	used []bool
}

// accessLog collects a statement's accesses while it is bound.
type accessLog struct {
	list []*Access
	// views are the OIDs of the views being expanded, innermost last.
	views []uint32
}

func (b *binder) accessLog() *accessLog {
	if b.acc == nil {
		b.acc = &accessLog{}
	}
	return b.acc
}

// recordScan records a scan of rel (a stored table, streaming table,
// source or view; virtual catalog relations are readable by everyone) and
// ties the scope's columns to it, so that references mark them. A view
// is recorded before its definition is bound (sc nil, tied later with
// tieScope), so that it is checked before what it reads, as PostgreSQL's
// range table orders them.
func (b *binder) recordScan(rel *Relation, sc *scope) *Access {
	if rel.Kind == VirtualTable {
		return nil
	}
	l := b.accessLog()
	a := &Access{OID: rel.OID, Schema: rel.Schema, Name: rel.Name, Privs: AccessSelect, rel: rel, used: make([]bool, len(rel.Cols))}
	if n := len(l.views); n > 0 {
		a.ViaView = l.views[n-1]
	}
	l.list = append(l.list, a)
	tieScope(a, sc)
	return a
}

// tieScope makes references to sc's columns mark a's.
func tieScope(a *Access, sc *scope) {
	if a == nil || sc == nil {
		return
	}
	for i := range sc.cols {
		if i < len(a.rel.Cols) {
			sc.cols[i].acc, sc.cols[i].accCol = a, i
		}
	}
}

// enterView marks the relations bound until the returned func runs as
// read by view's definition.
func (b *binder) enterView(view *Relation) func() {
	l := b.accessLog()
	l.views = append(l.views, view.OID)
	return func() { l.views = l.views[:len(l.views)-1] }
}

// recordInsert records INSERT into rel's columns targets.
func (b *binder) recordInsert(rel *Relation, targets []int) {
	a := &Access{OID: rel.OID, Schema: rel.Schema, Name: rel.Name, Privs: AccessInsert, rel: rel, used: make([]bool, len(rel.Cols))}
	for _, t := range targets {
		a.used[t] = true
	}
	l := b.accessLog()
	l.list = append(l.list, a)
}

// markRef records that the query references column c.
func (c scopeCol) markRef() {
	if c.acc != nil && c.accCol < len(c.acc.used) {
		c.acc.used[c.accCol] = true
	}
}

// accesses is the statement's accesses, their columns filled in.
func (b *binder) accesses() []Access {
	if b.acc == nil {
		return nil
	}
	out := make([]Access, 0, len(b.acc.list))
	for _, a := range b.acc.list {
		cp := *a
		cp.Columns = nil
		for i, u := range a.used {
			if u && !a.rel.Cols[i].Hidden {
				cp.Columns = append(cp.Columns, a.rel.Cols[i].Name)
			}
		}
		cp.rel, cp.used = nil, nil
		out = append(out, cp)
	}
	return out
}
