package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Statements reach the audit log from one place: Execute (statement.go)
// asks auditBefore what a statement is before it runs and hands the answer
// to auditStatement with the statement's error after it ran; a statement
// refused already at Parse (a SELECT of a table the role may not read) is
// auditRefused's (session.go's Prepare). What is recorded:
//
//   - ddl: CREATE, ALTER, DROP, COMMENT, REFRESH, SECURITY LABEL, REASSIGN,
//     IMPORT: weir's own statements (CREATE STREAMING TABLE, CREATE
//     SOURCE, CREATE SECRET …) as much as PostgreSQL's, told by their
//     first word so that new statement types are audited without a list
//     to keep;
//   - grant / revoke: GRANT and REVOKE, of privileges and of roles;
//   - denied: any statement that failed with 42501, a DDL or GRANT one
//     too (with its object): "what was refused" is one kind to search.
//
// Each with its success, the SQLSTATE and message of a failure, the
// object's name when the statement names one, and the text redacted
// (audit_redact.go).

// auditPending is what auditBefore found of a statement that is audited
// whatever its outcome (nil: only a 42501 is).
type auditPending struct {
	kind   string
	object string
	// rel is the object when it is a relation named without its schema,
	// to be resolved on the search path: before the statement runs (DROP
	// and ALTER act on the relation that is there), or after it for
	// CREATE (the one it made, or the one whose name it could not take).
	rel string
}

// auditKinds are the audit kinds of statements by their first word.
var auditKinds = []struct{ word, kind string }{
	{"CREATE", AuditDDL}, {"ALTER", AuditDDL}, {"DROP", AuditDDL}, {"COMMENT", AuditDDL}, {"REFRESH", AuditDDL},
	{"SECURITY", AuditDDL}, {"REASSIGN", AuditDDL}, {"IMPORT", AuditDDL},
	{"GRANT", AuditGrant}, {"REVOKE", AuditRevoke},
}

// auditKindOf is the audit kind of a statement starting with word ("":
// none). It allocates nothing: every statement asks.
func auditKindOf(word string) string {
	for _, k := range auditKinds {
		if strings.EqualFold(word, k.word) {
			return k.kind
		}
	}
	return ""
}

// auditBefore is what the audit log will record of st whatever its
// outcome (nil: only a 42501).
func (s *Session) auditBefore(st *statement) *auditPending {
	word := auditFirstWord(st.parsed.Text)
	kind := auditKindOf(word)
	if kind == "" {
		return nil
	}
	p := &auditPending{kind: kind}
	p.object, p.rel = s.auditObject(st)
	if p.rel != "" && !strings.EqualFold(word, "CREATE") {
		if q := s.auditQualify(p.rel); q != "" {
			p.object, p.rel = q, ""
		}
	}
	return p
}

// auditStatement records st, which ended with *err, as p says (nil p: only
// a 42501 is recorded, as denied).
func (s *Session) auditStatement(st *statement, p *auditPending, err *error) {
	code := sqlerr.Code(*err)
	if p == nil && code != sqlerr.InsufficientPrivilege {
		return
	}
	ev := AuditEvent{Kind: AuditDenied, Statement: st.parsed.Text, Success: *err == nil}
	if p != nil {
		ev.Object = p.object
		if code != sqlerr.InsufficientPrivilege {
			ev.Kind = p.kind
		}
		if p.rel != "" {
			if q := s.auditQualify(p.rel); q != "" {
				ev.Object = q
			}
		}
	}
	if *err != nil {
		ev.Detail = code + " " + sqlerr.From(*err).Message
	}
	s.audit(ev)
}

// auditRefused records a statement text refused at Parse with 42501.
func (s *Session) auditRefused(text string, err error) {
	if sqlerr.Code(err) != sqlerr.InsufficientPrivilege {
		return
	}
	s.audit(AuditEvent{Kind: AuditDenied, Statement: text, Detail: sqlerr.InsufficientPrivilege + " " + sqlerr.From(err).Message})
}

// auditQualify is schema.name of the relation name resolves to on the
// search path ("" if none).
func (s *Session) auditQualify(name string) string {
	if r, err := s.eng.cat.LookupRelation(s.searchPath(), "", name); err == nil {
		return qualifiedName(r.Schema, r.Name)
	}
	return ""
}

// auditFirstWord is the first keyword of a statement text, past blanks and
// comments.
func auditFirstWord(text string) string {
	i := 0
	for i < len(text) {
		switch {
		case text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == '(':
			i++
		case strings.HasPrefix(text[i:], "--"):
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				return ""
			}
		case strings.HasPrefix(text[i:], "/*"):
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				return ""
			}
		default:
			j := i
			for j < len(text) && (text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z') {
				j++
			}
			return text[i:j]
		}
	}
	return ""
}

