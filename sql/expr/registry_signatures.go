package expr

import "github.com/weir-sql/weir/sql/types"

// ScalarSignatures returns the argument types of every overload of a
// registered function or operator (AnyElement, AnyArray and Any stand for
// the polymorphic ones; a variadic overload's last type may repeat). Test
// generators use it to call every function with arguments of its types.
func ScalarSignatures(name string) (sigs [][]types.T, variadic []bool) {
	for _, ov := range scalars[name] {
		sigs = append(sigs, append([]types.T(nil), ov.Args...))
		variadic = append(variadic, ov.Variadic)
	}
	return sigs, variadic
}
