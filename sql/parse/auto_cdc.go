package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// AutoCDC is Databricks' change-data-capture flow, CREATE FLOW name AS
// AUTO CDC INTO target FROM STREAM(source) KEYS (...) ... (APPLY CHANGES
// INTO, the older spelling, means the same): the target holds, per key,
// the change with the highest SEQUENCE BY (SCD type 1), or every version
// with its __START_AT and __END_AT (SCD type 2). The engine turns it into
// a streaming query (engine/flows_cdc.go).
type AutoCDC struct {
	Source QualifiedName
	Keys   []string
	// Sequence, DeleteWhen and TruncateWhen are expressions as written
	// over the source's columns; DeleteWhen and TruncateWhen may be "".
	Sequence     string
	DeleteWhen   string
	TruncateWhen string
	// Columns lists the columns the target keeps (nil: all); Except the
	// ones COLUMNS * EXCEPT (...) leaves out.
	Columns []string
	Except  []string
	// SCDType is 1 or 2 (STORED AS SCD TYPE n; 1 when not given).
	SCDType int
	// IgnoreNullUpdates is IGNORE NULL UPDATES [ON (cols) | ON * EXCEPT
	// (cols)]: a change's NULL in one of those columns (all when neither
	// list is given) keeps the target's value.
	IgnoreNullUpdates              bool
	IgnoreNullOn, IgnoreNullExcept []string
	// TrackHistory is TRACK HISTORY ON (cols) | * EXCEPT (cols) (SCD type
	// 2): Track the columns listed, TrackExcept the ones left out.
	TrackHistory       bool
	Track, TrackExcept []string
	// Where the clauses that the engine checks against the source's
	// columns begin in the statement (1-based, as sqlerr positions; 0 when
	// absent).
	TruncatePos, TrackPos, IgnoreNullPos int
}

// autoCDC reads AUTO CDC INTO ... | APPLY CHANGES INTO ... at i (the
// word AUTO or APPLY) to the end of the statement.
func (p *stmtParser) autoCDC(st *StreamingStmt, spec *TableSpec, i int) error {
	c := &AutoCDC{SCDType: 1}
	spec.CDC = c
	start := i
	i += 3 // AUTO CDC INTO | APPLY CHANGES INTO
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected the flow's target table", p.describe(i))
	}
	spec.FlowTarget = qualified(parts)
	st.Name, st.Schema = spec.FlowTarget.Name, spec.FlowTarget.Schema
	return p.cdcBody(c, next, start)
}

