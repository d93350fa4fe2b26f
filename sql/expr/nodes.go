package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// FuncCall applies a resolved scalar function or operator to its arguments.
type FuncCall struct {
	Name string
	Args []Expr
	Impl ScalarImpl
	T    types.T
	// Op is set for binary/unary operators, for EXPLAIN and deparsing.
	Op bool
}

func (f *FuncCall) Type() types.T { return f.T }
func (f *FuncCall) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	if n := int(in.NumRows()); n > 1 && f.constantArgs() {
		// The same value for every row: computed once, then repeated (a
		// numeric power(1e30, 33.4) costs 0.1 s; per row of a join it
		// took minutes; found by the SQL fuzzer).
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		r, err := f.eval(ctx, one)
		if err != nil {
			return nil, err
		}
		d := DatumAt(r, 0)
		r.Release()
		return Broadcast(ctx.Allocator(), f.T, d, n)
	}
	return f.eval(ctx, in)
}

// constantArgs says whether the call has arguments, all constants, and is
// not volatile: its value is then the same for every row.
func (f *FuncCall) constantArgs() bool {
	if len(f.Args) == 0 {
		return false
	}
	for _, a := range f.Args {
		if _, ok := a.(*Const); !ok {
			return false
		}
	}
	return !IsVolatile(f.Name)
}

func (f *FuncCall) eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	args := make([]arrow.Array, len(f.Args))
	for i, a := range f.Args {
		v, err := a.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return f.Impl(ctx, args, int(in.NumRows()))
}
func (f *FuncCall) String() string {
	if f.Op && len(f.Args) == 2 {
		return "(" + f.Args[0].String() + " " + f.Name + " " + f.Args[1].String() + ")"
	}
	if f.Op && len(f.Args) == 1 {
		return "(" + f.Name + " " + f.Args[0].String() + ")"
	}
	parts := make([]string, len(f.Args))
	for i, a := range f.Args {
		parts[i] = a.String()
	}
	return f.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Cast converts its argument to T.
type Cast struct {
	Arg  Expr
	T    types.T
	Impl CastImpl
}

func (c *Cast) Type() types.T { return c.T }
func (c *Cast) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	if k, ok := c.Arg.(*Const); ok && in.NumRows() != 1 {
		// A constant cast at run time (a timestamp literal read in the
		// session's TimeZone): convert once, then repeat the value.
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		v, err := k.Eval(ctx, one)
		if err != nil {
			return nil, err
		}
		r, err := c.Impl(ctx, v, c.Arg.Type(), c.T)
		v.Release()
		if err != nil {
			return nil, err
		}
		d := DatumAt(r, 0)
		r.Release()
		return Broadcast(ctx.Allocator(), c.T, d, int(in.NumRows()))
	}
	v, err := c.Arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	return c.Impl(ctx, v, c.Arg.Type(), c.T)
}
func (c *Cast) String() string { return c.Arg.String() + "::" + c.T.String() }

// BoolOp is AND / OR over two or more arguments, with SQL's three-valued
// logic. Every argument is evaluated (no short-circuit across rows), so
// errors in a branch surface even when another branch decides the row, as
// PostgreSQL may also do.
type BoolOp struct {
	And  bool
	Args []Expr
}

func (b *BoolOp) Type() types.T { return types.Bool }
func (b *BoolOp) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	n := int(in.NumRows())
	vals := make([]bool, n)
	nulls := make([]bool, n)
	for i := range vals {
		vals[i] = b.And
	}
	for _, a := range b.Args {
		arr, err := a.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		ba := arr.(*array.Boolean)
		for i := 0; i < n; i++ {
			if ba.IsNull(i) {
				if vals[i] == b.And {
					nulls[i] = true
				}
				continue
			}
			v := ba.Value(i)
			if v != b.And { // false for AND, true for OR decides the row
				vals[i] = v
				nulls[i] = false
			}
		}
	}
	return boolArray(ctx, vals, nulls), nil
}
func (b *BoolOp) String() string {
	op := " OR "
	if b.And {
		op = " AND "
	}
	parts := make([]string, len(b.Args))
	for i, a := range b.Args {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, op) + ")"
}