// auditObject is the name of what st acts on, as written ("" when it
// names none cheaply); rel is that name again when it is a relation's
// without a schema, to be qualified.
func (s *Session) auditObject(st *statement) (object, rel string) {
	if ss := st.stream; ss != nil {
		if ss.Name != "" {
			if !strings.Contains(ss.Name, ".") && ss.Schema == "" {
				return ss.Name, ss.Name
			}
			return qualifiedName(ss.Schema, ss.Name), ""
		}
		names := make([]string, 0, len(ss.Names))
		for _, n := range ss.Names {
			names = append(names, n.Name)
		}
		return strings.Join(names, ", "), ""
	}
	n := st.parsed.Node
	switch x := n.GetNode().(type) {
	case *pg_query.Node_CreateStmt:
		return auditRangeVarName(x.CreateStmt.Relation)
	case *pg_query.Node_ViewStmt:
		return auditRangeVarName(x.ViewStmt.View)
	case *pg_query.Node_AlterTableStmt:
		return auditRangeVarName(x.AlterTableStmt.Relation)
	case *pg_query.Node_RenameStmt:
		if x.RenameStmt.Relation != nil {
			return auditRangeVarName(x.RenameStmt.Relation)
		}
		return x.RenameStmt.Subname, ""
	case *pg_query.Node_CreateSchemaStmt:
		return x.CreateSchemaStmt.Schemaname, ""
	case *pg_query.Node_CreateRoleStmt:
		return x.CreateRoleStmt.Role, ""
	case *pg_query.Node_AlterRoleStmt:
		if r := x.AlterRoleStmt.Role; r != nil {
			return r.Rolename, ""
		}
	case *pg_query.Node_DropRoleStmt:
		return auditRoleNames(x.DropRoleStmt.Roles), ""
	case *pg_query.Node_GrantRoleStmt:
		return auditGrantedRoleNames(x.GrantRoleStmt.GrantedRoles), ""
	case *pg_query.Node_DropStmt:
		names := auditObjectNames(x.DropStmt.Objects)
		if len(names) == 1 && !strings.Contains(names[0], ".") && auditIsRelation(x.DropStmt.RemoveType) {
			return names[0], names[0]
		}
		return strings.Join(names, ", "), ""
	case *pg_query.Node_GrantStmt:
		g := x.GrantStmt
		names := auditObjectNames(g.Objects)
		if g.Targtype == pg_query.GrantTargetType_ACL_TARGET_OBJECT && len(names) == 1 && !strings.Contains(names[0], ".") &&
			auditIsRelation(g.Objtype) {
			return names[0], names[0]
		}
		return strings.Join(names, ", "), ""
	case *pg_query.Node_CommentStmt:
		if o := auditObjectNames([]*pg_query.Node{x.CommentStmt.Object}); len(o) == 1 {
			if !strings.Contains(o[0], ".") && auditIsRelation(x.CommentStmt.Objtype) {
				return o[0], o[0]
			}
			return o[0], ""
		}
	}
	return "", ""
}

func auditRangeVarName(rv *pg_query.RangeVar) (object, rel string) {
	if rv == nil {
		return "", ""
	}
	if rv.Schemaname != "" {
		return qualifiedName(rv.Schemaname, rv.Relname), ""
	}
	return rv.Relname, rv.Relname
}

func auditIsRelation(t pg_query.ObjectType) bool {
	switch t {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_VIEW, pg_query.ObjectType_OBJECT_MATVIEW,
		pg_query.ObjectType_OBJECT_FOREIGN_TABLE, pg_query.ObjectType_OBJECT_SEQUENCE, pg_query.ObjectType_OBJECT_COLUMN:
		return true
	}
	return false
}

// auditObjectNames are the names of a statement's objects: a.b for a qualified
// name, the word itself for a schema, role or database.
func auditObjectNames(objs []*pg_query.Node) []string {
	var out []string
	for _, o := range objs {
		switch {
		case o.GetList() != nil:
			var parts []string
			for _, p := range o.GetList().Items {
				if str := p.GetString_(); str != nil {
					parts = append(parts, str.Sval)
				}
			}
			out = append(out, strings.Join(parts, "."))
		case o.GetString_() != nil:
			out = append(out, o.GetString_().Sval)
		case o.GetRangeVar() != nil:
			name, _ := auditRangeVarName(o.GetRangeVar())
			out = append(out, name)
		case o.GetRoleSpec() != nil:
			out = append(out, o.GetRoleSpec().Rolename)
		}
	}
	return out
}

func auditRoleNames(roles []*pg_query.Node) string {
	var out []string
	for _, r := range roles {
		if rs := r.GetRoleSpec(); rs != nil {
			out = append(out, rs.Rolename)
		}
	}
	return strings.Join(out, ", ")
}

func auditGrantedRoleNames(privs []*pg_query.Node) string {
	var out []string
	for _, p := range privs {
		if ap := p.GetAccessPriv(); ap != nil {
			out = append(out, ap.PrivName)
		}
	}
	return strings.Join(out, ", ")
}