// cdcBody reads an AUTO CDC flow from its FROM at i to the statement's
// end; start is where the flow began (for errors about what is missing).
func (p *stmtParser) cdcBody(c *AutoCDC, i, start int) error {
	if !p.is(i, pg_query.Token_FROM) {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected FROM STREAM(source)", p.describe(i))
	}
	i++
	if !p.isWord(i, "stream") {
		return p.errAtH(sqlerr.FeatureNotSupported, i, "an AUTO CDC flow reads a stream: FROM STREAM(source)")
	}
	i++
	paren := p.is(i, tokLParen)
	if paren {
		i++
	}
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected the source's name", p.describe(i))
	}
	c.Source = qualified(parts)
	i = next
	if paren {
		if !p.is(i, tokRParen) {
			return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected ) after the source's name", p.describe(i))
		}
		i++
	}
	end := p.end()
	seen := map[string]bool{}
	for i < end {
		clause, j := p.cdcClause(i)
		if clause == "" {
			return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected KEYS, SEQUENCE BY, APPLY AS DELETE WHEN, APPLY AS TRUNCATE WHEN, IGNORE NULL UPDATES, COLUMNS, STORED AS or TRACK HISTORY ON", p.describe(i))
		}
		if seen[clause] {
			return p.errAtH(sqlerr.SyntaxError, i, "%s is given twice", clause)
		}
		seen[clause] = true
		var err error
		switch clause {
		case "KEYS":
			if !p.is(j, tokLParen) {
				return p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected ( after KEYS", p.describe(j))
			}
			c.Keys, i, err = p.nameList(j)
		case "SEQUENCE BY":
			c.Sequence, i = p.cdcExpr(j, end)
		case "APPLY AS DELETE WHEN":
			c.DeleteWhen, i = p.cdcExpr(j, end)
		case "APPLY AS TRUNCATE WHEN":
			c.TruncatePos = p.pos(i)
			c.TruncateWhen, i = p.cdcExpr(j, end)
		case "IGNORE NULL UPDATES":
			c.IgnoreNullUpdates, c.IgnoreNullPos, i = true, p.pos(i), j
			if p.isWord(j, "on") {
				c.IgnoreNullOn, c.IgnoreNullExcept, i, err = p.cdcColumnSet(j+1, end)
				if err == nil && c.IgnoreNullOn == nil && c.IgnoreNullExcept == nil {
					err = p.errAtH(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected (columns) or * EXCEPT (columns) after IGNORE NULL UPDATES ON", p.describe(j+1))
				}
			}
		case "COLUMNS":
			if p.is(j, pg_query.Token_ASCII_42) {
				j++
				if p.isWord(j, "except") {
					if c.Except, i, err = p.nameList(j + 1); err == nil && !p.is(j+1, tokLParen) {
						err = p.errAtH(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected ( after EXCEPT", p.describe(j+1))
					}
				} else {
					i = j
				}
			} else {
				c.Columns, i, err = p.cdcNames(j, end)
			}
		case "TRACK HISTORY ON":
			c.TrackHistory, c.TrackPos = true, p.pos(i)
			c.Track, c.TrackExcept, i, err = p.cdcColumnSet(j, end)
			if err == nil && c.Track == nil && c.TrackExcept == nil {
				err = p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected columns or * EXCEPT (columns) after TRACK HISTORY ON", p.describe(j))
			}
		case "STORED AS":
			if !p.isWord(j, "scd") || !p.isWord(j+1, "type") || (p.at(j+2).text != "1" && p.at(j+2).text != "2") {
				return p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected SCD TYPE 1 or SCD TYPE 2", p.describe(j))
			}
			c.SCDType, i = int(p.at(j + 2).text[0]-'0'), j+3
		}
		if err != nil {
			return err
		}
		if i <= j && clause != "IGNORE NULL UPDATES" && clause != "COLUMNS" && clause != "TRACK HISTORY ON" {
			return p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: %s needs a value", p.describe(j), clause)
		}
	}
	if c.Keys == nil {
		return p.errAtH(sqlerr.SyntaxError, start, "an AUTO CDC flow needs KEYS (column, ...)")
	}
	if c.Sequence == "" {
		return p.errAtH(sqlerr.SyntaxError, start, "an AUTO CDC flow needs SEQUENCE BY column")
	}
	// Databricks takes TRUNCATE WHEN for SCD type 1 only (a truncate would
	// end every key's version of a history), and TRACK HISTORY for type 2
	// only (type 1 keeps no history).
	if c.TruncateWhen != "" && c.SCDType == 2 {
		return sqlerr.At(sqlerr.FeatureNotSupported, c.TruncatePos, "APPLY AS TRUNCATE WHEN is supported only for SCD type 1 targets").
			WithHint("Leave APPLY AS TRUNCATE WHEN out of an SCD type 2 flow, or store the target AS SCD TYPE 1.")
	}
	if c.TrackHistory && c.SCDType != 2 {
		return sqlerr.At(sqlerr.SyntaxError, c.TrackPos, "TRACK HISTORY ON is for SCD type 2 targets: an SCD type 1 target keeps no history").
			WithHint("Add STORED AS SCD TYPE 2, or leave TRACK HISTORY ON out.")
	}
	return nil
}

// cdcColumnSet reads "a, b", "(a, b)" or "* EXCEPT (a, b)" at i: the
// columns listed, or (with *) the ones left out; both nil when i starts
// neither.
func (p *stmtParser) cdcColumnSet(i, end int) (on, except []string, next int, err error) {
	if p.is(i, pg_query.Token_ASCII_42) {
		if !p.isWord(i+1, "except") || !p.is(i+2, tokLParen) {
			return nil, nil, i, p.errAtH(sqlerr.SyntaxError, i+1, "syntax error at or near %s: expected EXCEPT (columns) after *", p.describe(i+1))
		}
		except, next, err = p.nameList(i + 2)
		return nil, except, next, err
	}
	if i >= end || !p.is(i, tokLParen) && !p.labelLike(i) {
		return nil, nil, i, nil
	}
	if c, _ := p.cdcClause(i); c != "" {
		return nil, nil, i, nil
	}
	on, next, err = p.cdcNames(i, end)
	return on, nil, next, err
}

// cdcClause names the AUTO CDC clause at i and where its value starts
// ("" when i starts none).
func (p *stmtParser) cdcClause(i int) (string, int) {
	switch {
	case p.isWord(i, "keys"):
		return "KEYS", i + 1
	case p.isWord(i, "sequence") && p.isWord(i+1, "by"):
		return "SEQUENCE BY", i + 2
	case p.isWord(i, "apply") && p.isWord(i+1, "as") && p.isWord(i+2, "delete") && p.isWord(i+3, "when"):
		return "APPLY AS DELETE WHEN", i + 4
	case p.isWord(i, "apply") && p.isWord(i+1, "as") && p.isWord(i+2, "truncate") && p.isWord(i+3, "when"):
		return "APPLY AS TRUNCATE WHEN", i + 4
	case p.isWord(i, "ignore") && p.isWord(i+1, "null") && p.isWord(i+2, "updates"):
		return "IGNORE NULL UPDATES", i + 3
	case p.isWord(i, "columns"):
		return "COLUMNS", i + 1
	case p.isWord(i, "stored") && p.isWord(i+1, "as"):
		return "STORED AS", i + 2
	case p.isWord(i, "track") && p.isWord(i+1, "history") && p.isWord(i+2, "on"):
		return "TRACK HISTORY ON", i + 3
	}
	return "", i
}

// cdcExpr is the expression from i to the next clause outside
// parentheses, as written, and where it ends.
func (p *stmtParser) cdcExpr(i, end int) (string, int) {
	j := i
	for j < end {
		if p.is(j, tokLParen) {
			if k := p.matchParen(j); k > j {
				j = k + 1
				continue
			}
		}
		if c, _ := p.cdcClause(j); c != "" {
			break
		}
		j++
	}
	return p.text(i, j), j
}

// cdcNames reads COLUMNS a, b, ... (with or without parentheses).
func (p *stmtParser) cdcNames(i, end int) ([]string, int, error) {
	if p.is(i, tokLParen) {
		return p.nameList(i)
	}
	var out []string
	for i < end {
		if !p.labelLike(i) {
			return nil, i, p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a column name", p.describe(i))
		}
		out = append(out, identValue(p.at(i).text))
		i++
		if !p.is(i, tokComma) {
			break
		}
		i++
	}
	return out, i, nil
}

func qualified(parts []string) QualifiedName {
	q := QualifiedName{Name: parts[len(parts)-1]}
	if len(parts) >= 2 {
		q.Schema = parts[len(parts)-2]
	}
	return q
}

// SparkStrings rewrites the double-quoted words of expression e that name
// no column (isColumn) into string literals: Databricks' examples write
// APPLY AS DELETE WHEN operation = "DELETE", where Spark SQL reads "DELETE"
// as a string.
func SparkStrings(e string, isColumn func(string) bool) (string, error) {
	toks, err := tokens(e)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, t := range toks {
		if t.kind != pg_query.Token_IDENT || !strings.HasPrefix(t.text, `"`) || isColumn(identValue(t.text)) {
			continue
		}
		b.WriteString(e[last:t.start])
		b.WriteString("'" + strings.ReplaceAll(identValue(t.text), "'", "''") + "'")
		last = t.end
	}
	b.WriteString(e[last:])
	return b.String(), nil
}

// lastPart is the last dot-separated part of a name as the parser keeps
// it ("schema.name" → "name").
func lastPart(n string) string {
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}