func boolArray(ctx *Ctx, vals, nulls []bool) arrow.Array {
	bb := array.NewBooleanBuilder(ctx.Allocator())
	defer bb.Release()
	var valid []bool
	if nulls != nil {
		valid = make([]bool, len(nulls))
		for i, isNull := range nulls {
			valid[i] = !isNull
		}
	}
	bb.AppendValues(vals, valid)
	return bb.NewArray()
}

// Not negates a boolean.
type Not struct{ Arg Expr }

func (n *Not) Type() types.T { return types.Bool }
func (n *Not) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	arr, err := n.Arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	ba := arr.(*array.Boolean)
	l := ba.Len()
	vals := make([]bool, l)
	nulls := make([]bool, l)
	for i := 0; i < l; i++ {
		if ba.IsNull(i) {
			nulls[i] = true
		} else {
			vals[i] = !ba.Value(i)
		}
	}
	return boolArray(ctx, vals, nulls), nil
}
func (n *Not) String() string { return "NOT " + n.Arg.String() }

// IsNull is IS [NOT] NULL.
type IsNull struct {
	Arg    Expr
	Negate bool
}

func (x *IsNull) Type() types.T { return types.Bool }
func (x *IsNull) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	arr, err := x.Arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	l := arr.Len()
	vals := make([]bool, l)
	for i := 0; i < l; i++ {
		vals[i] = arr.IsNull(i) != x.Negate
	}
	return boolArray(ctx, vals, nil), nil
}
func (x *IsNull) String() string {
	if x.Negate {
		return x.Arg.String() + " IS NOT NULL"
	}
	return x.Arg.String() + " IS NULL"
}

// BoolTest is IS [NOT] TRUE / FALSE / UNKNOWN.
type BoolTest struct {
	Arg    Expr
	Want   int // 1 true, 0 false, -1 unknown
	Negate bool
}

func (x *BoolTest) Type() types.T { return types.Bool }
func (x *BoolTest) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	arr, err := x.Arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	ba := arr.(*array.Boolean)
	vals := make([]bool, ba.Len())
	for i := range vals {
		var r bool
		switch {
		case ba.IsNull(i):
			r = x.Want == -1
		case x.Want == 1:
			r = ba.Value(i)
		case x.Want == 0:
			r = !ba.Value(i)
		}
		vals[i] = r != x.Negate
	}
	return boolArray(ctx, vals, nil), nil
}
func (x *BoolTest) String() string { return fmt.Sprintf("%s IS %v", x.Arg, x.Want) }

// Case is CASE WHEN c1 THEN r1 ... ELSE e END (the simple form is rewritten
// by the binder into equality tests). Branch results are computed only for
// rows that reach them, so CASE WHEN x <> 0 THEN 1/x END does not divide by
// zero.
type Case struct {
	Whens []Expr
	Thens []Expr
	Else  Expr // nil = NULL
	T     types.T
}

