package engine

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// GRANT and REVOKE of privileges on objects (GrantStmt), as PostgreSQL
// 15's ExecuteGrantStmt: privileges are checked and granted object by
// object, all in one catalog change per object; the grantor is chosen as
// select_best_grantor does (the owner when the current user has the
// owner's privileges, otherwise the role whose grant options cover most
// of what is asked); privileges the grantor may not grant are left out
// with a WARNING, as PostgreSQL words it.

// grantTarget is one object a GRANT names.
type grantTarget struct {
	kind  catalog.ObjectKind
	noun  string // "table", "schema", … for messages
	name  string
	owner uint32
	acl   catalog.ACL
	// store writes the object's new ACL (and, for relations, its
	// columns' ACLs by column index).
	store func(acl catalog.ACL, cols map[int]catalog.ACL) error
	// rel is the relation for relation targets, nil otherwise.
	rel *catalog.Relation
}

// grantPrivilege is one item of the privilege list: privs on the object,
// or on the columns cols.
type grantPrivilege struct {
	privs catalog.Privileges
	cols  []string
}

func (s *Session) grant(g *pg_query.GrantStmt, io wire.ExecIO) (wire.Result, error) {
	tag := "GRANT"
	if !g.IsGrant {
		tag = "REVOKE"
	}
	kind, noun, err := grantObjectKind(g.Objtype)
	if err != nil {
		return nil, err
	}
	privs, all, err := grantPrivileges(g, kind, noun)
	if err != nil {
		return nil, err
	}
	grantees, err := s.grantees(g.Grantees)
	if err != nil {
		return nil, err
	}
	if g.Grantor != nil {
		// GRANTED BY must name the current user in PostgreSQL 15.
		if name := s.roleSpecName(g.Grantor); name != s.user {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "grantor must be current user")
		}
	}
	targets, err := s.grantTargets(g, kind, noun)
	if err != nil {
		return nil, err
	}
	cascade := g.Behavior == pg_query.DropBehavior_DROP_CASCADE
	var notes roleNotices
	for _, t := range targets {
		if err := s.grantOn(t, g.IsGrant, g.GrantOption, cascade, privs, all, grantees, &notes); err != nil {
			notes.send(io)
			return nil, err
		}
	}
	notes.send(io)
	return commandResult(tag), nil
}

// grantObjectKind maps GRANT's object type to an ACL kind and its noun.
func grantObjectKind(t pg_query.ObjectType) (catalog.ObjectKind, string, error) {
	switch t {
	case pg_query.ObjectType_OBJECT_TABLE:
		return catalog.ObjRelation, "table", nil
	case pg_query.ObjectType_OBJECT_SCHEMA:
		return catalog.ObjSchema, "schema", nil
	case pg_query.ObjectType_OBJECT_DATABASE:
		return catalog.ObjDatabase, "database", nil
	case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
		// GRANT ... ON SECRET, rewritten by secretStatementText
		// (grant_secret.go): weir's secrets play PostgreSQL's foreign
		// servers' part.
		return catalog.ObjSecret, "secret", nil
	}
	return 0, "", sqlerr.New(sqlerr.FeatureNotSupported, "GRANT on %s is not supported", strings.ToLower(strings.TrimPrefix(t.String(), "OBJECT_")))
}

// grantPrivileges reads the privilege list: nil privileges with all set
// for ALL [PRIVILEGES]. A privilege that does not apply to the kind is
// 0LP01, as PostgreSQL's "invalid privilege type X for table".
func grantPrivileges(g *pg_query.GrantStmt, kind catalog.ObjectKind, noun string) ([]grantPrivilege, bool, error) {
	if len(g.Privileges) == 0 {
		return []grantPrivilege{{privs: catalog.AllPrivileges(kind)}}, true, nil
	}
	var out []grantPrivilege
	for _, n := range g.Privileges {
		ap := n.GetAccessPriv()
		var p catalog.Privileges
		if ap.GetPrivName() == "" { // ALL (cols)
			p = catalog.AllPrivileges(catalog.ObjColumn)
		} else {
			var ok bool
			p, ok = catalog.PrivilegeByName(ap.GetPrivName())
			if !ok {
				return nil, false, sqlerr.New(sqlerr.SyntaxError, "unrecognized privilege type \"%s\"", ap.GetPrivName())
			}
		}
		var cols []string
		for _, c := range ap.GetCols() {
			cols = append(cols, c.GetString_().GetSval())
		}
		if what := invalidPrivilegeFor(kind, noun, p, len(cols) > 0); what != "" {
			return nil, false, sqlerr.New("0LP01", "invalid privilege type %s for %s", strings.ToUpper(ap.GetPrivName()), what)
		}
		out = append(out, grantPrivilege{privs: p, cols: cols})
	}
	return out, false, nil
}

