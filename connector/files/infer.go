package files

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Schema inference, as read_files does it (read_files infers column types
// by default, unlike Auto Loader's cloudFiles, whose default for JSON and
// CSV is every column STRING; inferColumnTypes = false gives that):
//
//   - JSON: numbers without fraction or exponent are bigint, other
//     numbers double, true/false boolean, strings text (strings are not
//     read as timestamps: Spark's JSON inferTimestamp is off by default;
//     a schema hint 'ts TIMESTAMP' types them), objects and arrays jsonb;
//   - CSV: a cell is bigint, double, boolean (true/false, any case), date
//     (yyyy-mm-dd), timestamp (yyyy-mm-dd hh:mm:ss[.f][zone], 'T' or
//     space) or text; empty cells tell nothing;
//   - values of different kinds in one field widen: bigint and double to
//     double, date and timestamp to timestamp, anything else to text;
//     a field only ever null is text;
//   - fields are in the order first seen; names keep their case; a name
//     that differs from an earlier one only in case is not another column
//     (Spark's names are case-insensitive): the first spelling seen is
//     the column, and values under the others are rescued when decoded;
//   - Parquet: the files' own schemas, mapped to weir's types (parquetType).
//
// Spark's TIMESTAMP (an instant) is weir's timestamptz.

type inferKind uint8

const (
	inferNull inferKind = iota
	inferBool
	inferInt
	inferDouble
	inferDate
	inferTimestamp
	inferJSON
	inferText
)

func widen(a, b inferKind) inferKind {
	switch {
	case a == b || b == inferNull:
		return a
	case a == inferNull:
		return b
	case a == inferInt && b == inferDouble || a == inferDouble && b == inferInt:
		return inferDouble
	case a == inferDate && b == inferTimestamp || a == inferTimestamp && b == inferDate:
		return inferTimestamp
	}
	return inferText
}

func (k inferKind) typ() types.T {
	switch k {
	case inferBool:
		return types.Bool
	case inferInt:
		return types.Int8
	case inferDouble:
		return types.Float8
	case inferDate:
		return types.Date
	case inferTimestamp:
		return types.TimestampTZ
	case inferJSON:
		return types.JSONB
	}
	return types.Text
}

func jsonInferKind(f *jsonField, textOnly bool) inferKind {
	if f.kind == jsonNull {
		return inferNull
	}
	if textOnly {
		return inferText
	}
	switch f.kind {
	case jsonNumber:
		if f.isInt {
			if _, ok := plainInt(f.val); ok {
				return inferInt
			}
			if _, err := strconv.ParseInt(string(f.val), 10, 64); err == nil {
				return inferInt
			}
		}
		return inferDouble
	case jsonTrue, jsonFalse:
		return inferBool
	case jsonObject, jsonArray:
		return inferJSON
	}
	return inferText
}

func csvInferKind(v []byte, textOnly bool) inferKind {
	if len(v) == 0 {
		return inferNull
	}
	if textOnly {
		return inferText
	}
	if _, ok := plainInt(v); ok {
		return inferInt
	}
	if end, isInt, ok := number(v, 0); ok && end == len(v) {
		if isInt {
			if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				return inferInt
			}
		}
		return inferDouble
	}
	if bytes.EqualFold(v, []byte("true")) || bytes.EqualFold(v, []byte("false")) {
		return inferBool
	}
	if isISODate(v) {
		if len(v) == 10 {
			return inferDate
		}
		if (v[10] == ' ' || v[10] == 'T') && validTimestamp(v) {
			return inferTimestamp
		}
	}
	return inferText
}

func validTimestamp(v []byte) bool {
	_, err := types.ParseTimestampTZ(string(v), time.UTC)
	return err == nil
}

// isISODate: v starts with yyyy-mm-dd.
func isISODate(v []byte) bool {
	if len(v) < 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for _, k := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if v[k] < '0' || v[k] > '9' {
			return false
		}
	}
	return true
}

// fieldSet accumulates inferred fields in the order first seen, names
// matched ignoring case.
type fieldSet struct {
	names []string
	kinds []inferKind
	idx   map[string]int // lower-cased name -> index
}

func (f *fieldSet) observe(name []byte, k inferKind) {
	if f.idx == nil {
		f.idx = map[string]int{}
	}
	key := strings.ToLower(string(name))
	i, ok := f.idx[key]
	if !ok {
		i = len(f.names)
		f.idx[key] = i
		f.names = append(f.names, string(name))
		f.kinds = append(f.kinds, k)
		return
	}
	if f.names[i] != string(name) {
		return // another spelling: its values are rescued, not typed
	}
	f.kinds[i] = widen(f.kinds[i], k)
}

