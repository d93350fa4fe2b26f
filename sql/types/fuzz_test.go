package types

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fuzzTypes are the registry's types that have input and output functions.
func fuzzTypes() []T {
	var ts []T
	for _, info := range All() {
		switch info.Category {
		case 'P', 'X':
			continue
		}
		ts = append(ts, T{info.OID, -1})
	}
	return ts
}

// parseFormat runs the input function and then the output function.
func parseFormat(typ T, in []byte, fs *FormatSettings) (string, error) {
	b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
	defer b.Release()
	if err := AppendParsedText(b, typ, in, fs); err != nil {
		return "", err
	}
	arr := b.NewArray()
	defer arr.Release()
	return string(AppendText(nil, typ, arr, 0, fs)), nil
}

// FuzzParseText feeds random text to the input function of a random type:
// it must not panic, and text it accepts must print as text that reads
// back to the same value (parse∘format is the identity on outputs), in
// binary as well as in text.
func FuzzParseText(f *testing.F) {
	seeds := []string{"1", "-1.5e-7", "2024-01-02 03:04:05+01", "1 day -02:00:00", "{1,NULL,\"a b\"}",
		`{"b":[1,2],"a":null}`, "\\x0102", "P1Y2M", "NaN", "Jan 2 2024 BC", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "t", "epoch"}
	types := fuzzTypes()
	for i, s := range seeds {
		for k := 0; k < len(types); k += 7 {
			f.Add(uint16(i+k), []byte(s))
		}
	}
	loc, _ := LoadLocation("America/St_Johns")
	fs := &FormatSettings{Location: loc, ExtraFloatDigits: 1}
	f.Fuzz(func(t *testing.T, pick uint16, in []byte) {
		typ := types[int(pick)%len(types)]
		out, err := parseFormat(typ, in, fs)
		if err != nil {
			return
		}
		again, err := parseFormat(typ, []byte(out), fs)
		if err != nil {
			t.Fatalf("%s: %q printed as %q, which does not read back: %v", typ, in, out, err)
		}
		if again != out {
			t.Fatalf("%s: %q printed as %q, which reads back as %q", typ, in, out, again)
		}
		// Binary: send, receive, print.
		b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
		defer b.Release()
		if err := AppendParsedText(b, typ, []byte(out), fs); err != nil {
			t.Fatal(err)
		}
		arr := b.NewArray()
		defer arr.Release()
		bin, err := AppendBinary(nil, typ, arr, 0)
		if err != nil {
			return // types without a binary form
		}
		b2 := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
		defer b2.Release()
		if err := AppendParsedBinary(b2, typ, bin); err != nil {
			t.Fatalf("%s: binary of %q does not read back: %v", typ, out, err)
		}
		arr2 := b2.NewArray()
		defer arr2.Release()
		if got := string(AppendText(nil, typ, arr2, 0, fs)); got != out {
			t.Fatalf("%s: binary round trip of %q gives %q", typ, out, got)
		}
	})
}

var _ = time.UTC
