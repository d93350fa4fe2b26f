package planner

import (
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// keywordsValues is pg_get_keywords() in FROM: PostgreSQL 15's keyword
// list (sql/parse) as constant rows with the function's output columns.
// pgjdbc's getSQLKeywords and psql's tab completion read it.
func keywordsValues(args []expr.Expr, pos int) (Node, error) {
	if len(args) != 0 {
		return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function pg_get_keywords(%s) does not exist", typeList(args))
	}
	kws := parse.Keywords()
	rows := make([][]expr.Expr, len(kws))
	for i, k := range kws {
		rows[i] = []expr.Expr{
			&expr.Const{Val: k.Word, T: types.Text},
			&expr.Const{Val: string(k.Category), T: types.Char},
			&expr.Const{Val: k.BareLabel, T: types.Bool},
			&expr.Const{Val: parse.CategoryDescription(k.Category), T: types.Text},
			&expr.Const{Val: parse.BareLabelDescription(k.BareLabel), T: types.Text},
		}
	}
	return &Values{Rows: rows, Cols: []Column{
		{Name: "word", T: types.Text}, {Name: "catcode", T: types.Char}, {Name: "barelabel", T: types.Bool},
		{Name: "catdesc", T: types.Text}, {Name: "baredesc", T: types.Text},
	}}, nil
}
