package expr

import (
	"strings"

	"github.com/weir-sql/weir/sql/types"
)

// Databricks' group membership tests, the functions column masks and row
// filters decide with: is_account_group_member(group) and
// is_member(group) are true when the current user has the privileges of
// role group (directly or through roles it inherits, as PostgreSQL's
// has_privs_of_role: a superuser has every role's). weir has one kind of
// group, its roles, so the two are the same; an unknown group is false,
// as in Databricks, not an error. Names
// are matched as written, then in lower case (Databricks' group names do
// not depend on case).

// RolePrivileges is what they ask of the catalog; the engine's catalog
// view implements it beside RoleMembership.
type RolePrivileges interface {
	RoleOID(name string) (uint32, bool)
	HasPrivsOfRole(member, role uint32) bool
}

func init() {
	impl := Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
		rp, ok := ctx.Catalog.(RolePrivileges)
		if !ok {
			return false, nil
		}
		member, ok := rp.RoleOID(ctx.User)
		if !ok {
			return false, nil
		}
		name := a[0].(string)
		group, ok := rp.RoleOID(name)
		if !ok {
			// Databricks' group names do not depend on case; a role
			// created unquoted is stored in lower case.
			if group, ok = rp.RoleOID(strings.ToLower(name)); !ok {
				return false, nil
			}
		}
		return rp.HasPrivsOfRole(member, group), nil
	})
	for _, name := range []string{"is_account_group_member", "is_member"} {
		RegisterScalar(name, Overload{Args: []types.T{types.Text}, Ret: types.Bool, Impl: impl})
	}
}