// invalidPrivilegeFor names what p is not valid for ("" when it is), in
// PostgreSQL's order of checks: a relation's privileges are first
// checked against those of relations and sequences ("for relation"),
// then against a column's ("for column") or a table's ("for table":
// USAGE, a sequence's privilege).
func invalidPrivilegeFor(kind catalog.ObjectKind, noun string, p catalog.Privileges, onColumns bool) string {
	if kind != catalog.ObjRelation {
		if p&^catalog.AllPrivileges(kind) != 0 {
			return noun
		}
		return ""
	}
	sequence := catalog.PrivSelect | catalog.PrivUpdate | catalog.PrivUsage
	switch {
	case p&^(catalog.AllPrivileges(kind)|sequence) != 0:
		return "relation"
	case onColumns && p&^catalog.AllPrivileges(catalog.ObjColumn) != 0:
		return "column"
	case !onColumns && p&^catalog.AllPrivileges(kind) != 0:
		return "table"
	}
	return ""
}

// grantees resolves the grantee list: PUBLIC is 0; an unknown role 42704.
func (s *Session) grantees(specs []*pg_query.Node) ([]uint32, error) {
	var out []uint32
	for _, n := range specs {
		rs := n.GetRoleSpec()
		if rs.GetRoletype() == pg_query.RoleSpecType_ROLESPEC_PUBLIC {
			out = append(out, 0)
			continue
		}
		name := s.roleSpecName(rs)
		r, ok := s.eng.cat.Role(name)
		if !ok {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		out = append(out, r.OID)
	}
	return out, nil
}

// grantTargets resolves the objects the statement names.
func (s *Session) grantTargets(g *pg_query.GrantStmt, kind catalog.ObjectKind, noun string) ([]grantTarget, error) {
	if kind != catalog.ObjRelation {
		return s.objectGrantTargets(g, kind) // grant_objects.go
	}
	var rels []*catalog.Relation
	switch g.Targtype {
	case pg_query.GrantTargetType_ACL_TARGET_OBJECT:
		for _, n := range g.Objects {
			rv := n.GetRangeVar()
			if err := s.requireNamedSchemaUsage(rv.GetSchemaname()); err != nil { // owner.go
				return nil, err
			}
			rel, err := s.eng.cat.LookupRelation(s.searchPath(), rv.GetSchemaname(), rv.GetRelname())
			if err != nil {
				return nil, sqlerr.PositionIfNone(err, int(rv.GetLocation())+1)
			}
			rels = append(rels, rel)
		}
	case pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		for _, n := range g.Objects {
			name := n.GetString_().GetSval()
			if _, ok := s.eng.cat.Schema(name); !ok {
				return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if err := s.requireNamedSchemaUsage(name); err != nil { // owner.go
				return nil, err
			}
			for _, r := range s.eng.cat.Relations() {
				if r.Schema == name {
					rels = append(rels, r)
				}
			}
		}
	default:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "ALTER DEFAULT PRIVILEGES is not supported")
	}
	out := make([]grantTarget, 0, len(rels))
	for _, r := range rels {
		oid := r.OID
		out = append(out, grantTarget{kind: kind, noun: relationNoun(r.Kind), name: r.Name, owner: r.Owner, acl: r.ACL, rel: r,
			store: func(acl catalog.ACL, cols map[int]catalog.ACL) error {
				_, err := s.eng.cat.UpdateRelation(oid, func(rel *catalog.Relation) error {
					rel.ACL = acl
					for i, a := range cols {
						rel.Columns[i].ACL = a
					}
					return nil
				})
				return err
			}})
	}
	return out, nil
}

// grantOn grants or revokes privs on one object, as PostgreSQL's
// ExecGrant_Relation and ExecGrant_Attribute: the object's own
// privileges first, checked against the grant options the grantor holds
// on it, then each column's, checked against those it holds on the
// relation or that column (attnum order). A REVOKE of a relation's
// privileges reaches every column too, system columns included (which
// hold nothing in weir, but are warned about as PostgreSQL does).
func (s *Session) grantOn(t grantTarget, isGrant, grantOption, cascade bool, privs []grantPrivilege, all bool, grantees []uint32, notes *roleNotices) error {
	me := s.currentRoleOID()
	var asked catalog.Privileges
	colAsked := map[int]catalog.Privileges{}
	for _, p := range privs {
		if len(p.cols) == 0 {
			asked |= p.privs
			continue
		}
		for _, c := range p.cols {
			i := t.rel.Column(c)
			if i < 0 {
				return sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, t.name)
			}
			colAsked[i] |= p.privs
		}
	}
	relACL := t.acl.Effective(t.kind, t.owner)
	acl := relACL
	if asked != 0 || len(colAsked) == 0 {
		grantor, options := s.bestGrantor(t, me, relACL)
		if options == 0 && !s.superuser {
			// restrict_and_check_grant: with no grant option at all, a
			// role that holds no privilege on the object is told it is
			// out of bounds; one that holds some gets a warning.
			held, _ := s.eng.cat.Privileges(me, t.kind, t.acl, t.owner)
			if held == 0 && !s.anyColumnPrivilege(t, me) {
				return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for %s %s", t.noun, t.name)
			}
		}
		this := asked & options
		if this != asked {
			warnGrant(notes, isGrant, this == 0, all, fmt.Sprintf("\"%s\"", t.name))
		}
		if this != 0 {
			var err error
			if acl, err = applyGrant(acl, isGrant, grantOption, cascade, grantees, grantor, this, t.owner, s.eng.cat); err != nil {
				return err
			}
		}
	}
	cols := map[int]catalog.ACL{}
	if t.rel != nil {
		colAll := catalog.AllPrivileges(catalog.ObjColumn)
		expand := catalog.Privileges(0)
		if !isGrant {
			expand = asked & colAll
		}
		if expand != 0 && t.rel.Kind.PGRelKind() != 'v' {
			// System columns: nothing is stored for them, so only the
			// warnings of a grantor without grant options remain.
			for _, name := range systemColumnNames {
				if err := s.checkColumnGrant(t, me, relACL, nil, name, expand, isGrant, notes); err != nil {
					return err
				}
			}
		}
		for i := range t.rel.Columns {
			want := colAsked[i] | expand
			if want == 0 {
				continue
			}
			col := t.rel.Columns[i]
			grantor, this, err := s.columnGrantor(t, me, relACL, col.ACL, col.Name, want, isGrant, notes)
			if err != nil {
				return err
			}
			if this == 0 {
				continue
			}
			ca, err := applyGrant(col.ACL.Clone(), isGrant, grantOption, cascade, grantees, grantor, this&colAll, t.owner, s.eng.cat)
			if err != nil {
				return err
			}
			if len(ca) == 0 {
				ca = nil // a column without privileges shows NULL
			}
			cols[i] = ca
		}
	}
	return t.store(acl, cols)
}

