package engine

import (
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
)

// checkDatabaseNames refuses a name qualified by another database than the
// session's, as PostgreSQL does; Databricks' catalog.schema.table names
// the session's database as the catalog (planner.CheckDatabaseNames).
// Only texts with two dots can hold such a name, so others cost nothing.
func (st *statement) checkDatabaseNames() error {
	db := st.sess.db
	if ss := st.stream; ss != nil {
		if err := planner.CheckQualifiedName(strings.Split(ss.Name, "."), db); err != nil {
			return err
		}
		if strings.Count(ss.Query, ".") < 2 {
			return nil
		}
		stmts, err := parse.Parse(ss.Query)
		if err != nil {
			return nil // the planner reports it
		}
		for _, p := range stmts {
			if err := planner.CheckDatabaseNames(p.Node, db); err != nil {
				return shiftError(err, ss.QueryOffset)
			}
		}
		return nil
	}
	if strings.Count(st.parsed.Text, ".") < 2 {
		return nil
	}
	return planner.CheckDatabaseNames(st.parsed.Node, db)
}

// streamingNameParts takes apart the name a weir statement gives
// ([catalog.]schema.name or name): the parser keeps the parts joined in
// Name (with Schema the part before the last), so the schema and the name
// are split here and the catalog checked against the session's database.
// CREATE, DROP, EXPLAIN and SUBSCRIBE of a streaming table still use the
// joined Name (dbxddl's; they should call this too).
func (s *Session) streamingNameParts(ss *parse.StreamingStmt) (schema, name string, err error) {
	schema, name = ss.Schema, ss.Name
	if parts := strings.Split(ss.Name, "."); schema != "" && len(parts) >= 2 {
		if err := planner.CheckQualifiedName(parts, s.db); err != nil {
			return "", "", err
		}
		schema, name = parts[len(parts)-2], parts[len(parts)-1]
	}
	return schema, name, nil
}

// lookupStreamingName finds the relation a weir statement names.
func (s *Session) lookupStreamingName(ss *parse.StreamingStmt) (*catalog.Relation, error) {
	schema, name, err := s.streamingNameParts(ss)
	if err != nil {
		return nil, err
	}
	return s.eng.cat.LookupRelation(s.searchPath(), schema, name)
}

// CurrentDatabase lets the binder check the catalog of names it builds
// itself (Databricks' IDENTIFIER('catalog.schema.table')).
func (v *catalogView) CurrentDatabase() string { return v.s.db }
