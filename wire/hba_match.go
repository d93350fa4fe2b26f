package wire

import "net"

// hbaClient is what a rule is matched against.
type hbaClient struct {
	local          bool   // not TCP (an in-process pipe, a Unix socket)
	ip             net.IP // the peer's address when TCP
	ssl            bool
	user, database string
}

// RoleMembers is implemented by a Handler whose roles have members: an
// HBA rule's +role and samerole match a user that is role or a member of
// it, directly or not (PostgreSQL's is_member_of_role, superuser status
// aside). Without it only the role itself matches.
type RoleMembers interface {
	IsRoleMember(user, role string) bool
}

// match returns the first rule that applies to cl, or nil. member answers
// +role and samerole. hostAddrs are this machine's addresses, for
// samehost and samenet.
func (h *HBA) match(cl hbaClient, member func(user, role string) bool, hostAddrs func() []*net.IPNet) *hbaRule {
	for i := range h.rules {
		r := &h.rules[i]
		if r.conn == hbaLocal {
			if !cl.local {
				continue
			}
		} else {
			if cl.local {
				continue
			}
			switch r.conn {
			case hbaHostSSL:
				if !cl.ssl {
					continue
				}
			case hbaHostNoSSL:
				if cl.ssl {
					continue
				}
			case hbaHostGSSEnc:
				continue
			}
			if !r.matchAddr(cl.ip, hostAddrs) {
				continue
			}
		}
		if !r.matchDatabase(cl, member) || !r.matchUser(cl.user, member) {
			continue
		}
		return r
	}
	return nil
}

func (r *hbaRule) matchAddr(ip net.IP, hostAddrs func() []*net.IPNet) bool {
	switch r.addrKind {
	case hbaAddrAll:
		return true
	case hbaAddrNet:
		return r.addr.Contains(ip)
	case hbaAddrSameHost:
		for _, n := range hostAddrs() {
			if n.IP.Equal(ip) {
				return true
			}
		}
	case hbaAddrSameNet:
		for _, n := range hostAddrs() {
			if n.Contains(ip) {
				return true
			}
		}
	}
	return false
}

func (r *hbaRule) matchDatabase(cl hbaClient, member func(user, role string) bool) bool {
	for _, t := range r.databases {
		switch {
		case t.is("all"):
			return true
		case t.is("sameuser"):
			if cl.database == cl.user {
				return true
			}
		case t.is("samerole"), t.is("samegroup"):
			if member(cl.user, cl.database) {
				return true
			}
		case t.is("replication"):
			// weir has no replication connections.
		case t.s == cl.database:
			return true
		}
	}
	return false
}

func (r *hbaRule) matchUser(user string, member func(user, role string) bool) bool {
	for _, t := range r.users {
		switch {
		case t.is("all"):
			return true
		case !t.quoted && len(t.s) > 1 && t.s[0] == '+':
			if member(user, t.s[1:]) {
				return true
			}
		case t.s == user:
			return true
		}
	}
	return false
}

// interfaceNets lists this machine's addresses and their networks.
func interfaceNets() []*net.IPNet {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	out := make([]*net.IPNet, 0, len(addrs))
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n)
		}
	}
	return out
}
