package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/pgcatalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// catalogView is the catalog as one session sees it: its search path, its
// uncommitted writes, and the virtual pg_catalog relations. It implements
// planner.Catalog, expr.CatalogFuncs and exec.TableSource.
type catalogView struct {
	s *Session
	// virtual, when not nil, keeps the rows of each virtual relation the
	// view has computed, so that a statement builds pg_class once however
	// often it scans it: a correlated subquery over pg_class, such as
	// pgjdbc's type-cache query (one per pg_type row), would otherwise
	// rebuild it for every outer row. Only a view that serves one
	// statement's execution caches (statementCatalogView): the catalog
	// does not change while a query runs.
	virtual map[uint32]arrow.RecordBatch
	snap    *pgcatalog.Snapshot
}

func (s *Session) catalogView() *catalogView { return &catalogView{s: s} }

// statementCatalogView is a catalogView for running one query; it computes
// each virtual relation at most once.
func (s *Session) statementCatalogView() *catalogView {
	return &catalogView{s: s, virtual: map[uint32]arrow.RecordBatch{}}
}

// searchPath is the effective search path: "$user" is dropped (weir has no
// per-user schemas) and unknown schemas are skipped, as are those the
// current user may not use (PostgreSQL leaves them out silently).
func (s *Session) searchPath() []string {
	var out []string
	for _, p := range strings.Split(s.settings["search_path"], ",") {
		p = strings.Trim(strings.TrimSpace(p), "\"")
		if p == "" || p == "$user" {
			continue
		}
		if sc, ok := s.eng.cat.Schema(p); ok && (s.superuser || s.schemaUsable(sc)) { // privilege_checks.go: PostgreSQL skips schemas without USAGE
			out = append(out, p)
		}
	}
	return out
}

func (v *catalogView) LookupRelation(schema, name string) (*planner.Relation, error) {
	if schema == weirCatalogSchema && name == "streaming_progress" {
		return progressRelation(), nil
	}
	if schema == weirCatalogSchema && name == "expectations" {
		return expectationsRelation(), nil // expectations_view.go
	}
	if r := monitorRelation(schema, name); r != nil { // monitor_relations.go
		if err := v.s.checkMonitorRead(r.OID); err != nil { // audit_log_relation.go
			return nil, err
		}
		return r, nil
	}
	if schema == "" || schema == "pg_catalog" || schema == "information_schema" {
		if t := pgcatalog.Lookup(schema, name); t != nil {
			return virtualRelation(t), nil
		}
		if schema == "information_schema" {
			for _, t := range pgcatalog.Tables() {
				if t.Schema == schema && t.Name == name {
					return virtualRelation(t), nil
				}
			}
		}
	}
	if r := v.s.eng.inlineRelation(schema, name); r != nil {
		return plannerRelation(r), nil
	}
	if err := v.s.checkSchemaUsage(schema); err != nil { // privilege_checks.go
		return nil, err
	}
	rel, err := v.s.eng.cat.LookupRelation(v.s.searchPath(), schema, name)
	if err != nil {
		if sqlerr.Code(err) == sqlerr.UndefinedTable && schema == "" {
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
		}
		return nil, err
	}
	return plannerRelation(rel), nil
}

func virtualRelation(t *pgcatalog.Table) *planner.Relation {
	r := &planner.Relation{OID: t.OID, Schema: t.Schema, Name: t.Name, Kind: planner.VirtualTable}
	for _, c := range t.Columns {
		r.Cols = append(r.Cols, planner.RelColumn{Name: c.Name, T: c.Type})
	}
	return r
}

