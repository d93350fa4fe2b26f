package iceberg

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// typedColumns is a streaming table of every type the sink maps.
var typedColumns = []Column{
	{"n", types.Int8},
	{"i", types.Int4},
	{"sm", types.Int2},
	{"d", types.Float8},
	{"num", types.T{OID: types.OidNumeric, Typmod: types.NumericTypmod(12, 2)}},
	{"s", types.Text},
	{"b", types.Bool},
	{"dt", types.Date},
	{"ts", types.Timestamp},
	{"tstz", types.TimestampTZ},
	{"j", types.JSONB},
}

// typedRow is one row of typedColumns; n alone is never null.
type typedRow struct {
	n    int64
	null bool   // every other column is null
	num  string // numeric's canonical text, as weir carries it
}

const dayMicros = 86_400_000_000

// expected is the row as text, the way both readers are compared.
func (r typedRow) expected() string {
	if r.null {
		return fmt.Sprintf("%d|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL", r.n)
	}
	num := r.num // as numeric(12,2) shows it: two fractional digits
	if !strings.Contains(num, ".") {
		num += "."
	}
	for len(num)-strings.IndexByte(num, '.') < 3 {
		num += "0"
	}
	return fmt.Sprintf("%d|%d|%d|%g|%s|row %d|%t|%d|%d|%d|{\"n\": %d}",
		r.n, r.n, r.n, float64(r.n)/4, num, r.n, r.n%2 == 0, 19000+r.n, (19000+r.n)*dayMicros+r.n, (19000+r.n)*dayMicros+7*r.n, r.n)
}

// typedBatch builds rows in weir's Arrow representation (sql/types).
func typedBatch(rows ...typedRow) []arrow.RecordBatch {
	fields := make([]arrow.Field, len(typedColumns))
	for i, c := range typedColumns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.n)
		if r.null {
			for i := 1; i < len(fields); i++ {
				b.Field(i).AppendNull()
			}
			continue
		}
		b.Field(1).(*array.Int32Builder).Append(int32(r.n))
		b.Field(2).(*array.Int16Builder).Append(int16(r.n))
		b.Field(3).(*array.Float64Builder).Append(float64(r.n) / 4)
		b.Field(4).(*array.StringBuilder).Append(r.num)
		b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("row %d", r.n))
		b.Field(6).(*array.BooleanBuilder).Append(r.n%2 == 0)
		b.Field(7).(*array.Date32Builder).Append(arrow.Date32(19000 + r.n))
		b.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp((19000+r.n)*dayMicros + r.n))
		b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp((19000+r.n)*dayMicros + 7*r.n))
		b.Field(10).(*array.StringBuilder).Append(fmt.Sprintf("{\"n\": %d}", r.n))
	}
	return []arrow.RecordBatch{b.NewRecordBatch()}
}

// typedEpochs are the epochs the typed tests write.
var typedEpochs = [][]typedRow{
	{{n: 1, num: "123.45"}, {n: 2, num: "-0.05"}},
	{{n: 3, null: true}},
	{},
	{{n: 4, num: "7"}, {n: 5, num: "9999999999.99"}, {n: 6, num: "-42.1"}},
}

func writeTypedEpochs(t *testing.T) Config {
	t.Helper()
	cfg := Config{
		Options:  Options{Warehouse: t.TempDir(), Namespace: []string{"lake", "silver"}, Table: "typed"},
		Identity: "typed#1",
		Columns:  typedColumns,
	}
	st := openStore(t)
	s := mustOpen(t, cfg)
	for i, rows := range typedEpochs {
		if err := connector.WriteEpoch(st, s, int64(i+1), typedBatch(rows...)); err != nil {
			t.Fatalf("epoch %d: %v", i+1, err)
		}
	}
	return cfg
}

func allExpected() map[int64]string {
	want := map[int64]string{}
	for _, rows := range typedEpochs {
		for _, r := range rows {
			want[r.n] = r.expected()
		}
	}
	return want
}