// systemColumnNames are a table's system columns in attnum order
// (tableoid is -6 … ctid -1), as PostgreSQL walks them.
var systemColumnNames = []string{"tableoid", "cmax", "xmax", "cmin", "xmin", "ctid"}

// checkColumnGrant is columnGrantor for a column nothing is stored for.
func (s *Session) checkColumnGrant(t grantTarget, me uint32, relACL, colACL catalog.ACL, name string, want catalog.Privileges, isGrant bool, notes *roleNotices) error {
	_, _, err := s.columnGrantor(t, me, relACL, colACL, name, want, isGrant, notes)
	return err
}

// columnGrantor picks the grantor of a column's privileges from the
// relation's ACL and the column's, and gives what of want it may grant:
// a role with no grant option there and no privilege on the relation or
// the column gets 42501 "permission denied for column"; one with some
// gets a warning for what it may not grant.
func (s *Session) columnGrantor(t grantTarget, me uint32, relACL, colACL catalog.ACL, name string, want catalog.Privileges, isGrant bool, notes *roleNotices) (uint32, catalog.Privileges, error) {
	merged := append(relACL.Clone(), colACL...)
	grantor, options := s.bestGrantor(t, me, merged)
	if options == 0 && !s.superuser {
		held, _ := s.eng.cat.Privileges(me, t.kind, t.acl, t.owner)
		colHeld, _ := s.eng.cat.Privileges(me, catalog.ObjColumn, colACL, t.owner)
		if held == 0 && colHeld == 0 {
			return 0, 0, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for column \"%s\" of relation \"%s\"", name, t.name)
		}
	}
	this := want & options
	if this != want {
		warnGrant(notes, isGrant, this == 0, false, fmt.Sprintf("column \"%s\" of relation \"%s\"", name, t.name))
	}
	return grantor, this, nil
}

