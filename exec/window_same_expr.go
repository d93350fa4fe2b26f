package exec

import (
	"reflect"

	"github.com/weir-sql/weir/sql/expr"
)

// sameExpr tells whether two bound expressions are the same expression,
// so that window calls over the same PARTITION BY and ORDER BY share one
// sort. It compares the trees field by field; function values (a call's
// kernel, chosen by its name and argument types, which are compared too)
// count as equal when both are set. Anything it cannot compare (maps,
// deep trees) counts as different: that costs a sort, never a wrong
// answer.
func sameExpr(a, b expr.Expr) bool {
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b), 0)
}

func sameValue(x, y reflect.Value, depth int) bool {
	if depth > 64 || x.IsValid() != y.IsValid() {
		return false
	}
	if !x.IsValid() {
		return true
	}
	if x.Type() != y.Type() {
		return false
	}
	switch x.Kind() {
	case reflect.Func:
		return x.IsNil() == y.IsNil()
	case reflect.Pointer, reflect.Interface:
		if x.IsNil() || y.IsNil() {
			return x.IsNil() && y.IsNil()
		}
		if x.Kind() == reflect.Pointer && x.Pointer() == y.Pointer() {
			return true
		}
		return sameValue(x.Elem(), y.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < x.NumField(); i++ {
			if !sameValue(x.Field(i), y.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if x.Len() != y.Len() {
			return false
		}
		for i := 0; i < x.Len(); i++ {
			if !sameValue(x.Index(i), y.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Bool:
		return x.Bool() == y.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return x.Int() == y.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return x.Uint() == y.Uint()
	case reflect.Float32, reflect.Float64:
		return x.Float() == y.Float()
	case reflect.String:
		return x.String() == y.String()
	}
	return false
}
