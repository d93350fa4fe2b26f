package catalog

import (
	"encoding/binary"
	"sort"

	"github.com/weir-sql/weir/state"
)

// Membership is one row of pg_auth_members (PostgreSQL 15's columns):
// Member is a member of Role, granted by Grantor, and with Admin may
// grant Role to others.
type Membership struct {
	Role    uint32
	Member  uint32
	Grantor uint32
	Admin   bool
}

// memberPair identifies a membership: at most one per (role, member), as
// in PostgreSQL 15.
type memberPair struct{ role, member uint32 }

const prefixMember = state.PrefixCatalog + "member/"

func memberKey(role, member uint32) []byte {
	k := binary.BigEndian.AppendUint32([]byte(prefixMember), role)
	return binary.BigEndian.AppendUint32(k, member)
}

// Memberships lists all memberships ordered by role, then member.
func (c *Catalog) Memberships() []Membership {
	c.mu.RLock()
	out := make([]Membership, 0, len(c.members))
	for _, m := range c.members {
		out = append(out, m)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Role != out[j].Role {
			return out[i].Role < out[j].Role
		}
		return out[i].Member < out[j].Member
	})
	return out
}

// IsMemberOf reports whether member is role or a member of it, directly
// or through other roles. Superuser status is not considered (callers
// apply it, as PostgreSQL's is_member_of_role does). Every weir role
// inherits, so membership is also having role's privileges.
func (c *Catalog) IsMemberOf(member, role uint32) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return isMemberOf(c.members, member, role)
}

// IsAdminOf reports whether member may grant role: it, or a role it is a
// member of, holds role WITH ADMIN OPTION. A role is not admin of itself
// (PostgreSQL 15); superusers are the callers' business.
func (c *Catalog) IsAdminOf(member, role uint32) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return isAdminOf(c.members, member, role)
}

// memberClosure lists member and every role it is a member of.
func memberClosure(members map[memberPair]Membership, member uint32) map[uint32]bool {
	byMember := map[uint32][]uint32{}
	for p := range members {
		byMember[p.member] = append(byMember[p.member], p.role)
	}
	seen := map[uint32]bool{member: true}
	queue := []uint32{member}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		for _, r := range byMember[m] {
			if !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
	}
	return seen
}

func isMemberOf(members map[memberPair]Membership, member, role uint32) bool {
	if member == role {
		return true
	}
	return memberClosure(members, member)[role]
}

func isAdminOf(members map[memberPair]Membership, member, role uint32) bool {
	if member == role {
		return false
	}
	for m := range memberClosure(members, member) {
		if ms, ok := members[memberPair{role, m}]; ok && ms.Admin {
			return true
		}
	}
	return false
}