// applyGrant grants or revokes privs for every grantee.
func applyGrant(acl catalog.ACL, isGrant, grantOption, cascade bool, grantees []uint32, grantor uint32, privs catalog.Privileges, owner uint32, cat *catalog.Catalog) (catalog.ACL, error) {
	held := func(role uint32, a catalog.ACL, p catalog.Privileges) catalog.Privileges {
		_, g := a.Mask(func(r uint32) bool { return cat.HasPrivsOfRole(role, r) })
		return g & p
	}
	for _, ge := range grantees {
		var err error
		if isGrant {
			if grantOption && ge == 0 {
				return nil, sqlerr.New("0LP01", "grant options can only be granted to roles")
			}
			acl, err = acl.Grant(ge, grantor, owner, privs, grantOption)
		} else {
			acl, err = acl.Revoke(ge, grantor, privs, grantOption, cascade, owner, held)
		}
		if err != nil {
			return nil, err
		}
	}
	if acl == nil {
		acl = catalog.ACL{} // an explicit, empty ACL: not the default
	}
	return acl, nil
}

// bestGrantor is select_best_grantor: the owner (with every grant
// option) when the current user has the owner's privileges or is a
// superuser; otherwise the current user or the role it has the
// privileges of whose grant options cover most, preferring itself.
func (s *Session) bestGrantor(t grantTarget, me uint32, acl catalog.ACL) (uint32, catalog.Privileges) {
	all := catalog.AllPrivileges(t.kind)
	if s.superuser || s.eng.cat.HasPrivsOfRole(me, t.owner) {
		return t.owner, all
	}
	best, bestOpts := me, direct(acl, me)
	for _, it := range acl {
		if it.Grantee == me || it.Grantee == 0 || !s.eng.cat.HasPrivsOfRole(me, it.Grantee) {
			continue
		}
		if o := direct(acl, it.Grantee); bits(o) > bits(bestOpts) {
			best, bestOpts = it.Grantee, o
		}
	}
	return best, bestOpts
}

// direct is the grant options acl gives role itself.
func direct(acl catalog.ACL, role uint32) catalog.Privileges {
	var g catalog.Privileges
	for _, it := range acl {
		if it.Grantee == role {
			g |= it.GrantOption
		}
	}
	return g
}

func bits(p catalog.Privileges) int {
	n := 0
	for ; p != 0; p &= p - 1 {
		n++
	}
	return n
}

// anyColumnPrivilege reports whether role holds a privilege on some
// column of the target.
func (s *Session) anyColumnPrivilege(t grantTarget, role uint32) bool {
	if t.rel == nil {
		return false
	}
	for i := range t.rel.Columns {
		if s.eng.cat.ColumnPrivileges(role, t.rel, i) != 0 {
			return true
		}
	}
	return false
}

// warnGrant adds PostgreSQL's warning for privileges left out; what is
// the object as the warning names it ("t" quoted, or column "c" of
// relation "t").
func warnGrant(notes *roleNotices, isGrant, none, all bool, what string) {
	switch {
	case isGrant && none:
		notes.add("WARNING", "01007", "no privileges were granted for "+what)
	case isGrant && !all:
		notes.add("WARNING", "01007", "not all privileges were granted for "+what)
	case !isGrant && none:
		notes.add("WARNING", "01006", "no privileges could be revoked for "+what)
	case !isGrant && !all:
		notes.add("WARNING", "01006", "not all privileges could be revoked for "+what)
	}
}
