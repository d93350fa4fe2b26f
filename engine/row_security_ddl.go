package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// CREATE POLICY, ALTER POLICY (RENAME TO, TO, USING, WITH CHECK), DROP
// POLICY and ALTER TABLE … {ENABLE | DISABLE | FORCE | NO FORCE} ROW LEVEL
// SECURITY, on tables and streaming tables, checked in PostgreSQL 15's
// order (policy.c) with its messages. Only the table's owner may change
// its policies.

// policyTable finds the table a policy statement names and checks that
// the current user owns it and that it is a table (RangeVarCallbackForPolicy:
// ownership first).
func (s *Session) policyTable(rv *pg_query.RangeVar) (*catalog.Relation, error) {
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err // PostgreSQL looks it up without a position
	}
	if err := s.requireOwner(rel); err != nil {
		return nil, err
	}
	if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a table", rel.Name)
	}
	return rel, nil
}

// policyRoles is policy_role_list_to_array: the roles of TO (PUBLIC when
// none), each of which must exist; PUBLIC among others makes a WARNING and
// stands for all of them.
func (s *Session) policyRoles(specs []*pg_query.Node, io wire.ExecIO) ([]uint32, error) {
	if len(specs) == 0 {
		return []uint32{0}, nil
	}
	var out []uint32
	public := false
	for _, n := range specs {
		spec := n.GetRoleSpec()
		if spec.GetRoletype() == pg_query.RoleSpecType_ROLESPEC_PUBLIC {
			public = true
			continue
		}
		name := s.roleSpecName(spec)
		r, ok := s.eng.cat.Role(name)
		if !ok {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		out = append(out, r.OID)
	}
	if public {
		if len(specs) > 1 && io != nil {
			io.Notice("WARNING", sqlerr.InvalidParameterValue, "ignoring specified roles other than PUBLIC")
		}
		return []uint32{0}, nil
	}
	return out, nil
}

// policyCommand is FOR's command as pg_policy.polcmd.
func policyCommand(name string) (byte, error) {
	switch strings.ToLower(name) {
	case "", "all":
		return catalog.PolicyAll, nil
	case "select":
		return catalog.PolicySelect, nil
	case "insert":
		return catalog.PolicyInsert, nil
	case "update":
		return catalog.PolicyUpdate, nil
	case "delete":
		return catalog.PolicyDelete, nil
	}
	return 0, sqlerr.New(sqlerr.InternalError, "unrecognized policy command")
}

// policyExpr binds a USING or WITH CHECK expression against rel's columns
// and returns it as pg_get_expr shows it.
func (s *Session) policyExpr(rel *catalog.Relation, n *pg_query.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	if err := planner.BindPolicyExpr(s.catalogView(), plannerRelation(rel), n); err != nil {
		// PostgreSQL transforms policy expressions without the statement's
		// text: its errors carry no position.
		if se, ok := err.(*sqlerr.Error); ok && se.Position > 0 {
			cp := *se
			cp.Position = 0
			return "", &cp
		}
		return "", err
	}
	return policyExprText(rel, n)
}

func (s *Session) createPolicy(c *pg_query.CreatePolicyStmt, io wire.ExecIO) (wire.Result, error) {
	cmd, err := policyCommand(c.CmdName)
	if err != nil {
		return nil, err
	}
	if c.WithCheck != nil && (cmd == catalog.PolicySelect || cmd == catalog.PolicyDelete) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "WITH CHECK cannot be applied to SELECT or DELETE")
	}
	if c.Qual != nil && cmd == catalog.PolicyInsert {
		return nil, sqlerr.New(sqlerr.SyntaxError, "only WITH CHECK expression allowed for INSERT")
	}
	roles, err := s.policyRoles(c.Roles, io)
	if err != nil {
		return nil, err
	}
	rel, err := s.policyTable(c.Table)
	if err != nil {
		return nil, err
	}
	p := catalog.Policy{Name: c.PolicyName, Permissive: c.Permissive, Command: cmd, Roles: roles}
	if p.Using, err = s.policyExpr(rel, c.Qual); err != nil {
		return nil, err
	}
	if p.WithCheck, err = s.policyExpr(rel, c.WithCheck); err != nil {
		return nil, err
	}
	if _, err := s.eng.cat.AddPolicy(rel.OID, p); err != nil {
		return nil, err
	}
	return commandResult("CREATE POLICY"), nil
}

