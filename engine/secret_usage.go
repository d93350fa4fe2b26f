package engine

import (
	"sort"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// USAGE on a secret, the one privilege it has: a statement that names
// secret('name') in its connector options (CREATE SOURCE, CREATE SINK)
// needs it, as CREATE FOREIGN TABLE needs USAGE on its server in
// PostgreSQL: 42501 "permission denied for secret s". The connector
// opens the secret later, as the object's owner (the engine, not a
// session), so the check is made here, when the object is created. A
// secret that does not exist is the connector's to report.

// requireSecretUsage checks USAGE on every secret options name.
func (s *Session) requireSecretUsage(options map[string]string) error {
	if s.superuser {
		return nil
	}
	keys := make([]string, 0, len(options))
	for k := range options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	me := s.currentRoleOID()
	for _, k := range keys {
		m := secretRef.FindStringSubmatch(options[k])
		if m == nil {
			continue
		}
		sec, ok := s.eng.cat.LookupSecret(m[1])
		if !ok {
			continue
		}
		if have, _ := s.eng.cat.Privileges(me, catalog.ObjSecret, sec.ACL, sec.Owner); have&catalog.PrivUsage == 0 {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for secret %s", sec.Name)
		}
	}
	return nil
}