func (c *Case) Type() types.T { return c.T }
func (c *Case) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	n := int(in.NumRows())
	chosen := make([]int, n) // branch index per row; len(Whens) = else
	for i := range chosen {
		chosen[i] = -1
	}
	// Each branch's batch holds copies of only the columns CASE reads.
	used := make([]bool, in.NumCols())
	if !columnsRead(c, used) {
		used = nil
	}
	remaining := n
	for w, cond := range c.Whens {
		if remaining == 0 {
			break
		}
		sub, idx := selectRowsOf(in, chosen, -1, used)
		arr, err := cond.Eval(ctx, sub)
		if err != nil {
			return nil, err
		}
		ba := arr.(*array.Boolean)
		for j, row := range idx {
			if !ba.IsNull(j) && ba.Value(j) {
				chosen[row] = w
				remaining--
			}
		}
	}
	for i := range chosen {
		if chosen[i] == -1 {
			chosen[i] = len(c.Whens)
		}
	}
	results := make([]arrow.Array, len(c.Whens)+1)
	positions := make([][]int, len(c.Whens)+1)
	for b := 0; b <= len(c.Whens); b++ {
		sub, idx := selectRowsOf(in, chosen, b, used)
		positions[b] = idx
		if len(idx) == 0 {
			continue
		}
		var e Expr
		if b < len(c.Whens) {
			e = c.Thens[b]
		} else {
			e = c.Else
		}
		if e == nil {
			continue
		}
		arr, err := e.Eval(ctx, sub)
		if err != nil {
			return nil, err
		}
		results[b] = arr
	}
	out := NewBuilder(ctx.Allocator(), c.T)
	defer out.Release()
	cursor := make([]int, len(results))
	for i := 0; i < n; i++ {
		b := chosen[i]
		if results[b] == nil {
			out.AppendNull()
			continue
		}
		appendValueAt(out, results[b], cursor[b])
		cursor[b]++
	}
	return out.NewArray(), nil
}
func (c *Case) String() string {
	var sb strings.Builder
	sb.WriteString("CASE")
	for i := range c.Whens {
		fmt.Fprintf(&sb, " WHEN %s THEN %s", c.Whens[i], c.Thens[i])
	}
	if c.Else != nil {
		fmt.Fprintf(&sb, " ELSE %s", c.Else)
	}
	sb.WriteString(" END")
	return sb.String()
}

// selectRowsOf returns the rows of in whose chosen[i] == want, and their
// positions, copying only the columns marked in used (nil: all; see
// takeRowsOf). When every row qualifies, in itself is returned.
func selectRowsOf(in arrow.RecordBatch, chosen []int, want int, used []bool) (arrow.RecordBatch, []int) {
	idx := make([]int, 0, len(chosen))
	for i, c := range chosen {
		if c == want {
			idx = append(idx, i)
		}
	}
	if len(idx) == len(chosen) {
		return in, idx
	}
	return takeRowsOf(in, idx, used), idx
}

// TakeRows builds a batch holding the given rows of in.
func TakeRows(in arrow.RecordBatch, idx []int) arrow.RecordBatch {
	cols := make([]arrow.Array, in.NumCols())
	for c := range cols {
		cols[c] = TakeArray(in.Column(c), idx)
	}
	return array.NewRecordBatch(in.Schema(), cols, int64(len(idx)))
}

// TakeArray gathers elements idx of arr. Fixed-width, struct and list
// columns are gathered without a builder, strings and booleans by a typed
// loop; others through Datums.
func TakeArray(arr arrow.Array, idx []int) arrow.Array {
	if out, ok := takeDirect(arr, idx); ok { // take_direct.go
		return out
	}
	b := array.NewBuilder(defaultMem(), arr.DataType())
	defer b.Release()
	b.Reserve(len(idx))
	if out, ok := takeFast(arr, b, idx); ok { // take.go
		return out
	}
	for _, i := range idx {
		AppendDatum(b, DatumAt(arr, i))
	}
	return b.NewArray()
}

// InList is x [NOT] IN (v1, v2, ...), with SQL's NULL semantics: no match
// and a NULL among the values gives NULL.
type InList struct {
	Arg    Expr
	List   []Expr
	Negate bool
	Eq     ScalarImpl // equality over (Arg type, Arg type)
}

