package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Row-level security, as PostgreSQL 15's rowsecurity.c applies it. A
// relation with row security enabled (ALTER TABLE … ENABLE ROW LEVEL
// SECURITY) shows a reader only the rows its policies let through: the
// permissive policies that apply to the command and the reader's roles
// are OR-ed, the restrictive ones AND-ed, and with no permissive policy
// nothing is visible (default deny). Superusers, BYPASSRLS roles and the
// table's owner (unless FORCE ROW LEVEL SECURITY) are not subject to it.
//
// Who "the reader" is: the current user for what a query names; the
// view's owner for what a view's query reads (PostgreSQL checks a view's
// relations as the view's owner — current_user inside a policy still
// is the session's); and a streaming table's owner for what its query
// reads, planned at CREATE (by the role that becomes its owner) and again
// at restart, as a materialized view is refreshed as its owner.

// ScanSecurity implements planner.SecurityCatalog: the row filters of
// row-level security, then the column masks (column_masks.go).
func (v *catalogView) ScanSecurity(rel *planner.Relation) (planner.ScanSecurity, error) {
	sec := planner.ScanSecurity{}
	if err := v.rowSecurity(rel, &sec); err != nil {
		return sec, err
	}
	if err := v.columnMasks(rel, &sec); err != nil {
		return sec, err
	}
	return sec, nil
}

var _ planner.SecurityCatalog = (*catalogView)(nil)

// rlsReader is the role row-level security checks a read as.
type rlsReader struct {
	oid       uint32
	superuser bool
	bypass    bool
}

// reader is who reads rel: the owner of the view reading it, the owner
// of the streaming table being re-planned, or the current user.
func (v *catalogView) reader(rel *planner.Relation) rlsReader {
	owner := v.s.readsAs
	if rel.Via != 0 {
		if view, ok := v.s.eng.cat.RelationByOID(rel.Via); ok {
			owner = view.Owner
		}
	}
	if owner != 0 {
		r, ok := v.s.eng.cat.RoleByOID(owner)
		if !ok {
			return rlsReader{}
		}
		return rlsReader{oid: r.OID, superuser: r.Superuser, bypass: r.BypassRLS}
	}
	u := rlsReader{oid: v.s.currentRoleOID(), superuser: v.s.superuser}
	if r, ok := v.s.eng.cat.RoleByOID(u.oid); ok {
		u.bypass = r.BypassRLS
	}
	return u
}

// rowSecurityApplies is PostgreSQL's check_enable_rls: whether rel's
// policies apply to u. With row_security off a read they would apply to
// fails (42501) instead of being filtered.
func (s *Session) rowSecurityApplies(rel *catalog.Relation, u rlsReader) (bool, error) {
	if !rel.RowSecurity || u.superuser || u.bypass {
		return false, nil
	}
	owner := s.eng.cat.HasPrivsOfRole(u.oid, rel.Owner)
	if owner && !rel.ForceRowSecurity {
		return false, nil
	}
	if s.settings["row_security"] == "off" {
		err := sqlerr.New(sqlerr.InsufficientPrivilege, "query would be affected by row-level security policy for table \"%s\"", rel.Name)
		if owner {
			err = err.WithHint("To disable the policy for the table's owner, use ALTER TABLE NO FORCE ROW LEVEL SECURITY.")
		}
		return false, err
	}
	return true, nil
}

// policiesFor splits rel's policies that apply to cmd and to u into
// permissive and restrictive ones, in name order (PostgreSQL sorts them
// by name so that their quals come out in a stable order).
func (s *Session) policiesFor(rel *catalog.Relation, cmd byte, u rlsReader) (permissive, restrictive []catalog.Policy) {
	for _, p := range sortedPolicies(rel) {
		if !p.AppliesTo(cmd) || !s.policyRoleApplies(&p, u) {
			continue
		}
		if p.Permissive {
			permissive = append(permissive, p)
		} else {
			restrictive = append(restrictive, p)
		}
	}
	return permissive, restrictive
}

// policyRoleApplies is check_role_for_policy: PUBLIC, or a role u has the
// privileges of.
func (s *Session) policyRoleApplies(p *catalog.Policy, u rlsReader) bool {
	if p.IsPublic() {
		return true
	}
	for _, r := range p.Roles {
		if s.eng.cat.HasPrivsOfRole(u.oid, r) {
			return true
		}
	}
	return false
}

// rowSecurity adds rel's SELECT policies as row filters (add_security_quals):
// each restrictive USING, then the OR of the permissive USINGs; "false"
// when no permissive policy with a USING applies.
func (v *catalogView) rowSecurity(rel *planner.Relation, sec *planner.ScanSecurity) error {
	if rel.Kind != planner.StoredTable || rel.ViewSQL != "" {
		return nil
	}
	cr, ok := v.s.eng.cat.RelationByOID(rel.OID)
	if !ok || !cr.RowSecurity {
		return nil
	}
	u := v.reader(rel)
	on, err := v.s.rowSecurityApplies(cr, u)
	if err != nil || !on {
		return err
	}
	filters := v.s.selectFilters(cr, u)
	if err := v.checkPolicyRecursion(cr, filters, u, map[uint32]bool{cr.OID: true}); err != nil { // row_security_recursion.go
		return err
	}
	sec.RowFilters = append(sec.RowFilters, filters...)
	return nil
}

// selectFilters are the row filters of rel's SELECT policies for u.
func (s *Session) selectFilters(rel *catalog.Relation, u rlsReader) []string {
	permissive, restrictive := s.policiesFor(rel, catalog.PolicySelect, u)
	var ors []string
	for _, p := range permissive {
		if p.Using != "" {
			ors = append(ors, "("+p.Using+")")
		}
	}
	if len(ors) == 0 {
		return []string{"false"}
	}
	var out []string
	for _, p := range restrictive {
		if p.Using != "" {
			out = append(out, "("+p.Using+")")
		}
	}
	return append(out, strings.Join(ors, " OR "))
}

