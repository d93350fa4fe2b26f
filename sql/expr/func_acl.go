package expr

import (
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Role membership and ACL functions of PostgreSQL 15: pg_has_role,
// acldefault and aclexplode (the rows of which exec's function scan
// produces with AclExplode), over the aclitem[] texts relacl, attacl,
// nspacl and datacl show (a NULL ACL is the object's default, which
// acldefault spells out). has_table_privilege and its family are in
// func_privileges.go.

// RoleMembership is what pg_has_role asks of the catalog; the engine's
// catalog view implements it beside CatalogFuncs.
type RoleMembership interface {
	// RoleOID resolves a role name.
	RoleOID(name string) (uint32, bool)
	// RoleIsSuperuser reports the role's superuser attribute.
	RoleIsSuperuser(oid uint32) bool
	// IsMemberOf and IsAdminOf are catalog.Catalog's: membership through
	// any chain of roles, and ADMIN OPTION, superuser status aside.
	IsMemberOf(member, role uint32) bool
	IsAdminOf(member, role uint32) bool
	// HasPrivsOfRole is catalog.Catalog's has_privs_of_role: role
	// itself, or reached through memberships that inherit (NOINHERIT
	// stops it); true for a superuser.
	HasPrivsOfRole(member, role uint32) bool
}

func roleMembership(ctx *Ctx) (RoleMembership, error) {
	if rm, ok := ctx.Catalog.(RoleMembership); ok {
		return rm, nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "role membership is not available here")
}

// rolePriv is the privilege set of a pg_has_role argument.
type rolePriv struct{ member, usage, admin bool }

// parseRolePriv reads a comma-separated, case-insensitive list as
// PostgreSQL's convert_role_priv_string does.
func parseRolePriv(s string) (rolePriv, error) {
	var p rolePriv
	for _, part := range strings.Split(s, ",") {
		w := strings.TrimSpace(part)
		switch strings.ToUpper(w) {
		case "MEMBER":
			p.member = true
		case "USAGE":
			p.usage = true
		case "MEMBER WITH ADMIN OPTION", "MEMBER WITH GRANT OPTION", "USAGE WITH ADMIN OPTION", "USAGE WITH GRANT OPTION":
			p.admin = true
		default:
			return p, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", w)
		}
	}
	return p, nil
}

// hasRole is pg_role_aclcheck: any requested privilege suffices. MEMBER
// is membership through any chain; USAGE is having the role's
// privileges, which a NOINHERIT member does not without SET ROLE; a
// superuser is a member and admin of every role.
func hasRole(rm RoleMembership, member, role uint32, p rolePriv) bool {
	super := rm.RoleIsSuperuser(member)
	if p.admin && (super || rm.IsAdminOf(member, role)) {
		return true
	}
	if p.usage && (super || rm.HasPrivsOfRole(member, role)) {
		return true
	}
	return p.member && (super || member == role || rm.IsMemberOf(member, role))
}

func init() {
	// roleArg resolves argument i: a name (42704 if there is no such
	// role) or an OID, taken as it is, as PostgreSQL does.
	roleArg := func(rm RoleMembership, t types.T, v Datum) (uint32, error) {
		if t.OID == types.OidOid {
			return uint32(v.(int64)), nil
		}
		name := v.(string)
		oid, ok := rm.RoleOID(name)
		if !ok {
			return 0, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		return oid, nil
	}
	check := func(ctx *Ctx, userT, roleT types.T, user, role, priv Datum, current bool) (Datum, error) {
		rm, err := roleMembership(ctx)
		if err != nil {
			return nil, err
		}
		var m uint32
		if current {
			if m, err = roleArg(rm, types.Name, ctx.User); err != nil {
				return nil, err
			}
		} else if m, err = roleArg(rm, userT, user); err != nil {
			return nil, err
		}
		r, err := roleArg(rm, roleT, role)
		if err != nil {
			return nil, err
		}
		p, err := parseRolePriv(priv.(string))
		if err != nil {
			return nil, err
		}
		return hasRole(rm, m, r, p), nil
	}
	var ovs []Overload
	for _, ut := range []types.T{types.Name, types.Oid} {
		for _, rt := range []types.T{types.Name, types.Oid} {
			ut, rt := ut, rt
			ovs = append(ovs, Overload{Args: []types.T{ut, rt, types.Text}, Ret: types.Bool,
				Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return check(ctx, ut, rt, a[0], a[1], a[2], false) })})
		}
	}
	for _, rt := range []types.T{types.Name, types.Oid} {
		rt := rt
		ovs = append(ovs, Overload{Args: []types.T{rt, types.Text}, Ret: types.Bool,
			Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return check(ctx, types.Name, rt, nil, a[0], a[1], true) })})
	}
	RegisterScalar("pg_has_role", ovs...)

	aclArr := types.ArrayOf(types.T{OID: types.OidACLItem, Typmod: -1})
	RegisterScalar("acldefault", Overload{Args: []types.T{types.Char, types.Oid}, Ret: aclArr,
		Impl: Strict(aclArr, func(ctx *Ctx, a []Datum) (Datum, error) {
			return aclDefault(ctx, a[0].(string), uint32(a[1].(int64)))
		})})
}