// Every mapped type reads back through iceberg-go as the value written.
func TestTypesReadBackIceberg(t *testing.T) {
	cfg := writeTypedEpochs(t)
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("reader", cfg.Warehouse, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, []string{"lake", "silver", "typed"})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := "n: optional long, i: optional int, sm: optional int, d: optional double, num: optional decimal(12, 2), s: optional string, " +
		"b: optional boolean, dt: optional date, ts: optional timestamp, tstz: optional timestamptz, j: optional string"
	var got []string
	for _, f := range tbl.Schema().Fields() {
		got = append(got, fmt.Sprintf("%s: optional %s", f.Name, f.Type))
	}
	if g := strings.Join(got, ", "); g != wantTypes {
		t.Errorf("schema:\n got %s\nwant %s", g, wantTypes)
	}
	_, recs, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			n := rec.Column(0).(*array.Int64).Value(r)
			vals := []string{fmt.Sprint(n)}
			for c := 1; c < int(rec.NumCols()); c++ {
				vals = append(vals, cellText(rec.Column(c), r))
			}
			seen[n] = strings.Join(vals, "|")
		}
		rec.Release()
	}
	want := allExpected()
	for n, w := range want {
		if seen[n] != w {
			t.Errorf("row %d:\n got %s\nwant %s", n, seen[n], w)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("read %d rows, want %d", len(seen), len(want))
	}
}

// cellText spells a value as typedRow.expected does.
func cellText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Int32:
		return fmt.Sprint(a.Value(i))
	case *array.Int64:
		return fmt.Sprint(a.Value(i))
	case *array.Float64:
		return fmt.Sprintf("%g", a.Value(i))
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.String:
		return a.Value(i)
	case *array.Boolean:
		return fmt.Sprint(a.Value(i))
	case *array.Date32:
		return fmt.Sprint(int64(a.Value(i)))
	case *array.Timestamp:
		return fmt.Sprint(int64(a.Value(i)))
	}
	return "?" + a.DataType().String()
}

func TestUnsupportedTypes(t *testing.T) {
	for _, tc := range []struct {
		typ  types.T
		want string
	}{
		{types.Interval, `column "c" of type interval cannot be written to an Iceberg table`},
		{types.Numeric, `column "c" of type numeric cannot be written to an Iceberg table`},
		{types.T{OID: types.OidNumeric, Typmod: types.NumericTypmod(40, 2)}, `column "c" of type numeric(40,2) cannot be written to an Iceberg table`},
		{types.T{OID: types.OidNumeric, Typmod: types.NumericTypmod(2, 5)}, `column "c" of type numeric(2,5) cannot be written to an Iceberg table`},
		{types.ArrayOf(types.Int4), `column "c" of type integer[] cannot be written to an Iceberg table`},
		{types.UUID, `column "c" of type uuid cannot be written to an Iceberg table`},
	} {
		_, err := Open(Config{Options: Options{Warehouse: t.TempDir(), Namespace: []string{"default"}, Table: "t"},
			Identity: "t#1", Columns: []Column{{"ok", types.Int8}, {"c", tc.typ}}})
		if sqlerr.Code(err) != sqlerr.FeatureNotSupported || err.Error() != tc.want {
			t.Errorf("%s: got %v (%s), want 0A000 %s", tc.typ, err, sqlerr.Code(err), tc.want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		in         string
		prec, sc   int
		want, code string
	}{
		{"123.45", 12, 2, "123.45", ""},
		{"-0.05", 12, 2, "-0.05", ""},
		{"7", 12, 2, "7.00", ""},
		{"0", 5, 0, "0", ""},
		{"0.5", 1, 1, "0.5", ""},
		{"12345678901234567890123456.123456789012", 38, 12, "12345678901234567890123456.123456789012", ""},
		{"-99999999999999999999999999999999999999", 38, 0, "-99999999999999999999999999999999999999", ""},
		{"100", 3, 1, "", sqlerr.NumericValueOutOfRange},
		{"1.234", 5, 2, "", sqlerr.InvalidTextRepresentation},
		{"NaN", 5, 2, "", sqlerr.NumericValueOutOfRange},
		{"1e5", 5, 2, "", sqlerr.InvalidTextRepresentation},
	} {
		n, err := parseDecimal(tc.in, tc.prec, tc.sc)
		if tc.code != "" {
			if sqlerr.Code(err) != tc.code {
				t.Errorf("%s: err %v, want %s", tc.in, err, tc.code)
			}
			continue
		}
		if err != nil || n.ToString(int32(tc.sc)) != tc.want {
			t.Errorf("%s as decimal(%d,%d) = %s, %v; want %s", tc.in, tc.prec, tc.sc, n.ToString(int32(tc.sc)), err, tc.want)
		}
	}
}
