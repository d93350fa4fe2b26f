package catalog

import "github.com/weir-sql/weir/sql/sqlerr"

// Row-level security policies (pg_policy) live in their relation: a
// policy belongs to one table and goes with it. These helpers change a
// relation's policies through UpdateRelation, so a change is one catalog
// commit; the engine checks ownership and binds the expressions first.

// Policy commands, as pg_policy.polcmd spells them.
const (
	PolicyAll    byte = '*'
	PolicySelect byte = 'r'
	PolicyInsert byte = 'a'
	PolicyUpdate byte = 'w'
	PolicyDelete byte = 'd'
)

// PolicyIndex returns the index of r's policy called name, or -1.
func (r *Relation) PolicyIndex(name string) int {
	for i := range r.Policies {
		if r.Policies[i].Name == name {
			return i
		}
	}
	return -1
}

// AppliesTo reports whether p applies to command cmd (PolicySelect,
// PolicyInsert, ...): a FOR ALL policy applies to every command.
func (p *Policy) AppliesTo(cmd byte) bool { return p.Command == PolicyAll || p.Command == cmd }

// IsPublic reports whether p applies to every role (TO PUBLIC, the
// default).
func (p *Policy) IsPublic() bool {
	return len(p.Roles) == 0 || len(p.Roles) == 1 && p.Roles[0] == 0
}

// AddPolicy adds p to relation oid, drawing its OID; a policy of that
// name already there is 42710.
func (c *Catalog) AddPolicy(oid uint32, p Policy) (*Relation, error) {
	id, err := c.st.NextID(oidCounter)
	if err != nil {
		return nil, err
	}
	p.OID = uint32(id)
	return c.UpdateRelation(oid, func(r *Relation) error {
		if r.PolicyIndex(p.Name) >= 0 {
			return sqlerr.New(sqlerr.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", p.Name, r.Name)
		}
		r.Policies = append(r.Policies, p)
		return nil
	})
}

// ChangePolicy changes relation oid's policy called name with change; an
// unknown policy is 42704.
func (c *Catalog) ChangePolicy(oid uint32, name string, change func(*Relation, *Policy) error) (*Relation, error) {
	return c.UpdateRelation(oid, func(r *Relation) error {
		i := r.PolicyIndex(name)
		if i < 0 {
			return sqlerr.New(sqlerr.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", name, r.Name)
		}
		p := r.Policies[i]
		p.Roles = append([]uint32(nil), p.Roles...)
		if err := change(r, &p); err != nil {
			return err
		}
		r.Policies[i] = p
		return nil
	})
}

// DropPolicy removes relation oid's policy called name; an unknown
// policy is 42704.
func (c *Catalog) DropPolicy(oid uint32, name string) (*Relation, error) {
	return c.UpdateRelation(oid, func(r *Relation) error {
		i := r.PolicyIndex(name)
		if i < 0 {
			return sqlerr.New(sqlerr.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", name, r.Name)
		}
		r.Policies = append(r.Policies[:i], r.Policies[i+1:]...)
		return nil
	})
}

// SetRowSecurity sets relation oid's relrowsecurity (enable) or
// relforcerowsecurity (force), whichever set is not nil.
func (c *Catalog) SetRowSecurity(oid uint32, enable, force *bool) (*Relation, error) {
	return c.UpdateRelation(oid, func(r *Relation) error {
		if enable != nil {
			r.RowSecurity = *enable
		}
		if force != nil {
			r.ForceRowSecurity = *force
		}
		return nil
	})
}
