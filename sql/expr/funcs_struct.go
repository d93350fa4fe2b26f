package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Struct values: building one from its fields (ROW(...), struct(...),
// named_struct(...), Spark's window() column) and reading one field
// (w.start, (w).start).

// MakeStruct builds a struct of type T from one expression per field. The
// expressions' types are the fields' types (the binder coerces them), so
// their columns become the struct's children as they are: no copy.
type MakeStruct struct {
	Fields []Expr
	T      types.T
}

func (m *MakeStruct) Type() types.T { return m.T }

func (m *MakeStruct) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	n := int(in.NumRows())
	children := make([]arrow.ArrayData, len(m.Fields))
	defer func() {
		for _, c := range children {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range m.Fields {
		v, err := f.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		children[i] = v.Data()
		children[i].Retain()
		v.Release()
	}
	return NewStructArray(m.T, n, children), nil
}

func (m *MakeStruct) String() string {
	parts := make([]string, len(m.Fields))
	for i, f := range m.Fields {
		parts[i] = f.String()
	}
	return "ROW(" + strings.Join(parts, ", ") + ")"
}

// NewStructArray makes a struct array of t, n rows, none NULL, over the
// children's data (retained by the new array).
func NewStructArray(t types.T, n int, children []arrow.ArrayData) arrow.Array {
	data := array.NewData(t.Arrow(), n, []*memory.Buffer{nil}, children, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// FieldSelect reads field Index of a struct-valued argument; a NULL struct
// gives a NULL field.
type FieldSelect struct {
	Arg   Expr
	Index int
	Name  string
	T     types.T
}

func (f *FieldSelect) Type() types.T { return f.T }

func (f *FieldSelect) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	v, err := f.Arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	sa, ok := v.(*array.Struct)
	if !ok {
		if v.NullN() == v.Len() {
			return array.MakeArrayOfNull(ctx.Allocator(), f.T.Arrow(), v.Len()), nil
		}
		return nil, sqlerr.New(sqlerr.InternalError, "field %s read from a %T", f.Name, v)
	}
	child := sa.Field(f.Index)
	if sa.NullN() == 0 {
		child.Retain()
		return child, nil
	}
	// Some structs are NULL: their fields must read as NULL whatever the
	// child holds under them.
	b := NewBuilder(ctx.Allocator(), f.T)
	defer b.Release()
	b.Reserve(sa.Len())
	for i := 0; i < sa.Len(); i++ {
		if sa.IsNull(i) {
			b.AppendNull()
			continue
		}
		AppendDatum(b, DatumAt(child, i))
	}
	return b.NewArray(), nil
}

func (f *FieldSelect) String() string { return "(" + f.Arg.String() + ")." + f.Name }
