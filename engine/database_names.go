package engine

import (
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
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
				// The canonical query is not the text the client sent
				// (STREAM and WATERMARK are cut out): point at the
				// catalog's name in the statement itself.
				return atCatalogName(err, st.parsed.Text, st.parsed.Offset)
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
// are split here and the catalog checked against the session's database
// (runStreaming does it for every streaming statement).
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

// atCatalogName sets err's position to the first name in text followed by
// a dot that is the catalog the error names (its message quotes
// catalog.schema.name).
func atCatalogName(err error, text string, offset int) error {
	se, ok := err.(*sqlerr.Error)
	if !ok {
		return err
	}
	quoted := se.Message[strings.LastIndexByte(se.Message[:len(se.Message)-1], '"')+1:]
	catalog, _, _ := strings.Cut(strings.TrimSuffix(quoted, `"`), ".")
	res, scanErr := pg_query.Scan(text)
	if scanErr != nil {
		return err
	}
	for i, t := range res.Tokens {
		word := text[t.Start:t.End]
		if strings.Trim(strings.ToLower(word), `"`) == catalog && i+1 < len(res.Tokens) && text[res.Tokens[i+1].Start:res.Tokens[i+1].End] == "." {
			cp := *se
			cp.Position = utf8.RuneCountInString(text[:t.Start]) + 1 + offset
			return &cp
		}
	}
	return err
}
