package planner

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// scopeCol is a column visible to expressions: the FROM clause's output,
// position Index in the batch the expression is evaluated over.
type scopeCol struct {
	Table    string // alias or relation name, "" for anonymous subquery columns
	Name     string
	T        types.T
	TableOID uint32
	AttNum   int16
	// Hidden columns (the right side of a USING join) are not expanded by *
	// and not found by unqualified names.
	Hidden bool
	// System columns (tableoid) are found by name but not expanded by *.
	System bool
	// Field marks one field of a record-valued column (see Column.Field);
	// such columns are reached only as (name).field.
	Field string
	// acc and accCol tie a stored relation's column to its Access, which
	// a reference marks (accesses.go).
	acc    *Access
	accCol int
}

// scope is the set of columns of one query level; parent is the enclosing
// query's scope for correlated references.
type scope struct {
	cols   []scopeCol
	parent *scope
	// usingMerge maps an unqualified USING column name to the expression
	// index that represents it (left side; for FULL JOIN the binder wraps it).
	usingCols map[string]int
	// aggOut is set while the level's post-aggregation clauses (targets,
	// HAVING, ORDER BY) are bound: subqueries then read its GROUP BY keys
	// and register aggregates that belong to it (bind_outer_agg.go).
	aggOut *aggState
	// wantsAgg records that a subquery found an aggregate of this level
	// while the level was bound as not aggregating.
	wantsAgg bool
	// clause names the clause of this level being bound where aggregates
	// are not allowed ("WHERE"), for a subquery's error.
	clause string
}

// resolve finds a column by optional qualifier and name. depth is 0 for
// this scope, 1 for the parent, and so on.
func (s *scope) resolve(qual, name string, pos int) (idx int, col scopeCol, depth int, err error) {
	return s.resolveField(qual, name, "", pos)
}

// resolveField finds a field of a record-valued column, or with field ""
// an ordinary column.
func (s *scope) resolveField(qual, name, field string, pos int) (idx int, col scopeCol, depth int, err error) {
	depth = 0
	for sc := s; sc != nil; sc = sc.parent {
		found := -1
		for i, c := range sc.cols {
			if c.Name != name || c.Field != field {
				continue
			}
			if qual != "" {
				if c.Table != qual {
					continue
				}
			} else if c.Hidden {
				continue
			}
			if found >= 0 {
				if qual == "" && sc.usingCols != nil {
					if u, ok := sc.usingCols[name]; ok {
						found = u
						break
					}
				}
				return 0, scopeCol{}, 0, sqlerr.At(sqlerr.AmbiguousColumn, pos, "column reference \"%s\" is ambiguous", name)
			}
			found = i
		}
		if found >= 0 {
			return found, sc.cols[found], depth, nil
		}
		if qual != "" && sc.hasOwnTable(qual) {
			// The nearest level naming the table decides, as in
			// PostgreSQL: an enclosing query's same-named table is hidden.
			return 0, scopeCol{}, 0, sqlerr.At(sqlerr.UndefinedColumn, pos, "column %s.%s does not exist", qual, name)
		}
		depth++
	}
	if qual != "" {
		if !s.hasTable(qual) {
			return 0, scopeCol{}, 0, sqlerr.At(sqlerr.UndefinedTable, pos, "missing FROM-clause entry for table \"%s\"", qual)
		}
		return 0, scopeCol{}, 0, sqlerr.At(sqlerr.UndefinedColumn, pos, "column %s.%s does not exist", qual, name)
	}
	return 0, scopeCol{}, 0, sqlerr.At(sqlerr.UndefinedColumn, pos, "column \"%s\" does not exist", name)
}

func (s *scope) hasOwnTable(t string) bool {
	for _, c := range s.cols {
		if c.Table == t {
			return true
		}
	}
	return false
}

func (s *scope) hasTable(t string) bool {
	for sc := s; sc != nil; sc = sc.parent {
		for _, c := range sc.cols {
			if c.Table == t {
				return true
			}
		}
	}
	return false
}

// qualify strips catalog and schema qualifiers of a column reference: weir
// resolves a.b.c as table b column c.
func splitColumnRef(fields []string) (qual, name string) {
	switch len(fields) {
	case 1:
		return "", fields[0]
	default:
		return fields[len(fields)-2], fields[len(fields)-1]
	}
}