func plannerRelation(rel *catalog.Relation) *planner.Relation {
	r := &planner.Relation{OID: rel.OID, Schema: rel.Schema, Name: rel.Name, Kind: planner.StoredTable}
	switch rel.Kind {
	case catalog.KindView:
		r.ViewSQL = rel.ViewSQL
	case catalog.KindStreamingTable:
		r.Streaming = true
		r.AppendOnly = rel.Streaming != nil && rel.Streaming.OutputMode == planner.AppendMode
	case catalog.KindSource:
		r.Source = true
		r.WatermarkColumn, r.WatermarkDelay = rel.Source.WatermarkColumn, rel.Source.WatermarkDelayUS
	}
	if t := rel.Table; t != nil && t.WatermarkColumn != "" {
		r.WatermarkColumn, r.WatermarkDelay = t.WatermarkColumn, t.WatermarkDelayUS
	}
	for _, c := range rel.Columns {
		r.Cols = append(r.Cols, planner.RelColumn{Name: c.Name, T: c.Type, NotNull: c.NotNull, Default: c.Default})
	}
	filesPlannerColumns(rel, r) // files_source.go: the hidden _metadata
	return r
}

// ScanTable implements exec.TableSource.
func (v *catalogView) ScanTable(ctx context.Context, scan *planner.Scan) ([]arrow.RecordBatch, error) {
	if scan.Kind == planner.VirtualTable && scan.OID == progressOID {
		return []arrow.RecordBatch{v.s.eng.progressRows(v.s.seesMonitoringOf)}, nil
	}
	if scan.Kind == planner.VirtualTable && scan.OID == expectationsOID {
		return v.s.eng.expectationRows(v.s.seesMonitoringOf) // expectations_view.go
	}
	if scan.Kind == planner.VirtualTable {
		if b, ok, err := v.s.monitorRows(scan.OID); ok { // monitor_relations.go
			if err != nil {
				return nil, err
			}
			return []arrow.RecordBatch{b}, nil
		}
	}
	if scan.Kind == planner.StoredTable {
		if r := v.s.eng.runnerFor(scan.OID); r != nil {
			return v.s.eng.streamingTableRows(ctx, scan.OID)
		}
	}
	if scan.Kind == planner.VirtualTable {
		if b, ok := v.virtual[scan.OID]; ok {
			return []arrow.RecordBatch{b}, nil
		}
		t := pgcatalog.Lookup(scan.Schema, scan.Name)
		if t == nil {
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s.%s\" does not exist", scan.Schema, scan.Name)
		}
		snapshot := v.snapshot
		if v.virtual != nil {
			// One snapshot serves every catalog relation of the query.
			snapshot = func() *pgcatalog.Snapshot {
				if v.snap == nil {
					v.snap = v.snapshot()
				}
				return v.snap
			}
		}
		b, err := pgcatalog.CachedRows(t, v.s.eng.cat, snapshot)
		if err != nil {
			return nil, err
		}
		if v.virtual != nil {
			v.virtual[scan.OID] = b
		}
		return []arrow.RecordBatch{b}, nil
	}
	schema := planner.Schema(scan.Cols)
	if src := v.s.eng.sourceRelation(scan.OID); src != nil {
		return v.s.eng.scanSource(ctx, src, schema)
	}
	batches, err := v.s.eng.store.ScanTable(scan.OID, schema)
	if err != nil {
		return nil, err
	}
	if v.s.tx.store != nil && slices.Contains(v.s.tx.streamed, scan.OID) {
		// Rows a COPY streamed into this block, partly flushed to the store.
		own, err := v.s.tx.store.OwnChunks(scan.OID)
		if err != nil {
			return nil, err
		}
		batches = append(append([]arrow.RecordBatch{}, batches...), own...)
	}
	if pending := v.s.tx.pending[scan.OID]; len(pending) > 0 {
		batches = append(append([]arrow.RecordBatch{}, batches...), pending...)
	}
	return batches, nil
}

