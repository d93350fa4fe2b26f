package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// nexmarkColumns are the columns of the nexmark() table function's three
// tables. They are connector/nexmark's Columns (which the planner may not
// import); exec's tests check that the two agree.
var nexmarkColumns = map[string][]Column{
	"person": {{Name: "id", T: types.Int8}, {Name: "name", T: types.Text}, {Name: "email_address", T: types.Text},
		{Name: "credit_card", T: types.Text}, {Name: "city", T: types.Text}, {Name: "state", T: types.Text},
		{Name: "date_time", T: types.Timestamp}, {Name: "extra", T: types.Text}},
	"auction": {{Name: "id", T: types.Int8}, {Name: "item_name", T: types.Text}, {Name: "description", T: types.Text},
		{Name: "initial_bid", T: types.Int8}, {Name: "reserve", T: types.Int8}, {Name: "date_time", T: types.Timestamp},
		{Name: "expires", T: types.Timestamp}, {Name: "seller", T: types.Int8}, {Name: "category", T: types.Int8},
		{Name: "extra", T: types.Text}},
	"bid": {{Name: "auction", T: types.Int8}, {Name: "bidder", T: types.Int8}, {Name: "price", T: types.Int8},
		{Name: "channel", T: types.Text}, {Name: "url", T: types.Text}, {Name: "date_time", T: types.Timestamp},
		{Name: "extra", T: types.Text}},
}

// NexmarkColumns is the nexmark() table function's columns of table
// ("person", "auction" or "bid").
func NexmarkColumns(table string) ([]Column, bool) {
	c, ok := nexmarkColumns[table]
	return c, ok
}

// bindNexmark binds nexmark('bid', max_events => N, seed => S, ...): the
// Nexmark generator as a table function. The table (the first argument,
// or table => ...) must be a literal, as it decides the columns; the
// options are evaluated once when the scan starts and checked there
// (22023 naming the option).
func (b *binder) bindNexmark(fc *pg_query.FuncCall) (*FunctionScan, error) {
	pos := int(fc.Location) + 1
	ec := &exprCtx{sc: &scope{}, what: "functions in FROM"}
	fs := &FunctionScan{Func: "nexmark"}
	table := ""
	for i, a := range fc.Args {
		name, arg := "", a
		if na := a.GetNamedArgExpr(); na != nil {
			name, arg = strings.ToLower(na.Name), na.Arg
		} else if i == 0 {
			name = "table"
		} else {
			return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "nexmark takes the table and then named options (name => value)").
				WithHint("For example nexmark('bid', max_events => 1000000, seed => 1).")
		}
		e, err := b.bindExpr(arg, ec)
		if err != nil {
			return nil, err
		}
		if name == "table" {
			var s string
			c, ok := e.(*expr.Const)
			if ok {
				s, ok = c.Val.(string)
			}
			if !ok {
				return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "the table of nexmark must be a string literal").
					WithHint("Use 'person', 'auction' or 'bid'.")
			}
			table = strings.ToLower(s)
		}
		fs.Args = append(fs.Args, e)
		fs.ArgNames = append(fs.ArgNames, name)
	}
	cols, ok := nexmarkColumns[table]
	if table == "" {
		return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "nexmark needs a table").WithHint("Use 'person', 'auction' or 'bid'.")
	}
	if !ok {
		return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "invalid value for option \"table\": \"%s\"", table).
			WithHint("Use 'person', 'auction' or 'bid'.")
	}
	fs.Cols = append([]Column(nil), cols...)
	return fs, nil
}

// nexmarkShare is each table's share of the events (1:3:46 of 50).
var nexmarkShare = map[string]float64{"person": 1.0 / 50, "auction": 3.0 / 50, "bid": 46.0 / 50}

// nexmarkRows estimates a nexmark() scan's rows from a constant
// max_events: the table's share of them.
func nexmarkRows(f *FunctionScan) float64 {
	table := ""
	events := int64(-1)
	for i, name := range f.ArgNames {
		switch name {
		case "table":
			if c, ok := f.Args[i].(*expr.Const); ok {
				table, _ = c.Val.(string)
			}
		case "max_events":
			if n, ok := constInt(f.Args[i]); ok {
				events = n
			}
		}
	}
	share, ok := nexmarkShare[strings.ToLower(table)]
	if !ok || events < 0 {
		return defaultRelRows
	}
	return max(1, float64(events)*share)
}
