package expr

import (
	"sort"
	"sync"

	"github.com/weir-sql/weir/sql/types"
)

// Signature is one overload of a registered function as pg_proc shows it.
type Signature struct {
	Name     string
	Args     []types.T
	Variadic bool
	Ret      types.T
}

var (
	signaturesOnce sync.Once
	signatures     []Signature
)

// ScalarSignatures lists one entry per overload of every registered
// function (not operators), by name and then registration order. The
// registry is complete after init, so the list, and the position of each
// entry (pg_proc derives OIDs from it), is fixed for a build.
func ScalarSignatures() []Signature {
	signaturesOnce.Do(func() {
		names := make([]string, 0, len(scalars))
		for name := range scalars {
			if isFunctionName(name) {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			for _, ov := range scalars[name] {
				signatures = append(signatures, Signature{Name: name, Args: ov.Args, Variadic: ov.Variadic, Ret: signatureResult(ov)})
			}
		}
	})
	return signatures
}

// isFunctionName tells function names from operator symbols.
func isFunctionName(name string) bool {
	if name == "" {
		return false
	}
	c := name[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// signatureResult is the declared result type; a polymorphic function
// (RetFn) over concrete arguments gets its result for them, and over
// polymorphic ones shows anyelement, as PostgreSQL declares such results.
func signatureResult(ov Overload) types.T {
	if ov.Ret.OID != 0 || ov.RetFn == nil {
		return ov.Ret
	}
	for _, a := range ov.Args {
		switch a.OID {
		case types.OidAnyElement, types.OidAnyArray, types.OidAny:
			return AnyElement
		}
	}
	return ov.RetFn(ov.Args)
}

// OverloadArgs returns the argument types of every overload of a
// registered function or operator (AnyElement, AnyArray and Any stand for
// the polymorphic ones; a variadic overload's last type may repeat). Test
// generators use it to call every function with arguments of its types.
func OverloadArgs(name string) (sigs [][]types.T, variadic []bool) {
	for _, ov := range scalars[name] {
		sigs = append(sigs, append([]types.T(nil), ov.Args...))
		variadic = append(variadic, ov.Variadic)
	}
	return sigs, variadic
}
