package types

import (
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Spark SQL's type names (Databricks' data types).
//
// Two places take them. Outside Spark-only syntax, where a PostgreSQL
// client's type name may stand, PostgreSQL's names keep PostgreSQL's
// meaning (timestamp is without time zone, float is float8) and only the
// names PostgreSQL lacks map: SparkOnlyName. Inside Spark-only syntax —
// STRUCT<...>, ARRAY<...>, a from_json schema — no PostgreSQL client writes
// the text, so Spark's meanings apply throughout: ParseSparkType.

// sparkOnlyNames are Spark's type names that PostgreSQL has no type of.
var sparkOnlyNames = map[string]T{
	"string":        Text,
	"long":          Int8,
	"short":         Int2,
	"tinyint":       Int2, // weir has no one-byte integer; int2 holds every TINYINT
	"byte":          Int2,
	"double":        Float8,
	"timestamp_ntz": Timestamp,
	"timestamp_ltz": TimestampTZ,
	"binary":        Bytea,
}

// SparkOnlyName resolves a Spark type name PostgreSQL does not have.
func SparkOnlyName(name string) (T, bool) {
	t, ok := sparkOnlyNames[strings.ToLower(name)]
	return t, ok
}

// sparkNames are Spark's meanings of the names inside Spark-only syntax.
var sparkNames = map[string]T{
	"boolean": Bool, "bool": Bool,
	"smallint": Int2, "int": Int4, "integer": Int4, "bigint": Int8,
	"float": Float4, "real": Float4,
	"date":      Date,
	"timestamp": TimestampTZ, // Spark's TIMESTAMP is an instant shown in the session zone
	"interval":  Interval,
}