// EstimateRows implements planner.RowEstimator: a stored table's
// committed rows plus this transaction's, a catalog relation's guess from
// the objects it lists.
func (v *catalogView) EstimateRows(scan *planner.Scan) float64 {
	if scan.Kind == planner.VirtualTable {
		if scan.OID == progressOID || monitorRelationByOID(scan.OID) != nil {
			return 10
		}
		if t := pgcatalog.Lookup(scan.Schema, scan.Name); t != nil {
			return pgcatalog.EstimateRows(t, v.s.eng.cat)
		}
		return 10
	}
	if src := v.s.eng.sourceRelation(scan.OID); src != nil {
		return sourceRows(src)
	}
	rows, _, err := v.s.eng.store.TableStats(scan.OID)
	if err != nil {
		return 1000
	}
	for _, b := range v.s.tx.pending[scan.OID] {
		rows += b.NumRows()
	}
	return float64(rows)
}

// UniqueColumn implements planner.UniqueColumns: the column of a
// one-column primary key.
func (v *catalogView) UniqueColumn(scan *planner.Scan, col int) bool {
	rel, ok := v.s.eng.cat.RelationByOID(scan.OID)
	return ok && len(rel.PrimaryKey) == 1 && col < len(scan.Cols) && rel.PrimaryKey[0] == scan.Cols[col].Name
}

func (v *catalogView) snapshot() *pgcatalog.Snapshot {
	s := v.s
	snap := &pgcatalog.Snapshot{Cat: s.eng.cat, Database: s.db, User: s.user, SearchPath: s.searchPath(),
		PID: int32(s.pid), ApplicationName: s.settings["application_name"], Activity: s.activity}
	prog := progressRelation()
	er := pgcatalog.EngineRelation{OID: prog.OID, Schema: prog.Schema, Name: prog.Name}
	for _, c := range prog.Cols {
		er.Columns = append(er.Columns, catalog.Column{Name: c.Name, Type: c.T})
	}
	snap.EngineRelations = []pgcatalog.EngineRelation{er}
	for _, r := range monitorRelations() { // monitor_relations.go
		mr := pgcatalog.EngineRelation{OID: r.OID, Schema: r.Schema, Name: r.Name}
		for _, c := range r.Cols {
			mr.Columns = append(mr.Columns, catalog.Column{Name: c.Name, Type: c.T})
		}
		snap.EngineRelations = append(snap.EngineRelations, mr)
	}
	for _, sig := range expr.ScalarSignatures() {
		snap.Functions = append(snap.Functions, pgcatalog.Function{Name: sig.Name, NumArgs: len(sig.Args), ArgTypes: sig.Args, RetType: sig.Ret})
	}
	for _, st := range sortedSettings() {
		value, unit := pgSettingsValue(st, s.settings[strings.ToLower(st.name)])
		snap.Settings = append(snap.Settings, pgcatalog.Setting{
			Name: st.name, Setting: value, Unit: unit, Category: st.category,
			ShortDesc: st.desc, VarType: st.vartype, Source: "default",
		})
	}
	return snap
}

// --- expr.CatalogFuncs ---

func (v *catalogView) RelationOID(name string) (uint32, error) {
	schema, rel := splitQualified(name)
	if err := v.explicitSchema(schema); err != nil { // privilege_funcs.go
		return 0, err
	}
	r, err := v.LookupRelation(schema, rel)
	if err != nil {
		if m := monitorRelation(schema, rel); m != nil {
			return m.OID, nil // naming audit_log needs no privilege to read it
		}
		return 0, err
	}
	return r.OID, nil
}

func splitQualified(name string) (string, string) {
	parts := strings.Split(name, ".")
	for i := range parts {
		p := parts[i]
		if strings.HasPrefix(p, "\"") && strings.HasSuffix(p, "\"") && len(p) >= 2 {
			parts[i] = strings.ReplaceAll(p[1:len(p)-1], "\"\"", "\"")
		} else {
			parts[i] = strings.ToLower(p)
		}
	}
	if len(parts) >= 2 {
		return parts[len(parts)-2], parts[len(parts)-1]
	}
	return "", parts[0]
}

