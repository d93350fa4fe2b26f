package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
)

// Spark reads backslash escapes in every string literal, so Databricks'
// pages write a regular expression's \d as '\\d' (regexp_extract('100-200',
// '(\\d+)-(\\d+)', 1) is 100 there). weir's literals are PostgreSQL's
// standard strings, where '\\d' is two backslashes and a d: the page's
// pattern would match a backslash. Under the Databricks-only names that
// take a pattern (no PostgreSQL namesake to stay equal to), a literal
// pattern is read with Spark's escapes: \\ \' \" \n \t \r \b \Z (not \0:
// text holds no NUL).
// Unlike Spark, an unknown escape keeps its backslash ('\d' stays \d,
// where Spark would make it a plain d), so the PostgreSQL habit of
// writing '\d' keeps working; r'...' raw literals are never unescaped.
var sparkPatternArg = map[string]int{
	"regexp_extract":     1,
	"regexp_extract_all": 1,
	"split":              1,
}

// sparkUnescapePattern rewrites the pattern argument of a Databricks-only
// pattern function when it is a string literal.
func sparkUnescapePattern(name string, f *pg_query.FuncCall, args []expr.Expr) {
	i, ok := sparkPatternArg[name]
	if !ok || i >= len(args) || i >= len(f.Args) {
		return
	}
	c := f.Args[i].GetAConst()
	if c == nil || c.GetSval() == nil {
		return
	}
	s := c.GetSval().Sval
	if !strings.ContainsRune(s, '\\') {
		return
	}
	if k, ok := args[i].(*expr.Const); ok {
		args[i] = &expr.Const{T: k.T, Val: sparkUnescape(s)}
	}
}

// sparkUnescape applies Spark's string-literal escapes, keeping the
// backslash of an escape Spark does not define.
func sparkUnescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case '\\', '\'', '"':
			b.WriteByte(c)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'Z':
			b.WriteByte(0x1a)
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}
