package expr

import "sync"

// to_timestamp(text, text) and to_date(text, text) are PostgreSQL's
// functions and Databricks' under one name and signature, with different
// format languages: PostgreSQL's templates (YYYY-MM-DD HH24:MI:SS) and
// Spark's patterns (yyyy-MM-dd HH:mm:ss). Many formats are valid in both
// and mean different things (HH is PostgreSQL's 12-hour hour and Spark's
// 24-hour one; mm is PostgreSQL's month and Spark's minute), so the format
// decides, and PostgreSQL keeps every format it reads as a PostgreSQL user
// would write it:
//
//  1. A format with a template field only PostgreSQL has (HH24, HH12, MI,
//     MS, US, FF1-6, AM/PM, TZ/TZH/TZM/OF, Mon/Month/Day/Dy, Y,YYY, ISO
//     fields, J, CC, RM, WW, SSSS, FM/TH modifiers, "quoted text") is
//     PostgreSQL's.
//  2. Otherwise a format with something only Spark means is Spark's: a
//     'quoted literal', a letter PostgreSQL does not use (E, a, X, x, Z, z,
//     V, O, G, k, K, L, or one H, h, m, s, M, d), a fraction after a point
//     (ss.SSS), MMM/MMMM, or minutes (mm) beside an hour or seconds field
//     (HH:mm, mm:ss).
//  3. Everything else is PostgreSQL's: there the two read the text alike
//     (yyyy-MM-dd, dd/MM/yyyy, YYYY-MM-DD) or PostgreSQL's reading is the
//     one a PostgreSQL user means (yyyy-mm-dd).
//
// So to_timestamp('2016-12-31 00:12:00', 'yyyy-MM-dd HH:mm:ss') is Spark's
// and to_timestamp('2016-12-31 00:12', 'YYYY-MM-DD HH24:MI') PostgreSQL's.
// The Databricks-only names (date_format, unix_timestamp, from_unixtime,
// try_to_timestamp, to_date(text)) always use Spark's patterns.

// pgSharedTemplates are PostgreSQL template fields that Spark spells the
// same way: they decide nothing.
var pgSharedTemplates = map[string]bool{
	"YYYY": true, "yyyy": true, "YYY": true, "yyy": true, "YY": true, "yy": true, "Y": true, "y": true,
	"MM": true, "mm": true, "DD": true, "dd": true, "DDD": true, "ddd": true, "D": true, "d": true,
	"HH": true, "hh": true, "SS": true, "ss": true, "Q": true, "q": true,
}

// isSparkDatetimeFormat tells whether format is to be read as a Spark
// pattern (the rules above).
func isSparkDatetimeFormat(format string) bool {
	return !hasPGOnlyTemplate(format) && hasSparkOnlyPattern(format)
}

func hasPGOnlyTemplate(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] == '"' {
			return true
		}
	}
	nodes := parseFormat(format, dchKeys, true)
	for i := range nodes {
		n := &nodes[i]
		if n.kind != fmtAction {
			continue
		}
		if n.suffix != 0 {
			return true
		}
		if pgSharedTemplates[n.key.name] {
			continue
		}
		// SSSS after a point is Spark's fraction (ss.SSSSSS).
		if n.key.id == "SSSS" && i > 0 && nodes[i-1].kind != fmtAction && (nodes[i-1].ch == "." || nodes[i-1].ch == ",") {
			continue
		}
		return true
	}
	return false
}

func hasSparkOnlyPattern(format string) bool {
	type run struct {
		c    byte
		n    int
		prev byte // the character before the run
	}
	var runs []run
	for i := 0; i < len(format); {
		c := format[i]
		if c == '\'' {
			return true
		}
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			i++
			continue
		}
		j := i + 1
		for j < len(format) && format[j] == c {
			j++
		}
		var prev byte
		if i > 0 {
			prev = format[i-1]
		}
		runs = append(runs, run{c, j - i, prev})
		i = j
	}
	hourOrSecond := false
	for _, r := range runs {
		switch r.c {
		case 'H', 'h', 'k', 'K', 's':
			hourOrSecond = true
		}
	}
	for _, r := range runs {
		switch r.c {
		case 'E', 'a', 'X', 'x', 'Z', 'z', 'V', 'O', 'G', 'k', 'K', 'L':
			return true
		case 'H', 'h', 's', 'd':
			if r.n == 1 {
				return true
			}
		case 'm':
			if r.n == 1 || hourOrSecond {
				return true
			}
		case 'M':
			if r.n == 1 || r.n >= 3 {
				return true
			}
		case 'S':
			if r.prev == '.' || r.prev == ',' {
				return true
			}
		}
	}
	return false
}

// dchFormatCache keeps PostgreSQL's to_timestamp / to_date templates
// parsed by their text (dchFromChar only reads the nodes): a constant
// format is parsed once, not once per row.
var dchFormatCache sync.Map // string -> []fmtNode

func parsedDCHFormat(format string) []fmtNode {
	if v, ok := dchFormatCache.Load(format); ok {
		return v.([]fmtNode)
	}
	nodes := parseFormat(format, dchKeys, true)
	if len(format) <= 256 {
		dchFormatCache.Store(format, nodes)
	}
	return nodes
}
