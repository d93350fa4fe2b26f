// Package slt reads and runs sqllogictest files over the PostgreSQL wire
// protocol. The same runner checks weir against a file's expected results
// and regenerates those results from a real PostgreSQL (rewrite mode), so
// expected outputs of SQL-semantics files are PostgreSQL's, not ours.
//
// Format (one record per blank-line-separated block; # starts a comment):
//
//	statement ok
//	CREATE TABLE t (a int)
//
//	statement error 22012 division by zero      (SQLSTATE and/or message text)
//	SELECT 1/0
//
//	query IT rowsort                            (column types are informative;
//	SELECT a, b FROM t                           rowsort sorts rows before comparing)
//	----
//	1	x                                        (tab-separated text values;
//	NULL	(empty)                              NULL and (empty) for '')
//
//	query IT rowsort retry                      (retry: re-run until the result
//	SELECT ...                                   matches, for streaming tables)
//
//	query TT colnames                           (colnames: the first result line
//	SELECT 1 AS a, 'x'::text                     is the column names, as a client
//	----                                         sees them in RowDescription)
//	a	text
//	1	x
package slt

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Record is one statement or query of a file.
type Record struct {
	Line    int // 1-based line of the directive
	Kind    string
	SQL     string
	Error   string // expected error text for "statement error"
	Types   string
	RowSort bool
	// Retry re-runs the query until its result matches or a deadline
	// passes: streaming tables reach their result asynchronously.
	Retry bool
	// ColNames makes the column names the first result line.
	ColNames bool
	Expected []string // result lines
	// Raw holds the record's directive line, kept for rewriting.
	Directive string
}

// ParseFile reads a .slt file.
func ParseFile(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(data))
}

// Parse reads records from text.
func Parse(text string) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	lineNo := 0
	var cur *Record
	state := 0 // 0 between records, 1 reading SQL, 2 reading results
	flush := func() {
		if cur != nil {
			cur.SQL = strings.TrimSpace(cur.SQL)
			out = append(out, *cur)
			cur = nil
		}
		state = 0
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if state == 0 {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			f := strings.Fields(t)
			r := &Record{Line: lineNo, Directive: t}
			switch f[0] {
			case "statement":
				if len(f) < 2 {
					return nil, fmt.Errorf("line %d: statement needs ok or error", lineNo)
				}
				r.Kind = "statement " + f[1]
				if f[1] == "error" {
					r.Error = strings.TrimSpace(strings.TrimPrefix(t, "statement error"))
				}
			case "query":
				r.Kind = "query"
				if len(f) > 1 {
					r.Types = f[1]
				}
				for _, o := range f[2:] {
					switch o {
					case "rowsort":
						r.RowSort = true
					case "retry":
						r.Retry = true
					case "colnames":
						r.ColNames = true
					}
				}
			case "restart":
				out = append(out, Record{Line: lineNo, Kind: "restart", Directive: t})
				continue
			default:
				return nil, fmt.Errorf("line %d: unknown directive %q", lineNo, f[0])
			}
			cur, state = r, 1
			continue
		}
		if state == 1 {
			if strings.TrimSpace(line) == "" {
				flush()
				continue
			}
			if line == "----" && cur.Kind == "query" {
				state = 2
				continue
			}
			cur.SQL += line + "\n"
			continue
		}
		if line == "" {
			flush()
			continue
		}
		cur.Expected = append(cur.Expected, line)
	}
	flush()
	return out, sc.Err()
}

// Outcome is what running a record produced.
type Outcome struct {
	Err  *pgconn.PgError
	Rows []string
}

// Exec runs a record's SQL over conn with the simple protocol (text
// results, as psql sees them) and formats the rows.
func Exec(ctx context.Context, conn *pgx.Conn, r Record) (Outcome, error) {
	var out Outcome
	rows, err := conn.Query(ctx, r.SQL, pgx.QueryExecModeSimpleProtocol)
	if err == nil {
		for rows.Next() {
			vals := rows.RawValues()
			cells := make([]string, len(vals))
			for i, v := range vals {
				switch {
				case v == nil:
					cells[i] = "NULL"
				case len(v) == 0:
					cells[i] = "(empty)"
				default:
					cells[i] = strings.NewReplacer("\t", "\\t", "\n", "\\n").Replace(string(v))
				}
			}
			out.Rows = append(out.Rows, strings.Join(cells, "\t"))
		}
		rows.Close()
		err = rows.Err()
	}
	if err != nil {
		if pe, ok := err.(*pgconn.PgError); ok {
			out.Err = pe
			return out, nil
		}
		return out, err
	}
	if r.RowSort {
		sort.Strings(out.Rows)
	}
	if r.ColNames {
		names := make([]string, 0, len(rows.FieldDescriptions()))
		for _, fd := range rows.FieldDescriptions() {
			names = append(names, fd.Name)
		}
		out.Rows = append([]string{strings.Join(names, "\t")}, out.Rows...)
	}
	return out, nil
}

// Check compares an outcome with a record's expectation; "" means it holds.
func Check(r Record, o Outcome) string {
	switch r.Kind {
	case "statement ok":
		if o.Err != nil {
			return fmt.Sprintf("expected success, got ERROR %s: %s", o.Err.Code, o.Err.Message)
		}
	case "statement error":
		if o.Err == nil {
			return "expected an error, statement succeeded"
		}
		got := o.Err.Code + " " + o.Err.Message
		if r.Error != "" && !strings.Contains(got, r.Error) {
			return fmt.Sprintf("expected error %q, got %q", r.Error, got)
		}
	case "query":
		if o.Err != nil {
			return fmt.Sprintf("query failed: ERROR %s: %s", o.Err.Code, o.Err.Message)
		}
		want := append([]string(nil), r.Expected...)
		if r.RowSort {
			if r.ColNames && len(want) > 0 {
				sort.Strings(want[1:])
			} else {
				sort.Strings(want)
			}
		}
		if strings.Join(want, "\n") != strings.Join(o.Rows, "\n") {
			return fmt.Sprintf("results differ\n--- expected\n%s\n--- got\n%s", strings.Join(want, "\n"), strings.Join(o.Rows, "\n"))
		}
	}
	return ""
}

// Render writes records back as file text, with results replaced by the
// given outcomes (rewrite mode). Comments between records are not kept.
func Render(recs []Record, outs []Outcome) string {
	var sb strings.Builder
	for i, r := range recs {
		if i > 0 {
			sb.WriteString("\n")
		}
		switch r.Kind {
		case "restart":
			sb.WriteString("restart\n")
			continue
		case "statement error":
			d := "statement error"
			if outs[i].Err != nil {
				d += " " + outs[i].Err.Code + " " + outs[i].Err.Message
			} else if r.Error != "" {
				d += " " + r.Error
			}
			sb.WriteString(d + "\n" + r.SQL + "\n")
			continue
		case "statement ok":
			sb.WriteString("statement ok\n" + r.SQL + "\n")
			continue
		}
		sb.WriteString(r.Directive + "\n" + r.SQL + "\n----\n")
		for _, row := range outs[i].Rows {
			sb.WriteString(row + "\n")
		}
	}
	return sb.String()
}
