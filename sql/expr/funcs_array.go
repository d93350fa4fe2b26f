package expr

import (
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Array functions (one-dimensional arrays with lower bound 1).

func elemRet(a []types.T) types.T {
	for _, t := range a {
		if t.IsArray() {
			return t
		}
	}
	return types.ArrayOf(a[0])
}

// arrayRowImpl is a row-at-a-time array function whose result type is
// known only after resolution.
func arrayRowImpl(strict bool, fn func(ctx *Ctx, argTypes []types.T, a []Datum) (Datum, error)) func(argTypes []types.T, ret types.T) ScalarImpl {
	return func(argTypes []types.T, ret types.T) ScalarImpl {
		f := func(ctx *Ctx, a []Datum) (Datum, error) { return fn(ctx, argTypes, a) }
		if strict {
			return Strict(ret, f)
		}
		return NonStrict(ret, f)
	}
}

func checkDim(d int64) bool { return d == 1 }

func init() {
	intOfArray := func(name string, fn func(n int, dim int64) Datum) {
		RegisterScalar(name, Overload{Args: []types.T{AnyArray, types.Int4}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
			n := len(a[0].([]Datum))
			if n == 0 || !checkDim(a[1].(int64)) {
				return nil, nil
			}
			return fn(n, a[1].(int64)), nil
		})})
	}
	intOfArray("array_length", func(n int, _ int64) Datum { return int64(n) })
	intOfArray("array_upper", func(n int, _ int64) Datum { return int64(n) })
	intOfArray("array_lower", func(n int, _ int64) Datum { return int64(1) })
	RegisterScalar("array_ndims", Overload{Args: []types.T{AnyArray}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
		if len(a[0].([]Datum)) == 0 {
			return nil, nil
		}
		return int64(1), nil
	})})
	RegisterScalar("cardinality", Overload{Args: []types.T{AnyArray}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
		return int64(len(a[0].([]Datum))), nil
	})})
	RegisterScalar("array_append", Overload{Args: []types.T{AnyArray, AnyElement}, RetFn: elemRet, Specialize: arrayRowImpl(false, func(ctx *Ctx, _ []types.T, a []Datum) (Datum, error) {
		var arr []Datum
		if a[0] != nil {
			arr = a[0].([]Datum)
		}
		return append(append([]Datum{}, arr...), a[1]), nil
	})})
	RegisterScalar("array_prepend", Overload{Args: []types.T{AnyElement, AnyArray}, RetFn: elemRet, Specialize: arrayRowImpl(false, func(ctx *Ctx, _ []types.T, a []Datum) (Datum, error) {
		var arr []Datum
		if a[1] != nil {
			arr = a[1].([]Datum)
		}
		return append([]Datum{a[0]}, arr...), nil
	})})
	cat := arrayRowImpl(false, func(ctx *Ctx, _ []types.T, a []Datum) (Datum, error) {
		if a[0] == nil && a[1] == nil {
			return nil, nil
		}
		var x, y []Datum
		if a[0] != nil {
			x = a[0].([]Datum)
		}
		if a[1] != nil {
			y = a[1].([]Datum)
		}
		return append(append([]Datum{}, x...), y...), nil
	})
	RegisterScalar("array_cat", Overload{Args: []types.T{AnyArray, AnyArray}, RetFn: elemRet, Specialize: cat})
	RegisterScalar("||",
		Overload{Args: []types.T{AnyArray, AnyArray}, RetFn: elemRet, Specialize: cat},
		Overload{Args: []types.T{AnyArray, AnyElement}, RetFn: elemRet, Specialize: arrayRowImpl(false, func(ctx *Ctx, _ []types.T, a []Datum) (Datum, error) {
			var arr []Datum
			if a[0] != nil {
				arr = a[0].([]Datum)
			}
			return append(append([]Datum{}, arr...), a[1]), nil
		})},
		Overload{Args: []types.T{AnyElement, AnyArray}, RetFn: elemRet, Specialize: arrayRowImpl(false, func(ctx *Ctx, _ []types.T, a []Datum) (Datum, error) {
			var arr []Datum
			if a[1] != nil {
				arr = a[1].([]Datum)
			}
			return append([]Datum{a[0]}, arr...), nil
		})},
	)
	RegisterScalar("array_position", Overload{Args: []types.T{AnyArray, AnyElement}, Ret: types.Int4, Specialize: func(argTypes []types.T, ret types.T) ScalarImpl {
		return NonStrict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			et := argTypes[1]
			for i, e := range a[0].([]Datum) {
				if e == nil && a[1] == nil {
					return int64(i + 1), nil
				}
				if e == nil || a[1] == nil {
					continue
				}
				if datumText(ctx, et, e) == datumText(ctx, et, a[1]) {
					return int64(i + 1), nil
				}
			}
			return nil, nil
		})
	}})
	arrayToString := func(argTypes []types.T, ret types.T) ScalarImpl {
		return NonStrict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			et := argTypes[0].Elem()
			var parts []string
			for _, e := range a[0].([]Datum) {
				if e == nil {
					if len(a) > 2 && a[2] != nil {
						parts = append(parts, a[2].(string))
					}
					continue
				}
				parts = append(parts, datumText(ctx, et, e))
			}
			return strings.Join(parts, a[1].(string)), nil
		})
	}
	RegisterScalar("array_to_string",
		Overload{Args: []types.T{AnyArray, types.Text}, Ret: types.Text, Specialize: arrayToString},
		Overload{Args: []types.T{AnyArray, types.Text, types.Text}, Ret: types.Text, Specialize: arrayToString},
	)
	ta := types.ArrayOf(types.Text)
	stringToArray := NonStrict(ta, func(ctx *Ctx, a []Datum) (Datum, error) {
		if a[0] == nil {
			return nil, nil
		}
		s := a[0].(string)
		var null *string
		if len(a) > 2 && a[2] != nil {
			v := a[2].(string)
			null = &v
		}
		conv := func(p string) Datum {
			if null != nil && p == *null {
				return nil
			}
			return p
		}
		if s == "" {
			return []Datum{}, nil
		}
		var out []Datum
		switch {
		case a[1] == nil:
			for _, r := range s {
				out = append(out, conv(string(r)))
			}
		case a[1].(string) == "":
			out = []Datum{conv(s)}
		default:
			for _, p := range strings.Split(s, a[1].(string)) {
				out = append(out, conv(p))
			}
		}
		return out, nil
	})
	RegisterScalar("string_to_array",
		Overload{Args: []types.T{types.Text, types.Text}, Ret: ta, Impl: stringToArray},
		Overload{Args: []types.T{types.Text, types.Text, types.Text}, Ret: ta, Impl: stringToArray},
	)
	_ = sqlerr.New
}