func (f *fieldSet) columns() []Column {
	var out []Column
	for i, n := range f.names {
		out = append(out, Column{Name: n, Type: f.kinds[i].typ()})
	}
	return out
}

// newColumns tracks the fields a file has that its schema lacks.
type newColumns struct {
	known      map[string]int // the schema's columns by exact name
	knownLower map[string]bool
	set        fieldSet
	typed      map[string]types.T // types known from the file (Parquet)
}

func (n *newColumns) observe(name []byte, k inferKind) {
	if n.isKnown(string(name)) {
		return // a column's name in another case: rescued only
	}
	n.set.observe(name, k)
}

// isKnown: name is a schema column's, in some case.
func (n *newColumns) isKnown(name string) bool {
	if n.knownLower == nil {
		n.knownLower = make(map[string]bool, len(n.known))
		for k := range n.known {
			n.knownLower[strings.ToLower(k)] = true
		}
	}
	return n.knownLower[strings.ToLower(name)]
}

func (n *newColumns) columns() []Column {
	cols := n.set.columns()
	for i := range cols {
		if t, ok := n.typed[cols[i].Name]; ok {
			cols[i].Type = t
		}
	}
	return cols
}

// Defaults of the sample (Databricks' cloudFiles.schemaInference.sampleSize).
const (
	DefaultSampleFiles = 1000
	DefaultSampleBytes = 50 << 30
)

// Infer samples files (at most sampleFiles of them, sampleBytes in all;
// <= 0 for Databricks' defaults) and returns their schema: the union of
// their fields with types widened, then o.SchemaHints applied; o.Schema
// given: that schema, parsed (hints are then not needed and ignored).
// Rescued is o.RescuedColumn. Version 1. Sampled lines that are not JSON
// objects are skipped. With no file to sample (or no field in any), the
// schema is the hints' columns; without hints it is an error (22023)
// asking for a schema, as Databricks refuses to infer from nothing.
func Infer(files []FileInfo, o Options, sampleFiles int, sampleBytes int64) (Schema, error) {
	s := Schema{Rescued: o.RescuedColumn, Version: 1}
	if strings.TrimSpace(o.Schema) != "" {
		cols, err := parseColumns(o.Schema)
		if err != nil {
			return Schema{}, err
		}
		s.Columns = cols
		return s, nil
	}
	if sampleFiles <= 0 {
		sampleFiles = DefaultSampleFiles
	}
	if sampleBytes <= 0 {
		sampleBytes = DefaultSampleBytes
	}
	if len(files) > sampleFiles {
		files = files[:sampleFiles]
	}
	var cols []Column
	switch o.Format {
	case "text":
		cols = []Column{{Name: TextColumn, Type: types.Text}}
	case "parquet":
		var err error
		if cols, err = inferParquet(files); err != nil {
			return Schema{}, err
		}
	case "json", "csv":
		var fs fieldSet
		if err := observeSample(files, o, sampleBytes, &fs); err != nil { // infer_sample.go
			return Schema{}, err
		}
		cols = fs.columns()
	default:
		return Schema{}, errFormat(o.Format)
	}
	cols, err := applyHints(cols, o.SchemaHints)
	if err != nil {
		return Schema{}, err
	}
	if len(cols) == 0 {
		return Schema{}, sqlerr.New(sqlerr.InvalidParameterValue, "cannot infer a schema for %s: no data under %q", o.Format, o.Path).
			WithHint("Give the schema (schema => 'a INT, b STRING') or schemaHints, or add files first.")
	}
	s.Columns = cols
	return s, nil
}

// parseColumns parses a Spark DDL schema into columns.
func parseColumns(ddl string) ([]Column, error) {
	fs, err := types.ParseSparkSchema(ddl)
	if err != nil {
		return nil, err
	}
	cols := make([]Column, len(fs))
	for i, f := range fs {
		cols[i] = Column{Name: f.Name, Type: f.Type}
	}
	return cols, nil
}

