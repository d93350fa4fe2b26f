package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
)

// checkPrivileges checks what a bound SELECT, DECLARE CURSOR or INSERT
// accesses, at each execution (privilege_checks.go). Other statements
// check where they bind (COPY, EXPLAIN, streaming statements).
func (st *statement) checkPrivileges() error {
	if st.query != nil {
		if err := st.sess.checkAccesses(st.query.Accesses); err != nil {
			return err
		}
	}
	if st.insert != nil {
		return st.sess.checkAccesses(st.insert.Accesses)
	}
	return nil
}

// checkSubscribe checks SUBSCRIBE TO t: USAGE on t's schema and SELECT
// on all of t's columns (it streams whole rows).
func (s *Session) checkSubscribe(ss *parse.StreamingStmt) error {
	if s.superuser {
		return nil
	}
	if err := s.checkSchemaUsage(ss.Schema); err != nil {
		return err
	}
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name)
	if err != nil {
		return nil // the statement says it does not exist
	}
	return s.requireRelationPrivilege(rel, catalog.PrivSelect, columnNames(rel))
}