func (v *catalogView) RelationName(oid uint32) (string, bool) {
	if r, ok := v.s.eng.cat.RelationByOID(oid); ok {
		if v.RelationVisible(oid) {
			return quoteIdentIfNeeded(r.Name), true
		}
		return quoteIdentIfNeeded(r.Schema) + "." + quoteIdentIfNeeded(r.Name), true
	}
	if oid == progressOID {
		return weirCatalogSchema + ".streaming_progress", true
	}
	if r := monitorRelationByOID(oid); r != nil {
		return weirCatalogSchema + "." + r.Name, true
	}
	for _, t := range pgcatalog.Tables() {
		if t.OID == oid {
			if t.Schema == "pg_catalog" {
				return t.Name, true
			}
			return t.Schema + "." + t.Name, true
		}
	}
	return "", false
}

func (v *catalogView) TypeOID(name string) (uint32, error) {
	n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "pg_catalog.")
	isArray := strings.HasSuffix(n, "[]")
	n = strings.TrimSuffix(n, "[]")
	t, ok := types.ByName(n)
	if !ok {
		t, ok = types.ByTypname(n)
	}
	if !ok {
		// A relation's name is also its row type's (and "_name" the
		// array's), as in PostgreSQL.
		rel, arr := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "[]")), isArray
		if sch, n := splitQualified(rel); !arr && strings.HasPrefix(n, "_") {
			if r, err := v.LookupRelation(sch, n[1:]); err == nil {
				return pgcatalog.RowArrayTypeOID(r.OID), nil
			}
		}
		sch, n := splitQualified(rel)
		if r, err := v.LookupRelation(sch, n); err == nil {
			if arr {
				return pgcatalog.RowArrayTypeOID(r.OID), nil
			}
			return pgcatalog.RowTypeOID(r.OID), nil
		}
		return 0, sqlerr.New(sqlerr.UndefinedObject, "type \"%s\" does not exist", name)
	}
	if isArray {
		t = types.ArrayOf(t)
	}
	return t.OID, nil
}

// TypeName names a relation's row type (or its array type) as regtype
// output does: the relation's name, qualified when not visible.
func (v *catalogView) TypeName(oid uint32) (string, bool) {
	rel, arr, ok := pgcatalog.RelationOfRowType(oid)
	if !ok {
		return "", false
	}
	name, ok := v.RelationName(rel)
	if !ok {
		return "", false
	}
	if arr {
		name += "[]"
	}
	return name, true
}