func (x *InList) Type() types.T { return types.Bool }
func (x *InList) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	n := int(in.NumRows())
	left, err := x.Arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	found := make([]bool, n)
	sawNull := make([]bool, n)
	for _, e := range x.List {
		right, err := e.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		eq, err := x.Eq(ctx, []arrow.Array{left, right}, n)
		if err != nil {
			return nil, err
		}
		ba := eq.(*array.Boolean)
		for i := 0; i < n; i++ {
			if ba.IsNull(i) {
				sawNull[i] = true
			} else if ba.Value(i) {
				found[i] = true
			}
		}
	}
	vals := make([]bool, n)
	nulls := make([]bool, n)
	for i := 0; i < n; i++ {
		switch {
		case found[i]:
			vals[i] = !x.Negate
		case sawNull[i] || left.IsNull(i):
			nulls[i] = true
		default:
			vals[i] = x.Negate
		}
	}
	return boolArray(ctx, vals, nulls), nil
}
func (x *InList) String() string {
	parts := make([]string, len(x.List))
	for i, a := range x.List {
		parts[i] = a.String()
	}
	op := " IN ("
	if x.Negate {
		op = " NOT IN ("
	}
	return x.Arg.String() + op + strings.Join(parts, ", ") + ")"
}

// Coalesce returns its first non-null argument; later arguments are
// evaluated only for rows still null.
type Coalesce struct {
	Args []Expr
	T    types.T
}

func (c *Coalesce) Type() types.T { return c.T }
func (c *Coalesce) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	n := int(in.NumRows())
	out := make([]Datum, n)
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	for _, a := range c.Args {
		if len(pending) == 0 {
			break
		}
		sub := in
		if len(pending) != n {
			sub = TakeRows(in, pending)
		}
		arr, err := a.Eval(ctx, sub)
		if err != nil {
			return nil, err
		}
		next := pending[:0:0]
		for j, row := range pending {
			if arr.IsNull(j) {
				next = append(next, row)
			} else {
				out[row] = DatumAt(arr, j)
			}
		}
		pending = next
	}
	return ArrayFromDatums(ctx.Allocator(), c.T, out), nil
}
func (c *Coalesce) String() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	return "COALESCE(" + strings.Join(parts, ", ") + ")"
}

// Subquery is a scalar, EXISTS, IN or ANY/ALL subquery. The planner fills
// Plan; the executor fills Run before evaluation. Run returns, for every
// row of in, the subquery's value (with in's rows pushed as Ctx.Outer when
// the subquery is correlated).
type Subquery struct {
	Kind       SubqueryKind
	Plan       any
	Correlated bool
	T          types.T
	// For IN / ANY / ALL: the left operand and the comparison.
	Left Expr
	Cmp  ScalarImpl
	Op   string
	Run  func(ctx *Ctx, s *Subquery, in arrow.RecordBatch) (arrow.Array, error)
}

// SubqueryKind says what a subquery expression computes.
type SubqueryKind int

const (
	ScalarSubquery SubqueryKind = iota
	ExistsSubquery
	AnySubquery // x op ANY (subquery); IN is ANY with =
	AllSubquery
	// ArraySubquery is ARRAY(subquery): the single column's values as an array.
	ArraySubquery
)

func (s *Subquery) Type() types.T { return s.T }
func (s *Subquery) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	if s.Run == nil {
		return nil, fmt.Errorf("subquery not prepared for execution")
	}
	return s.Run(ctx, s, in)
}
func (s *Subquery) String() string {
	switch s.Kind {
	case ExistsSubquery:
		return "EXISTS(subquery)"
	case AnySubquery:
		return s.Left.String() + " " + s.Op + " ANY(subquery)"
	case AllSubquery:
		return s.Left.String() + " " + s.Op + " ALL(subquery)"
	}
	return "(subquery)"
}

// valueArray and valueBuilder are the typed array/builder pairs takeTyped
// copies between.
type valueArray[V any] interface {
	IsNull(i int) bool
	Value(i int) V
}

type valueBuilder[V any] interface {
	AppendNull()
	Append(v V)
	NewArray() arrow.Array
}

func takeTyped[V any](a valueArray[V], b valueBuilder[V], idx []int) arrow.Array {
	for _, i := range idx {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(a.Value(i))
		}
	}
	return b.NewArray()
}