// applyHints overrides the types of the columns hints name (matched
// ignoring case, as Spark's names are) and adds those it names that
// inference did not find.
func applyHints(cols []Column, hints string) ([]Column, error) {
	if strings.TrimSpace(hints) == "" {
		return cols, nil
	}
	hs, err := parseColumns(hints)
	if err != nil {
		return nil, err
	}
	out := append([]Column(nil), cols...)
	for _, h := range hs {
		found := false
		for i := range out {
			if strings.EqualFold(out[i].Name, h.Name) {
				out[i].Type = h.Type
				found = true
				break
			}
		}
		if !found {
			out = append(out, h)
		}
	}
	return out, nil
}

// readSample reads at most n bytes of a file, cut after its last whole
// line when the file is longer, into a reused buffer (filebuf.go); done
// gives it back.
func readSample(path string, n int64) (data []byte, done func(), err error) {
	data, done, err = readWhole(path, n+1)
	if err != nil {
		return nil, nil, ioError(path, err)
	}
	if int64(len(data)) > n {
		data = data[:n]
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		}
	}
	return data, done, nil
}

func inferJSONLines(data []byte, textOnly bool, fs *fieldSet) {
	ff := newFileFields(nil)
	inferJSONFile(data, textOnly, ff)
	ff.mergeInto(fs)
}

// inferJSONFile observes one file's JSON lines.
func inferJSONFile(data []byte, textOnly bool, ff *fileFields) {
	var sc jsonScanner
	data = bytes.TrimPrefix(data, utf8BOM)
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		l := data[pos:end]
		pos = end + 1
		if !sc.parseLine(l) {
			continue
		}
		sc.scratch = sc.scratch[:0]
		for k := range sc.fields {
			f := &sc.fields[k]
			i := ff.field(k, sc.content(f.key, f.keyEsc))
			if !ff.fixed[i] {
				ff.widen(i, jsonInferKind(f, textOnly))
			}
			// The next line likely has this key here: parseLine then
			// matches its token instead of scanning it (a token without
			// escapes; data outlives the pass).
			for len(sc.expect) <= k {
				sc.expect = append(sc.expect, nil)
				sc.order = append(sc.order, -1)
			}
			if !f.keyEsc {
				sc.expect[k] = f.key
			} else {
				sc.expect[k] = nil
			}
		}
	}
}

func inferCSVRecords(data []byte, o Options, fs *fieldSet) {
	ff := newFileFields(nil)
	inferCSVFile(data, o, ff)
	ff.mergeInto(fs)
}

// inferCSVFile observes one CSV file.
func inferCSVFile(data []byte, o Options, ff *fileFields) {
	r := newCSVReader(o)
	data = bytes.TrimPrefix(data, utf8BOM)
	var names [][]byte
	header := false
	for pos := 0; pos < len(data); {
		end, next, _, ok := r.record(data, pos)
		raw := data[pos:end]
		pos = next
		if len(raw) == 0 || !ok {
			continue
		}
		if o.Header && !header {
			header = true
			for _, c := range r.cells {
				names = append(names, bytes.Clone(r.text(data, c)))
			}
			// A header-only file still has its columns.
			for k, n := range names {
				ff.field(k, n)
			}
			continue
		}
		if o.Header && len(r.cells) != len(names) {
			continue // ragged: rescued when decoded, tells nothing
		}
		for k, c := range r.cells {
			var i int
			if o.Header {
				i = ff.field(k, names[k])
			} else {
				i = ff.field(k, csvPositionName(k))
			}
			if ff.fixed[i] {
				continue
			}
			v := r.text(data, c)
			kind := inferNull
			if c.quoted || len(v) > 0 && string(v) != o.NullValue {
				kind = csvInferKind(v, !o.InferColumnTypes)
				if kind == inferNull { // a quoted empty string
					kind = inferText
				}
			}
			ff.widen(i, kind)
		}
	}
}

// csvPositionName is the name of a header-less file's cell k (_c0, _c1, ...).
func csvPositionName(k int) []byte {
	if k < len(csvPositionNames) {
		return csvPositionNames[k]
	}
	return []byte("_c" + strconv.Itoa(k))
}

var csvPositionNames = func() (out [][]byte) {
	for k := 0; k < 64; k++ {
		out = append(out, []byte("_c"+strconv.Itoa(k)))
	}
	return out
}()

// observeType records a new column whose type is known (Parquet).
func (n *newColumns) observeType(name string, t types.T) {
	if n.isKnown(name) {
		return
	}
	if n.typed == nil {
		n.typed = map[string]types.T{}
	}
	n.set.observe([]byte(name), inferNull)
	n.typed[name] = t
}