func (s *Session) alterPolicy(a *pg_query.AlterPolicyStmt, io wire.ExecIO) (wire.Result, error) {
	var roles []uint32
	if len(a.Roles) > 0 {
		var err error
		if roles, err = s.policyRoles(a.Roles, io); err != nil {
			return nil, err
		}
	}
	rel, err := s.policyTable(a.Table)
	if err != nil {
		return nil, err
	}
	using, err := s.policyExpr(rel, a.Qual)
	if err != nil {
		return nil, err
	}
	check, err := s.policyExpr(rel, a.WithCheck)
	if err != nil {
		return nil, err
	}
	_, err = s.eng.cat.ChangePolicy(rel.OID, a.PolicyName, func(_ *catalog.Relation, p *catalog.Policy) error {
		if a.Qual != nil && p.Command == catalog.PolicyInsert {
			return sqlerr.New(sqlerr.SyntaxError, "only WITH CHECK expression allowed for INSERT")
		}
		if a.WithCheck != nil && (p.Command == catalog.PolicySelect || p.Command == catalog.PolicyDelete) {
			return sqlerr.New(sqlerr.SyntaxError, "only USING expression allowed for SELECT, DELETE")
		}
		if roles != nil {
			p.Roles = roles
		}
		if a.Qual != nil {
			p.Using = using
		}
		if a.WithCheck != nil {
			p.WithCheck = check
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return commandResult("ALTER POLICY"), nil
}

// renamePolicy is ALTER POLICY p ON t RENAME TO q: the new name is
// checked before the old one is looked up, as rename_policy does.
func (s *Session) renamePolicy(r *pg_query.RenameStmt) (wire.Result, error) {
	rel, err := s.policyTable(r.Relation)
	if err != nil {
		return nil, err
	}
	_, err = s.eng.cat.UpdateRelation(rel.OID, func(t *catalog.Relation) error {
		if t.PolicyIndex(r.Newname) >= 0 {
			return sqlerr.New(sqlerr.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", r.Newname, t.Name)
		}
		i := t.PolicyIndex(r.Subname)
		if i < 0 {
			return sqlerr.New(sqlerr.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", r.Subname, t.Name)
		}
		t.Policies[i].Name = r.Newname
		return nil
	})
	if err != nil {
		return nil, err
	}
	return commandResult("ALTER POLICY"), nil
}

// dropPolicy is DROP POLICY [IF EXISTS] p ON t [, ...]: with IF EXISTS a
// missing table or policy is a NOTICE.
func (s *Session) dropPolicy(d *pg_query.DropStmt, io wire.ExecIO) (wire.Result, error) {
	for _, o := range d.Objects {
		names := stringNames(o.GetList().GetItems())
		if len(names) < 2 {
			return nil, sqlerr.New(sqlerr.SyntaxError, "improper policy name")
		}
		policy := names[len(names)-1]
		schema, table := "", names[len(names)-2]
		if len(names) > 2 {
			schema = names[len(names)-3]
		}
		rel, err := s.eng.cat.LookupRelation(s.searchPath(), schema, table)
		if err != nil {
			if d.MissingOk && sqlerr.Code(err) == sqlerr.UndefinedTable {
				if io != nil {
					io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "relation \""+strings.Join(names[:len(names)-1], ".")+"\" does not exist, skipping")
				}
				continue
			}
			return nil, err
		}
		if rel.PolicyIndex(policy) < 0 {
			if d.MissingOk {
				if io != nil {
					io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "policy \""+policy+"\" for relation \""+rel.Name+"\" does not exist, skipping")
				}
				continue
			}
			return nil, sqlerr.New(sqlerr.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", policy, rel.Name)
		}
		// DROP checks the policy's owner, the relation's, and names it
		// "relation" (check_object_ownership).
		if !s.superuser && !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), rel.Owner) {
			return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of relation %s", rel.Name)
		}
		if _, err := s.eng.cat.DropPolicy(rel.OID, policy); err != nil {
			return nil, err
		}
	}
	return commandResult("DROP POLICY"), nil
}

// isRowSecurityAlter reports whether an ALTER TABLE holds only ENABLE,
// DISABLE, FORCE and NO FORCE ROW LEVEL SECURITY (what this file runs).
func isRowSecurityAlter(a *pg_query.AlterTableStmt) bool {
	if len(a.Cmds) == 0 {
		return false
	}
	for _, c := range a.Cmds {
		switch c.GetAlterTableCmd().GetSubtype() {
		case pg_query.AlterTableType_AT_EnableRowSecurity, pg_query.AlterTableType_AT_DisableRowSecurity,
			pg_query.AlterTableType_AT_ForceRowSecurity, pg_query.AlterTableType_AT_NoForceRowSecurity:
		default:
			return false
		}
	}
	return true
}

// alterRowSecurity runs ALTER TABLE [IF EXISTS] t {ENABLE | DISABLE |
// FORCE | NO FORCE} ROW LEVEL SECURITY [, ...] as the table's owner.
func (s *Session) alterRowSecurity(a *pg_query.AlterTableStmt, io wire.ExecIO) (wire.Result, error) {
	rv := a.Relation
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), rv.Schemaname, rv.Relname)
	if err != nil {
		if a.MissingOk && sqlerr.Code(err) == sqlerr.UndefinedTable {
			if io != nil {
				io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "relation \""+rv.Relname+"\" does not exist, skipping")
			}
			return commandResult("ALTER TABLE"), nil
		}
		return nil, err
	}
	if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", rowSecurityAction(a), rel.Name).
			WithDetail("This operation is not supported for " + rel.Kind.Noun() + "s.")
	}
	if err := s.requireOwner(rel); err != nil {
		return nil, err
	}
	var enable, force *bool
	yes, no := true, false
	for _, c := range a.Cmds {
		switch c.GetAlterTableCmd().GetSubtype() {
		case pg_query.AlterTableType_AT_EnableRowSecurity:
			enable = &yes
		case pg_query.AlterTableType_AT_DisableRowSecurity:
			enable = &no
		case pg_query.AlterTableType_AT_ForceRowSecurity:
			force = &yes
		case pg_query.AlterTableType_AT_NoForceRowSecurity:
			force = &no
		}
	}
	if _, err := s.eng.cat.SetRowSecurity(rel.OID, enable, force); err != nil {
		return nil, err
	}
	return commandResult("ALTER TABLE"), nil
}