// aclRights are PostgreSQL's privilege bits in bit order: the letter of
// aclitem's text form and aclexplode's privilege_type.
var aclRights = []struct {
	letter byte
	name   string
}{
	{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'d', "DELETE"}, {'D', "TRUNCATE"},
	{'x', "REFERENCES"}, {'t', "TRIGGER"}, {'X', "EXECUTE"}, {'U', "USAGE"}, {'C', "CREATE"},
	{'T', "TEMPORARY"}, {'c', "CONNECT"}, {'s', "SET"}, {'A', "ALTER SYSTEM"},
}

// aclDefaults are acldefault's (PUBLIC's, owner's) rights by object type,
// as letters in bit order.
var aclDefaults = map[string][2]string{
	"c": {"", ""},        // column
	"r": {"", "arwdDxt"}, // relation
	"s": {"", "rwU"},     // sequence
	"d": {"Tc", "CTc"},   // database
	"f": {"X", "X"},      // function
	"l": {"U", "U"},      // language
	"L": {"", "rw"},      // large object
	"n": {"", "UC"},      // schema
	"t": {"", "C"},       // tablespace
	"F": {"", "U"},       // foreign-data wrapper
	"S": {"", "U"},       // foreign server
	"T": {"U", "U"},      // type
	"p": {"", "sA"},      // parameter
}

func aclDefault(ctx *Ctx, objtype string, owner uint32) (Datum, error) {
	d, ok := aclDefaults[objtype]
	if !ok {
		// PostgreSQL's message, but 22023 rather than its XX000: an
		// internal error means a bug here (the SQL fuzzer fails on it),
		// and this is a bad argument.
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized objtype abbreviation: %s", objtype)
	}
	ownerName := aclRoleName(ctx, owner)
	out := []Datum{}
	if d[0] != "" {
		out = append(out, "="+d[0]+"/"+ownerName)
	}
	if d[1] != "" {
		out = append(out, ownerName+"="+d[1]+"/"+ownerName)
	}
	return out, nil
}

// aclRoleName is a role as aclitem's text shows it: its name, quoted when
// it has characters other than letters, digits and _, or its OID when
// there is no such role.
func aclRoleName(ctx *Ctx, oid uint32) string {
	name, ok := "", false
	if ctx.Catalog != nil {
		name, ok = ctx.Catalog.RoleName(oid)
	}
	if !ok {
		return strconv.FormatUint(uint64(oid), 10)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}

// AclExplodeRow is one row of aclexplode: grantor, grantee (0 for
// PUBLIC), privilege_type, is_grantable.
type AclExplodeRow struct {
	Grantor, Grantee uint32
	Privilege        string
	Grantable        bool
}

// AclExplode expands an aclitem[] into one row per privilege, in the
// order PostgreSQL gives them: item by item, privileges in bit order.
// NULL items are skipped.
func AclExplode(ctx *Ctx, acl []Datum) ([]AclExplodeRow, error) {
	var out []AclExplodeRow
	for _, d := range acl {
		item, ok := d.(string)
		if !ok {
			continue
		}
		grantee, privs, grantor, err := parseACLItem(ctx, item)
		if err != nil {
			return nil, err
		}
		for _, r := range aclRights {
			if i := strings.IndexByte(privs, r.letter); i >= 0 {
				out = append(out, AclExplodeRow{Grantor: grantor, Grantee: grantee, Privilege: r.name,
					Grantable: i+1 < len(privs) && privs[i+1] == '*'})
			}
		}
	}
	return out, nil
}

// parseACLItem reads "grantee=privs/grantor" (an empty grantee is PUBLIC).
func parseACLItem(ctx *Ctx, item string) (grantee uint32, privs string, grantor uint32, err error) {
	bad := func() error {
		return sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type aclitem: \"%s\"", item)
	}
	name, rest, ok := readACLName(item)
	if !ok || len(rest) == 0 || rest[0] != '=' {
		return 0, "", 0, bad()
	}
	if name != "" {
		if grantee, err = aclRoleOID(ctx, name); err != nil {
			return 0, "", 0, err
		}
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return 0, "", 0, bad()
	}
	privs = rest[1:slash]
	gname, tail, ok := readACLName(rest[slash+1:])
	if !ok || tail != "" || gname == "" {
		return 0, "", 0, bad()
	}
	if grantor, err = aclRoleOID(ctx, gname); err != nil {
		return 0, "", 0, err
	}
	return grantee, privs, grantor, nil
}

// readACLName reads a possibly double-quoted role name from the start of s.
func readACLName(s string) (name, rest string, ok bool) {
	if s == "" || s[0] != '"' {
		i := strings.IndexAny(s, "=/")
		if i < 0 {
			return s, "", true
		}
		return s[:i], s[i:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:], true
		}
		b.WriteByte(s[i])
	}
	return "", "", false
}

// aclRoleOID resolves an aclitem's role; an OID shown for a dropped role
// reads back as that OID.
func aclRoleOID(ctx *Ctx, name string) (uint32, error) {
	if rm, ok := ctx.Catalog.(RoleMembership); ok {
		if oid, ok := rm.RoleOID(name); ok {
			return oid, nil
		}
	}
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		return uint32(n), nil
	}
	return 0, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
}

// regroleIn is regrole's input: a role name, as an identifier (unquoted
// folds to lower case, "quoted" keeps its case).
func regroleIn(cat CatalogFuncs, s string) (Datum, error) {
	name := s
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		name = strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	} else {
		name = strings.ToLower(s)
	}
	if rm, ok := cat.(RoleMembership); ok {
		if oid, ok := rm.RoleOID(name); ok {
			return int64(oid), nil
		}
	}
	return nil, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
}