// rowCheck is one WITH CHECK option: the new rows must make pred true;
// policy names the restrictive policy it is ("" for the permissive ones
// together), as PostgreSQL's error message does.
type rowCheck struct {
	policy string
	pred   expr.Expr
}

// insertChecks are the WITH CHECK options of an INSERT into rel by the
// current user (add_with_check_options): the OR of the permissive
// policies' WITH CHECK (or USING when they have none), "false" without
// one, then each restrictive policy's. nil when row security does not
// apply.
func (s *Session) insertChecks(rel *planner.Relation) ([]rowCheck, error) {
	cr, ok := s.eng.cat.RelationByOID(rel.OID)
	if !ok || !cr.RowSecurity {
		return nil, nil
	}
	v := s.catalogView()
	u := v.reader(&planner.Relation{})
	on, err := s.rowSecurityApplies(cr, u)
	if err != nil || !on {
		return nil, err
	}
	permissive, restrictive := s.policiesFor(cr, catalog.PolicyInsert, u)
	checkOf := func(p catalog.Policy) string {
		if p.WithCheck != "" {
			return p.WithCheck
		}
		return p.Using
	}
	// The permissive policies together (polname NULL in PostgreSQL's
	// WithCheckOption), then each restrictive one under its name.
	type check struct{ policy, sql string }
	var ors []string
	for _, p := range permissive {
		if c := checkOf(p); c != "" {
			ors = append(ors, "("+c+")")
		}
	}
	checks := []check{{sql: "false"}}
	if len(ors) > 0 {
		checks[0].sql = strings.Join(ors, " OR ")
	}
	for _, p := range restrictive {
		if c := checkOf(p); c != "" {
			checks = append(checks, check{policy: p.Name, sql: c})
		}
	}
	target := plannerRelation(cr)
	out := make([]rowCheck, len(checks))
	for i, c := range checks {
		e, err := planner.BindRowExpr(v, target, c.sql)
		if err != nil {
			return nil, err
		}
		out[i] = rowCheck{policy: c.policy, pred: e}
	}
	return out, nil
}

// checkNewRows fails with 42501 at the first row of batches (in order)
// that one of checks does not make true (NULL fails, as in PostgreSQL).
func (s *Session) checkNewRows(ctx context.Context, rel *planner.Relation, checks []rowCheck, batches []arrow.RecordBatch) error {
	if len(checks) == 0 {
		return nil
	}
	schema := planner.Schema(relColumns(rel))
	rows := make([]arrow.RecordBatch, 0, len(batches))
	for _, b := range batches {
		if b.NumRows() > 0 {
			rows = append(rows, array.NewRecordBatch(schema, b.Columns(), b.NumRows()))
		}
	}
	preds := make([]expr.Expr, len(checks))
	for i, c := range checks {
		preds[i] = c.pred
	}
	out, err := s.evalChecks(ctx, rel, preds, rows)
	if err != nil {
		return err
	}
	for _, b := range out {
		for row := 0; row < int(b.NumRows()); row++ {
			for i := range checks {
				p, ok := b.Column(i).(*array.Boolean)
				if !ok || p.IsNull(row) || !p.Value(row) {
					return newRowViolation(rel.Name, checks[i].policy)
				}
			}
		}
	}
	return nil
}

func newRowViolation(table, policy string) error {
	if policy != "" {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "new row violates row-level security policy \"%s\" for table \"%s\"", policy, table)
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "new row violates row-level security policy for table \"%s\"", table)
}

// checkInsertRowSecurity checks the rows an INSERT adds to rel against
// its policies for the current user.
func (s *Session) checkInsertRowSecurity(ctx context.Context, rel *planner.Relation, batches []arrow.RecordBatch) error {
	checks, err := s.insertChecks(rel)
	if err != nil {
		return err
	}
	return s.checkNewRows(ctx, rel, checks, batches)
}

// refuseCopyFromRowSecurity is PostgreSQL 15's refusal of COPY FROM into a
// table whose policies apply to the current user.
func (s *Session) refuseCopyFromRowSecurity(rel *planner.Relation) error {
	cr, ok := s.eng.cat.RelationByOID(rel.OID)
	if !ok || !cr.RowSecurity {
		return nil
	}
	on, err := s.rowSecurityApplies(cr, s.catalogView().reader(&planner.Relation{}))
	if err != nil || !on {
		return err
	}
	return sqlerr.New(sqlerr.FeatureNotSupported, "COPY FROM not supported with row-level security").
		WithHint("Use INSERT statements instead.")
}

// scanSecurityEnv is what a bound plan's row filters and masks depend on
// besides the catalog: the current user and row_security. A statement
// bound under another is bound again (statement.go). A comparable value,
// so that checking it on every Execute allocates nothing.
type scanSecurityEnv struct {
	user, rowSecurity string
	superuser         bool
	readsAs           uint32
}

func (s *Session) scanSecurityEnv() scanSecurityEnv {
	return scanSecurityEnv{user: s.user, rowSecurity: s.settings["row_security"], superuser: s.superuser, readsAs: s.readsAs}
}

// sortedPolicies returns rel's policies by name: PostgreSQL applies them
// in name order (RelationBuildRowSecurity sorts them), whatever the order
// they were created in.
func sortedPolicies(rel *catalog.Relation) []catalog.Policy {
	out := append([]catalog.Policy(nil), rel.Policies...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