func (v *catalogView) NamespaceOID(name string) (uint32, error) {
	if s, ok := v.s.eng.cat.Schema(strings.Trim(name, "\"")); ok {
		return s.OID, nil
	}
	return 0, sqlerr.New(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", name)
}

func (v *catalogView) NamespaceName(oid uint32) (string, bool) {
	for _, s := range v.s.eng.cat.Schemas() {
		if s.OID == oid {
			return s.Name, true
		}
	}
	return "", false
}

func (v *catalogView) RoleName(oid uint32) (string, bool) {
	if oid == catalog.DatabaseOwnerRoleOID {
		return catalog.DatabaseOwnerRole, true
	}
	for _, r := range v.s.eng.cat.Roles() {
		if r.OID == oid {
			return r.Name, true
		}
	}
	return "", false
}

func (v *catalogView) ProcName(oid uint32) (string, bool) {
	sigs := expr.ScalarSignatures()
	if oid >= pgcatalog.FunctionOIDBase && int(oid-pgcatalog.FunctionOIDBase) < len(sigs) {
		return sigs[oid-pgcatalog.FunctionOIDBase].Name, true
	}
	switch oid {
	case pgcatalog.ArrayInOID:
		return "array_in", true
	case pgcatalog.ArrayOutOID:
		return "array_out", true
	case pgcatalog.ArrayRecvOID:
		return "array_recv", true
	case pgcatalog.ArraySendOID:
		return "array_send", true
	}
	return "", false
}

// ProcSignature gives the types of a pg_proc entry: one of the registry's
// overloads (their OIDs follow ScalarSignatures) or an array I/O function.
func (v *catalogView) ProcSignature(oid uint32) ([]types.T, types.T, bool, bool) {
	sigs := expr.ScalarSignatures()
	if oid >= pgcatalog.FunctionOIDBase && int(oid-pgcatalog.FunctionOIDBase) < len(sigs) {
		sig := sigs[oid-pgcatalog.FunctionOIDBase]
		return sig.Args, sig.Ret, sig.Variadic, true
	}
	if f, ok := v.s.eng.cat.FunctionByOID(oid); ok { // functions.go: CREATE FUNCTION's
		return f.ArgTypes(), f.Ret, false, true
	}
	return nil, types.T{}, false, false
}

func (v *catalogView) ProcOID(name string) (uint32, error) {
	n := strings.TrimPrefix(strings.ToLower(name), "pg_catalog.")
	for i, f := range expr.ScalarSignatures() {
		if f.Name == n {
			return pgcatalog.FunctionOIDBase + uint32(i), nil
		}
	}
	switch n {
	case "array_in":
		return pgcatalog.ArrayInOID, nil
	case "array_out":
		return pgcatalog.ArrayOutOID, nil
	case "array_recv":
		return pgcatalog.ArrayRecvOID, nil
	case "array_send":
		return pgcatalog.ArraySendOID, nil
	}
	if oid, ok := v.userProcOID(name); ok { // functions.go
		return oid, nil
	}
	// Functions that clients name in casts but weir does not implement still
	// resolve, so that their catalog probes run.
	return 0, nil
}

func (v *catalogView) RelationVisible(oid uint32) bool {
	if oid == progressOID || monitorRelationByOID(oid) != nil {
		return false // weir_catalog is never on the search path
	}
	r, ok := v.s.eng.cat.RelationByOID(oid)
	if !ok {
		return true // pg_catalog relations are always visible
	}
	for _, p := range v.s.searchPath() {
		if first, err := v.s.eng.cat.LookupRelation([]string{p}, p, r.Name); err == nil {
			return first.OID == oid
		}
	}
	return false
}

func (v *catalogView) SearchPath() []string { return v.s.searchPath() }

func (v *catalogView) ViewDefinition(oid uint32, pretty bool) (string, bool) {
	r, ok := v.s.eng.cat.RelationByOID(oid)
	if !ok || r.ViewSQL == "" {
		return "", false
	}
	if def, ok := planner.ViewDefinition(v, r.ViewSQL, pretty); ok {
		return def, true
	}
	return " " + r.ViewSQL + ";", true
}

func quoteIdentIfNeeded(s string) string {
	ok := s != ""
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '$')) {
			ok = false
		}
	}
	if ok {
		return s
	}
	return "\"" + strings.ReplaceAll(s, "\"", "\"\"") + "\""
}

// IndexDef implements expr.CatalogFuncs for primary-key indexes.
func (v *catalogView) IndexDef(oid uint32, column int) (string, bool) {
	relOID, ok := pgcatalog.RelationOfIndex(oid)
	if !ok {
		return "", false
	}
	r, ok := v.s.eng.cat.RelationByOID(relOID)
	if !ok || len(r.PrimaryKey) == 0 {
		return "", false
	}
	if column > 0 {
		if column > len(r.PrimaryKey) {
			return "", false
		}
		return quoteIdentIfNeeded(r.PrimaryKey[column-1]), true
	}
	return fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s USING btree (%s)",
		quoteIdentIfNeeded(pgcatalog.PKIndexName(r.Name)), quoteQualified(r.Schema, r.Name), quotedList(r.PrimaryKey)), true
}

// ConstraintDef implements expr.CatalogFuncs for primary keys.
func (v *catalogView) ConstraintDef(oid uint32) (string, bool) {
	relOID, ok := pgcatalog.RelationOfConstraint(oid)
	if !ok {
		return "", false
	}
	r, ok := v.s.eng.cat.RelationByOID(relOID)
	if !ok || len(r.PrimaryKey) == 0 {
		return "", false
	}
	return "PRIMARY KEY (" + quotedList(r.PrimaryKey) + ")", true
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdentIfNeeded(n)
	}
	return strings.Join(q, ", ")
}
