package parse

import (
	"reflect"
	"testing"
)

func TestParseColumnMaskStatements(t *testing.T) {
	tests := []struct {
		sql  string
		kind StreamingKind
		name string
		want MaskSpec
	}{
		{"ALTER TABLE users ALTER COLUMN ssn SET MASK ssn_mask", SetColumnMask, "users", MaskSpec{Column: "ssn", Function: "ssn_mask", FunctionPos: 45}},
		{"alter table s.users change ssn set mask s.f using columns (name, 'x', -1, \"Other\")", SetColumnMask, "s.users",
			MaskSpec{Column: "ssn", Function: "s.f", FunctionPos: 41, Using: []string{`"name"`, "'x'", "-1", `"Other"`}}},
		{"ALTER TABLE users ALTER COLUMN ssn DROP MASK", DropColumnMask, "users", MaskSpec{Column: "ssn"}},
		{"ALTER STREAMING TABLE st ALTER COLUMN ssn DROP MASK", DropColumnMask, "st", MaskSpec{Column: "ssn", Streaming: true}},
	}
	for _, tc := range tests {
		st, err := ParseStreaming(tc.sql)
		if err != nil || st == nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if st.Kind != tc.kind || st.Name != tc.name || !reflect.DeepEqual(*st.Mask, tc.want) {
			t.Errorf("%s: kind %d name %s mask %+v", tc.sql, st.Kind, st.Name, *st.Mask)
		}
	}
	// Plain ALTER TABLE is PostgreSQL's.
	for _, q := range []string{"ALTER TABLE users ALTER COLUMN ssn SET DEFAULT 'x'", "ALTER TABLE mask ALTER COLUMN mask TYPE text"} {
		if st, err := ParseStreaming(q); err != nil || st != nil {
			t.Errorf("%s: %+v %v", q, st, err)
		}
	}
	if _, err := ParseStreaming("ALTER TABLE users ALTER COLUMN ssn SET MASK f USING (a)"); err == nil {
		t.Error("USING without COLUMNS accepted")
	}
}

func TestCutColumnMasks(t *testing.T) {
	rest, masks, err := CutColumnMasks("CREATE TABLE users (name STRING, ssn STRING MASK ssn_mask, region STRING NOT NULL MASK m USING COLUMNS (name, 'eu'), mask int)")
	if err != nil {
		t.Fatal(err)
	}
	if want := "CREATE TABLE users (name STRING, ssn STRING , region STRING NOT NULL , mask int)"; rest != want {
		t.Errorf("rest %q, want %q", rest, want)
	}
	want := []ColumnMaskClause{{Column: "ssn", Function: "ssn_mask", Pos: 45}, {Column: "region", Function: "m", Using: []string{`"name"`, "'eu'"}, Pos: 83}}
	if !reflect.DeepEqual(masks, want) {
		t.Errorf("masks %+v, want %+v", masks, want)
	}
	if rest, masks, _ := CutColumnMasks("CREATE TABLE t (a int)"); rest != "CREATE TABLE t (a int)" || masks != nil {
		t.Errorf("no masks: %q %v", rest, masks)
	}
}

func TestCutFunctionCharacteristics(t *testing.T) {
	got, err := CutFunctionCharacteristics("CREATE FUNCTION f(x INT COMMENT 'arg') RETURNS INT NOT DETERMINISTIC CONTAINS SQL COMMENT 'c' RETURN x + 1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "CREATE FUNCTION f(x INT ) RETURNS INT    RETURN x + 1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	q := "CREATE FUNCTION f(x text) RETURNS text RETURN 'deterministic comment ' || x"
	if got, _ := CutFunctionCharacteristics(q); got != q {
		t.Errorf("body touched: %q", got)
	}
}