// ParseSparkType parses a Spark data type (INT, DECIMAL(10,2),
// ARRAY<STRING>, STRUCT<a: INT, b STRING>); MAP is refused with 0A000.
func ParseSparkType(s string) (T, error) {
	p := &sparkTypeParser{s: s}
	t, err := p.typ()
	if err != nil {
		return T{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return T{}, p.errf("unexpected %q after the type", p.s[p.i:])
	}
	return t, nil
}

// ParseSparkSchema parses a Spark DDL schema, the field list of a
// STRUCT<...> or the schema argument of from_json: "a INT, b STRING",
// "a: INT", backquoted names, NOT NULL and COMMENT '...' after a type.
func ParseSparkSchema(s string) ([]StructField, error) {
	p := &sparkTypeParser{s: s}
	fs, err := p.fields(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errf("unexpected %q in the field list", p.s[p.i:])
	}
	return fs, nil
}

type sparkTypeParser struct {
	s     string
	i     int
	depth int // nesting of ARRAY<> and STRUCT<>, bounded: the parser recurses
}

// maxSparkTypeDepth bounds how deeply Spark types may nest.
const maxSparkTypeDepth = 100

func (p *sparkTypeParser) errf(format string, args ...any) error {
	return sqlerr.New(sqlerr.SyntaxError, "invalid Spark data type %q: "+format, append([]any{p.s}, args...)...)
}

func (p *sparkTypeParser) space() {
	for p.i < len(p.s) && isSpaceByte(p.s[p.i]) {
		p.i++
	}
}

func (p *sparkTypeParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// word reads an identifier (letters, digits, _); "" when there is none.
func (p *sparkTypeParser) word() string {
	p.space()
	st := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[st:p.i]
}

// name reads a field name: a word, or `back quoted` (“ doubles).
func (p *sparkTypeParser) name() (string, error) {
	if p.peek() != '`' {
		w := p.word()
		if w == "" {
			return "", p.errf("a field name is expected at %d", p.i+1)
		}
		return w, nil
	}
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == '`' {
			if p.i < len(p.s) && p.s[p.i] == '`' {
				b.WriteByte('`')
				p.i++
				continue
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.errf("unterminated quoted name")
}

func (p *sparkTypeParser) expect(c byte) error {
	if p.peek() != c {
		return p.errf("%q expected at %d", c, p.i+1)
	}
	p.i++
	return nil
}

// closeAngle consumes one '>' of a type argument list.
func (p *sparkTypeParser) closeAngle() error { return p.expect('>') }

func (p *sparkTypeParser) ints() ([]int32, error) {
	if p.peek() != '(' {
		return nil, nil
	}
	p.i++
	var out []int32
	for {
		w := p.word()
		n, err := strconv.ParseInt(w, 10, 32)
		if err != nil {
			return nil, p.errf("a number is expected in a type modifier")
		}
		out = append(out, int32(n))
		if p.peek() == ',' {
			p.i++
			continue
		}
		return out, p.expect(')')
	}
}

func (p *sparkTypeParser) typ() (T, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxSparkTypeDepth {
		return T{}, sqlerr.StackDepthExceeded()
	}
	at := p.i
	w := strings.ToLower(p.word())
	switch w {
	case "":
		return T{}, p.errf("a type is expected at %d", p.i+1)
	case "array":
		if err := p.expect('<'); err != nil {
			return T{}, err
		}
		et, err := p.typ()
		if err != nil {
			return T{}, err
		}
		if et.IsArray() || et.IsStruct() {
			return T{}, sqlerr.New(sqlerr.FeatureNotSupported, "ARRAY<%s> is not supported: weir's arrays hold scalar values", strings.TrimSpace(p.s[at:p.i]))
		}
		// The element's modifier stays on the array, as numeric(10,2)[] keeps it.
		return T{ArrayOf(et).OID, et.Typmod}, p.closeAngle()
	case "struct":
		if err := p.expect('<'); err != nil {
			return T{}, err
		}
		fs, err := p.fields('>')
		if err != nil {
			return T{}, err
		}
		return StructOf(fs), p.closeAngle()
	case "map":
		return T{}, sqlerr.New(sqlerr.FeatureNotSupported, "MAP is not supported: use STRUCT<...> or jsonb").
			WithHint("Use STRUCT<...> for a fixed set of keys, or jsonb for a map.")
	case "decimal", "dec", "numeric":
		mods, err := p.ints()
		if err != nil {
			return T{}, err
		}
		prec, scale := int32(10), int32(0) // Spark's DECIMAL is DECIMAL(10,0)
		switch len(mods) {
		case 0:
		case 1:
			prec = mods[0]
		case 2:
			prec, scale = mods[0], mods[1]
		default:
			return T{}, p.errf("DECIMAL takes a precision and a scale")
		}
		if prec < 1 || prec > 1000 || scale < 0 || scale > prec {
			return T{}, sqlerr.New(sqlerr.InvalidParameterValue, "DECIMAL(%d,%d) is out of range", prec, scale)
		}
		return T{OidNumeric, ((prec << 16) | scale) + 4}, nil
	case "varchar", "char":
		mods, err := p.ints()
		if err != nil {
			return T{}, err
		}
		t := Varchar
		if w == "char" {
			t = Bpchar
		}
		if len(mods) == 1 && mods[0] >= 1 {
			t.Typmod = mods[0] + 4
		}
		return t, nil
	}
	if t, ok := sparkNames[w]; ok {
		return t, nil
	}
	if t, ok := sparkOnlyNames[w]; ok {
		return t, nil
	}
	if t, ok := ByName(w); ok && t.OID != OidRecord && t.Info().Category != 'P' {
		return t, nil
	}
	return T{}, &sqlerr.Error{Code: sqlerr.UndefinedObject, Message: "type \"" + w + "\" does not exist"}
}

// fields reads "name [:] type [NOT NULL] [COMMENT '...']" items separated
// by commas, up to the closing byte (0: the end of the text).
func (p *sparkTypeParser) fields(closer byte) ([]StructField, error) {
	fs := []StructField{}
	if c := p.peek(); c == closer {
		return fs, nil
	}
	seen := map[string]bool{}
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		if p.peek() == ':' {
			p.i++
		}
		t, err := p.typ()
		if err != nil {
			return nil, err
		}
		if err := p.fieldOptions(); err != nil {
			return nil, err
		}
		key := strings.ToLower(n)
		if seen[key] {
			return nil, sqlerr.New(sqlerr.DuplicateColumn, "field \"%s\" appears twice in a struct type", n)
		}
		seen[key] = true
		fs = append(fs, StructField{Name: n, Type: t})
		if p.peek() != ',' {
			return fs, nil
		}
		p.i++
	}
}

func (p *sparkTypeParser) fieldOptions() error {
	for {
		save := p.i
		switch strings.ToLower(p.word()) {
		case "not":
			if strings.ToLower(p.word()) != "null" {
				return p.errf("NOT NULL expected")
			}
		case "comment":
			if p.peek() != '\'' {
				return p.errf("a quoted comment is expected")
			}
			p.i++
			for {
				if p.i >= len(p.s) {
					return p.errf("unterminated comment")
				}
				c := p.s[p.i]
				p.i++
				if c == '\'' {
					if p.i < len(p.s) && p.s[p.i] == '\'' {
						p.i++
						continue
					}
					break
				}
			}
		default:
			p.i = save
			return nil
		}
	}
}

// SparkName spells t as Spark and Databricks print a type (DESCRIBE,
// schema strings): struct<start:timestamp,end:timestamp>, array<int>,
// decimal(10,2). Types Spark has no name for keep PostgreSQL's.
func SparkName(t T) string {
	if t.IsStruct() {
		var b strings.Builder
		b.WriteString("struct<")
		for i, f := range t.Fields() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f.Name)
			b.WriteByte(':')
			b.WriteString(SparkName(f.Type))
		}
		b.WriteByte('>')
		return b.String()
	}
	if t.IsArray() {
		return "array<" + SparkName(elemType(t)) + ">"
	}
	switch t.OID {
	case OidText, OidVarchar, OidBpchar, OidName:
		return "string"
	case OidInt2:
		return "smallint"
	case OidInt4:
		return "int"
	case OidInt8:
		return "bigint"
	case OidFloat4:
		return "float"
	case OidFloat8:
		return "double"
	case OidNumeric:
		if t.Typmod >= 4 {
			m := t.Typmod - 4
			return "decimal(" + strconv.Itoa(int(m>>16&0xffff)) + "," + strconv.Itoa(int(m&0xffff)) + ")"
		}
		return "decimal"
	case OidBool:
		return "boolean"
	case OidDate:
		return "date"
	case OidTimestampTZ:
		return "timestamp"
	case OidTimestamp:
		return "timestamp_ntz"
	case OidBytea:
		return "binary"
	}
	return t.String()
}
