package planner

import "github.com/weir-sql/weir/sql/expr"

// ColumnDefaults binds the DEFAULT expression of every column of rel (a
// typed NULL for a column without one), for writers that fill columns the
// input does not hold, as COPY t (a) FROM STDIN does.
func ColumnDefaults(cat Catalog, rel *Relation) ([]expr.Expr, error) {
	b := &binder{cat: cat}
	out := make([]expr.Expr, len(rel.Cols))
	for i, c := range rel.Cols {
		d, err := b.defaultExpr(c)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}