// rowSecurityAction is how PostgreSQL's messages name the first action of
// a row security ALTER TABLE.
func rowSecurityAction(a *pg_query.AlterTableStmt) string {
	switch a.Cmds[0].GetAlterTableCmd().GetSubtype() {
	case pg_query.AlterTableType_AT_EnableRowSecurity:
		return "ENABLE ROW SECURITY"
	case pg_query.AlterTableType_AT_DisableRowSecurity:
		return "DISABLE ROW SECURITY"
	case pg_query.AlterTableType_AT_ForceRowSecurity:
		return "FORCE ROW SECURITY"
	}
	return "NO FORCE ROW SECURITY"
}

// dropPolicyDependents handles the policies of other tables whose
// expressions read rel, which is being dropped: without CASCADE they keep
// it (2BP01, as pg_depend makes PostgreSQL refuse), with CASCADE they go
// first, each with a NOTICE.
func (s *Session) dropPolicyDependents(rel *catalog.Relation, cascade bool, io wire.ExecIO) error {
	type dependent struct {
		table  *catalog.Relation
		policy string
	}
	var deps []dependent
	for _, other := range s.eng.cat.Relations() {
		if other.OID == rel.OID {
			continue
		}
		for _, p := range other.Policies {
			if policyReads(s, p, rel.OID) {
				deps = append(deps, dependent{other, p.Name})
			}
		}
	}
	if len(deps) == 0 {
		return nil
	}
	if !cascade {
		var detail []string
		for _, d := range deps {
			detail = append(detail, "policy "+d.policy+" on table "+d.table.Name+" depends on "+rel.Kind.Noun()+" "+rel.Name)
		}
		return sqlerr.New("2BP01", "cannot drop %s %s because other objects depend on it", rel.Kind.Noun(), rel.Name).
			WithDetail(strings.Join(detail, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, d := range deps {
		if _, err := s.eng.cat.DropPolicy(d.table.OID, d.policy); err != nil {
			return err
		}
		if io != nil {
			io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "drop cascades to policy "+d.policy+" on table "+d.table.Name)
		}
	}
	return nil
}

// policyReads reports whether p's expressions name relation oid.
func policyReads(s *Session, p catalog.Policy, oid uint32) bool {
	for _, e := range []string{p.Using, p.WithCheck} {
		if e == "" || !strings.Contains(strings.ToLower(e), "select") {
			continue
		}
		for _, rv := range policyRangeVars(e) {
			if r, err := s.eng.cat.LookupRelation(s.searchPath(), rv[0], rv[1]); err == nil && r.OID == oid {
				return true
			}
		}
	}
	return false
}

// alterStreamingRowSecurity is ALTER STREAMING TABLE st {ENABLE | DISABLE
// | FORCE | NO FORCE} ROW LEVEL SECURITY, which ALTER TABLE st does too.
func (s *Session) alterStreamingRowSecurity(rel *catalog.Relation, action string) (wire.Result, error) {
	if err := s.requireOwner(rel); err != nil {
		return nil, err
	}
	yes, no := true, false
	var enable, force *bool
	switch action {
	case "enable row level security":
		enable = &yes
	case "disable row level security":
		enable = &no
	case "force row level security":
		force = &yes
	default:
		force = &no
	}
	if _, err := s.eng.cat.SetRowSecurity(rel.OID, enable, force); err != nil {
		return nil, err
	}
	return commandResult("ALTER STREAMING TABLE"), nil
}

// refuseSecurityInvoker refuses CREATE VIEW … WITH (security_invoker):
// weir's views read their relations as the view's owner, as PostgreSQL's
// do by default, and would silently not be what the option asks for.
func refuseSecurityInvoker(options []*pg_query.Node) error {
	for _, o := range options {
		d := o.GetDefElem()
		if d == nil || !strings.EqualFold(d.Defname, "security_invoker") {
			continue
		}
		if v, err := defElemString(d); err == nil && (v == "false" || v == "off" || v == "0") {
			continue
		}
		return sqlerr.New(sqlerr.FeatureNotSupported, "security_invoker views are not supported").
			WithHint("A view reads its relations as its owner; grant the owner what readers should see, or query the tables directly.")
	}
	return nil
}
